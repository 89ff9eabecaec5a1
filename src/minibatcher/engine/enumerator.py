"""Sequence enumerators: walk the sample timeline and pick each minibatch's sequences.

The timeline is the concatenation of sweeps; sweep ``s`` covers samples
``[s*S, (s+1)*S)`` in the order of ``order.plan(table, seed, s)``. An epoch is
a sample range on it. The enumerators reproduce CNTK's ``BlockRandomizer`` and
``NoRandomizer`` selection rules exactly (budgets, the "at least one local
sequence" rule, epoch and sweep ends, distributed decimation); see
docs/design/order-and-timeline.md. Their state is the sample position (plus,
for file order, the sweep where the round-robin counter was last reset).

Example:
    >>> import numpy as np
    >>> from minibatcher.deserializer import SequenceTable
    >>> from minibatcher.engine.order import FileOrder
    >>> t = SequenceTable(np.arange(10, dtype=np.uint64), np.ones(10, np.int64), np.array([0, 10]))
    >>> e = make_enumerator(t, FileOrder(), seed=0)
    >>> e.start_epoch(EpochConfig(epoch_size=7, epoch_index=1, allow_cross=False))
    >>> [e.next_sequences(3, 3).sequences for _ in range(4)]
    [[7, 8, 9], [0, 1, 2], [3], []]
"""

from __future__ import annotations

import abc
from typing import Any

import numpy as np

from .. import _native
from ..deserializer import SequenceTable
from ..errors import ConfigError
from .frame_plan import FramePlan
from .order import Order, SweepPlan
# the timeline's names are re-exported: the packers and the source import them from here
from .timeline import MAX_EPOCH_SIZE, UNLIMITED, EpochConfig, Selection  # noqa: F401


class Enumerator(abc.ABC):
    """Common timeline machinery: plans per sweep, epochs, position.

    Example:
        >>> issubclass(BlockEnumerator, Enumerator)
        True
    """

    def __init__(self, table: SequenceTable, order: Order, seed: int) -> None:
        if table.num_samples <= 0:
            raise ConfigError("there is no sample to read: every sequence was dropped")
        self.table, self.order, self.seed = table, order, int(seed)
        self.sweep_size = table.num_samples
        self.config = EpochConfig(epoch_size=MAX_EPOCH_SIZE)
        self.position = 0
        self._plans: dict[int, SweepPlan | FramePlan] = {}
        self._cursor = (-1, 0, 0)  # (position, sweep, plan position): cursor() of a walk's end

    def plan(self, sweep: int) -> SweepPlan | FramePlan:
        """The (cached) plan of ``sweep``; keeps the two most recent."""
        plan = self._plans.get(sweep)
        if plan is None:
            plan = self.order.plan(self.table, self.seed, sweep)
            self._plans = {s: p for s, p in self._plans.items() if abs(s - sweep) <= 1}
            self._plans[sweep] = plan
        return plan

    def start_epoch(self, config: EpochConfig) -> None:
        """Starts ``config`` at its first sequence start at or after ``config.start``."""
        self.config = config
        self.set_position(config.start)

    def set_position(self, position: int) -> None:
        """Seeks to the first sequence starting at or after ``position``."""
        sweep, offset = divmod(int(position), self.sweep_size)
        plan = self.plan(sweep)
        self.position = sweep * self.sweep_size + plan.sample_at(plan.position_of_sample(offset))

    def cursor(self) -> tuple[int, int]:
        """``(sweep, position in the sweep)`` of the next sequence."""
        position, sweep, p = self._cursor
        if position == self.position:
            return sweep, p
        sweep, offset = divmod(self.position, self.sweep_size)
        return sweep, self.plan(sweep).position_of_sample(offset)

    def _remember(self, sweep: int, stop: int) -> None:
        """Remembers that ``cursor()`` is ``(sweep, stop)`` after a walk that
        ended at plan position ``stop`` (saves a search; only where the search
        would find it: inside the sweep, after a sequence with samples)."""
        plan = self.plan(sweep)
        if (0 < stop < plan.num_sequences and plan.length_at(stop - 1) > 0
                and sweep * self.sweep_size + plan.sample_at(stop) == self.position):
            self._cursor = (self.position, sweep, stop)

    @abc.abstractmethod
    def next_sequences(self, global_count: int, local_count: int) -> Selection:
        """CNTK's ``GetNextSequences(globalCount, localCount)``."""

    def get_state(self) -> dict[str, int]:
        """The enumerator's part of a checkpoint."""
        return {"position": self.position}

    def set_state(self, state: dict[str, Any]) -> None:
        """Restores :meth:`get_state` exactly (no rounding)."""
        self.position = int(state["position"])

    @abc.abstractmethod
    def owner(self, sweep: int) -> tuple[np.ndarray | None, int]:
        """Which positions of ``sweep`` are this worker's, as the native
        kernels take it: ``(source_chunk, 0)``, position ``p`` is this worker's
        when ``source_chunk[p] % num_workers == worker_rank`` (block rules), or
        ``(None, counter_base)`` when ``(counter_base + p) % num_workers == worker_rank``
        (file order's round robin)."""

    def owned(self, sweep: int) -> np.ndarray:
        """Mask of the positions of ``sweep`` that are this worker's (:meth:`owner`'s rule).

        Example:
            >>> from minibatcher.engine.order import FileOrder
            >>> t = SequenceTable(np.arange(5, dtype=np.uint64), np.ones(5, np.int64), np.array([0, 5]))
            >>> e = FileEnumerator(t, FileOrder(), seed=0)
            >>> e.start_epoch(EpochConfig(epoch_size=5, num_workers=2, worker_rank=1))
            >>> e.owned(0).tolist()
            [False, True, False, True, False]
        """
        chunks, base = self.owner(sweep)
        c = self.config
        if isinstance(chunks, FramePlan):
            raise ValueError("a frame-mode plan has no per-position arrays; use owned_lengths()")
        if chunks is not None:
            return np.asarray(chunks) % c.num_workers == c.worker_rank
        positions = np.arange(self.plan(sweep).num_sequences, dtype=np.int64)
        return (base + positions) % c.num_workers == c.worker_rank

    def owned_lengths(self, sweep: int) -> np.ndarray:
        """The budget lengths of this worker's positions of ``sweep``, in order.

        Example:
            >>> from minibatcher.engine.order import FileOrder
            >>> t = SequenceTable(np.arange(3, dtype=np.uint64), np.array([1, 2, 3]), np.array([0, 3]))
            >>> e = FileEnumerator(t, FileOrder(), seed=0)
            >>> e.start_epoch(EpochConfig(epoch_size=6, num_workers=2, worker_rank=0))
            >>> e.owned_lengths(0).tolist()
            [1, 3]
        """
        plan = self.plan(sweep)
        if isinstance(plan, FramePlan):
            chunks, base = self.owner(sweep)
            share = plan.shares(chunks is not None, base, self.config.num_workers)
            return np.broadcast_to(np.ones(1, np.int64), (int(share[self.config.worker_rank]),))
        return np.asarray(plan.lengths)[self.owned(sweep)]

    def _walk(self, sweep: int, start: int, global_budget: int, local_budget: int, to_end: int,
              at_least_one: bool, stop_when_full: bool) -> tuple[np.ndarray, int, int, int, bool, bool]:
        """Takes sequences of ``sweep`` from position ``start`` under the
        budgets (native: ``cpp/engine/select.cc``); returns ``(selected original
        indices, stop position, global samples, local samples, at_least_one, stopped)``."""
        plan, c = self.plan(sweep), self.config
        chunks, base = self.owner(sweep)
        if isinstance(plan, FramePlan):
            return plan.walk(chunks is not None, base, c.num_workers, c.worker_rank, start,
                             (global_budget, local_budget, to_end), at_least_one, stop_when_full)
        return _native.engine_walk(plan.lengths, plan.sequences, start, chunks, base,
                                   c.num_workers, c.worker_rank, _clamp(global_budget),
                                   _clamp(local_budget), _clamp(to_end), at_least_one,
                                   stop_when_full)


def _clamp(value: int) -> int:
    """``value`` in int64's range (budgets may be CNTK's SIZE_MAX; taken sums stay below 2**62)."""
    return value if -2**63 <= value < 2**63 else max(-2**63, min(int(value), 2**63 - 1))


class BlockEnumerator(Enumerator):
    """CNTK's ``BlockRandomizer`` timeline (any order; decimation by source chunk).

    Example:
        >>> from minibatcher.engine.order import BlockRandomOrder
        >>> t = SequenceTable(np.arange(10, dtype=np.uint64), np.ones(10, np.int64), np.arange(0, 11, 2))
        >>> e = BlockEnumerator(t, BlockRandomOrder(4, True), seed=0)
        >>> e.start_epoch(EpochConfig(epoch_size=10))
        >>> [e.next_sequences(1, 1).sequences[0] for _ in range(10)]
        [8, 9, 1, 0, 6, 7, 2, 3, 4, 5]
    """

    def set_position(self, position: int) -> None:
        super().set_position(position)
        if self.config.worker_rank >= self.table.num_chunks:
            self.position = self.config.end  # this worker owns no chunk: nothing to read

    def next_sequences(self, global_count: int, local_count: int) -> Selection:
        result = Selection()
        while True:
            at_boundary = result.end_of_sweep
            g, l = self._describe(global_count - result.global_samples,
                                  local_count - result.local_samples, not at_boundary, result)
            if at_boundary and g == 0:
                break
            result.global_samples += g
            result.local_samples += l
            if not (self.config.allow_cross and not result.end_of_epoch and result.end_of_sweep
                    and global_count > result.global_samples and local_count > result.local_samples):
                break
        return result

    def owner(self, sweep: int) -> tuple[Any, int]:
        plan = self.plan(sweep)  # a FramePlan stands for its pieces' source chunks
        return (plan if isinstance(plan, FramePlan) else plan.source_chunk), 0

    def _describe(self, budget: int, local_budget: int, at_least_one: bool,
                  result: Selection) -> tuple[int, int]:
        size, end, pos = self.sweep_size, self.config.end, self.position
        sweep, sweep_pos = divmod(pos, size)
        if pos >= end:
            result.end_of_epoch = True
            result.end_of_sweep |= pos >= size and sweep_pos == 0
            return 0, 0
        budget = min(budget, size - sweep_pos)
        selected, stop, taken_g, taken_l, _, _ = self._walk(
            sweep, self.cursor()[1], budget, local_budget, end - pos, at_least_one, False)
        result.extend(selected)
        result.end_of_sweep |= sweep_pos + taken_g >= size
        result.end_of_epoch |= pos + taken_g >= end
        self.position = pos + taken_g
        self._remember(sweep, stop)
        return taken_g, taken_l


class FileEnumerator(Enumerator):
    """CNTK's ``NoRandomizer`` timeline: decimation round-robin by sequence.

    The round-robin counter runs on across sweep wraps and restarts at the
    sweep of the last seek, as in CNTK; it is part of the state so that a
    restore continues it exactly.

    Example:
        >>> from minibatcher.engine.order import FileOrder
        >>> t = SequenceTable(np.arange(5, dtype=np.uint64), np.ones(5, np.int64), np.array([0, 5]))
        >>> e = FileEnumerator(t, FileOrder(), seed=0)
        >>> e.start_epoch(EpochConfig(epoch_size=10, num_workers=2, worker_rank=1))
        >>> e.next_sequences(10, 10).sequences  # positions 1, 3, then 5+0=5 -> 0, 7 -> 2, 9 -> 4
        [1, 3, 0, 2, 4]
    """

    def __init__(self, table: SequenceTable, order: Order, seed: int) -> None:
        super().__init__(table, order, seed)
        self.counter_sweep = 0

    def set_position(self, position: int) -> None:
        super().set_position(position)
        sweep, p = self.cursor()
        self.counter_sweep = sweep
        if p == self.plan(sweep).num_sequences:  # rounded up past the last sequence
            self.counter_sweep += 1

    def get_state(self) -> dict[str, int]:
        return {"position": self.position, "counter_sweep": self.counter_sweep}

    def set_state(self, state: dict[str, Any]) -> None:
        self.position = int(state["position"])
        self.counter_sweep = int(state["counter_sweep"])

    def next_sequences(self, global_count: int, local_count: int) -> Selection:
        size, end, result = self.sweep_size, self.config.end, Selection()
        if self.position >= end:
            result.end_of_epoch = True
            result.end_of_sweep = self.position >= size and self.position % size == 0
            return result
        if not self.config.allow_cross:
            global_count = min(global_count, size - self.position % size)
        first_sweep = self.position // size
        self._fill(global_count, local_count, result)
        result.end_of_epoch |= self.position >= end
        result.end_of_sweep |= first_sweep != self.position // size
        return result

    def owner(self, sweep: int) -> tuple[np.ndarray | None, int]:
        n = self.plan(sweep).num_sequences
        return None, ((sweep - self.counter_sweep) * n) % self.config.num_workers

    def _fill(self, global_count: int, local_count: int, result: Selection) -> None:
        at_least_one = True
        while result.global_samples < global_count and result.local_samples < local_count:
            sweep, start = self.cursor()
            selected, stop, taken_g, taken_l, at_least_one, stopped = self._walk(
                sweep, start, global_count - result.global_samples,
                local_count - result.local_samples, self.config.end - self.position,
                at_least_one, True)
            result.extend(selected)
            result.global_samples += taken_g
            result.local_samples += taken_l
            self.position += taken_g
            self._remember(sweep, stop)
            if stopped:
                return


def make_enumerator(table: SequenceTable, order: Order, seed: int) -> Enumerator:
    """The CNTK enumerator for ``order``: block rules for randomized orders
    (decimation by chunk), file rules otherwise (round-robin by sequence).

    Example:
        >>> from minibatcher.engine.order import FileOrder
        >>> t = SequenceTable(np.zeros(1, np.uint64), np.ones(1, np.int64), np.array([0, 1]))
        >>> type(make_enumerator(t, FileOrder(), 0)).__name__
        'FileEnumerator'
    """
    cls = BlockEnumerator if order.randomized else FileEnumerator
    return cls(table, order, seed)
