"""What TFRecord reads return, and the pieces of their bookkeeping.

:class:`RecordBatch` (records back to back, from a sequential read) and
:class:`RecordSpans` (records in place, from a read by
positions); the grouping of positions into reads, and of chunks read in order
into spans.

Example:
    >>> b = RecordBatch(np.frombuffer(b"abcd", np.uint8), np.array([1, 4]), np.array([0, 1]))
    >>> bytes(b[1]), _consecutive(np.array([1, 2, 3, 7]))
    (b'bcd', [(1, 3), (7, 1)])
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterator

import numpy as np

_GATHER_GAP = 1 << 20    # read-by-position: a gap this large between records starts a new read
_GATHER_SPAN = 16 << 20  # and no single read spans more


@dataclasses.dataclass(frozen=True)
class RecordBatch:
    """Records back to back in ``data``; record i is ``data[ends[i-1]:ends[i]]``
    and sits at ``positions[i]`` in its file.

    Example:
        >>> b = RecordBatch(np.frombuffer(b"abcd", np.uint8), np.array([1, 4]), np.array([0, 1]))
        >>> len(b), bytes(b[1])
        (2, b'bcd')
    """

    data: np.ndarray
    ends: np.ndarray
    positions: np.ndarray

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, i: int) -> memoryview:
        start = int(self.ends[i - 1]) if i > 0 else 0
        return memoryview(self.data)[start:int(self.ends[i])]

    def __iter__(self) -> Iterator[memoryview]:
        return (self[i] for i in range(len(self)))


def _runs(frames: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
    """Index runs of sorted frames read with one ``pread`` each."""
    if not len(frames):
        return []
    ends = frames + lengths + 16
    reach = np.maximum.accumulate(ends)
    cut = np.flatnonzero(frames[1:] - reach[:-1] > _GATHER_GAP) + 1
    runs, out = np.split(np.arange(len(frames)), cut), []
    for run in runs:  # split runs spanning too much
        span = ends[run] - frames[run[0]]
        pieces = np.flatnonzero(np.diff(span // _GATHER_SPAN)) + 1
        out.extend(np.split(run, pieces))
    return out


def _consecutive(sorted_unique: np.ndarray) -> list[tuple[int, int]]:
    """``(first, count)`` of each run of consecutive integers."""
    if not len(sorted_unique):
        return []
    cut = np.flatnonzero(np.diff(sorted_unique) != 1) + 1
    return [(int(r[0]), len(r)) for r in np.split(sorted_unique, cut)]


@dataclasses.dataclass(frozen=True)
class RecordSpans:
    """Records in place, not necessarily back to back: record i is
    ``data[starts[i]:ends[i]]`` and sits at ``positions[i]`` in its file; or,
    for records in several buffers (``seg`` given), in ``buffers[seg[i]]``.

    Example:
        >>> s = RecordSpans(np.frombuffer(b"xaby", np.uint8), np.array([1, 0]), np.array([3, 1]),
        ...                 np.array([5, 2]))
        >>> len(s), s.records()
        (2, [b'ab', b'x'])
    """

    data: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    positions: np.ndarray
    seg: np.ndarray | None = None
    buffers: list[np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.ends)

    def records(self) -> list[bytes]:
        """The records as ``bytes``."""
        from ... import _native

        return _native.spans_to_bytes(self.buffers or [self.data],
                                      np.zeros(0, np.int64) if self.seg is None else self.seg,
                                      self.starts, self.ends)


def _spans(parts: list[tuple[Any, int, int]], positions: np.ndarray) -> RecordSpans:
    """Records read in order (``(chunk, lo, hi)`` parts) in place in the chunks."""
    starts = [c.frames[lo - c.first:hi - c.first] + 12 for c, lo, hi in parts]
    ends = [s + c.lengths[lo - c.first:hi - c.first] for s, (c, lo, hi) in zip(starts, parts)]
    if len(parts) == 1:
        return RecordSpans(parts[0][0].data, starts[0], ends[0], positions)
    seg = np.repeat(np.arange(len(parts), dtype=np.int64), [hi - lo for _, lo, hi in parts])
    return RecordSpans(parts[0][0].data, np.concatenate(starts), np.concatenate(ends), positions,
                       seg, [c.data for c, _, _ in parts])
