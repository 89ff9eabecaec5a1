"""``tfdata.RaggedTensor``: TF's ragged value as ``values`` + ``row_splits`` (offsets) over NumPy.

Row ``i`` is ``values[row_splits[i]:row_splits[i+1]]``; ``values`` is an ndarray or another
RaggedTensor (nested raggedness); a dimension made with ``from_uniform_row_length`` also has
``uniform_row_length``. What ``tfdata.io`` gives for a ``RaggedFeature`` and what
``Dataset.batch`` makes of ragged elements (one more ragged dimension), with TF's names.

Example:
    >>> from minibatcher.tfdata import RaggedTensor
    >>> rt = RaggedTensor.from_row_splits(np.array([1, 2, 3]), [0, 2, 2, 3])
    >>> rt.to_list(), rt.shape, rt.row_lengths().tolist(), rt[0].tolist()
    ([[1, 2], [], [3]], (3, None), [2, 0, 1], [1, 2])
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .dtypes import DType, as_dtype
from .sparse_tensor import _as_values


def _nrows(values: Any) -> int:
    return values.nrows() if isinstance(values, RaggedTensor) else len(values)


def _splits(row_splits: Any) -> np.ndarray:
    arr = np.asarray(row_splits)
    if arr.dtype not in (np.int32, np.int64):
        arr = arr.astype(np.int64)
    return arr.reshape(-1)


class RaggedTensor:
    """A ragged value (build it with the ``from_*`` class methods, as in TF).

    Example:
        >>> rt = RaggedTensor.from_row_lengths(np.array([[1, 2], [3, 4], [5, 6]]), [2, 1])
        >>> rt.shape, rt.ragged_rank, rt.to_tensor().shape
        ((2, None, 2), 1, (2, 2, 2))
    """

    __slots__ = ("values", "row_splits", "uniform_row_length")

    def __init__(self, values: Any, row_splits: Any, uniform_row_length: int | None = None,
                 validate: bool = True) -> None:
        if not isinstance(values, RaggedTensor):
            values = _as_values(values)
            if values.ndim == 0:
                raise ValueError("the values of a RaggedTensor need at least one dimension")
        splits = _splits(row_splits)
        if validate:
            _check(splits, _nrows(values), uniform_row_length)
        self.values, self.row_splits = values, splits
        self.uniform_row_length = uniform_row_length

    # -- factories (TF's names) --------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values: Any, row_splits: Any, name: str | None = None,
                        validate: bool = True) -> "RaggedTensor":
        """Rows ``values[row_splits[i]:row_splits[i+1]]``."""
        return cls(values, row_splits, validate=validate)

    @classmethod
    def from_row_lengths(cls, values: Any, row_lengths: Any, name: str | None = None,
                         validate: bool = True) -> "RaggedTensor":
        """Rows of the given lengths."""
        lengths = _splits(row_lengths)
        splits = np.concatenate([np.zeros(1, lengths.dtype), np.cumsum(lengths, dtype=lengths.dtype)])
        return cls(values, splits, validate=validate)

    @classmethod
    def from_row_starts(cls, values: Any, row_starts: Any, name: str | None = None,
                        validate: bool = True) -> "RaggedTensor":
        """Rows starting at ``row_starts`` (the last ends at the end of ``values``)."""
        starts = _splits(row_starts)
        return cls(values, np.concatenate([starts, np.array([_nrows(values)], starts.dtype)]),
                   validate=validate)

    @classmethod
    def from_row_limits(cls, values: Any, row_limits: Any, name: str | None = None,
                        validate: bool = True) -> "RaggedTensor":
        """Rows ending at ``row_limits`` (the first starts at 0)."""
        limits = _splits(row_limits)
        return cls(values, np.concatenate([np.zeros(1, limits.dtype), limits]), validate=validate)

    @classmethod
    def from_value_rowids(cls, values: Any, value_rowids: Any, nrows: int | None = None,
                          name: str | None = None, validate: bool = True) -> "RaggedTensor":
        """Value ``j`` in row ``value_rowids[j]`` (ascending); ``nrows`` defaults to the last id + 1."""
        ids = _splits(value_rowids)
        if len(ids) and (ids[0] < 0 or np.any(np.diff(ids) < 0)):
            raise ValueError("value_rowids should be non-negative and sorted ascending")
        n = (int(ids[-1]) + 1 if len(ids) else 0) if nrows is None else int(nrows)
        if len(ids) and n <= ids[-1]:
            raise ValueError(f"nrows={n} should exceed the largest value_rowid {int(ids[-1])}")
        counts = np.bincount(ids, minlength=n).astype(ids.dtype) if len(ids) else \
            np.zeros(n, ids.dtype)
        return cls.from_row_lengths(values, counts, validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values: Any, uniform_row_length: int,
                                nrows: int | None = None, validate: bool = True,
                                name: str | None = None) -> "RaggedTensor":
        """Rows of ``uniform_row_length`` values each."""
        length, total = int(uniform_row_length), _nrows(values)
        n = (total // length if length else 0) if nrows is None else int(nrows)
        if length * n != total:
            raise ValueError(f"{total} values do not split into rows of {length}")
        return cls(values, np.arange(n + 1, dtype=np.int64) * length, length, validate=validate)

    @classmethod
    def from_nested_row_splits(cls, flat_values: Any, nested_row_splits: Sequence[Any],
                               name: str | None = None, validate: bool = True) -> "RaggedTensor":
        """Nested rows, outermost splits first."""
        result: Any = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values: Any, nested_row_lengths: Sequence[Any],
                                name: str | None = None, validate: bool = True) -> "RaggedTensor":
        """Nested rows, outermost lengths first."""
        result: Any = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    # -- properties --------------------------------------------------------------------------
    @property
    def flat_values(self) -> np.ndarray:
        """The innermost values."""
        v = self.values
        return v.flat_values if isinstance(v, RaggedTensor) else v

    @property
    def nested_row_splits(self) -> tuple[np.ndarray, ...]:
        """The row_splits of every ragged dimension, outermost first."""
        inner = self.values.nested_row_splits if isinstance(self.values, RaggedTensor) else ()
        return (self.row_splits, *inner)

    @property
    def ragged_rank(self) -> int:
        """The number of partitioned dimensions."""
        return len(self.nested_row_splits)

    @property
    def dtype(self) -> DType:
        """The dtype of the values."""
        return as_dtype(self.flat_values.dtype)

    @property
    def shape(self) -> tuple[int | None, ...]:
        """``(nrows, None or the uniform row length, *inner dimensions)``."""
        inner = self.values.shape[1:] if isinstance(self.values, RaggedTensor) else \
            tuple(self.values.shape[1:])
        return (self.nrows(), self.uniform_row_length, *inner)

    def nrows(self) -> int:
        """The number of rows."""
        return len(self.row_splits) - 1

    def row_lengths(self) -> np.ndarray:
        """The length of every row."""
        return np.diff(self.row_splits)

    def __len__(self) -> int:
        return self.nrows()

    def __getitem__(self, index: int) -> Any:
        """Row ``index`` (an ndarray, or a RaggedTensor when nested)."""
        n = self.nrows()
        if not -n <= index < n:
            raise IndexError(f"row {index} is out of range for {n} rows")
        i = index % n
        return _slice(self.values, int(self.row_splits[i]), int(self.row_splits[i + 1]))

    def to_list(self) -> list[Any]:
        """Nested Python lists (strings stay ``bytes``)."""
        return [_to_list(self[i]) for i in range(self.nrows())]

    def numpy(self) -> np.ndarray:
        """TF eager's ``.numpy()``: an object array of the rows.

        Example:
            >>> [r.tolist() for r in RaggedTensor.from_row_splits(np.arange(3), [0, 1, 3]).numpy()]
            [[0], [1, 2]]
        """
        out = np.empty(self.nrows(), dtype=object)
        for i in range(self.nrows()):
            row = self[i]
            out[i] = row.numpy() if isinstance(row, RaggedTensor) else row
        return out

    def bounding_shape(self) -> np.ndarray:
        """The smallest dense shape that holds every row."""
        inner = self.values.bounding_shape()[1:] if isinstance(self.values, RaggedTensor) else \
            np.asarray(self.values.shape[1:], np.int64)
        width = int(self.row_lengths().max()) if self.nrows() else 0
        return np.concatenate([[self.nrows(), width], inner]).astype(np.int64)

    def to_tensor(self, default_value: Any = None, name: str | None = None,
                  shape: Any = None) -> np.ndarray:
        """The dense array padded with ``default_value`` (0, or ``b""`` for strings).

        Example:
            >>> RaggedTensor.from_row_lengths(np.array([1, 2, 3]), [1, 2]).to_tensor(-1).tolist()
            [[1, -1], [2, 3]]
        """
        flat = self.flat_values
        if default_value is None:
            default_value = b"" if flat.dtype == object else 0
        bshape = tuple(int(d) for d in self.bounding_shape())
        out = np.full(bshape, default_value, dtype=flat.dtype)
        for i in range(self.nrows()):
            row = self[i]
            dense = row.to_tensor(default_value) if isinstance(row, RaggedTensor) else row
            out[(i, *tuple(slice(0, d) for d in dense.shape))] = dense
        return out

    def __repr__(self) -> str:
        return f"<tfdata.RaggedTensor {self.to_list()!r}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RaggedTensor):
            return NotImplemented
        return (self.uniform_row_length == other.uniform_row_length
                and np.array_equal(self.row_splits, other.row_splits)
                and self.row_splits.dtype == other.row_splits.dtype
                and _values_equal(self.values, other.values))

    __hash__ = None  # type: ignore[assignment]

    @staticmethod
    def stack(values: Sequence["RaggedTensor"]) -> "RaggedTensor":
        """The batch of ``values`` (what ``Dataset.batch`` makes of ragged elements).

        Example:
            >>> a = RaggedTensor.from_row_lengths(np.array([1, 2]), [2])
            >>> b = RaggedTensor.from_row_lengths(np.array([3]), [0, 1])
            >>> RaggedTensor.stack([a, b]).to_list()
            [[[1, 2]], [[], [3]]]
        """
        dtype = values[0].row_splits.dtype if values else np.int64
        counts = [v.nrows() for v in values]
        splits = np.concatenate([[0], np.cumsum(counts)]).astype(dtype)
        return RaggedTensor(concat(values), splits, validate=False)


def concat(parts: Sequence[Any]) -> Any:
    """The rows of ``parts`` (ndarrays or RaggedTensors of one ragged rank) one after another.

    Example:
        >>> a = RaggedTensor.from_row_lengths(np.array([1, 2]), [2])
        >>> concat([a, a]).to_list()
        [[1, 2], [1, 2]]
    """
    if not parts or not isinstance(parts[0], RaggedTensor):
        return np.concatenate(parts) if parts else np.zeros(0)
    if any(not isinstance(p, RaggedTensor) for p in parts):
        raise ValueError("Cannot batch ragged and dense values together")
    lengths = {p.uniform_row_length for p in parts}
    if len(lengths) != 1:
        raise ValueError(f"Cannot batch ragged values with uniform row lengths {sorted(lengths)}")
    offsets = np.cumsum([0] + [int(p.row_splits[-1]) for p in parts])
    splits = np.concatenate([parts[0].row_splits[:1]] + [
        p.row_splits[1:] + off for p, off in zip(parts, offsets)]).astype(parts[0].row_splits.dtype)
    return RaggedTensor(concat([p.values for p in parts]), splits, lengths.pop(), validate=False)


def _slice(values: Any, lo: int, hi: int) -> Any:
    if not isinstance(values, RaggedTensor):
        return values[lo:hi]
    splits = values.row_splits[lo:hi + 1]
    return RaggedTensor(_slice(values.values, int(splits[0]), int(splits[-1])), splits - splits[0],
                        values.uniform_row_length, validate=False)


def _to_list(row: Any) -> list[Any]:
    return row.to_list() if isinstance(row, RaggedTensor) else row.tolist()


def _values_equal(a: Any, b: Any) -> bool:
    if isinstance(a, RaggedTensor) or isinstance(b, RaggedTensor):
        return a == b
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def _check(splits: np.ndarray, nvalues: int, uniform: int | None) -> None:
    if len(splits) == 0 or splits[0] != 0 or np.any(np.diff(splits) < 0) or \
            splits[-1] != nvalues:
        raise ValueError(f"row_splits should start at 0, never decrease and end at the number of "
                         f"values ({nvalues}), but got row_splits={splits.tolist()[:20]}")
    if uniform is not None and np.any(np.diff(splits) != uniform):
        raise ValueError(f"every row should have uniform_row_length={uniform} values")


__all__ = ["RaggedTensor", "concat"]
