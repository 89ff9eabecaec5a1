"""``UserDeserializer``: a Python chunk reader plugged into the engine (CNTK's contract).

A subclass implements CNTK's three methods: ``stream_infos()`` (a list of
:class:`StreamInformation`), ``num_chunks()`` and ``get_chunk(chunk_id)``,
which returns ``{stream name: data}`` where data is, per stream, either one
array for the whole chunk (sample mode: row ``i`` is sequence ``i``, of one
sample; a ``numpy`` array ``(sequences, *sample_shape)`` or a SciPy CSR
matrix ``(sequences, dim)``) or a list with one array/CSR matrix per sequence
(sequence mode: ``(length, *sample_shape)`` / ``(length, dim)``).

``MinibatchSource`` wraps it in :class:`UserDeserializerAdapter`, so the
reader gets the engine's block randomizer, frame/BPTT packing, workers and
exact checkpoints. The engine plans from sequence lengths, so the adapter
reads every chunk once when the source is built (only the lengths are kept);
a reader that knows them cheaply can define ``sequence_lengths(chunk_id)``
instead. ``get_chunk`` must return the same data for the same id (CNTK's
deserializers are stateless): a chunk that comes back different is an error.
An optional ``fingerprint()`` (a JSON-able identity of the data) is checked
by ``restore_from_checkpoint``.

Example:
    >>> import numpy as np
    >>> class Squares(UserDeserializer):
    ...     def stream_infos(self):
    ...         return [StreamInformation("x", 0, "dense", np.float32, (1,))]
    ...     def num_chunks(self):
    ...         return 2
    ...     def get_chunk(self, chunk_id):
    ...         first = 3 * chunk_id
    ...         return {"x": np.arange(first, first + 3, dtype=np.float32)[:, None] ** 2}
    >>> d = UserDeserializerAdapter(Squares())
    >>> d.table().num_sequences, d.load_chunk(1).streams[0].values.ravel().tolist()
    (6, [9.0, 16.0, 25.0])
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any, Mapping, Sequence

import numpy as np

from .args import is_int
from .deserializer import ChunkData, Deserializer, SequenceTable, StreamChunk
from .errors import ConfigError, FormatError
from .streams import StreamInformation

__all__ = ["UserDeserializer", "UserDeserializerAdapter", "stream_chunk"]


class UserDeserializer:
    """Base class of user-defined deserializers (``cntk.io.UserDeserializer``).

    Example:
        >>> UserDeserializer().num_chunks()
        Traceback (most recent call last):
        ...
        NotImplementedError: should return the total number of chunks
    """

    def __init__(self) -> None:
        pass

    def stream_infos(self) -> list[StreamInformation]:
        """The streams, as a list of :class:`StreamInformation` (to implement).

        Example:
            >>> UserDeserializer().stream_infos()
            Traceback (most recent call last):
            ...
            NotImplementedError: should return a list of StreamInformation for all streams
        """
        raise NotImplementedError("should return a list of StreamInformation for all streams")

    def num_chunks(self) -> int:
        """The number of chunks (to implement).

        Example:
            >>> UserDeserializer().num_chunks()
            Traceback (most recent call last):
            ...
            NotImplementedError: should return the total number of chunks
        """
        raise NotImplementedError("should return the total number of chunks")

    def get_chunk(self, chunk_id: int) -> Mapping[str, Any]:
        """``{stream name: data}`` of chunk ``chunk_id`` (to implement; see the module).

        Example:
            >>> UserDeserializer().get_chunk(0)
            Traceback (most recent call last):
            ...
            NotImplementedError: should return the data of the chunk
        """
        raise NotImplementedError("should return the data of the chunk")


def _is_csr(value: Any) -> bool:
    return all(hasattr(value, a) for a in ("indptr", "indices", "data", "shape"))


def _dense_rows(info: StreamInformation, value: np.ndarray, where: str) -> np.ndarray:
    """``value`` as ``(rows, dim)`` of the stream's dtype; rows of ``sample_shape``."""
    array = np.asarray(value)
    shape = array.shape[1:]
    if array.ndim == 1 and info.dim == 1:
        shape = (1,)
    if array.dtype.kind not in "biuf" or shape not in (info.sample_shape, (info.dim,)):
        raise FormatError(f"{where}: stream {info.name!r} should be a numeric array of samples of "
                          f"shape {info.sample_shape}, but got an array of shape {array.shape} "
                          f"and dtype {array.dtype}")
    return np.ascontiguousarray(array.reshape(len(array), info.dim), dtype=info.dtype)


def _csr_parts(info: StreamInformation, value: Any, where: str) -> tuple[np.ndarray, ...]:
    if hasattr(value, "tocsr"):
        value = value.tocsr()
    if not _is_csr(value) or len(value.shape) != 2 or value.shape[1] != info.dim:
        got = getattr(value, "shape", type(value).__name__)
        raise FormatError(f"{where}: sparse stream {info.name!r} should be a CSR matrix with "
                          f"{info.dim} columns per sample, but got {got}")
    indices = np.asarray(value.indices)
    if len(indices) and (indices.min() < 0 or indices.max() >= info.dim):
        raise FormatError(f"{where}: sparse stream {info.name!r} has a column index outside "
                          f"[0, {info.dim})")
    return (np.asarray(value.data, dtype=info.dtype), indices.astype(np.int64),
            np.asarray(value.indptr, dtype=np.int64))


def _concat_sparse(parts: list[tuple[np.ndarray, ...]], dtype: np.dtype) -> tuple[np.ndarray, ...]:
    if not parts:
        return np.zeros(0, dtype), np.zeros(0, np.int64), np.zeros(1, np.int64)
    shifts = np.cumsum([0] + [p[2][-1] for p in parts[:-1]])
    indptr = np.concatenate([[0]] + [p[2][1:] + s for p, s in zip(parts, shifts)])
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            indptr.astype(np.int64))


def stream_chunk(info: StreamInformation, value: Any, where: str) -> StreamChunk:
    """One stream's data (sample mode: one array; sequence mode: a list) as a chunk.

    Example:
        >>> info = StreamInformation("x", 0, 2, False)
        >>> c = stream_chunk(info, [np.ones((2, 2)), np.zeros((1, 2))], "here")
        >>> c.sequence_offsets.tolist(), c.values.dtype
        ([0, 2, 3], dtype('float32'))
    """
    items = list(value) if isinstance(value, (list, tuple)) else None
    if info.is_sparse:
        parts = [_csr_parts(info, v, where) for v in items] if items is not None else None
        data, indices, indptr = _concat_sparse(parts, info.dtype) if parts is not None else (
            _csr_parts(info, value, where))
        lengths = [len(p[2]) - 1 for p in parts] if parts is not None else [1] * (len(indptr) - 1)
        return StreamChunk.sparse(data, indices, indptr, np.concatenate([[0], np.cumsum(lengths)]))
    if items is None:
        rows = _dense_rows(info, value, where)
        return StreamChunk.dense(rows, np.arange(len(rows) + 1))
    arrays = [_dense_rows(info, v, where) for v in items]
    offsets = np.concatenate([[0], np.cumsum([len(a) for a in arrays])]).astype(np.int64)
    values = np.concatenate(arrays) if arrays else np.zeros((0, info.dim), info.dtype)
    return StreamChunk.dense(values, offsets)


def _infos(user: Any) -> list[StreamInformation]:
    infos = list(user.stream_infos())
    if not infos or not all(isinstance(i, StreamInformation) for i in infos):
        raise ConfigError(f"{type(user).__name__}.stream_infos() should return a non-empty list of "
                          f"StreamInformation, but got {infos!r}")
    names = [i.name for i in infos]
    if len(set(names)) != len(names) or sum(i.defines_mb_size for i in infos) > 1:
        raise ConfigError(f"{type(user).__name__}.stream_infos(): stream names should be unique "
                          f"and at most one stream may define the minibatch size, but got {names}")
    return [StreamInformation(i.name, n, i.dim, i.is_sparse, i.dtype, i.defines_mb_size,
                              sample_shape=i.sample_shape) for n, i in enumerate(infos)]


class UserDeserializerAdapter(Deserializer):
    """A :class:`UserDeserializer` (CNTK's contract) as an engine :class:`Deserializer`.

    Example:
        >>> UserDeserializerAdapter(UserDeserializer())
        Traceback (most recent call last):
        ...
        NotImplementedError: should return a list of StreamInformation for all streams
    """

    def __init__(self, user: UserDeserializer) -> None:
        self.user = user
        self._name = type(user).__name__
        self._infos = _infos(user)
        self._lock = threading.Lock()
        count = user.num_chunks()
        if not is_int(count) or count <= 0:
            raise ConfigError(f"{self._name}.num_chunks() should return a positive int, but got "
                              f"{count!r}")
        lengths = [self._lengths(c) for c in range(int(count))]
        self._chunk_ids = [c for c, n in enumerate(lengths) if len(n)]  # empty chunks are skipped
        if not self._chunk_ids:
            raise FormatError(f"{self._name}: no sequence to read: every chunk is empty")
        all_lengths = np.concatenate([lengths[c] for c in self._chunk_ids])
        starts = np.concatenate([[0], np.cumsum([len(lengths[c]) for c in self._chunk_ids])])
        self._table = SequenceTable(np.arange(len(all_lengths), dtype=np.uint64), all_lengths,
                                    starts.astype(np.int64))

    def _lengths(self, chunk_id: int) -> np.ndarray:
        hook = getattr(self.user, "sequence_lengths", None)
        if callable(hook):
            lengths = np.asarray(hook(chunk_id), dtype=np.int64).reshape(-1)
            if len(lengths) and lengths.min() < 0:
                raise ConfigError(f"{self._name}.sequence_lengths({chunk_id}) returned a negative "
                                  "length")
            return lengths
        return self._budget(self._convert(chunk_id))

    def _budget(self, chunk: ChunkData) -> np.ndarray:
        lengths = [np.diff(s.sequence_offsets) for s in chunk.streams]
        main = [k for k, i in enumerate(self._infos) if i.defines_mb_size]
        return lengths[main[0]] if main else np.max(lengths, axis=0)

    def _convert(self, chunk_id: int) -> ChunkData:
        where = f"{self._name}.get_chunk({chunk_id})"
        with self._lock:  # user code need not be thread-safe
            data = self.user.get_chunk(chunk_id)
        if not isinstance(data, Mapping):
            raise FormatError(f"{where} should return a dict {{stream name: data}}, but got "
                              f"{type(data).__name__}")
        data = {getattr(k, "name", k): v for k, v in data.items()}
        names = [i.name for i in self._infos]
        if sorted(data) != sorted(names):
            raise FormatError(f"{where} should return the streams {names}, but got {sorted(data)}")
        streams = tuple(stream_chunk(i, data[i.name], where) for i in self._infos)
        counts = {s.num_sequences for s in streams}
        if len(counts) != 1:
            raise FormatError(f"{where}: every stream should hold the same number of sequences, "
                              f"but got {[s.num_sequences for s in streams]} for {names}")
        return ChunkData(streams)

    # -- Deserializer -------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._name

    @property
    def streams(self) -> list[StreamInformation]:
        return list(self._infos)

    def table(self) -> SequenceTable:
        return self._table

    def load_chunk(self, chunk_id: int) -> ChunkData:
        user_chunk = self._chunk_ids[chunk_id]
        chunk = self._convert(user_chunk)
        t = self._table
        expected = t.lengths[t.chunk_starts[chunk_id]:t.chunk_starts[chunk_id + 1]]
        got = self._budget(chunk)
        if len(got) != len(expected) or not np.array_equal(got, expected):
            raise FormatError(
                f"{self._name}.get_chunk({user_chunk}) returned {len(got)} sequence(s) with other "
                f"lengths than when the source was built ({len(expected)}); get_chunk must return "
                "the same data for the same chunk id")
        return chunk

    def fingerprint(self) -> dict[str, Any]:
        user_identity = getattr(self.user, "fingerprint", None)
        streams = [[i.name, i.dim, i.is_sparse, str(i.dtype), list(i.sample_shape),
                    i.defines_mb_size] for i in self._infos]
        return {"user_deserializer": f"{type(self.user).__module__}.{self._name}",
                "streams": streams, "chunks": self._chunk_ids,
                "lengths": hashlib.blake2b(self._table.lengths.astype("<i8").tobytes(),
                                           digest_size=8).hexdigest(),
                "identity": user_identity() if callable(user_identity) else None}


def adapt(items: Sequence[Any]) -> list[Any]:
    """Wraps every :class:`UserDeserializer` of ``items``; other items are kept.

    Example:
        >>> adapt([1])
        [1]
    """
    return [UserDeserializerAdapter(d) if isinstance(d, UserDeserializer) else d for d in items]
