"""Packing layouts: where each sequence of a minibatch sits in a
``rows x width`` grid (CNTK's ``MBLayout``), and CSR sample matrices.

See docs/design/packing-layout.md.

Example:
    >>> lay = SequenceLayout.first_fit([4, 3, 1])
    >>> lay.num_rows, lay.width, lay.rows.tolist(), lay.starts.tolist()
    (2, 4, [0, 1, 1], [0, 0, 3])
    >>> lay.column_samples().tolist()  # time-major: t=0 of rows 0,1, then t=1, ...
    [0, 4, 1, 5, 2, 6, 3, 7]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .. import _native

_INDEX_CACHE: dict[str, np.ndarray] = {}
_UNIFORM: dict[tuple[int, int], "SequenceLayout"] = {}


def _frozen(a: np.ndarray) -> np.ndarray:
    """``a`` made read-only (layouts are immutable, and may share arrays)."""
    a.flags.writeable = False
    return a


def _cached(name: str, count: int, make: Callable[[int], np.ndarray]) -> np.ndarray:
    """A read-only view of ``count`` entries of a shared, growing index array."""
    base = _INDEX_CACHE.get(name)
    if base is None or len(base) < count:
        base = _INDEX_CACHE[name] = _frozen(make(max(count, 2 * len(base) if base is not None
                                                     else 1024)))
    return base[:count]


def _arange(count: int) -> np.ndarray:
    return _cached("arange", count, lambda n: np.arange(n, dtype=np.int64))


def _zeros(count: int) -> np.ndarray:
    return _cached("zeros", count, lambda n: np.zeros(n, dtype=np.int64))


def _ones(count: int) -> np.ndarray:
    return _cached("ones", count, lambda n: np.ones(n, dtype=np.int64))


@dataclass(frozen=True)
class SequenceLayout:
    """Sequence ``i`` occupies row ``rows[i]``, columns ``starts[i]`` to
    ``starts[i] + lengths[i]`` (exclusive). Sample ``k`` of sequence ``i`` is
    sample ``offsets[i] + k`` of the minibatch values.

    Example:
        >>> SequenceLayout.frames(3).rows.tolist()
        [0, 1, 2]
    """

    num_rows: int
    width: int
    rows: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray

    @classmethod
    def first_fit(cls, lengths: Sequence[int]) -> "SequenceLayout":
        """CNTK's ``InitAsPackedSequences``: width = the longest sequence; each
        sequence, in order, goes to the first row with room, else a new row
        (native: ``cpp/engine/select.cc``).

        Example:
            >>> SequenceLayout.first_fit([2, 2, 4]).rows.tolist()
            [0, 0, 1]
        """
        lengths = np.asarray(lengths, dtype=np.int64)
        num_rows, width, rows, starts = _native.engine_first_fit(lengths)
        if rows is None:  # every sequence fills a row
            return cls.uniform(num_rows, width)
        return cls.packed(num_rows, width, rows, starts, lengths)

    @classmethod
    def packed(cls, num_rows: int, width: int, rows: np.ndarray, starts: np.ndarray,
               lengths: np.ndarray) -> "SequenceLayout":
        """A first fit computed natively (the arrays become the layout's, read-only).

        Example:
            >>> SequenceLayout.packed(1, 3, np.zeros(2, np.int64), np.array([0, 2]),
            ...                       np.array([2, 1])).grid().tolist()
            [[0, 1, 2]]
        """
        return cls(num_rows, width, _frozen(rows), _frozen(starts), lengths)

    @classmethod
    def uniform(cls, count: int, length: int) -> "SequenceLayout":
        """``count`` sequences of ``length`` samples, one per row (shared, immutable).

        Example:
            >>> SequenceLayout.uniform(3, 2) is SequenceLayout.uniform(3, 2)
            True
        """
        key = (count, length)
        layout = _UNIFORM.get(key)
        if layout is None:
            if len(_UNIFORM) >= 64:
                _UNIFORM.clear()
            lengths = _ones(count) if length == 1 else _frozen(np.full(count, length, np.int64))
            layout = _UNIFORM[key] = cls(count, length, _arange(count), _zeros(count), lengths)
        return layout

    @classmethod
    def frames(cls, count: int) -> "SequenceLayout":
        """Frame mode: ``count`` rows of one sample each.

        Example:
            >>> SequenceLayout.frames(2).width
            1
        """
        return cls.uniform(count, 1) if count else cls(0, 0, _arange(0), _zeros(0), _ones(0))

    @classmethod
    def one_per_row(cls, lengths: Sequence[int]) -> "SequenceLayout":
        """Sequence ``i`` alone in row ``i`` (the layout of :meth:`MinibatchData.padded`).

        Example:
            >>> SequenceLayout.one_per_row([1, 3]).width
            3
        """
        lengths = np.asarray(lengths, dtype=np.int64)
        width = int(lengths.max()) if len(lengths) else 0
        return cls(len(lengths), width, _arange(len(lengths)), _zeros(len(lengths)), lengths)

    @property
    def offsets(self) -> np.ndarray:
        """Sample offset of each sequence in the minibatch values."""
        out = np.zeros(len(self.lengths) + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=out[1:])
        return out

    def grid(self) -> np.ndarray:
        """``(num_rows, width)`` sample index of every cell, -1 for gaps.

        Example:
            >>> SequenceLayout.first_fit([2, 1]).grid().tolist()
            [[0, 1], [2, -1]]
        """
        grid = np.full((self.num_rows, self.width), -1, dtype=np.int64)
        lengths = np.asarray(self.lengths, dtype=np.int64)
        total = int(lengths.sum())
        samples = np.arange(total, dtype=np.int64)
        offsets = self.offsets[:-1]  # sample k of sequence i sits at column starts[i] + k
        grid[np.repeat(self.rows, lengths), np.repeat(self.starts - offsets, lengths) + samples] = \
            samples
        return grid

    def column_samples(self) -> np.ndarray:
        """Sample index per column in CNTK's time-major order (column
        ``t * num_rows + row``), -1 for gaps."""
        return self.grid().T.reshape(-1)


@dataclass(frozen=True)
class CSRMatrix:
    """Compressed sparse rows: row ``r`` has ``data[indptr[r]:indptr[r+1]]``
    at columns ``indices[...]``. Duplicate and unsorted indices are kept as
    read (CNTK does not sort them).

    Example:
        >>> m = CSRMatrix(np.array([1., 2.]), np.array([3, 0], np.int32), np.array([0, 1, 2]), (2, 4))
        >>> m.toarray().tolist()
        [[0.0, 0.0, 0.0, 1.0], [2.0, 0.0, 0.0, 0.0]]
    """

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple[int, int]

    @property
    def nnz(self) -> int:
        """Stored non-zeros."""
        return len(self.data)

    @property
    def dtype(self) -> np.dtype:
        """Value type."""
        return self.data.dtype

    def row_slice(self, start: int, stop: int) -> "CSRMatrix":
        """Rows ``[start, stop)`` as a view.

        Example:
            >>> m = CSRMatrix(np.array([1., 2.]), np.array([3, 0]), np.array([0, 1, 2]), (2, 4))
            >>> m.row_slice(1, 2).toarray().tolist()
            [[2.0, 0.0, 0.0, 0.0]]
        """
        lo, hi = int(self.indptr[start]), int(self.indptr[stop])
        return CSRMatrix(self.data[lo:hi], self.indices[lo:hi], self.indptr[start:stop + 1] - lo,
                         (stop - start, self.shape[1]))

    def canonical(self) -> "CSRMatrix":
        """Indices sorted within each row and duplicates summed (what torch and
        SciPy's canonical format expect); ``self`` when already canonical.

        Example:
            >>> m = CSRMatrix(np.array([1., 2., 3.]), np.array([3, 0, 3]), np.array([0, 3]), (1, 4))
            >>> c = m.canonical(); c.indices.tolist(), c.data.tolist()
            ([0, 3], [2.0, 4.0])
        """
        rows = np.repeat(np.arange(self.shape[0], dtype=np.int64), np.diff(self.indptr))
        keys = rows * self.shape[1] + self.indices.astype(np.int64)
        if len(keys) < 2 or bool(np.all(keys[1:] > keys[:-1])):
            return self
        order = np.argsort(keys, kind="stable")
        unique, first = np.unique(keys[order], return_index=True)
        data = np.add.reduceat(self.data[order], first) if len(first) else self.data[:0]
        counts = np.bincount(unique // self.shape[1], minlength=self.shape[0])
        indptr = np.zeros(self.shape[0] + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        indices = (unique % self.shape[1]).astype(self.indices.dtype)
        return CSRMatrix(data.astype(self.data.dtype, copy=False), indices, indptr, self.shape)

    def toarray(self) -> np.ndarray:
        """Dense ``(rows, dim)`` array (duplicate indices are summed).

        Example:
            >>> CSRMatrix(np.zeros(0), np.zeros(0, np.int32), np.zeros(2, np.int64), (1, 2)).toarray().shape
            (1, 2)
        """
        out = np.zeros(self.shape, dtype=self.data.dtype)
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        np.add.at(out, (rows, self.indices), self.data)
        return out

    def to_scipy(self):  # -> scipy.sparse.csr_matrix
        """A ``scipy.sparse.csr_matrix`` sharing the arrays (needs SciPy).

        Example:
            >>> CSRMatrix(np.ones(1), np.zeros(1, np.int32), np.array([0, 1]), (1, 3)).to_scipy().shape
            (1, 3)
        """
        try:
            import scipy.sparse
        except ImportError as e:
            raise ImportError("to_scipy() needs SciPy: pip install 'minibatcher[sparse]'") from e
        return scipy.sparse.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape,
                                       copy=False)
