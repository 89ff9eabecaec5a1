"""Frame-mode plans without per-frame arrays (issue 17).

In frame mode every sequence has one sample, so a sweep's position ``p`` is
its sample ``p`` and only the order of the sequences is needed. A
:class:`FramePlan` computes that order one randomized chunk (a *piece*) at a
time: the block randomizer's steps run window by window in native code
(``WindowedRandomizer``), holding the positions a swap can still reach, and the
plan keeps a few recent pieces. The order is the full plan's, bit for bit (the
property tests compare them); memory is per chunk, not per frame. Reading a
piece that lies before the oldest one kept replays the draws from the sweep's
start (bounded: one pass over the sweep, O(window) memory). See
docs/design/engine-speed.md.

Example:
    >>> from minibatcher.deserializer import SequenceTable
    >>> from minibatcher.engine.order import BlockRandomOrder
    >>> t = SequenceTable(np.arange(10, dtype=np.uint64), np.ones(10, np.int64), np.arange(0, 11, 2))
    >>> order = BlockRandomOrder(window=2**64 - 1, sample_based=True)
    >>> plan = FrameOrder(order).plan(t, seed=0, sweep=0)
    >>> plan.sequences_at(0, 10).tolist() == order.plan(t, 0, 0).sequences.tolist()
    True
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

from .. import _native
from ..deserializer import SequenceTable
from .order import BlockRandomOrder, Order

KEPT_PIECES = 4


class FramePlan:
    """A sweep of one-sample sequences, computed piece by piece (see the module).

    Has :class:`~minibatcher.engine.order.SweepPlan`'s scalar interface
    (``num_sequences``, ``num_samples``, ``position_of_sample``, ``sample_at``,
    ``length_at``); per-position arrays come a piece at a time from :meth:`piece`.

    Example:
        >>> from minibatcher.engine.order import FileOrder
        >>> t = SequenceTable(np.zeros(5, np.uint64), np.ones(5, np.int64), np.array([0, 3, 5]))
        >>> p = FrameOrder(FileOrder()).plan(t, 0, 0)
        >>> p.num_samples, p.position_of_sample(9), p.piece(4)[0], p.piece(4)[1].tolist()
        (5, 5, 3, [3, 4])
    """

    def __init__(self, chunk_starts: np.ndarray, chunk_order: np.ndarray, window_begin: np.ndarray,
                 window_end: np.ndarray, randomizer: Any | None) -> None:
        self.chunk_starts = np.asarray(chunk_starts, np.int64)  # positions of randomized chunks
        self.chunk_order = np.asarray(chunk_order, np.int64)    # randomized -> original chunk
        self.window_begin = np.asarray(window_begin, np.int64)
        self.window_end = np.asarray(window_end, np.int64)
        self._randomizer = randomizer                         # None: file order
        self._pieces: OrderedDict[int, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._last: tuple[int, int, np.ndarray, np.ndarray] = (0, 0, _EMPTY, _EMPTY)  # piece()
        self._count = int(self.chunk_starts[-1])
        sizes = np.diff(self.chunk_starts)
        self._ones = np.ones(int(sizes.max()) if len(sizes) else 0, np.int8)
        self.lengths = np.broadcast_to(np.ones(1, np.int8), (self.num_sequences,))

    @property
    def num_sequences(self) -> int:
        """Positions in the sweep (= samples)."""
        return self._count

    num_samples = num_sequences

    def position_of_sample(self, offset: int) -> int:
        """The first position starting at or after ``offset`` (every sequence has one sample)."""
        return min(max(int(offset), 0), self.num_sequences)

    def sample_at(self, position: int) -> int:
        """Where position ``position`` starts on the sweep (itself)."""
        return int(position)

    def length_at(self, position: int) -> int:
        """The budget length at ``position`` (always 1)."""
        return 1

    def chunk_at(self, position: int) -> int:
        """The randomized chunk holding ``position`` (< num_sequences)."""
        return int(self.chunk_starts.searchsorted(position, side="right")) - 1

    def piece(self, position: int) -> tuple[int, np.ndarray, np.ndarray]:
        """``(first position, original indices, source chunks)`` of the chunk holding ``position``."""
        begin, end, sequences, source = self._last
        if begin <= position < end:  # the piece of the previous call (walks stay in one)
            return begin, sequences, source
        k = self.chunk_at(position)
        found = self._pieces.get(k)
        if found is None:
            found = self._compute(k)
            self._pieces[k] = found
            while len(self._pieces) > KEPT_PIECES:
                self._pieces.popitem(last=False)
        else:
            self._pieces.move_to_end(k)
        begin = int(self.chunk_starts[k])
        self._last = (begin, begin + len(found[0]), found[0], found[1])
        return begin, found[0], found[1]

    def _compute(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        if self._randomizer is not None:  # and chunk k + 1 on a native thread meanwhile
            return self._randomizer.chunk(k, True)
        begin, end = int(self.chunk_starts[k]), int(self.chunk_starts[k + 1])
        return np.arange(begin, end, dtype=np.int64), np.full(end - begin, k, np.int32)

    def sequences_at(self, start: int, stop: int) -> np.ndarray:
        """Original indices of positions ``[start, stop)`` (for tests and tools).

        Example:
            >>> from minibatcher.engine.order import FileOrder
            >>> t = SequenceTable(np.zeros(4, np.uint64), np.ones(4, np.int64), np.array([0, 2, 4]))
            >>> FrameOrder(FileOrder()).plan(t, 0, 0).sequences_at(1, 4).tolist()
            [1, 2, 3]
        """
        parts, p = [], start
        while p < stop:
            begin, sequences, _ = self.piece(p)
            parts.append(sequences[p - begin:stop - begin])
            p = begin + len(sequences)
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    @property
    def nbytes(self) -> int:
        """Bytes held by the plan: per-chunk arrays, kept pieces and the native window."""
        arrays = (self.chunk_starts, self.chunk_order, self.window_begin, self.window_end, self._ones)
        held = sum(a.nbytes for a in arrays) + sum(s.nbytes + c.nbytes
                                                 for s, c in self._pieces.values())
        return held + (12 * self._randomizer.buffered if self._randomizer is not None else 0)

    def walk(self, by_chunk: bool, base: int, workers: int, rank: int, start: int,
             budgets: tuple[int, int, int], at_least_one: bool,
             stop_when_full: bool) -> tuple[np.ndarray, int, int, int, bool, bool]:
        """The enumerators' native walk (``engine_walk``) chained over pieces:
        ``budgets`` are (global, local, to_end); same result as over the full plan."""
        parts, taken_g, taken_l, p, n = [], 0, 0, start, self._count
        (g_budget, l_budget, to_end), stopped = budgets, False
        while p < n and not stopped:
            begin, sequences, source = self.piece(p)
            selected, stop, g, l, at_least_one, stopped = _native.engine_walk(
                self._ones[:len(sequences)], sequences, p - begin, source if by_chunk else None,
                0 if by_chunk else (base + begin) % workers, workers, rank,
                _clamp(g_budget - taken_g), _clamp(l_budget - taken_l), _clamp(to_end - taken_g),
                at_least_one, stop_when_full)
            parts.append(selected)
            taken_g, taken_l, p = taken_g + g, taken_l + l, begin + stop
        chosen = np.concatenate(parts) if len(parts) != 1 else parts[0]
        return chosen.astype(np.int64, copy=False), p, taken_g, taken_l, at_least_one, p < n

    def chunk_uses(self, by_chunk: bool, base: int, workers: int,
                   rank: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """This worker's original chunks by first use, with the first and last
        position that may use each (a chunk's frames stay in the chunks whose
        window holds it: a superset of the exact uses, which only keeps it longer)."""
        k = np.arange(len(self.chunk_order), dtype=np.int64)
        starts = self.chunk_starts
        if by_chunk:
            k = k[k % workers == rank]
            lo = self.window_end.searchsorted(k, side="right")
            hi = self.window_begin.searchsorted(k, side="right") - 1
            first, last = starts[lo], starts[hi + 1] - 1
        else:
            first = starts[k] + (rank - base - starts[k]) % workers
            keep = first < starts[k + 1]
            k, first = k[keep], first[keep]
            last = first + (starts[k + 1] - 1 - first) // workers * workers
        order = np.argsort(first, kind="stable")
        return self.chunk_order[k[order]], first[order], last[order]

    def shares(self, by_chunk: bool, base: int, workers: int) -> np.ndarray:
        """Samples each worker owns in the sweep (``worker_shares.shares_of``'s result)."""
        if by_chunk:
            k = np.arange(len(self.chunk_order))
            return np.bincount(k % workers, weights=np.diff(self.chunk_starts),
                               minlength=workers).astype(np.int64)
        q, r = divmod(self.num_sequences, workers)
        return np.array([q + ((w - base) % workers < r) for w in range(workers)], np.int64)


def _clamp(value: int) -> int:
    return value if -2**63 <= value < 2**63 else max(-2**63, min(int(value), 2**63 - 1))


_EMPTY = np.zeros(0, np.int64)


class FrameOrder(Order):
    """``inner`` (file or block random order) planned as a :class:`FramePlan`;
    the same order and description (checkpoints do not change).

    Example:
        >>> FrameOrder(BlockRandomOrder(4, False)).describe()
        {'order': 'block_random', 'window': 4, 'unit': 'chunks'}
    """

    def __init__(self, inner: Order) -> None:
        self.inner = inner
        self.randomized = inner.randomized

    def plan(self, table: SequenceTable, seed: int, sweep: int) -> FramePlan:  # type: ignore[override]
        counts = np.ascontiguousarray(table.chunk_sequences(), dtype=np.int64)
        starts = np.zeros(len(counts) + 1, np.int64)
        np.cumsum(counts, out=starts[1:])
        if not isinstance(self.inner, BlockRandomOrder):
            k = np.arange(len(counts))
            return FramePlan(starts, k, k, k + 1, None)
        r = _native.WindowedRandomizer(counts, counts, self.inner.window, self.inner.sample_based,
                                       (int(seed) + int(sweep)) % 2**64)
        return FramePlan(r.chunk_starts, r.chunk_order, r.window_begin, r.window_end, r)

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()
