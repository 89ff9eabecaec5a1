"""Validated options of the nmt iterators and the epoch plan they give.

Example:
    >>> o = NmtOptions(batch_size=4, num_buckets=5, src_max_len=20)
    >>> o.buffer_size, o.spec()["batching"]
    (4000, 'nmt')
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..args import check_int, optional_int
from ..errors import ConfigError
from ..tfdata.philox import iteration_seeds
from . import plan as P

BATCHING = ("nmt", "tokens", "sorted_pool")
RANK_POLICIES = ("pad", "drop")


@dataclass(frozen=True)
class NmtOptions:
    """Everything that decides which pairs form which batch (part of checkpoints).

    ``src_max_len``/``tgt_max_len``/``output_buffer_size`` keep nmt's
    truthiness rules (0 or None: no truncation / the default buffer).

    Example:
        >>> NmtOptions(batch_size=8, output_buffer_size=0).buffer_size
        8000
        >>> NmtOptions(batch_size=8, batching="tokens")
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option max_tokens should be set with batching='tokens', ...
    """

    batch_size: int
    num_buckets: int = 1
    src_max_len: int | None = None
    tgt_max_len: int | None = None
    output_buffer_size: int | None = None
    skip_count: int | None = None
    num_shards: int = 1
    shard_index: int = 0
    reshuffle_each_iteration: bool = True
    use_char_encode: bool = False
    batching: str = "nmt"
    max_tokens: int | None = None
    max_sentences: int | None = None
    pool_size: int | None = None
    num_ranks: int = 1
    rank: int = 0
    rank_policy: str = "pad"

    def __post_init__(self) -> None:
        for name, low in (("batch_size", 1), ("num_buckets", None), ("src_max_len", None),
                          ("tgt_max_len", None), ("output_buffer_size", None),
                          ("skip_count", None), ("num_shards", 1), ("max_tokens", 1),
                          ("max_sentences", 1), ("pool_size", 1), ("num_ranks", 1)):
            self._set(name, optional_int(name, getattr(self, name), low))  # NumPy ints: ints
        self._set("shard_index", check_int("shard_index", self.shard_index, 0, self.num_shards - 1,
                                           expected=f"in [0, num_shards={self.num_shards})"))
        if self.batching not in BATCHING:
            raise ConfigError(f"option batching should be one of {list(BATCHING)}, but got "
                              f"batching={self.batching!r}")
        if self.batching == "tokens" and self.max_tokens is None:
            raise ConfigError("option max_tokens should be set with batching='tokens', but got "
                              "max_tokens=None; use e.g. max_tokens=4096")
        self._set("rank", check_int("rank", self.rank, 0, self.num_ranks - 1,
                                    expected=f"in [0, num_ranks={self.num_ranks})"))
        if self.rank_policy not in RANK_POLICIES:
            raise ConfigError(f"option rank_policy should be one of {list(RANK_POLICIES)}, but "
                              f"got rank_policy={self.rank_policy!r}")

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    @property
    def buffer_size(self) -> int:
        """The shuffle buffer: ``output_buffer_size or batch_size * 1000`` (nmt).

        Example:
            >>> NmtOptions(128).buffer_size, NmtOptions(4, output_buffer_size=16).buffer_size
            (128000, 16)
        """
        return self.output_buffer_size or self.batch_size * 1000

    def spec(self) -> dict[str, Any]:
        """The options as a JSON-able dict (checkpoint fingerprint).

        Example:
            >>> import json
            >>> s = NmtOptions(batch_size=4, num_buckets=5).spec()
            >>> s["batch_size"], s["num_buckets"], json.loads(json.dumps(s)) == s
            (4, 5, True)
        """
        return asdict(self)


def epoch_plan(o: NmtOptions, src_counts: np.ndarray, tgt_counts: np.ndarray, seed: int,
               seed2: int, k: int, cache: dict[str, Any] | None = None) -> P.Plan:
    """The plan of iteration ``k`` of a shuffle with seeds ``(seed, seed2)``
    (``cache`` keeps what does not change between iterations).

    Example:
        >>> o = NmtOptions(batch_size=2, output_buffer_size=1)
        >>> p = epoch_plan(o, np.array([1, 0, 2, 3]), np.array([1, 1, 1, 1]), 1, 2, 0)
        >>> [p.batch(j)[0].tolist() for j in range(len(p))], p.stats["filtered"]
        ([[0, 2], [3]], 1)
    """
    rows = P.pair_rows(len(src_counts), len(tgt_counts), o.num_shards, o.shard_index,
                       o.skip_count)
    if o.batching != "tokens":
        rows = P.shuffled(rows, iteration_seeds(seed, seed2, k, o.reshuffle_each_iteration),
                          o.buffer_size)
    s, t = src_counts[rows], tgt_counts[rows]
    keep = (s > 0) & (t > 0)
    stats = {"pairs": len(rows), "filtered": int(len(rows) - keep.sum())}
    rows = rows[keep]
    sl, tl = P.truncate(s[keep], o.src_max_len), P.truncate(t[keep], o.tgt_max_len)
    stats["truncated_src"] = int((sl < s[keep]).sum())
    stats["truncated_tgt"] = int((tl < t[keep]).sum())
    if o.batching == "nmt":
        members, bounds = _nmt_batches(o, sl, tl)
        rows, sl, tl = rows[members], sl[members], tl[members]
    elif o.batching == "tokens":
        rows, sl, tl, bounds = _token_batches(o, rows, sl, tl, seed, seed2, k,
                                              {} if cache is None else cache)
    else:
        rows, sl, tl, bounds = _pool_batches(o, rows, sl, tl, seed, seed2, k)
    batches = P.deal(len(bounds) - 1, o.num_ranks, o.rank, o.rank_policy)
    stats["batches"] = len(bounds) - 1
    return P.Plan(rows, sl.astype(np.int32), tl.astype(np.int32), bounds, batches, stats)


def _nmt_batches(o: NmtOptions, sl: np.ndarray, tl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if o.num_buckets > 1:
        return P.window_batches(P.bucket_keys(sl, tl, o.num_buckets, o.src_max_len), o.batch_size)
    return np.arange(len(sl)), P.consecutive_bounds(len(sl), o.batch_size)


def _sizes(sl: np.ndarray, tl: np.ndarray) -> np.ndarray:
    return np.maximum(sl, tl + 1)  # the longer of the source and target_input rows


def _token_batches(o: NmtOptions, rows: np.ndarray, sl: np.ndarray, tl: np.ndarray, seed: int,
                   seed2: int, k: int, cache: dict[str, Any]) -> tuple[np.ndarray, ...]:
    if "tokens" not in cache:  # the sorted order and the cut are the same every iteration
        tie = P.rng_of((seed, seed2)).permutation(len(rows))
        order = tie[np.lexsort((tl[tie], sl[tie]))]
        rows, sl, tl = rows[order], sl[order], tl[order]
        cache["tokens"] = (rows, sl, tl, P.token_bounds(_sizes(sl, tl), o.max_tokens or 0,
                                                         o.max_sentences))
    rows, sl, tl, bounds = cache["tokens"]
    perm = P.iteration_rng(seed, seed2, k, o.reshuffle_each_iteration).permutation(len(bounds) - 1)
    return _reorder(rows, sl, tl, bounds, perm)


def _reorder(rows: np.ndarray, sl: np.ndarray, tl: np.ndarray, bounds: np.ndarray,
             perm: np.ndarray) -> tuple[np.ndarray, ...]:
    sizes = np.diff(bounds)[perm]
    members = np.concatenate([np.arange(bounds[b], bounds[b + 1]) for b in perm.tolist()]) \
        if len(perm) else np.zeros(0, np.int64)
    new_bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return rows[members], sl[members], tl[members], new_bounds


def _pool_batches(o: NmtOptions, rows: np.ndarray, sl: np.ndarray, tl: np.ndarray, seed: int,
                  seed2: int, k: int) -> tuple[np.ndarray, ...]:
    pool = o.pool_size or o.batch_size * 100
    rng = P.iteration_rng(seed, seed2, k, o.reshuffle_each_iteration)
    out_rows, out_sl, out_tl, out_bounds = [], [], [], [np.zeros(1, np.int64)]
    done = 0
    for start in range(0, len(rows), pool):
        part = slice(start, start + pool)
        order = np.lexsort((tl[part], sl[part]))
        r, s, t = rows[part][order], sl[part][order], tl[part][order]
        bounds = P.token_bounds(_sizes(s, t), o.max_tokens, o.max_sentences or o.batch_size) \
            if o.max_tokens else P.consecutive_bounds(len(r), o.batch_size)
        r, s, t, bounds = _reorder(r, s, t, bounds, rng.permutation(len(bounds) - 1))
        out_rows.append(r)
        out_sl.append(s)
        out_tl.append(t)
        out_bounds.append(bounds[1:] + done)
        done += len(r)
    if not out_rows:
        return rows, sl, tl, np.zeros(1, np.int64)
    return (np.concatenate(out_rows), np.concatenate(out_sl), np.concatenate(out_tl),
            np.concatenate(out_bounds))
