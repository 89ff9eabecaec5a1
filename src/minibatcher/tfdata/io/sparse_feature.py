"""``tf.io.SparseFeature``: a SparseTensor whose indices come from index features (one per
dimension of ``size``) and whose values come from ``value_key``.

As TF: indices are not checked against ``size``; each record's entries are sorted by index
(row-major) unless ``already_sorted``; a record whose index and value lists differ in length is
TF's ``Dimensions a and b are not compatible`` (``parse_example`` compares the batch's
totals, as TF; a batch whose totals agree while records differ, which TF parses into
misplaced values, is refused here, naming the record's counts).

Example:
    >>> from minibatcher.formats.tfrecord import encode_example
    >>> from .features import SparseFeature
    >>> from .parse import parse_single_example
    >>> rec = encode_example({"ix": [3, 1], "v": np.array([0.5, 1.5], np.float32)})
    >>> parse_single_example(rec, {"s": SparseFeature("ix", "v", "float32", 5)})["s"]
    SparseTensor(indices=[[1], [3]], values=[1.5, 0.5], dense_shape=[5])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..sparse_tensor import SparseTensor
from .columns import object_array
from .convert import check_dtype
from .features import SparseFeature
from .handlers import FAIL, Problem
from .messages import Where
from .raw import INT64, KIND_OF, Raw


class SparseFeatureColumn:
    """A ``SparseFeature`` over N records: ``values`` and ``indices`` ``[total, rank]`` of all
    records back to back, ``row_splits``, the dense ``size``, whether to sort each record.

    Example:
        >>> col = SparseFeatureColumn(np.array([1., 2.]), np.array([[4], [2]]), np.array([0, 2]),
        ...                           (5,), True)
        >>> col.batch()
        SparseTensor(indices=[[0, 2], [0, 4]], values=[2.0, 1.0], dense_shape=[1, 5])
    """

    def __init__(self, values: np.ndarray, indices: np.ndarray, row_splits: np.ndarray,
                 size: tuple[int, ...], sort: bool) -> None:
        self.values, self.indices, self.row_splits = values, indices, row_splits
        self.size, self.sort = size, sort

    def __len__(self) -> int:
        return len(self.row_splits) - 1

    def _part(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        s0, s1 = int(self.row_splits[lo]), int(self.row_splits[hi])
        rows = np.repeat(np.arange(hi - lo, dtype=np.int64), np.diff(self.row_splits[lo:hi + 1]))
        index = np.column_stack([rows, self.indices[s0:s1]])
        values = self.values[s0:s1]
        if self.sort and len(values):
            order = np.lexsort(index.T[::-1])  # row-major, stable as TF's reorder
            index, values = index[order], values[order]
        return index, values, np.array([hi - lo, *self.size], np.int64)

    def row(self, i: int) -> SparseTensor:
        """Record i's SparseTensor of ``size``."""
        index, values, shape = self._part(i, i + 1)
        return SparseTensor._trusted(np.ascontiguousarray(index[:, 1:]), values, shape[1:])

    def batch(self, lo: int = 0, hi: int | None = None) -> SparseTensor:
        """Records ``lo..hi-1`` as one SparseTensor ``[hi-lo, *size]``."""
        index, values, shape = self._part(lo, len(self) if hi is None else hi)
        return SparseTensor._trusted(index, values, shape)


def _size(feature: SparseFeature, keys: list[str]) -> tuple[int, ...]:
    size = feature.size
    if size is None or isinstance(size, bool):
        raise TypeError(f"vocab_size has to be a Tensor or Python int. Found {type(size)}")
    sizes = [size] if isinstance(size, int) else list(size)
    if len(sizes) != len(keys):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    return tuple(int(s) for s in sizes)


class SparseFeatureHandler:
    """``SparseFeature``: index keys (int64) and a value key."""

    style = "var"

    def __init__(self, key: str, feature: SparseFeature) -> None:
        check_dtype(key, feature.dtype)
        self.out_key, self.feature = key, feature
        self.index_keys = [feature.index_key] if isinstance(feature.index_key, str) else \
            list(feature.index_key)
        self.size = _size(feature, self.index_keys)
        self.key = feature.value_key
        self.requests = [(self.key, KIND_OF[feature.dtype.name])] + [
            (k, INT64) for k in self.index_keys]

    def _mismatch(self, raws: dict[str, Raw], n: int,
                  single: bool) -> tuple[int, int, int] | None:
        """(record, index count, value count) of the first record whose lists differ;
        a batch is checked on its totals first, as TF checks the merged lists."""
        values = raws[self.key].lengths[:n]
        for k in self.index_keys:
            counts = raws[k].lengths[:n]
            bad = np.flatnonzero(counts != values)
            if not len(bad):
                continue
            i = int(bad[0])
            if not single and counts.sum() != values.sum():
                return i, int(counts.sum()), int(values.sum())
            return i, int(counts[i]), int(values[i])
        return None

    def problem(self, raws: dict[str, Raw], n: int, where: Where) -> Problem | None:
        found = self._mismatch(raws, n, where.single)
        if found is None:
            return None
        i, a, b = found
        return Problem(i, 0, self.key, f"Dimensions {a} and {b} are not compatible")

    def column(self, raws: dict[str, Raw], n: int) -> SparseFeatureColumn:
        raw = raws[self.key]
        splits = raw.splits[:n + 1]
        total = int(splits[-1])
        indices = np.column_stack([raws[k].values[:total] for k in self.index_keys]) \
            if self.index_keys else np.zeros((total, 0), np.int64)
        return SparseFeatureColumn(raw.typed_values()[:total], indices.astype(np.int64), splits,
                                   self.size, not self.feature.already_sorted)

    def single(self, by_key: dict[str, Any]) -> Any:
        """One record's SparseTensor from its native lists, or FAIL."""
        v = by_key[self.key]
        values = object_array(v) if isinstance(v, list) else \
            (v if v is not None else np.zeros(0, np.dtype(self.feature.dtype.as_numpy_dtype)))
        if self.requests[0][1] == 1 and v is None:
            values = object_array([])
        parts = [by_key[k] if by_key[k] is not None else np.zeros(0, np.int64)
                 for k in self.index_keys]
        if any(len(p) != len(values) for p in parts):
            return FAIL
        index = np.column_stack(parts).astype(np.int64) if parts else \
            np.zeros((len(values), 0), np.int64)
        if not self.feature.already_sorted and len(values):
            order = np.lexsort(index.T[::-1])
            index, values = index[order], values[order]
        return SparseTensor._trusted(index, values, np.array(self.size, np.int64))


__all__ = ["SparseFeatureColumn", "SparseFeatureHandler"]
