"""Frame mode over sequences: every sample becomes a one-sample sequence.

CNTK's HTK and MLF deserializers expose each frame of an utterance as a
sequence of its own in frame mode, inside the same chunks (so the block
randomizer shuffles frames within its windows). :class:`FrameView` does this
for any deserializer that :attr:`~minibatcher.deserializer.Deserializer.splits_into_frames`:
the table repeats each key once per frame, chunks are the inner chunks with
per-sample offsets, and context windows keep clamping at the utterance edges.

Example:
    >>> import numpy as np
    >>> from minibatcher.deserializer import ChunkData, SequenceTable, StreamChunk, Deserializer
    >>> class Two(Deserializer):
    ...     name, streams = "two", []
    ...     def table(self):
    ...         keys = np.array([7, 9], np.uint64)
    ...         return SequenceTable(keys, np.array([2, 1]), np.array([0, 2]))
    ...     def load_chunk(self, c):
    ...         return ChunkData((StreamChunk.dense(np.arange(3.).reshape(3, 1), [0, 2, 3]),))
    ...     def fingerprint(self):
    ...         return {}
    >>> view = FrameView(Two())
    >>> view.table().keys.tolist(), view.load_chunk(0).streams[0].sequence_offsets.tolist()
    ([7, 7, 9], [0, 1, 2, 3])

The table holds no per-frame array (issue 17): keys are looked up per
utterance (:class:`FrameKeys`) and every length is a broadcast 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _native
from ..deserializer import ChunkData, ContextWindow, Deserializer, SequenceTable, StreamChunk
from ..errors import FormatError
from ..streams import StreamInformation


class FrameKeys:
    """The key of every frame (its utterance's), computed on indexing from
    per-utterance arrays: a read-only stand-in for ``np.repeat(keys, lengths)``.

    Example:
        >>> k = FrameKeys(np.array([7, 9], np.uint64), np.array([0, 2, 3]))
        >>> len(k), k[np.array([2, 0])].tolist(), k[:2].tolist(), int(k[-1])
        (3, [9, 7], [7, 7], 9)
    """

    def __init__(self, keys: np.ndarray, first_frame: np.ndarray) -> None:
        self._keys, self._first = np.asarray(keys), np.ascontiguousarray(first_frame, np.int64)
        self.dtype = self._keys.dtype

    def __len__(self) -> int:
        return int(self._first[-1])

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, np.ndarray) and index.dtype == np.int64 and index.ndim == 1:
            try:  # the packers' case: frame indices in range (one native lookup)
                return self._keys[_native.engine_segment_of(self._first, index)]
            except ValueError:
                pass  # negative or past the end: the general path below
        if isinstance(index, slice):
            index = np.arange(*index.indices(len(self)))
        frames = np.asarray(index)
        frames = np.where(frames < 0, frames + len(self), frames)
        return self._keys[self._first.searchsorted(frames, side="right") - 1]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        keys = np.repeat(self._keys, np.diff(self._first))
        return keys if dtype is None else keys.astype(dtype)

    def tolist(self) -> list[int]:
        """Every frame's key (materialized: for small tables)."""
        return np.asarray(self).tolist()


@dataclass(frozen=True)
class FrameTable(SequenceTable):
    """A :class:`SequenceTable` of one-sample sequences without per-frame
    arrays (``keys`` a :class:`FrameKeys`, ``lengths`` a broadcast 1).

    Example:
        >>> t = FrameTable.of(np.array([7, 9], np.uint64), np.array([0, 2, 3]), np.array([0, 3]))
        >>> t.num_samples, t.chunk_samples().tolist(), t.lengths.tolist()
        (3, [3], [1, 1, 1])
    """

    @classmethod
    def of(cls, keys: np.ndarray, first_frame: np.ndarray, chunk_starts: np.ndarray) -> "FrameTable":
        """Frames of utterances with ``keys`` starting at ``first_frame`` (+ total), chunked at
        frame offsets ``chunk_starts``."""
        n = int(first_frame[-1])
        ones = np.broadcast_to(np.ones(1, np.int32), (n,))
        return cls(FrameKeys(keys, first_frame), ones, chunk_starts)  # type: ignore[arg-type]

    @property
    def num_samples(self) -> int:
        return len(self.keys)

    def chunk_samples(self) -> np.ndarray:
        return self.chunk_sequences()


class FrameView(Deserializer):
    """``inner`` with every sample read as a one-sample sequence."""

    def __init__(self, inner: Deserializer) -> None:
        self.inner = inner
        table = inner.table()
        lengths = np.asarray(table.lengths)
        if len(lengths) and lengths.min() < 0:
            raise FormatError(f"{inner.name}: negative sequence lengths cannot be split into "
                              "frames")
        self._first_frame = np.zeros(table.num_sequences + 1, dtype=np.int64)
        np.cumsum(lengths, out=self._first_frame[1:])
        starts = self._first_frame[table.chunk_starts]
        self._table = FrameTable.of(table.keys, self._first_frame, starts)
        self._chunk_frames = table.chunk_samples()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def streams(self) -> list[StreamInformation]:
        return self.inner.streams

    @property
    def keeps_chunks(self) -> bool:
        return self.inner.keeps_chunks

    def table(self) -> SequenceTable:
        return self._table

    def fingerprint(self) -> dict[str, Any]:
        return {"frames": self.inner.fingerprint()}

    def key_names(self, keys: Any) -> list[str] | None:
        """The inner deserializer's names (every frame keeps its utterance's key)."""
        return self.inner.key_names(keys)

    def describe_sequence(self, sequence: int) -> str:
        utterance = int(np.searchsorted(self._first_frame, sequence, side="right")) - 1
        frame = sequence - int(self._first_frame[utterance])
        return f"frame {frame} of {self.inner.describe_sequence(utterance)}"

    def load_chunk(self, chunk_id: int) -> ChunkData:
        data = self.inner.load_chunk(chunk_id)
        frames = int(self._chunk_frames[chunk_id])
        streams = []
        for k, stream in enumerate(data.streams):
            if stream.num_samples != frames:
                raise FormatError(
                    f"{self.name}: frame mode needs every stream to have the sequence's length, "
                    f"but chunk {chunk_id} has {stream.num_samples} samples in stream {k} for "
                    f"{frames} frames")
            streams.append(self._split(stream))
        return ChunkData(tuple(streams))

    @staticmethod
    def _split(stream: StreamChunk) -> StreamChunk:
        offsets = np.arange(stream.num_samples + 1, dtype=np.int64)
        context = stream.context
        if context is not None:
            context = ContextWindow(context.left, context.right, stream.context_bounds())
        return StreamChunk(offsets, stream.values, stream.indices, stream.indptr, context)
