"""One handler per feature of an Example spec: which native columns it needs, the first
record that breaks TF's rules for it, and its :mod:`.columns` column.

Example:
    >>> from .features import FixedLenFeature
    >>> h = FixedHandler("x", FixedLenFeature([2], "int64", default_value=[0, 0]))
    >>> raws = {"x": Raw(np.array([2, -1]), np.array([5, 6]))}
    >>> h.problem(raws, 2, Where(True, None)), h.column(raws, 2).values.tolist()
    (None, [[5, 6], [0, 0]])
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..sparse_tensor import SparseTensor
from .columns import DenseColumn, SequenceColumn, SparseColumn
from .convert import check_dims, check_dtype, dense_default, padding_default
from .features import FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, type_name
from .messages import Where
from .raw import KIND_OF, Raw


@dataclasses.dataclass(frozen=True)
class Problem:
    """The first bad record for one feature: ``rank`` orders problems within a record
    (0: values that do not fit, 1: a required feature missing)."""

    record: int
    rank: int
    key: str
    message: str


def _first(mask: np.ndarray) -> int:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else -1


def _size(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _dtype_of(raw_kind_name: str) -> Any:
    return {"string": object, "float32": np.float32, "int64": np.int64}[raw_kind_name]


FAIL = object()  # a single-record fast path gives up: the general path finds TF's error


def _strings(values: list[bytes]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


class FixedHandler:
    """``FixedLenFeature``: ``prod(shape)`` values per record, or the default."""

    style = "fixed"

    def __init__(self, key: str, feature: FixedLenFeature) -> None:
        shape = feature.shape
        if any(d is None for d in shape):
            if shape and shape[0] is None:
                raise ValueError(f"First dimension of shape for feature {key} unknown. Consider "
                                 f"using FixedLenSequenceFeature. Received feature={feature!r}.")
            dims = "[" + ", ".join("None" if d is None else str(d) for d in shape) + "]"
            raise ValueError(f"All dimensions of shape for feature {key} need to be known but "
                             f"received {dims}.")
        check_dims(shape)
        check_dtype(key, feature.dtype)
        self.key, self.out_key, self.feature = key, key, feature
        self.shape, self.size = tuple(int(d) for d in shape), _size(shape)  # type: ignore[arg-type]
        self.default = None if feature.default_value is None else \
            dense_default(feature.default_value, feature.dtype, self.shape)
        self.requests = [(key, KIND_OF[feature.dtype.name])]

    def problem(self, raws: dict[str, Raw], n: int, where: Where) -> Problem | None:
        counts = raws[self.key].counts[:n]
        bad = _first((counts >= 0) & (counts != self.size))
        missing = _first(counts < 0) if self.default is None else -1
        if bad >= 0 and (missing < 0 or bad <= missing):
            word = type_name(self.feature.dtype)
            return Problem(bad, 0, self.key, where.fixed_count(self.key, word, int(counts[bad]),
                                                                self.shape, bad))
        if missing >= 0:
            return Problem(missing, 1, self.key,
                           where.missing(self.key, type_name(self.feature.dtype), missing))
        return None

    def single(self, by_key: dict[str, Any]) -> Any:
        """One record's value from its native lists (None: absent), or FAIL."""
        v = by_key[self.key]
        if v is None:
            if self.default is None:
                return FAIL
            return self.default[()] if not self.shape else self.default.copy()
        if len(v) != self.size:
            return FAIL
        if not self.shape:
            return v[0]
        return (_strings(v) if isinstance(v, list) else v).reshape(self.shape)

    def column(self, raws: dict[str, Raw], n: int) -> DenseColumn:
        raw = raws[self.key]
        counts = raw.counts[:n]
        complete = self.default is None or bool(np.all(counts >= 0))
        if complete and raw.byte_ends is not None:  # strings stay in the native buffer
            return DenseColumn(data=raw.values, ends=raw.byte_ends[:int(raw.splits[n])],
                               shape=(n, *self.shape))
        values = raw.typed_values()[:int(raw.splits[n])]
        if complete:
            return DenseColumn(values.reshape((n, *self.shape)))
        out = np.empty((n, self.size), dtype=_dtype_of(self.feature.dtype.name))
        present = counts >= 0
        out[present] = values.reshape(-1, self.size)
        out[~present] = self.default.reshape(-1)
        return DenseColumn(out.reshape((n, *self.shape)))


class VarLenHandler:
    """``VarLenFeature``: any number of values (a SparseTensor)."""

    style = "var"

    def __init__(self, key: str, feature: VarLenFeature) -> None:
        check_dtype(key, feature.dtype)
        self.key, self.out_key, self.feature = key, key, feature
        self.requests = [(key, KIND_OF[feature.dtype.name])]

    def problem(self, raws: dict[str, Raw], n: int, where: Where) -> Problem | None:
        return None

    def single(self, by_key: dict[str, Any]) -> Any:
        """One record's SparseTensor from its native list (None: absent)."""
        v = by_key[self.key]
        values = _strings(v or []) if self.requests[0][1] == 1 else \
            (v if v is not None else np.zeros(0, _dtype_of(self.feature.dtype.name)))
        n = len(values)
        return SparseTensor._trusted(np.arange(n, dtype=np.int64).reshape(n, 1), values,
                                     np.array([n], np.int64))

    def column(self, raws: dict[str, Raw], n: int) -> SparseColumn:
        raw = raws[self.key]
        splits = raw.splits[:n + 1]
        return SparseColumn(raw.typed_values()[:int(splits[-1])], splits)


class SequenceHandler:
    """``FixedLenSequenceFeature`` in an Example: a multiple of ``prod(shape)`` values."""

    style = "fixed"

    def __init__(self, key: str, feature: FixedLenSequenceFeature, dense_index: int) -> None:
        if not feature.allow_missing:
            raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be "
                             "True.")
        if any(d is None for d in feature.shape):
            from .messages import shape_text
            raise InvalidArgumentError(
                f"dense_shapes[{dense_index}] has unknown rank or unknown inner dimensions: "
                f"{shape_text((None, *feature.shape))}")
        check_dims(feature.shape)
        check_dtype(key, feature.dtype)
        self.key, self.out_key, self.feature = key, key, feature
        self.shape = tuple(int(d) for d in feature.shape)  # type: ignore[arg-type]
        self.stride = _size(self.shape)
        if self.stride == 0:
            raise InvalidArgumentError(f"feature {key!r}: a FixedLenSequenceFeature needs "
                                       f"elements of at least one value, but got shape "
                                       f"{list(self.shape)} (TensorFlow crashes on it)")
        self.default = padding_default(feature.default_value, feature.dtype)
        self.requests = [(key, KIND_OF[feature.dtype.name])]

    def problem(self, raws: dict[str, Raw], n: int, where: Where) -> Problem | None:
        counts = raws[self.key].counts[:n]
        bad = _first((counts >= 0) & (counts % self.stride != 0))
        if bad < 0:
            return None
        word = type_name(self.feature.dtype)
        return Problem(bad, 0, self.key, where.stride(self.key, word, int(counts[bad]),
                                                      self.shape, bad))

    def single(self, by_key: dict[str, Any]) -> Any:
        """One record's ``[n, *shape]`` from its native list (None: absent), or FAIL."""
        v = by_key[self.key]
        if v is None:
            return np.zeros((0, *self.shape), _dtype_of(self.feature.dtype.name))
        if len(v) % self.stride:
            return FAIL
        return (_strings(v) if isinstance(v, list) else v).reshape((-1, *self.shape))

    def column(self, raws: dict[str, Raw], n: int) -> SequenceColumn:
        raw = raws[self.key]
        splits = raw.splits[:n + 1]
        values = raw.typed_values()[:int(splits[-1])].reshape((-1, *self.shape))
        return SequenceColumn(values, splits // self.stride, self.default)


__all__ = ["FAIL", "FixedHandler", "Problem", "SequenceHandler", "VarLenHandler"]
