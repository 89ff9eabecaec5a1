"""Which chunks a worker needs when: first and last use of every chunk in a sweep.

The reader keeps the chunks in use at the cursor (already started, not yet
finished) plus the next few to start, and nothing else: memory is bounded by
the randomization window plus the prefetch depth.

Example:
    >>> from minibatcher.deserializer import SequenceTable
    >>> from minibatcher.engine.order import SweepPlan
    >>> t = SequenceTable(np.zeros(4, np.uint64), np.ones(4, np.int64), np.array([0, 2, 4]))
    >>> plan = SweepPlan.of(np.array([0, 2, 1, 3]), t.lengths, np.zeros(4, np.int32))
    >>> s = ChunkSchedule(t, plan, (None, 0, 1, 0))  # one worker: every position
    >>> s.chunks.tolist(), s.first.tolist(), s.last.tolist()
    ([0, 1], [0, 1], [2, 3])
    >>> ChunkSchedule(t, plan, (None, 1, 2, 0)).chunks.tolist()  # of 2 workers, odd positions
    [1]
    >>> s.wanted(2, ahead=0)
    [0, 1]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _native
from ..deserializer import SequenceTable
from .frame_plan import FramePlan
from .order import SweepPlan


class ChunkSchedule:
    """Chunks used by one worker in one sweep, sorted by first use."""

    def __init__(self, table: SequenceTable, plan: SweepPlan | FramePlan,
                 owner: tuple[Any, int, int, int]) -> None:
        """This worker's positions: an enumerator's ``owner(sweep)`` plus
        ``(num_workers, worker_rank)`` (one native pass over the plan)."""
        if isinstance(plan, FramePlan):
            source, base, workers, rank = owner
            self.chunks, self.first, self.last = plan.chunk_uses(source is not None, base,
                                                                 workers, rank)
        else:
            starts = np.ascontiguousarray(table.chunk_starts, dtype=np.int64)
            self.chunks, self.first, self.last = _native.engine_chunk_uses(
                plan.sequences, *owner, starts)
        # wanted() is constant between these positions (where a chunk starts or stops being used)
        breaks = np.sort(np.concatenate([self.first + 1, self.last + 1]))
        # sorted, duplicates dropped (np.unique would import numpy.ma: ~20 ms before the
        # first chunk is asked for)
        keep = np.ones(len(breaks), dtype=bool)
        keep[1:] = breaks[1:] != breaks[:-1]
        self._breaks = breaks[keep]
        self._memo: tuple[int, int | None, int | None, list[int]] = (-1, None, None, [])

    def wanted(self, position: int, ahead: int) -> list[int]:
        """Chunks in use at ``position`` plus the next ``ahead`` to start."""
        key, lo, hi, result = self._memo
        if key == ahead and (lo is None or lo <= position) and (hi is None or position < hi):
            return list(result)
        active = self.chunks[(self.first < position) & (self.last >= position)]
        upcoming = self.chunks[self.first >= position][:ahead]
        result = active.tolist() + upcoming.tolist()
        i = int(self._breaks.searchsorted(position, side="right"))
        lo = int(self._breaks[i - 1]) if i > 0 else None
        hi = int(self._breaks[i]) if i < len(self._breaks) else None
        self._memo = (ahead, lo, hi, result)
        return list(result)

    def first_chunks(self, count: int) -> list[int]:
        """The first ``count`` chunks of the sweep (prefetch across a sweep end)."""
        return self.chunks[:count].tolist()
