"""One rank's minibatch stream of one epoch, split between loader workers.

The stream a rank delivers is fixed by ``(epoch, world size, rank, minibatch
size, equal_batches)`` and the data: item ``t`` is a minibatch of some
partition (its own, or one handed over for equal work, see :mod:`.balance`).
DataLoader workers split it round robin: worker ``j`` of ``k`` delivers the
items ``t`` with ``t % k == j`` and skips the others' (the reader moves past a
minibatch without loading or packing it), and the DataLoader hands out the
workers' items round robin, so the rank sees the same minibatches in the same
order for any number of workers. Positions are ``(epoch, step)``: restoring
means starting the epoch's partition and skipping, with no data read.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher import CTFDeserializer, MinibatchSource, StreamDef
    >>> from minibatcher.adapters.reader import as_reader
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("".join(f"|x {i}\\n" for i in range(6)))
    >>> reader = as_reader(MinibatchSource(CTFDeserializer(str(p), {"x": StreamDef()}),
    ...                                    randomize=False))
    >>> plan = RankPlan.compute(reader, epoch=0, world=1, rank=0, minibatch_size=2, equal=True)
    >>> [(t, mb["x"].values.ravel().tolist()) for t, mb in iterate(reader, plan, 0, 2, 1)]
    [(1, [2.0, 3.0])]
    >>> [t for t, _ in iterate(reader, plan, 1, 2, 0)], [t for t, _ in iterate(reader, plan, 1, 2, 0, anchor=0)]
    ([1], [2])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from ..errors import ConfigError
from .balance import Segment, check_quota, rank_segments
from .reader import PartitionedReader


@dataclass(frozen=True)
class RankPlan:
    """What one rank delivers in one epoch: runs of partitions' minibatches
    (``length`` items; ``None`` when not known in advance: CNTK-exact reading).

    Example:
        >>> RankPlan(0, 2, 1, 8, [Segment(1, 0, None)]).length is None
        True
    """

    epoch: int
    world: int
    rank: int
    minibatch_size: int
    segments: list[Segment]

    @classmethod
    def compute(cls, reader: PartitionedReader, epoch: int, world: int, rank: int,
                minibatch_size: int, equal: bool) -> "RankPlan":
        """The plan: the equal-work policy when ``equal``, else the rank's own
        partition to its end (CNTK's split).

        Example:
            >>> RankPlan.compute(None, epoch=0, world=2, rank=1, minibatch_size=8,
            ...                  equal=False).segments  # CNTK's split: no counting
            [Segment(partition=1, first=0, count=None)]
        """
        if not equal:
            return cls(epoch, world, rank, minibatch_size, [Segment(rank, 0, None)])
        counts = reader.partition_counts(epoch, minibatch_size, world)
        check_quota(counts, minibatch_size, epoch)
        return cls(epoch, world, rank, minibatch_size, rank_segments(counts, rank))

    @property
    def length(self) -> int | None:
        """Items in the stream (``None``: until the partition ends)."""
        if any(s.count is None for s in self.segments):
            return None
        return sum(s.count for s in self.segments)

    def locate(self, step: int) -> tuple[Segment, int] | None:
        """The segment of item ``step`` and the partition's minibatch index."""
        for segment in self.segments:
            if segment.count is None or step < segment.count:
                return segment, segment.first + step
            step -= segment.count
        return None


class _Cursor:
    """Where the reader stands: ``(partition, next minibatch index)``."""

    def __init__(self, reader: PartitionedReader, plan: RankPlan) -> None:
        self.reader, self.plan = reader, plan
        self.partition: int | None = None
        self.next = 0

    def read(self, partition: int, index: int, open_ended: bool) -> Mapping[str, Any] | None:
        """Minibatch ``index`` of ``partition`` (``None``: it has no such minibatch)."""
        p = self.plan
        if partition != self.partition or index < self.next:
            self.reader.start_partition(p.epoch, p.world, partition)
            self.partition, self.next = partition, 0
        while self.next < index:
            if not self.reader.skip_minibatch(p.minibatch_size):
                return self._ended(partition, open_ended)
            self.next += 1
        minibatch = self.reader.next_minibatch(p.minibatch_size)
        self.next += 1
        return minibatch if minibatch else self._ended(partition, open_ended)

    def _ended(self, partition: int, open_ended: bool) -> None:
        if open_ended:
            return None
        raise ConfigError(f"partition {partition} of epoch {self.plan.epoch} ended after "
                          f"{self.next} minibatches, but its plan counted more; the reader's "
                          "partition_counts() disagrees with its reading (a bug: please report it)")


def iterate(reader: PartitionedReader, plan: RankPlan, start: int, workers: int, worker: int,
            anchor: int | None = None) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """Yields ``(step, minibatch)`` for the items ``step >= start`` with
    ``(step - anchor) % workers == worker``: workers deal the items round robin
    from ``anchor`` (default ``start``), the first item a DataLoader asks of worker 0.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher import CTFDeserializer, MinibatchSource, StreamDef
        >>> from minibatcher.adapters.reader import as_reader
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
        >>> _ = p.write_text("".join(f"|x {i}\\n" for i in range(4)))
        >>> reader = as_reader(MinibatchSource(CTFDeserializer(str(p), {"x": StreamDef()}),
        ...                                    randomize=False))
        >>> plan = RankPlan.compute(reader, 0, 1, 0, 1, equal=False)
        >>> [(t, mb["x"].values.item()) for t, mb in iterate(reader, plan, 0, workers=2, worker=1)]
        [(1, 1.0), (3, 3.0)]
    """
    cursor = _Cursor(reader, plan)
    anchor = start if anchor is None else anchor
    step = start + (anchor + worker - start) % workers
    while (found := plan.locate(step)) is not None:
        segment, index = found
        minibatch = cursor.read(segment.partition, index, segment.count is None)
        if minibatch is None:
            return
        yield step, minibatch
        step += workers
