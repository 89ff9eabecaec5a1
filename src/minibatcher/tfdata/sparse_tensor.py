"""``tfdata.SparseTensor``: TF's sparse value (indices, values, dense_shape) over NumPy.

What ``tfdata.io.parse_single_example`` gives for a ``VarLenFeature``; a leaf of tfdata
elements, batched by ``Dataset.batch`` as TF batches sparse tensors (a new first dimension,
``dense_shape`` the elementwise maximum).

Example:
    >>> from minibatcher.tfdata import SparseTensor
    >>> sp = SparseTensor(indices=[[0], [2]], values=np.array([5, 6]), dense_shape=[3])
    >>> sp.shape, sp.dtype, sp.to_dense().tolist()
    ((3,), tf.int64, [5, 0, 6])
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .dtypes import DType, as_dtype


def _as_values(values: Any) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind in "SU":
        arr = np.array([v.encode() if isinstance(v, str) else bytes(v) for v in arr.ravel()],
                       dtype=object).reshape(arr.shape)
    return arr


class SparseTensor:
    """``tf.SparseTensor(indices, values, dense_shape)``: ``indices`` an int64 ``[N, rank]``
    array of coordinates in row-major order, ``values`` the N values, ``dense_shape`` the
    int64 ``[rank]`` shape.

    Example:
        >>> sp = SparseTensor([[0, 1], [1, 0]], [1.5, 2.5], [2, 2])
        >>> sp.indices.dtype, sp.values.tolist(), sp.dense_shape.tolist()
        (dtype('int64'), [1.5, 2.5], [2, 2])
    """

    __slots__ = ("indices", "values", "dense_shape")

    def __init__(self, indices: Any, values: Any, dense_shape: Any) -> None:
        shape = np.asarray(dense_shape, dtype=np.int64).reshape(-1)
        idx = np.asarray(indices, dtype=np.int64)
        if idx.size == 0:
            idx = idx.reshape(0, len(shape))
        vals = _as_values(values)
        if idx.ndim != 2 or idx.shape[1] != len(shape) or vals.ndim != 1 or \
                len(vals) != len(idx):
            raise ValueError(f"a SparseTensor needs indices [N, {len(shape)}] and values [N], but "
                             f"got indices of shape {list(idx.shape)} and values of shape "
                             f"{list(vals.shape)}")
        self.indices, self.values, self.dense_shape = idx, vals, shape

    @classmethod
    def _trusted(cls, indices: np.ndarray, values: np.ndarray,
                 dense_shape: np.ndarray) -> "SparseTensor":
        """A SparseTensor from parts already checked (parsers; no conversion)."""
        sp = object.__new__(cls)
        sp.indices, sp.values, sp.dense_shape = indices, values, dense_shape
        return sp

    @property
    def dtype(self) -> DType:
        """The dtype of the values."""
        return as_dtype(self.values.dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        """``dense_shape`` as a tuple."""
        return tuple(int(d) for d in self.dense_shape)

    def to_dense(self, default_value: Any = None) -> np.ndarray:
        """The dense array (``tf.sparse.to_dense``); missing entries are ``default_value``
        (0, or ``b""`` for strings).

        Example:
            >>> SparseTensor([[1]], [b"x"], [2]).to_dense().tolist()
            [b'', b'x']
        """
        if default_value is None:
            default_value = b"" if self.values.dtype == object else 0
        out = np.full(self.shape, default_value, dtype=self.values.dtype)
        if len(self.values):
            out[tuple(self.indices.T)] = self.values
        return out

    def __repr__(self) -> str:
        return (f"SparseTensor(indices={self.indices.tolist()}, values={self.values.tolist()}, "
                f"dense_shape={self.dense_shape.tolist()})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SparseTensor):
            return NotImplemented
        return (np.array_equal(self.indices, other.indices)
                and np.array_equal(self.dense_shape, other.dense_shape)
                and self.values.dtype == other.values.dtype
                and np.array_equal(self.values, other.values))

    __hash__ = None  # type: ignore[assignment]

    @staticmethod
    def stack(values: Sequence["SparseTensor"]) -> "SparseTensor":
        """The batch of ``values`` (what ``Dataset.batch`` makes of sparse elements).

        Example:
            >>> a, b = SparseTensor([[0]], [7], [1]), SparseTensor([[2]], [8], [3])
            >>> SparseTensor.stack([a, b])
            SparseTensor(indices=[[0, 0], [1, 2]], values=[7, 8], dense_shape=[2, 3])
        """
        ranks = {len(v.dense_shape) for v in values}
        if len(ranks) != 1:
            raise ValueError(f"Cannot batch sparse tensors of different ranks {sorted(ranks)}")
        rank = ranks.pop()
        counts = [len(v.values) for v in values]
        rows = np.repeat(np.arange(len(values), dtype=np.int64), counts)
        inner = (np.concatenate([v.indices for v in values]) if values
                 else np.zeros((0, rank), np.int64))
        shape = np.max([v.dense_shape for v in values], axis=0) if values else \
            np.zeros(rank, np.int64)
        vals = np.concatenate([v.values for v in values]) if values else np.zeros(0)
        return SparseTensor(np.column_stack([rows, inner]), vals,
                            np.concatenate([[len(values)], shape]))


__all__ = ["SparseTensor"]
