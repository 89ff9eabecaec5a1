"""Epoch plans of the nmt iterators: which pairs form which batch, from token
counts alone (no ids are looked up until a batch is read).

A plan is a pure function of the options, the per-line token counts, the
shuffle seeds and the iteration number; an iterator is a plan plus a batch
cursor, so a checkpoint is ``{"k": iteration, "batch": b}`` and a restore
recomputes the plan and seeks (docs/design/nmt-plans.md).

Policies:

* ``"nmt"``: tensorflow/nmt exactly: zip (to the shorter file), shard raw
  lines, skip, the tf.data shuffle of the raw pairs, filter empty sides,
  truncate, then ``group_by_window`` with ``num_buckets + 1`` keys (or one
  padded batch stream when ``num_buckets <= 1``);
* ``"tokens"``: fairseq's ``batch_by_size``: pairs sorted by (source, target)
  length with a seeded random tie-break, cut greedily so that
  ``batch size x longest side <= max_tokens``; the batch list is fixed and its
  order reshuffled every iteration;
* ``"sorted_pool"``: torchtext/OpenNMT pools: the nmt shuffle stream cut into
  pools of ``pool_size`` pairs, sorted by length inside a pool, cut by count
  (or tokens) and the pool's batches shuffled.

Example:
    >>> keys = np.array([0, 1, 0, 0, 1, 2])
    >>> members, bounds = window_batches(keys, 2)
    >>> [members[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])]
    [[0, 2], [1, 4], [3], [5]]
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..tfdata.philox import iteration_seeds
from ..tfdata.shuffle import shuffle_order

log = logging.getLogger("minibatcher")


def truncate(counts: np.ndarray, max_len: int | None) -> np.ndarray:
    """Words kept by ``words[:max_len]`` when ``max_len`` is truthy (Python slicing).

    Example:
        >>> truncate(np.array([0, 3, 7]), 5).tolist(), truncate(np.array([3]), -1).tolist()
        ([0, 3, 5], [2])
    """
    counts = np.asarray(counts, dtype=np.int64)
    if not max_len:
        return counts
    if max_len > 0:
        return np.minimum(counts, max_len)
    return np.maximum(counts + max_len, 0)


def pair_rows(n_src: int, n_tgt: int, num_shards: int, shard_index: int,
              skip_count: int | None) -> np.ndarray:
    """Raw line indices after ``zip`` (shorter file), ``shard`` and ``skip``.

    Example:
        >>> pair_rows(10, 8, 3, 1, 1).tolist()
        [4, 7]
    """
    rows = np.arange(shard_index, min(n_src, n_tgt), num_shards, dtype=np.int64)
    if skip_count is None:
        return rows
    return rows[len(rows):] if skip_count < 0 else rows[skip_count:]


def bucket_keys(src_len: np.ndarray, tgt_len: np.ndarray, num_buckets: int,
                src_max_len: int | None) -> np.ndarray:
    """nmt's key: ``min(num_buckets, max(src_len // w, (tgt_len + 1) // w))``
    with ``w = ceil(src_max_len / num_buckets)`` (10 without ``src_max_len``).

    Example:
        >>> bucket_keys(np.array([19, 20, 3]), np.array([2, 2, 30]), 5, 20).tolist()
        [4, 5, 5]
    """
    width = (src_max_len + num_buckets - 1) // num_buckets if src_max_len else 10
    if width == 0:
        raise ValueError(f"the bucket width (src_max_len + num_buckets - 1) // num_buckets is 0 "
                         f"for src_max_len={src_max_len}, num_buckets={num_buckets}")
    key = np.maximum(src_len // width, (tgt_len + 1) // width)
    return np.minimum(num_buckets, key)


def window_batches(keys: np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray]:
    """``group_by_window`` on positions: full windows in the order they fill,
    then the partial ones in ascending key order. Returns ``(members, bounds)``.

    Example:
        >>> m, b = window_batches(np.array([3, 3, 3]), 2); m.tolist(), b.tolist()
        ([0, 1, 2], [0, 2, 3])
    """
    order = np.argsort(keys, kind="stable")
    uniq, first = np.unique(keys[order], return_index=True)
    last = np.append(first[1:], len(order))
    full, done, partial = [], [], []
    for a, b in zip(first.tolist(), last.tolist()):
        group = order[a:b]
        n_full = len(group) // window
        if n_full:
            windows = group[:n_full * window].reshape(n_full, window)
            full.append(windows)
            done.append(windows[:, -1])
        if len(group) % window:
            partial.append(group[n_full * window:])
    pieces = []
    if full:
        windows = np.concatenate(full)
        pieces.append(windows[np.argsort(np.concatenate(done), kind="stable")].reshape(-1))
    pieces.extend(partial)
    members = np.concatenate(pieces) if pieces else np.zeros(0, np.int64)
    sizes = [window] * (sum(len(f) for f in full)) + [len(p) for p in partial]
    return members, np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])


def consecutive_bounds(n: int, size: int) -> np.ndarray:
    """Bounds of batches of ``size`` consecutive items (the last may be short).

    Example:
        >>> consecutive_bounds(5, 2).tolist()
        [0, 2, 4, 5]
    """
    return np.append(np.arange(0, n, size, dtype=np.int64), n) if n else np.zeros(1, np.int64)


def token_bounds(sizes: np.ndarray, max_tokens: int, max_sentences: int | None) -> np.ndarray:
    """Greedy cut of ``sizes`` (in order) so that ``count x max(size) <= max_tokens``
    (and ``count <= max_sentences``); an item larger than the budget forms its own batch.

    Example:
        >>> token_bounds(np.array([3, 3, 4, 9, 2]), 9, None).tolist()
        [0, 2, 3, 4, 5]
    """
    bounds, longest, count = [0], 0, 0
    limit = max_sentences or len(sizes) + 1
    oversize = 0
    for i, size in enumerate(sizes.tolist()):
        wider = max(longest, size)
        if count and ((count + 1) * wider > max_tokens or count >= limit):
            bounds.append(i)
            longest, count = size, 1
        else:
            longest, count = wider, count + 1
        oversize += size > max_tokens
    if oversize:
        log.warning("%d sentence pairs are longer than max_tokens=%d; each forms a batch of its "
                    "own (set src_max_len/tgt_max_len to truncate them)", oversize, max_tokens)
    bounds.append(len(sizes))
    return np.asarray(bounds if len(sizes) else [0], dtype=np.int64)


def rng_of(seeds: tuple[int, int]) -> np.random.Generator:
    """A NumPy generator keyed by a seed pair (pure function of the pair).

    Example:
        >>> int(rng_of((1, 2)).integers(100)) == int(rng_of((1, 2)).integers(100))
        True
    """
    return np.random.Generator(np.random.Philox(key=(seeds[0] << 64) | seeds[1]))


def deal(num_batches: int, num_ranks: int, rank: int, policy: str) -> np.ndarray:
    """The batches of ``rank`` when batch ``g`` goes to rank ``g % num_ranks``:
    every rank gets the same count, the last round padded with the first
    batches again (``"pad"``) or dropped (``"drop"``).

    Example:
        >>> deal(5, 2, 1, "pad").tolist(), deal(5, 2, 0, "drop").tolist()
        ([1, 3, 0], [0, 2])
    """
    if num_ranks == 1:
        return np.arange(num_batches, dtype=np.int64)
    per = -(-num_batches // num_ranks) if policy == "pad" else num_batches // num_ranks
    ids = rank + num_ranks * np.arange(per, dtype=np.int64)
    return ids % num_batches if num_batches else ids[:0]


@dataclass(frozen=True)
class Plan:
    """One iteration: batch ``j`` of this rank holds pairs
    ``rows[bounds[b]:bounds[b+1]]`` with ``b = batches[j]`` (truncated word
    counts ``src_len``/``tgt_len`` alongside).

    Example:
        >>> p = Plan(np.array([4, 2]), np.array([1, 1]), np.array([2, 2]), np.array([0, 1, 2]),
        ...          np.array([1, 0]), {})
        >>> len(p), p.batch(0)[0].tolist()
        (2, [2])
    """

    rows: np.ndarray
    src_len: np.ndarray
    tgt_len: np.ndarray
    bounds: np.ndarray
    batches: np.ndarray
    stats: dict[str, Any]

    def __len__(self) -> int:
        return len(self.batches)

    def batch(self, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(rows, src_len, tgt_len)`` of this rank's batch ``j``.

        Example:
            >>> p = Plan(np.array([7, 5, 9]), np.array([1, 2, 3]), np.array([4, 5, 6]),
            ...          np.array([0, 2, 3]), np.array([1, 0]), {})
            >>> [x.tolist() for x in p.batch(0)], [x.tolist() for x in p.batch(1)]
            ([[9], [3], [6]], [[7, 5], [1, 2], [4, 5]])
        """
        b = int(self.batches[j])
        a, e = int(self.bounds[b]), int(self.bounds[b + 1])
        return self.rows[a:e], self.src_len[a:e], self.tgt_len[a:e]


def shuffled(rows: np.ndarray, seeds: tuple[int, int], buffer_size: int) -> np.ndarray:
    """``rows`` in the order of tf.data's ``shuffle(buffer_size)`` with ``seeds``.

    Example:
        >>> sorted(shuffled(np.arange(5), (1, 2), 3).tolist())
        [0, 1, 2, 3, 4]
    """
    return rows[shuffle_order(seeds, buffer_size, len(rows)).advance(len(rows))]


def iteration_rng(seed: int, seed2: int, k: int, reshuffle: bool) -> np.random.Generator:
    """The per-iteration generator of the token and pool policies.

    Example:
        >>> a, b = iteration_rng(1, 2, 0, False), iteration_rng(1, 2, 5, False)
        >>> int(a.integers(9)) == int(b.integers(9))
        True
    """
    return rng_of(iteration_seeds(seed, seed2, k, reshuffle))
