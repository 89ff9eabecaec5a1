"""Gathering sample ranges of loaded chunks into contiguous arrays.

The copies are native (``cpp/engine/gather.cc``, GIL released). The engine's
minibatches do not come through here: every stream of a minibatch is located,
gathered and laid out in one call on the registered chunks
(``ChunkRegistry.assemble``, ``packers.PackerInput.assemble``). These functions
serve what works on :class:`StreamChunk` lists instead: the composite's joins
and :func:`sequence_rows` (Grain, Ray, tfdata). A dense gather that is one
contiguous run of one chunk is returned as a view (no copy).

Example:
    >>> import numpy as np
    >>> from minibatcher.deserializer import StreamChunk
    >>> a = StreamChunk.dense(np.arange(8.).reshape(4, 2), [0, 1, 3, 4])
    >>> b = StreamChunk.dense(np.array([[9., 9.]]), [0, 1])
    >>> sources, source = [a, b], np.array([0, 1, 0], np.int32)  # picks' chunks among sources
    >>> starts, lengths = sample_ranges(sources, source, [2, 0, 0])
    >>> gather_dense(sources, source, starts, lengths, dim=2, dtype=np.float64)[:, 0].tolist()
    [6.0, 9.0, 0.0]
"""

from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np

from .. import _native
from ..deserializer import ContextWindow, StreamChunk
from ..streams import StreamInformation
from .layout import CSRMatrix


class OutputArena(Protocol):
    """Memory a caller lends for dense minibatch values (the DataLoader worker
    ring of :mod:`minibatcher.adapters.shm_ring`): ``take()`` returns its free
    bytes (a writable uint8 array, or None), ``used(n)`` marks ``n`` of them used.

    Example:
        >>> class Arena:   # lends 64 bytes, used from the front
        ...     buffer, taken = np.zeros(64, np.uint8), 0
        ...     def take(self): return self.buffer[self.taken:]
        ...     def used(self, nbytes): self.taken += nbytes
        >>> from minibatcher.engine.source import _example   # a CTF file of |x 1, |x 2
        >>> source, arena = _example(randomize=False), Arena()
        >>> source.set_output_arena(arena)
        >>> values = source.next_minibatch(3)["x"].values   # sweep 0, then 1 of sweep 1
        >>> values.ravel().tolist(), arena.taken, np.shares_memory(values, arena.buffer)
        ([1.0, 2.0, 1.0], 12, True)
    """

    def take(self) -> np.ndarray | None: ...

    def used(self, nbytes: int) -> None: ...


def sample_ranges(sources: Sequence[StreamChunk], source: np.ndarray,
                  within: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Per pick: the first sample of sequence ``within[i]`` of ``sources[source[i]]``, and its length.

    Example:
        >>> c = StreamChunk.dense(np.zeros((3, 1)), [0, 2, 3])
        >>> [r.tolist() for r in sample_ranges([c], np.zeros(2, np.int32), [1, 0])]
        [[2, 0], [1, 2]]
    """
    return _native.sequence_ranges([c.sequence_offsets for c in sources],
                                   np.asarray(source, dtype=np.int32),
                                   np.asarray(within, dtype=np.int64))


def _contiguous(sources: Sequence[StreamChunk], starts: np.ndarray, lengths: np.ndarray) -> bool:
    return len(sources) == 1 and bool(np.all(starts[1:] == starts[:-1] + lengths[:-1]))


def gather_rows(sources: Sequence[StreamChunk], source: np.ndarray, starts: np.ndarray,
                lengths: np.ndarray) -> np.ndarray:
    """The stored rows of the sample ranges (no context expansion), in order.

    Example:
        >>> c = StreamChunk.dense(np.arange(6.).reshape(3, 2), [0, 3], ContextWindow(1, 0))
        >>> gather_rows([c], np.zeros(1, np.int32), np.array([1]), np.array([2])).tolist()
        [[2.0, 3.0], [4.0, 5.0]]
    """
    values = sources[0].values if sources else np.zeros((0, 1))
    row_bytes = values.shape[1] * values.dtype.itemsize
    raw = _native.gather_dense([c.values for c in sources], row_bytes,
                               np.asarray(source, dtype=np.int32),
                               np.asarray(starts, dtype=np.int64), np.asarray(lengths, dtype=np.int64))
    return raw.view(values.dtype).reshape(-1, values.shape[1])


def _gather_context(sources: Sequence[StreamChunk], source: np.ndarray, starts: np.ndarray,
                    lengths: np.ndarray, dim: int, dtype: np.dtype) -> np.ndarray:
    window = sources[0].context
    if any(c.context is None or (c.context.left, c.context.right) != (window.left, window.right)
           for c in sources):
        raise ValueError("gathered chunks disagree on their context window")
    values = sources[0].values
    if values.shape[1] * window.width != dim or values.dtype != np.dtype(dtype):
        raise ValueError(f"a context chunk of {values.shape[1]} {values.dtype} values per sample "
                         f"with {window.width} frames cannot give {dim} {np.dtype(dtype)} values")
    lengths = np.asarray(lengths, dtype=np.int64)
    out = np.empty((int(lengths.sum()), dim), dtype=dtype)  # the heap reuses blocks; no page faults
    _native.context_gather([c.values for c in sources], [c.context_bounds() for c in sources],
                           values.shape[1] * values.dtype.itemsize, np.asarray(source, dtype=np.int32),
                           np.asarray(starts, dtype=np.int64), lengths, window.left, window.right,
                           out)
    return out


def gather_dense(sources: Sequence[StreamChunk], source: np.ndarray, starts: np.ndarray,
                 lengths: np.ndarray, dim: int, dtype: np.dtype) -> np.ndarray:
    """``(samples, dim)`` values of the sample ranges ``[starts[i], starts[i] + lengths[i])``
    of ``sources[source[i]]``, in order; a view when they are one contiguous run.
    Chunks with a :class:`ContextWindow` are expanded with their neighbours.

    Example:
        >>> c = StreamChunk.dense(np.array([[1.], [2.], [3.]]), [0, 3], ContextWindow(1, 1))
        >>> gather_dense([c], np.zeros(1, np.int32), np.array([0]), np.array([3]), 3, np.float64).tolist()
        [[1.0, 1.0, 2.0], [1.0, 2.0, 3.0], [2.0, 3.0, 3.0]]
    """
    if sources and sources[0].context is not None:
        return _gather_context(sources, source, starts, lengths, dim, dtype)
    if len(starts) and _contiguous(sources, starts, lengths):
        lo = int(starts[0])
        return sources[0].values[lo:lo + int(lengths.sum())]
    row_bytes = dim * np.dtype(dtype).itemsize
    raw = _native.gather_dense([c.values for c in sources], row_bytes,
                               np.asarray(source, dtype=np.int32),
                               np.asarray(starts, dtype=np.int64), np.asarray(lengths, dtype=np.int64))
    return raw.view(dtype).reshape(-1, dim)


def gather_sparse(sources: Sequence[StreamChunk], source: np.ndarray, starts: np.ndarray,
                  lengths: np.ndarray, dim: int, dtype: np.dtype) -> CSRMatrix:
    """CSR ``(samples, dim)`` of the sample ranges, in order (as :func:`gather_dense`).

    Example:
        >>> c = StreamChunk.sparse(np.array([1., 2., 3.]), np.array([0, 5, 1], np.int32),
        ...                        np.array([0, 1, 3]), [0, 1, 2])
        >>> source = np.zeros(2, np.int32)
        >>> m = gather_sparse([c], source, *sample_ranges([c], source, [1, 0]), 6, np.float64)
        >>> m.toarray()[:, [0, 1, 5]].tolist()
        [[0.0, 3.0, 2.0], [1.0, 0.0, 0.0]]
    """
    index_dtype = sources[0].indices.dtype if sources else np.dtype(np.int32)
    values, indices, indptr = _native.gather_csr(
        [c.values for c in sources], [c.indices for c in sources], [c.indptr for c in sources],
        np.dtype(dtype).itemsize, index_dtype.itemsize, np.asarray(source, dtype=np.int32),
        np.asarray(starts, dtype=np.int64), np.asarray(lengths, dtype=np.int64))
    return CSRMatrix(values.view(dtype), indices.view(index_dtype), indptr, (len(indptr) - 1, dim))


def gather_stream(info: StreamInformation, sources: Sequence[StreamChunk], source: np.ndarray,
                  starts: np.ndarray, lengths: np.ndarray) -> np.ndarray | CSRMatrix:
    """The sample ranges of one stream, dense (context windows expanded) or CSR as ``info`` says.

    Example:
        >>> c = StreamChunk.dense(np.arange(4.).reshape(2, 2), [0, 2])
        >>> info = StreamInformation("x", 0, 2, False, np.dtype(np.float64))
        >>> gather_stream(info, [c], np.zeros(1, np.int32), np.array([1]), np.array([1])).tolist()
        [[2.0, 3.0]]
    """
    gather = gather_sparse if info.is_sparse else gather_dense
    return gather(sources, source, starts, lengths, info.dim, info.dtype)


def sequence_rows(info: StreamInformation, stream: StreamChunk,
                  within: Sequence[int] | np.ndarray) -> tuple[np.ndarray | CSRMatrix, np.ndarray]:
    """``(rows, lengths)``: the rows of sequences ``within`` of one loaded chunk's stream, in
    order, exactly as the engine delivers them (context windows expanded, sparse as CSR). The
    one gather for anything delivering sequences outside the engine (Grain, Ray, tfdata).

    Example:
        >>> c = StreamChunk.dense(np.arange(6.).reshape(3, 2), [0, 2, 3], ContextWindow(1, 0))
        >>> info = StreamInformation("x", 0, 4, False, np.dtype(np.float64))
        >>> rows, lengths = sequence_rows(info, c, [1])
        >>> rows.tolist(), lengths.tolist()
        ([[4.0, 5.0, 4.0, 5.0]], [1])
    """
    source = np.zeros(len(within), dtype=np.int32)
    starts, lengths = sample_ranges([stream], source, within)
    return gather_stream(info, [stream], source, starts, lengths), lengths
