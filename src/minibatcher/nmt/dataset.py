"""The fast nmt iterators: tfdata datasets whose elements are ``BatchedInput``
tuples, built from an epoch plan (:mod:`.options`) and assembled natively.

Each iteration is a plan (computed from token counts, the shuffle seeds and
the iteration number) plus a batch cursor; the checkpoint is
``{"k": iteration, "batch": b}``. Ids are looked up only for the pairs of the
batch being read (C++: split on ``' '``, hash lookup, padding).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> from .vocab_utils import VocabTable
    >>> table = VocabTable([b"<unk>", b"<s>", b"</s>", b"a", b"b"])
    >>> ds = NmtInferDataset(Dataset.from_tensor_slices(["a b", "", "b x"]), table, 2, b"</s>",
    ...                      None, False)
    >>> [(b.source.tolist(), b.source_sequence_length.tolist()) for b in ds]
    [([[3, 4], [2, 2]], [2, 0]), ([[4, 0]], [2])]
"""

from __future__ import annotations

import collections
import logging
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..state import Fields
from ..tfdata import Dataset
from ..tfdata.core import UNKNOWN, Iter
from ..tfdata.shuffle import SeedGenerator
from . import plan as P
from .corpus import LineCorpus
from .options import NmtOptions, epoch_plan
from .vocab_utils import EOS_CHAR_ID, VocabTable

log = logging.getLogger("minibatcher")

BatchedInput = collections.namedtuple(
    "BatchedInput", ("initializer", "source", "target_input", "target_output",
                     "source_sequence_length", "target_sequence_length"))
BatchedInput.__doc__ = """nmt's batch: ``initializer`` (None here; nmt's TF1 iterator initializer),
``source`` ``[B, S]``, ``target_input``/``target_output`` ``[B, T]`` (int32; None for
inference), ``source_sequence_length``/``target_sequence_length`` ``[B]`` (int32).

Example:
    >>> BatchedInput(None, 1, 2, 3, 4, 5).target_input
    2
"""


def encode(corpus: LineCorpus, rows: np.ndarray, keep: np.ndarray, table: VocabTable,
           sos: int = -1, eos: int = -1, pad: int = 0, extra: int = 0) -> np.ndarray:
    """Padded int32 id rows: ``[sos] + ids of the first keep[i] tokens + [eos]``.

    Example:
        >>> c = LineCorpus.of_lines([b"x y", b"y"])
        >>> encode(c, np.array([0, 1]), np.array([2, 1]), VocabTable([b"u", b"y"]), sos=7,
        ...        pad=9, extra=1).tolist()
        [[7, 0, 1], [7, 1, 9]]
    """
    from .. import _native
    keep = np.ascontiguousarray(keep, dtype=np.int32)
    width = int(keep.max(initial=0)) + extra
    return _native.text_encode(corpus.data, corpus.starts, corpus.ends,
                               np.ascontiguousarray(rows, dtype=np.int64), keep, table.native(),
                               table.default_value, sos, eos, pad, width)


def encode_target(corpus: LineCorpus, rows: np.ndarray, keep: np.ndarray, table: VocabTable,
                  sos: int, eos: int) -> tuple[np.ndarray, np.ndarray]:
    """nmt's ``(target_input, target_output)``: ``[sos] + ids`` and ``ids + [eos]``,
    padded with ``eos`` (one tokenization for both).

    Example:
        >>> c = LineCorpus.of_lines([b"x y", b"y"])
        >>> tin, tout = encode_target(c, np.array([0, 1]), np.array([2, 1]),
        ...                           VocabTable([b"u", b"y"]), 7, 8)
        >>> tin.tolist(), tout.tolist()
        ([[7, 0, 1], [7, 1, 8]], [[0, 1, 8], [1, 8, 8]])
    """
    from .. import _native
    keep = np.ascontiguousarray(keep, dtype=np.int32)
    return _native.text_encode_target(corpus.data, corpus.starts, corpus.ends,
                                      np.ascontiguousarray(rows, dtype=np.int64), keep,
                                      table.native(), table.default_value, sos, eos, eos,
                                      int(keep.max(initial=0)) + 1)


def encode_chars(corpus: LineCorpus, rows: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """nmt's character encoding (50 ids a word), rows padded with ``EOS_CHAR_ID``.

    Example:
        >>> encode_chars(LineCorpus.of_lines([b"ab"]), np.array([0]), np.array([1]))[0, :5].tolist()
        [259, 98, 99, 260, 261]
    """
    from .. import _native
    keep = np.ascontiguousarray(keep, dtype=np.int32)
    return _native.text_encode_chars(corpus.data, corpus.starts, corpus.ends,
                                     np.ascontiguousarray(rows, dtype=np.int64), keep,
                                     int(keep.max(initial=0)), EOS_CHAR_ID)


class _PlanIter(Iter):
    """A plan plus a batch cursor (the plan is computed on the first read)."""

    def __init__(self, node: Any, k: int, state: Fields | None) -> None:
        self.node, self.k, self.batch = node, k, 0
        self._plan: P.Plan | None = None
        if state is not None:
            state.only("k", "seeds", "batch")
            if state.int("batch", 0):
                n = len(self.plan())
                self.batch = state.int("batch", 0, n, within=f"the iteration's {n} batches")

    def plan(self) -> P.Plan:
        if self._plan is None:
            self._plan = self.node._plan(self.k)
        return self._plan

    def __next__(self) -> Any:
        plan = self.plan()
        if self.batch >= len(plan):
            raise StopIteration
        out = self.node._assemble(*plan.batch(self.batch))
        self.batch += 1
        return out

    def skip(self, count: int) -> int:
        done = max(0, min(count, len(self.plan()) - self.batch))
        self.batch += done
        return done

    def state(self) -> dict[str, Any]:
        return {**self.node._pins_of(self.k), "batch": self.batch}

    def at_start(self) -> bool | None:
        return self.batch == 0


class NmtBatchDataset(SeedGenerator, Dataset):
    """``get_iterator``'s batches (see :func:`minibatcher.nmt.get_iterator`).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> from .vocab_utils import VocabTable
        >>> t = VocabTable([b"<unk>", b"<s>", b"</s>", b"a"])
        >>> lines = Dataset.from_tensor_slices(["a a", "a"])
        >>> c = LineCorpus.from_dataset(lines)
        >>> ds = NmtBatchDataset(lines, lines, (c, c), (t, t), NmtOptions(2, output_buffer_size=1),
        ...                      b"<s>", b"</s>", 1)
        >>> next(iter(ds)).target_output.tolist()
        [[3, 3, 2], [3, 2, 2]]
    """

    def __init__(self, src: Dataset, tgt: Dataset, corpora: tuple[LineCorpus, LineCorpus],
                 tables: tuple[VocabTable, VocabTable], options: NmtOptions, sos: bytes,
                 eos: bytes, random_seed: int | None) -> None:
        SeedGenerator.__init__(self, random_seed, options.reshuffle_each_iteration)
        if options.num_ranks > 1 and not self._seeded:
            raise ConfigError(
                "option random_seed should be set when num_ranks > 1, but got random_seed=None "
                "(and no global seed is set); every rank would draw its own shuffle seeds and "
                "deal from a different plan (pairs read twice or never). Pass the same "
                "random_seed on every rank (e.g. random_seed=7), call "
                "minibatcher.tfdata.set_random_seed(...) the same way on every rank, or use "
                "nmt's num_shards/shard_index line sharding instead")
        self._datasets, self._corpora, self._tables = (src, tgt), corpora, tables
        self.nmt_options = options
        self._sos, self._eos = sos, eos
        src_table, tgt_table = tables
        self.src_eos_id = EOS_CHAR_ID if options.use_char_encode else int(src_table.lookup(eos))
        self.tgt_sos_id, self.tgt_eos_id = int(tgt_table.lookup(sos)), int(tgt_table.lookup(eos))
        self._cache: dict[str, Any] = {}
        self._plans: dict[tuple[int, int], P.Plan] = {}
        self.last_stats: dict[str, Any] = {}
        n_src, n_tgt = len(corpora[0]), len(corpora[1])
        if n_src != n_tgt:
            log.warning("get_iterator: the source has %d lines and the target %d; pairs stop at "
                        "the shorter file (as tensorflow/nmt), %d lines are not read",
                        n_src, n_tgt, abs(n_src - n_tgt))

    def _inputs(self) -> tuple[Dataset, ...]:
        return self._datasets

    def _spec(self) -> dict[str, Any]:
        return {"op": "nmt.get_iterator", "options": self.nmt_options.spec(),
                "seeds": self._seed_spec(), "sos": self._sos.decode("utf-8", "replace"),
                "eos": self._eos.decode("utf-8", "replace"),
                "vocab": [t.fingerprint() for t in self._tables]}

    def _plan(self, k: int) -> P.Plan:
        key = self._seeds_of(k)
        plan = self._plans.get(key)
        if plan is None:
            src, tgt = self._corpora
            plan = epoch_plan(self.nmt_options, src.counts(), tgt.counts(), self._seed, self._seed2,
                              k, self._cache)
            self._plans = {key: plan}  # keeps the latest only (memory)
            self.last_stats = dict(plan.stats)
            if plan.stats["filtered"]:
                log.info("get_iterator: %d of %d pairs have an empty side and are filtered out "
                         "(as tensorflow/nmt)", plan.stats["filtered"], plan.stats["pairs"])
        return plan

    def _assemble(self, rows: np.ndarray, sl: np.ndarray, tl: np.ndarray) -> BatchedInput:
        src_corpus, tgt_corpus = self._corpora
        src_table, tgt_table = self._tables
        if self.nmt_options.use_char_encode:
            source = encode_chars(src_corpus, rows, sl)
        else:
            source = encode(src_corpus, rows, sl, src_table, pad=self.src_eos_id)
        tgt_in, tgt_out = encode_target(tgt_corpus, rows, tl, tgt_table, self.tgt_sos_id,
                                        self.tgt_eos_id)
        return BatchedInput(None, source, tgt_in, tgt_out, sl.astype(np.int32),
                            (tl + 1).astype(np.int32))

    def _make_iter(self, state: Fields | None) -> Iter:
        return _PlanIter(self, self._take_iteration(state), state)

    def _cardinality(self) -> int:
        return UNKNOWN


class NmtInferDataset(Dataset):
    """``get_infer_iterator``'s batches: file order, no filter, partial last batch.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> from .vocab_utils import VocabTable
        >>> t = VocabTable([b"<unk>", b"<s>", b"</s>"])
        >>> next(iter(NmtInferDataset(Dataset.from_tensor_slices(["x"]), t, 4, b"</s>", None,
        ...                           False))).source.tolist()
        [[0]]
    """

    def __init__(self, src: Dataset, table: VocabTable, batch_size: int, eos: bytes,
                 src_max_len: int | None, use_char_encode: bool,
                 corpus: LineCorpus | None = None) -> None:
        self._src, self._table = src, table
        self._corpus = corpus if corpus is not None else LineCorpus.from_dataset(src)
        if self._corpus is None:
            raise TypeError("NmtInferDataset needs a dataset of lines with random access")
        self._batch_size, self._src_max_len = int(batch_size), src_max_len
        self._char = bool(use_char_encode)
        self.src_eos_id = EOS_CHAR_ID if self._char else int(table.lookup(eos))
        self._eos = eos

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self._src,)

    def _spec(self) -> dict[str, Any]:
        return {"op": "nmt.get_infer_iterator", "batch_size": self._batch_size,
                "src_max_len": self._src_max_len, "use_char_encode": self._char,
                "eos": self._eos.decode("utf-8", "replace"), "vocab": self._table.fingerprint()}

    def _plan(self, k: int) -> P.Plan:
        n = len(self._corpus)
        sl = P.truncate(self._corpus.counts(), self._src_max_len).astype(np.int32)
        bounds = P.consecutive_bounds(n, self._batch_size)
        return P.Plan(np.arange(n, dtype=np.int64), sl, np.zeros(n, np.int32), bounds,
                      np.arange(len(bounds) - 1), {"pairs": n})

    def _assemble(self, rows: np.ndarray, sl: np.ndarray, tl: np.ndarray) -> BatchedInput:
        if self._char:
            source = encode_chars(self._corpus, rows, sl)
        else:
            source = encode(self._corpus, rows, sl, self._table, pad=self.src_eos_id)
        return BatchedInput(None, source, None, None, sl.astype(np.int32), None)

    def _pins_of(self, k: int) -> dict[str, Any]:
        return {}

    def _make_iter(self, state: Fields | None) -> Iter:
        if state is not None:
            state.only("batch")
        return _PlanIter(self, 0, state)

    def _cardinality(self) -> int:
        return len(P.consecutive_bounds(len(self._corpus), self._batch_size)) - 1
