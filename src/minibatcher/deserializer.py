"""The deserializer contract between a format layer and the engine.

A deserializer exposes a *sequence table* (keys, budget lengths and chunk
boundaries, known without parsing) and loads whole *chunks* of parsed data on
request. The engine orders, loads, releases and packs; formats only turn bytes
into :class:`ChunkData`. See ``docs/design/packing-layout.md``.

Example:
    >>> import numpy as np
    >>> chunk = StreamChunk.dense(np.arange(6, dtype=np.float32).reshape(3, 2), [0, 2, 3])
    >>> chunk.num_sequences, chunk.sequence_slice(1)
    (2, slice(2, 3, None))
"""

from __future__ import annotations

import abc
import threading
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .args import check_int
from .errors import FormatError
from .streams import StreamInformation
# re-exported: the formats and the engine import the table from here
from .sequence_table import SequenceTable, check_sequence_index  # noqa: F401


@dataclass(frozen=True)
class ContextWindow:
    """Neighbour samples added when a dense stream is gathered (HTK context windows).

    Gathered sample ``t`` becomes ``[x(t-left), ..., x(t), ..., x(t+right)]``,
    the indices clamped inside the segment holding ``t`` (its first and last
    samples repeat). ``bounds`` are the segments' sample offsets; ``None``
    means the chunk's own sequence boundaries. Chunks keep the base samples
    only, so memory does not grow with the window.

    Example:
        >>> ContextWindow(5, 5).width
        11
    """

    left: int
    right: int
    bounds: np.ndarray | None = None

    def __post_init__(self) -> None:
        for name in ("left", "right"):
            value = check_int(name, getattr(self, name), 0, error=FormatError,
                              expected="a non-negative integer (context samples)")
            object.__setattr__(self, name, value)

    @property
    def width(self) -> int:
        """Samples per expanded sample: ``1 + left + right``."""
        return 1 + self.left + self.right


@dataclass(frozen=True)
class StreamChunk:
    """Samples of one stream for every sequence of one chunk.

    ``sequence_offsets[i]:sequence_offsets[i+1]`` are the samples of sequence
    ``i``. Dense values are ``(samples, dim)``; sparse samples are CSR rows
    (``values``/``indices`` of all non-zeros, ``indptr`` per sample).

    Example:
        >>> c = StreamChunk.sparse(np.array([1.0, 2.0]), np.array([4, 0], np.int32),
        ...                        np.array([0, 1, 2]), [0, 2])
        >>> c.is_sparse, c.num_samples
        (True, 2)
    """

    sequence_offsets: np.ndarray
    values: np.ndarray
    indices: np.ndarray | None = None
    indptr: np.ndarray | None = None
    context: ContextWindow | None = None

    @classmethod
    def dense(cls, values: np.ndarray, sequence_offsets: Sequence[int],
              context: ContextWindow | None = None) -> "StreamChunk":
        """A dense stream chunk (``context``: neighbours added at gather time).

        Example:
            >>> StreamChunk.dense(np.zeros((2, 3)), [0, 1, 2]).num_sequences
            2
        """
        return cls(np.asarray(sequence_offsets, dtype=np.int64), values, context=context)

    def context_bounds(self) -> np.ndarray:
        """The segments that clamp the context window (the sequences unless given).

        Example:
            >>> StreamChunk.dense(np.zeros((3, 1)), [0, 2, 3], ContextWindow(1, 1)).context_bounds().tolist()
            [0, 2, 3]
        """
        bounds = self.context.bounds if self.context is not None else None
        return self.sequence_offsets if bounds is None else np.asarray(bounds, dtype=np.int64)

    @classmethod
    def sparse(
        cls,
        values: np.ndarray,
        indices: np.ndarray,
        indptr: np.ndarray,
        sequence_offsets: Sequence[int],
    ) -> "StreamChunk":
        """A sparse (CSR) stream chunk.

        Example:
            >>> StreamChunk.sparse(np.zeros(0), np.zeros(0, np.int32), np.array([0]), [0, 0]).num_samples
            0
        """
        return cls(np.asarray(sequence_offsets, dtype=np.int64), values, indices, indptr)

    @property
    def is_sparse(self) -> bool:
        """Whether the samples are CSR rows.

        Example:
            >>> StreamChunk.dense(np.zeros((1, 1)), [0, 1]).is_sparse
            False
        """
        return self.indptr is not None

    @property
    def num_sequences(self) -> int:
        """Number of sequences in the chunk.

        Example:
            >>> StreamChunk.dense(np.zeros((0, 2)), [0]).num_sequences
            0
        """
        return len(self.sequence_offsets) - 1

    @property
    def num_samples(self) -> int:
        """Number of samples in the chunk.

        Example:
            >>> StreamChunk.dense(np.zeros((4, 2)), [0, 4]).num_samples
            4
        """
        return int(self.sequence_offsets[-1])

    def sequence_slice(self, i: int) -> slice:
        """The sample range of sequence ``i``.

        Example:
            >>> StreamChunk.dense(np.zeros((4, 1)), [0, 3, 4]).sequence_slice(0)
            slice(0, 3, None)
        """
        return slice(int(self.sequence_offsets[i]), int(self.sequence_offsets[i + 1]))

    @property
    def nbytes(self) -> int:
        """Bytes held by the decoded arrays.

        Example:
            >>> StreamChunk.dense(np.zeros((2, 2), np.float32), [0, 2]).nbytes  # 16 + 2 offsets
            32
        """
        arrays = [self.sequence_offsets, self.values, self.indices, self.indptr]
        return sum(a.nbytes for a in arrays if a is not None)


@dataclass(frozen=True)
class ChunkData:
    """All streams of one loaded chunk, in the deserializer's stream order.

    ``skipped`` lists sequences (indices within the chunk) that must not be
    delivered: a format may find a sequence unusable only when it parses it
    (e.g. ``CTFDeserializer(skip_incomplete_sequences=True)``). They keep their
    place on the timeline, so orders and checkpoints do not change; the
    packers leave them out (and count nothing: the format counts them).

    Example:
        >>> ChunkData((StreamChunk.dense(np.zeros((1, 1)), [0, 1]),)).num_sequences
        1
        >>> ChunkData((StreamChunk.dense(np.zeros((2, 1)), [0, 1, 2]),), skipped=(1,)).skipped
        (1,)
    """

    streams: tuple[StreamChunk, ...]
    skipped: tuple[int, ...] = ()

    @property
    def num_sequences(self) -> int:
        """Number of sequences (equal in every stream).

        Example:
            >>> ChunkData((StreamChunk.dense(np.zeros((3, 1)), [0, 1, 3]),)).num_sequences
            2
        """
        return self.streams[0].num_sequences if self.streams else 0

    @property
    def nbytes(self) -> int:
        """Bytes held by all streams.

        Example:
            >>> ChunkData((StreamChunk.dense(np.zeros((1, 1), np.float64), [0, 1]),)).nbytes
            24
        """
        return sum(s.nbytes for s in self.streams)


class KeptChunks:
    """``keep_data_in_memory``: the one place a deserializer keeps its loaded
    chunks for the reader's life (CTF and HTK use it; ``keeps_chunks`` says
    so to the engine). Thread-safe: chunks load on background threads, and a
    chunk two threads load at once is kept once. Off, every call loads.

    Example:
        >>> calls = []
        >>> load = lambda c: calls.append(c) or f"chunk {c}"
        >>> kept = KeptChunks(True)
        >>> kept.get(3, load), kept.get(3, load), len(calls)
        ('chunk 3', 'chunk 3', 1)
        >>> KeptChunks(False).get(3, load), len(calls)
        ('chunk 3', 2)
    """

    def __init__(self, keep: bool) -> None:
        self.keep = bool(keep)
        self._chunks: dict[int, Any] = {}
        self._lock = threading.Lock()

    def get(self, chunk_id: int, load: Callable[[int], Any]) -> Any:
        """Chunk ``chunk_id``: the kept one, or ``load(chunk_id)`` (kept when on)."""
        if not self.keep:
            return load(chunk_id)
        with self._lock:
            chunk = self._chunks.get(chunk_id)
        if chunk is None:
            chunk = load(chunk_id)
            with self._lock:
                chunk = self._chunks.setdefault(chunk_id, chunk)
        return chunk


class Deserializer(abc.ABC):
    """A format layer the engine can read from.

    Subclasses provide :attr:`streams`, :meth:`table`, :meth:`load_chunk` and
    :meth:`fingerprint`; chunk loading must be thread-safe (the engine parses
    ahead on background threads).

    Example:
        >>> issubclass(Deserializer, abc.ABC)
        True
    """

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """A short human-readable name (a file name) for messages."""

    @property
    @abc.abstractmethod
    def streams(self) -> list[StreamInformation]:
        """The streams this deserializer delivers, in chunk order."""

    @abc.abstractmethod
    def table(self) -> SequenceTable:
        """Keys, budget lengths and chunk boundaries of all sequences."""

    @abc.abstractmethod
    def load_chunk(self, chunk_id: int) -> ChunkData:
        """Parses one chunk; may run on a background thread."""

    @abc.abstractmethod
    def fingerprint(self) -> dict[str, Any]:
        """Small JSON-able identity of the data and every option that changes it."""

    @property
    def keeps_chunks(self) -> bool:
        """True when loaded chunks stay cached for the reader's lifetime
        (:class:`KeptChunks`): caches above need not keep them again."""
        return False

    @property
    def splits_into_frames(self) -> bool:
        """True when frame mode reads every sample of a sequence as a sequence
        of its own (HTK features, MLF labels); False when frame mode needs
        one-sample sequences (CTF)."""
        return False

    def describe_sequence(self, sequence: int) -> str:
        """Names sequence ``sequence`` (an index into :meth:`table`) in messages."""
        return f"sequence {int(self.table().keys[sequence])} of {self.name}"

    def key_names(self, keys: Sequence[int] | np.ndarray) -> list[str] | None:
        """The names of the sequences with ``keys`` (``MinibatchData.keys``), for
        formats whose keys are hashes of names (HTK utterances, MLF entries:
        those with a ``key_name(sequence)``); None where the keys are the names
        (CTF sequence ids, line numbers).

        Example:
            >>> class Named(Deserializer):
            ...     name, streams = "named", []
            ...     def table(self):
            ...         keys = np.array([91, 17], np.uint64)
            ...         return SequenceTable(keys, np.ones(2), np.array([0, 2]))
            ...     def load_chunk(self, c): ...
            ...     def fingerprint(self): return {}
            ...     def key_name(self, sequence): return ["a", "b"][sequence]
            >>> Named().key_names(np.array([17, 91, 17], np.uint64))
            ['b', 'a', 'b']
            >>> n = Named(); n.key_names([]), "_names_by_key" in n.__dict__  # a probe builds nothing
            ([], False)
        """
        namer = getattr(self, "key_name", None)
        if namer is None:
            return None
        if len(keys) == 0:  # says whether there are names without building the lookup
            return []
        lookup = self.__dict__.get("_names_by_key")
        if lookup is None:  # built once; a race builds the same dict twice
            lookup = {int(k): namer(i) for i, k in enumerate(self.table().keys.tolist())}
            self.__dict__["_names_by_key"] = lookup
        return [lookup[int(k)] for k in keys]

    def join(self, primary: "Deserializer", links: np.ndarray) -> np.ndarray | None:
        """Checks this (secondary) deserializer against the composite's primary.

        ``links[i]`` is this deserializer's sequence for primary sequence ``i``
        (-1 when its key is absent here). Returns which primary sequences to
        keep, after reporting and charging every problem, or ``None`` for the
        default (keep the sequences found; the composite warns about the rest).
        """
        return None
