"""``RaggedFeature``: values split by partitions (outermost first) into a RaggedTensor.

Without partitions the whole block is one RaggedTensor built without a per-record loop.
With partitions each record is split in turn (innermost partition first, as TF builds it)
and checked: row splits start at 0, never decrease and end at the number of inner rows;
lengths are not negative; value row ids are sorted, one per value; a uniform row length
divides the rows. TF checks this only with ``validate=True`` and otherwise returns malformed
ragged values; here it is always checked (docs/tfdata-io.md).

Example:
    >>> from .features import RaggedFeature
    >>> h = RaggedHandler("r", RaggedFeature("int64", value_key="v",
    ...                                      partitions=[RaggedFeature.RowLengths("n")]))
    >>> raws = {"v": Raw(np.array([3]), np.array([1, 2, 3])), "n": Raw(np.array([2]), np.array([1, 2]))}
    >>> h.column(raws, 1).row(0).to_list()
    [[1], [2, 3]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ragged_tensor import RaggedTensor, concat
from .columns import RaggedColumn
from .convert import check_dtype
from .features import (RaggedFeature, RowLengths, RowLimits, RowSplits, RowStarts,
                       UniformRowLength, ValueRowIds)
from .handlers import FAIL, Problem
from .messages import Where
from .raw import INT64, KIND_OF, Raw


class _Bad(Exception):
    """A partition that does not fit its record's values (the reason)."""


def _splits_of(part: Any, p: np.ndarray, inner: int) -> np.ndarray:
    """Row splits from one partition's values ``p`` over ``inner`` rows."""
    if isinstance(part, RowSplits):
        splits = p if len(p) else np.zeros(1, np.int64)
    elif isinstance(part, RowLengths):
        if np.any(p < 0):
            raise _Bad(f"row lengths {p.tolist()[:10]} should not be negative")
        splits = np.concatenate([[0], np.cumsum(p)])
    elif isinstance(part, RowStarts):
        splits = np.concatenate([p, [inner]]) if len(p) else np.zeros(1, np.int64)
    elif isinstance(part, RowLimits):
        splits = np.concatenate([[0], p])
    else:  # ValueRowIds
        if len(p) != inner or (len(p) and (p[0] < 0 or np.any(np.diff(p) < 0))):
            raise _Bad(f"value row ids {p.tolist()[:10]} should be {inner} sorted, non-negative "
                       "row numbers (one per value)")
        splits = np.concatenate([[0], np.cumsum(np.bincount(p) if len(p) else [])])
    splits = np.asarray(splits, np.int64)
    if splits[0] != 0 or np.any(np.diff(splits) < 0) or splits[-1] != inner:
        raise _Bad(f"row partition {splits.tolist()[:10]} should start at 0, never decrease "
                   f"and end at {inner} (the number of values or inner rows)")
    return splits


def _uniform(length: int, inner: int) -> np.ndarray:
    if length <= 0 or inner % length:
        if length == 0 and inner == 0:
            return np.zeros(1, np.int64)
        raise _Bad(f"{inner} values or rows do not split into rows of uniform length {length}")
    return np.arange(inner // length + 1, dtype=np.int64) * length


class RaggedHandler:
    """``RaggedFeature``: the value key's values split by the partition keys' values."""

    style = "var"

    def __init__(self, key: str, feature: RaggedFeature) -> None:
        check_dtype(key, feature.dtype)
        self.out_key, self.feature = key, feature
        self.key = feature.value_key if feature.value_key is not None else key
        self.splits_dtype = np.dtype(feature.row_splits_dtype.as_numpy_dtype)
        self.requests = [(self.key, KIND_OF[feature.dtype.name])] + [
            (p.key, INT64) for p in feature.partitions if not isinstance(p, UniformRowLength)]

    def _record(self, raws: dict[str, Raw], values: Any, i: int) -> Any:
        raw = raws[self.key]
        result: Any = values[int(raw.splits[i]):int(raw.splits[i + 1])]
        inner = len(result)
        for part in reversed(self.feature.partitions):
            if isinstance(part, UniformRowLength) and not isinstance(result, RaggedTensor):
                rows = len(_uniform(int(part.length), inner)) - 1  # dense: a reshape, as TF
                result = result.reshape(rows, int(part.length), *result.shape[1:])
                inner = rows
                continue
            if isinstance(part, UniformRowLength):
                splits, uniform = _uniform(int(part.length), inner), int(part.length)
            else:
                praw = raws[part.key]
                p = praw.values[int(praw.splits[i]):int(praw.splits[i + 1])]
                splits, uniform = _splits_of(part, p, inner), None
            result = RaggedTensor(result, splits.astype(self.splits_dtype), uniform,
                                  validate=False)
            inner = len(splits) - 1
        return result

    def _records(self, raws: dict[str, Raw], n: int, where: Where) -> tuple[list[Any],
                                                                           Problem | None]:
        values = raws[self.key].typed_values()
        out = []
        for i in range(n):
            try:
                out.append(self._record(raws, values, i))
            except _Bad as e:
                message = (f"{where._key(self.key, i)}Arguments to _from_row_partition do not "
                           f"form a valid RaggedTensor (RaggedFeature {self.out_key!r}): {e}")
                return out, Problem(i, 0, self.key, message)
        return out, None

    def single(self, by_key: dict[str, Any]) -> Any:
        """One record's 1-D values (no partitions), or FAIL (partitions: the general path)."""
        if self.feature.partitions:
            return FAIL
        v = by_key[self.key]
        if v is None:
            return np.zeros(0, object if self.requests[0][1] == 1 else
                            np.dtype(self.feature.dtype.as_numpy_dtype))
        if isinstance(v, list):
            out = np.empty(len(v), dtype=object)
            out[:] = v
            return out
        return v

    def problem(self, raws: dict[str, Raw], n: int, where: Where) -> Problem | None:
        if not self.feature.partitions:
            return None
        return self._records(raws, n, where)[1]

    def column(self, raws: dict[str, Raw], n: int) -> RaggedColumn:
        raw = raws[self.key]
        if not self.feature.partitions:  # one RaggedTensor for the block, no per-record loop
            splits = raw.splits[:n + 1]
            values = raw.typed_values()[:int(splits[-1])]
            return RaggedColumn(RaggedTensor(values, splits.astype(self.splits_dtype),
                                             validate=False))
        records, _ = self._records(raws, n, Where(True, None))
        rows = np.array([len(r) for r in records], np.int64)
        outer = np.concatenate([[0], np.cumsum(rows)]).astype(self.splits_dtype)
        if records:
            inner = concat(records)
        else:  # an empty block: the inner ragged levels with no rows
            empty = {k: Raw(np.zeros(1, np.int64), r.values[:0]) for k, r in raws.items()}
            inner = self._record(empty, raw.typed_values()[:0], 0)
        return RaggedColumn(RaggedTensor(inner, outer, validate=False))


__all__ = ["RaggedHandler"]
