"""The reader protocol the framework adapters drive, and its ``MinibatchSource`` form.

A framework adapter (``minibatcher.torch``, ``minibatcher.jax``) reads one
*partition* (a rank's share, CNTK's ``num_workers`` / ``worker_rank`` split) of
one *epoch* (a sweep of the data) minibatch by minibatch, skips minibatches that
another process delivers, and, for equal work per rank, needs every partition's
minibatch count of an epoch (docs/design/equal-work.md). Any reader of this
project plugs in by implementing :class:`PartitionedReader`;
:func:`as_reader` wraps a :class:`~minibatcher.MinibatchSource` (so every
``Deserializer``: CTF, HTK, ...) into one.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher import CTFDeserializer, MinibatchSource, StreamDef
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("".join(f"|x {i}\\n" for i in range(5)))
    >>> reader = as_reader(MinibatchSource(CTFDeserializer(str(p), {"x": StreamDef()}),
    ...                                    randomize=False))
    >>> reader.partition_counts(epoch=0, minibatch_size=2, num_partitions=2)
    [3, 2]
    >>> reader.start_partition(epoch=0, num_partitions=2, partition=1)
    >>> reader.next_minibatch(2)["x"].values.ravel().tolist()
    [1.0]
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol, runtime_checkable

from ..engine.options import FULL_DATA_SWEEP
from ..engine.source import MinibatchSource
from .counts import fast_partition_counts

__all__ = ["PartitionedReader", "SourceReader", "as_reader"]


@runtime_checkable
class PartitionedReader(Protocol):
    """What the framework adapters need from a reader.

    * ``start_partition(epoch, num_partitions, partition)``: read ``partition``
      of ``num_partitions`` of epoch ``epoch`` from its start.
    * ``next_minibatch(size)``: the next minibatch as ``{stream: data}`` where
      ``data`` is an array, a ``CSRMatrix``, or has them as ``.values``
      (``MinibatchData``); ``{}`` once the partition's epoch has ended.
    * ``skip_minibatch(size)``: moves past the next minibatch exactly as
      ``next_minibatch`` would (cheaply if it can); ``False`` at the end.
    * ``partition_counts(epoch, size, num_partitions)``: every partition's
      minibatch count of the epoch, computed without reading data.
    * ``fingerprint()``: a small JSON-able identity of the data and options.
    * ``close()``: frees threads and memory.

    Example:
        >>> isinstance(object(), PartitionedReader)
        False
    """

    def start_partition(self, epoch: int, num_partitions: int, partition: int) -> None:
        """Starts epoch ``epoch`` of partition ``partition`` of ``num_partitions``."""

    def next_minibatch(self, minibatch_size: int) -> Mapping[str, Any]:
        """The partition's next minibatch as ``{stream: data}``; empty at the epoch's end."""

    def skip_minibatch(self, minibatch_size: int) -> bool:
        """Moves past the next minibatch without reading it; False at the epoch's end."""

    def partition_counts(self, epoch: int, minibatch_size: int, num_partitions: int) -> list[int]:
        """Minibatches of every partition in epoch ``epoch``."""

    def fingerprint(self) -> dict[str, Any]:
        """A small JSON-able identity of the data and options."""

    def close(self) -> None:
        """Frees threads and memory."""


class SourceReader:
    """A :class:`~minibatcher.MinibatchSource` as a :class:`PartitionedReader`.

    An epoch is one sweep, started with CNTK's ``start_epoch(epoch,
    FULL_DATA_SWEEP)`` (so epoch ``e`` is randomized with ``randomization_seed +
    e``); the split is CNTK's (by chunk when randomized, round robin by
    sequence in file order); the source's own ``max_samples`` / ``max_sweeps``
    are not used.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher import CTFDeserializer, StreamDef
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
        >>> _ = p.write_text("".join(f"|x {i}\\n" for i in range(5)))
        >>> reader = SourceReader(MinibatchSource(CTFDeserializer(str(p), {"x": StreamDef()}),
        ...                                       randomize=False))
        >>> # CNTK's file-order split: sequences 0, 2, 4 and 1, 3, one per minibatch each
        >>> reader.partition_counts(epoch=0, minibatch_size=2, num_partitions=2)
        [3, 2]
    """

    def __init__(self, source: MinibatchSource) -> None:
        self.source = source
        fp = source.fingerprint().as_dict()  # before any partition change
        options = {k: v for k, v in fp["options"].items() if k not in ("num_workers", "worker_rank")}
        self._fingerprint = {"data": fp["data"], "options": options}
        self._split = (1, 0)

    def start_partition(self, epoch: int, num_partitions: int, partition: int) -> None:
        """Starts ``partition`` of epoch (sweep) ``epoch``."""
        self._split = (num_partitions, partition)
        self.source.start_epoch(epoch, FULL_DATA_SWEEP, num_data_partitions=num_partitions,
                                partition_index=partition)

    def next_minibatch(self, minibatch_size: int) -> Mapping[str, Any]:
        """The next minibatch of the started partition (``{}`` at its end)."""
        return self.source.next_minibatch(minibatch_size, None, None, *self._split)

    def skip_minibatch(self, minibatch_size: int) -> bool:
        """Moves past the next minibatch without packing it."""
        return self.source.skip_minibatch(minibatch_size, *self._split)

    def partition_counts(self, epoch: int, minibatch_size: int, num_partitions: int) -> list[int]:
        """Minibatches of every partition in epoch ``epoch``: computed from the
        plan alone where possible, else by skipping through each partition."""
        counts = fast_partition_counts(self.source, epoch, minibatch_size, num_partitions)
        if counts is not None:
            return counts
        counts = []
        for partition in range(num_partitions):
            self.start_partition(epoch, num_partitions, partition)
            n = 0
            while self.skip_minibatch(minibatch_size):
                n += 1
            counts.append(n)
        return counts

    def fingerprint(self) -> dict[str, Any]:
        """The source's fingerprint without the split (the adapter sets it)."""
        return self._fingerprint

    def set_output_arena(self, arena: Any) -> None:
        """Lends the source memory for dense minibatch values (optional for a
        ``PartitionedReader``; see ``MinibatchSource.set_output_arena``)."""
        self.source.set_output_arena(arena)

    def close(self) -> None:
        """Closes the source."""
        self.source.close()


def as_reader(obj: Any) -> PartitionedReader:
    """``obj`` as a :class:`PartitionedReader` (a ``MinibatchSource`` is wrapped).

    Example:
        >>> as_reader(42)
        Traceback (most recent call last):
        ...
        TypeError: make_source() should return a MinibatchSource or a PartitionedReader (start_partition, next_minibatch, skip_minibatch, partition_counts, fingerprint, close), but got int
    """
    if isinstance(obj, MinibatchSource):
        return SourceReader(obj)
    if isinstance(obj, PartitionedReader):
        return obj
    raise TypeError("make_source() should return a MinibatchSource or a PartitionedReader "
                    "(start_partition, next_minibatch, skip_minibatch, partition_counts, "
                    f"fingerprint, close), but got {type(obj).__name__}")
