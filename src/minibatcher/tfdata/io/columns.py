"""Parsed features of a block of N records, one column per feature (what
:func:`~minibatcher.tfdata.io.parse_example_columns` returns).

Every column has ``len(col)`` (N), ``col.row(i)`` (what ``parse_single_example`` gives for
record i) and ``col.batch(lo, hi)`` (what ``parse_example`` gives for records ``lo..hi-1``),
so a block executor can hand out single elements or whole batches from one native parse.

Example:
    >>> col = SparseColumn(np.array([5, 6, 7]), np.array([0, 2, 2, 3]))
    >>> col.row(0)
    SparseTensor(indices=[[0], [1]], values=[5, 6], dense_shape=[2])
    >>> col.batch(1, 3)
    SparseTensor(indices=[[1, 0]], values=[7], dense_shape=[2, 1])
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ... import _native
from ..ragged_tensor import RaggedTensor, _slice
from ..rows import Rows
from ..sparse_tensor import SparseTensor


def object_array(items: list[Any]) -> np.ndarray:
    """A 1-D object array holding ``items`` (bytes stay bytes).

    Example:
        >>> object_array([b"a", b"bc"]).tolist()
        [b'a', b'bc']
    """
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _scalar(value: Any) -> Any:
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


class DenseColumn:
    """A ``FixedLenFeature``: ``values`` stacked to ``[N, *shape]`` (object of bytes for strings).

    A string column can be built from the native buffer (``data``: the values back to back,
    ``ends``: where each ends) without a Python object per value: ``values`` is then made
    on first use, and ``strings()`` gives the buffer (``decode_raw`` reads it directly).

    Example:
        >>> col = DenseColumn(np.array([[1, 2], [3, 4]]))
        >>> col.row(1).tolist(), col.batch(0, 1).tolist(), DenseColumn(np.array([7])).row(0)
        ([3, 4], [[1, 2]], np.int64(7))
        >>> s = DenseColumn(data=np.frombuffer(b"abcd", np.uint8), ends=np.array([1, 4]), shape=(2,))
        >>> s.row(1), s.values.tolist()
        (b'bcd', [b'a', b'bcd'])
    """

    __slots__ = ("_values", "_data", "_ends", "_shape")

    def __init__(self, values: np.ndarray | None = None, *, data: np.ndarray | None = None,
                 ends: np.ndarray | None = None, shape: tuple[int, ...] | None = None) -> None:
        if values is None and (data is None or ends is None or shape is None):
            raise ValueError("a DenseColumn needs values, or data, ends and shape")
        self._values, self._data, self._ends = values, data, ends
        self._shape = tuple(values.shape) if values is not None else tuple(shape or ())

    @property
    def values(self) -> np.ndarray:
        """The stacked values ``[N, *shape]``."""
        if self._values is None:
            items = _native.split_bytes(self._data, self._ends, 0, len(self._ends))
            self._values = object_array(items).reshape(self._shape)
        return self._values

    def strings(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(data, ends)`` of a string column built from the native buffer, else None."""
        return None if self._data is None else (self._data, self._ends)

    def as_rows(self) -> Rows:
        """What a lifted map function sees for this column (``Rows``; a string column
        still in the native buffer stays there until its values are used)."""
        return BufferRows(self) if self._data is not None else Rows(self.values)

    @property
    def shape(self) -> tuple[int, ...]:
        """``(N, *shape)``."""
        return self._shape

    def __len__(self) -> int:
        return self._shape[0]

    def row(self, i: int) -> Any:
        """Record i's value (a NumPy scalar, or ``bytes``, for shape ``[]``)."""
        return _scalar(self.values[i])

    def batch(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """Records ``lo..hi-1`` stacked."""
        return self.values[lo:hi]

    def __repr__(self) -> str:
        return f"DenseColumn(shape={self._shape})"


class BufferRows(Rows):
    """``Rows`` of a string :class:`DenseColumn` still in the native buffer: ``values``
    (one ``bytes`` object per string) is made on first use, ``decode_raw`` reads
    ``strings()`` without making them.

    Example:
        >>> col = DenseColumn(data=np.frombuffer(b"abcd", np.uint8), ends=np.array([2, 4]),
        ...                   shape=(2,))
        >>> rows = col.as_rows(); type(rows).__name__, rows.strings()[1].tolist()
        ('BufferRows', [2, 4])
        >>> (rows == b"cd").values.tolist()
        [False, True]
    """

    __slots__ = ("column",)

    def __init__(self, column: DenseColumn) -> None:  # noqa: D107 - Rows' values are lazy here
        self.column = column

    @property  # type: ignore[override]
    def values(self) -> np.ndarray:  # type: ignore[override]
        """Every element's string (made on first use)."""
        return self.column.values

    def strings(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The column's ``(data, ends)`` (see :meth:`DenseColumn.strings`)."""
        return self.column.strings()

    @property
    def column_shape(self) -> tuple[int, ...]:
        """``(N, *shape)`` of the column."""
        return self.column.shape


@dataclasses.dataclass(frozen=True)
class SparseColumn:
    """A ``VarLenFeature``: the values of all records back to back and ``row_splits``
    (record i holds ``values[row_splits[i]:row_splits[i+1]]``)."""

    values: np.ndarray
    row_splits: np.ndarray

    def __len__(self) -> int:
        return len(self.row_splits) - 1

    def row(self, i: int) -> SparseTensor:
        """Record i as a 1-D SparseTensor."""
        lo, hi = int(self.row_splits[i]), int(self.row_splits[i + 1])
        n = hi - lo
        return SparseTensor(np.arange(n, dtype=np.int64).reshape(n, 1), self.values[lo:hi], [n])

    def batch(self, lo: int = 0, hi: int | None = None) -> SparseTensor:
        """Records ``lo..hi-1`` as a 2-D SparseTensor ``[hi-lo, longest]``."""
        hi = len(self) if hi is None else hi
        splits = self.row_splits[lo:hi + 1]
        lengths = np.diff(splits)
        start, stop = int(splits[0]), int(splits[-1])
        rows = np.repeat(np.arange(hi - lo, dtype=np.int64), lengths)
        cols = np.arange(stop - start, dtype=np.int64) - np.repeat(splits[:-1] - start, lengths)
        width = int(lengths.max()) if len(lengths) else 0
        return SparseTensor(np.column_stack([rows, cols]), self.values[start:stop],
                            [hi - lo, width])


@dataclasses.dataclass(frozen=True)
class SequenceColumn:
    """A ``FixedLenSequenceFeature``: ``values`` ``[rows, *shape]`` of all records and
    ``row_splits`` in rows; ``batch`` pads to the longest record with ``default``.

    Example:
        >>> col = SequenceColumn(np.array([[1, 2], [3, 4], [5, 6]]), np.array([0, 1, 3]), -1)
        >>> col.row(0).tolist(), col.batch().tolist()
        ([[1, 2]], [[[1, 2], [-1, -1]], [[3, 4], [5, 6]]])
    """

    values: np.ndarray
    row_splits: np.ndarray
    default: Any

    def __len__(self) -> int:
        return len(self.row_splits) - 1

    def row(self, i: int) -> np.ndarray:
        """Record i's elements, ``[n, *shape]``."""
        return self.values[int(self.row_splits[i]):int(self.row_splits[i + 1])]

    def batch(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """Records ``lo..hi-1`` padded to ``[hi-lo, longest, *shape]``."""
        hi = len(self) if hi is None else hi
        splits = self.row_splits[lo:hi + 1]
        lengths = np.diff(splits)
        width = int(lengths.max()) if len(lengths) else 0
        out = np.full((hi - lo, width, *self.values.shape[1:]), self.default, self.values.dtype)
        rows = np.repeat(np.arange(hi - lo), lengths)
        cols = np.arange(int(splits[-1] - splits[0])) - np.repeat(splits[:-1] - splits[0], lengths)
        out[rows, cols] = self.values[int(splits[0]):int(splits[-1])]
        return out


@dataclasses.dataclass(frozen=True)
class SequenceSparseColumn:
    """A ``VarLenFeature`` of SequenceExample feature lists: ``values`` of all steps,
    ``step_splits`` (values per step) and ``record_splits`` (steps per record).

    Example:
        >>> col = SequenceSparseColumn(np.array([1, 2, 3]), np.array([0, 1, 1, 3]), np.array([0, 3]))
        >>> col.row(0)
        SparseTensor(indices=[[0, 0], [2, 0], [2, 1]], values=[1, 2, 3], dense_shape=[3, 2])
    """

    values: np.ndarray
    step_splits: np.ndarray
    record_splits: np.ndarray

    def __len__(self) -> int:
        return len(self.record_splits) - 1

    def row(self, i: int) -> SparseTensor:
        """Record i as a 2-D SparseTensor ``[steps, longest step]``."""
        sp = self.batch(i, i + 1)
        return SparseTensor(sp.indices[:, 1:], sp.values, sp.dense_shape[1:])

    def batch(self, lo: int = 0, hi: int | None = None) -> SparseTensor:
        """Records ``lo..hi-1`` as a 3-D SparseTensor ``[records, steps, values]``."""
        hi = len(self) if hi is None else hi
        s0, s1 = int(self.record_splits[lo]), int(self.record_splits[hi])
        steps = SparseColumn(self.values, self.step_splits).batch(s0, s1)
        per_record = np.diff(self.record_splits[lo:hi + 1])
        record_of_step = np.repeat(np.arange(hi - lo, dtype=np.int64), per_record)
        step_in_record = np.arange(s1 - s0, dtype=np.int64) - np.repeat(
            self.record_splits[lo:hi] - s0, per_record)
        rows = steps.indices[:, 0]
        indices = np.column_stack([record_of_step[rows], step_in_record[rows], steps.indices[:, 1]])
        longest = int(per_record.max()) if len(per_record) else 0
        return SparseTensor(indices, steps.values, [hi - lo, longest, int(steps.dense_shape[1])])


@dataclasses.dataclass(frozen=True)
class RaggedColumn:
    """A ``RaggedFeature``: the whole block as one RaggedTensor ``[N, ...]`` (outer splits
    over records, ``row_splits_dtype``); ``row(i)`` is record i (a 1-D array without
    partitions, a dense array when every partition is uniform (innermost uniform partitions
    reshape the values, as TF's), else a RaggedTensor).

    Example:
        >>> rt = RaggedTensor.from_row_splits(np.array([1, 2, 3]), np.array([0, 2, 3], np.int32))
        >>> RaggedColumn(rt).row(0).tolist(), RaggedColumn(rt).batch(1, 2).to_list()
        ([1, 2], [[3]])
    """

    ragged: RaggedTensor

    def __len__(self) -> int:
        return self.ragged.nrows()

    def row(self, i: int) -> Any:
        """Record i's value."""
        return self.ragged[i]

    def batch(self, lo: int = 0, hi: int | None = None) -> RaggedTensor:
        """Records ``lo..hi-1`` as a RaggedTensor with one more ragged dimension."""
        hi = len(self) if hi is None else hi
        return _slice(self.ragged, lo, hi) if (lo, hi) != (0, len(self)) else self.ragged


Column = DenseColumn | SparseColumn | SequenceColumn | SequenceSparseColumn | RaggedColumn


class RecordBlock:
    """Serialized records back to back in one buffer: record i is
    ``buffer[offsets[i]:offsets[i+1]]``. ``parse_single_example``/``parse_example`` given a
    RecordBlock return the columns of all its records (the block-execution hook).

    Example:
        >>> b = RecordBlock.from_ends(np.frombuffer(b"abcde", np.uint8), np.array([2, 5]))
        >>> len(b), b.record(1)
        (2, b'cde')
    """

    __slots__ = ("buffer", "offsets")

    def __init__(self, buffer: Any, offsets: Any) -> None:
        self.buffer = np.frombuffer(buffer, np.uint8) if isinstance(buffer, (bytes, bytearray,
                                                                             memoryview)) \
            else np.ascontiguousarray(buffer, np.uint8).reshape(-1)
        offs = np.ascontiguousarray(offsets, np.int64).reshape(-1)
        if len(offs) == 0 or np.any(np.diff(offs) < 0) or offs[0] < 0 or \
                offs[-1] > len(self.buffer):
            raise ValueError(f"offsets should be N+1 non-decreasing positions inside the buffer "
                             f"of {len(self.buffer)} bytes, but got offsets={offs[:8].tolist()}...")
        self.offsets = offs

    @classmethod
    def from_ends(cls, data: Any, ends: Any) -> "RecordBlock":
        """From a RecordBatch's ``data`` and ``ends`` (record i ends at ``ends[i]``)."""
        return cls(data, np.concatenate([[0], np.asarray(ends, np.int64)]))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def record(self, i: int) -> bytes:
        """Record i's bytes."""
        return self.buffer[int(self.offsets[i]):int(self.offsets[i + 1])].tobytes()

    def data_and_ends(self) -> tuple[np.ndarray, np.ndarray]:
        """The buffer from the first record on and each record's end in it."""
        start = int(self.offsets[0])
        return self.buffer[start:int(self.offsets[-1])], self.offsets[1:] - start


__all__ = ["Column", "DenseColumn", "RaggedColumn", "RecordBlock", "SequenceColumn",
           "SequenceSparseColumn", "SparseColumn"]
