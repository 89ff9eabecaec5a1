"""TF's type specs of elements: ``TensorShape``, ``TensorSpec``, ``RaggedTensorSpec``,
``SparseTensorSpec`` and ``DatasetSpec``, with TF's names, equality and printing.

A spec describes every element a dataset can give: a dtype and a shape whose
unknown dimensions are ``None`` (``TensorShape(None)``: even the rank is
unknown). ``Dataset.element_spec`` is a structure of them
(:mod:`.element_spec`).

Example:
    >>> from minibatcher import tfdata
    >>> spec = TensorSpec([None, 3], tfdata.float32)
    >>> spec, spec.shape.as_list(), spec.is_compatible_with(np.zeros((2, 3), np.float32))
    (TensorSpec(shape=(None, 3), dtype=tf.float32, name=None), [None, 3], True)
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from .dtypes import DType, as_dtype, float32, int64


class TensorShape:
    """``tf.TensorShape``: dimensions (ints or None), or an unknown rank (``dims=None``).

    Example:
        >>> TensorShape([None, 3]), TensorShape([None, 3]) == (None, 3), TensorShape(None).rank
        (TensorShape([None, 3]), True, None)
    """

    def __init__(self, dims: Any) -> None:
        if isinstance(dims, TensorShape):
            dims = dims.dims
        self.dims: tuple[int | None, ...] | None = None if dims is None else tuple(
            None if d is None or int(d) < 0 else int(d) for d in dims)

    @property
    def rank(self) -> int | None:
        """The number of dimensions (None when unknown)."""
        return None if self.dims is None else len(self.dims)

    def as_list(self) -> list[int | None]:
        """The dimensions as a list (ValueError for an unknown rank, as TF)."""
        if self.dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self.dims)

    def is_fully_defined(self) -> bool:
        """Whether every dimension is known."""
        return self.dims is not None and None not in self.dims

    def is_compatible_with(self, other: Any) -> bool:
        """Whether some shape fits both (None matches anything).

        Example:
            >>> TensorShape([None, 3]).is_compatible_with([2, 3])
            True
            >>> TensorShape([2]).is_compatible_with([3])
            False
        """
        other = as_shape(other)
        if self.dims is None or other.dims is None:
            return True
        return len(self.dims) == len(other.dims) and all(
            a is None or b is None or a == b for a, b in zip(self.dims, other.dims, strict=True))

    def most_specific_compatible_shape(self, other: Any) -> "TensorShape":
        """The dimensions both agree on (others None; rank unknown when ranks differ)."""
        other = as_shape(other)
        if self.dims is None or other.dims is None or len(self.dims) != len(other.dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self.dims, other.dims,
                                                                     strict=True)])

    def __len__(self) -> int:
        return len(self.as_list())

    def __iter__(self) -> Iterator[int | None]:
        return iter(self.as_list())

    def __getitem__(self, index: Any) -> Any:
        dims = self.as_list()[index]
        return TensorShape(dims) if isinstance(index, slice) else dims

    def __eq__(self, other: object) -> bool:
        try:
            return self.dims == as_shape(other).dims
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self.dims)

    def __repr__(self) -> str:
        return "TensorShape(None)" if self.dims is None else f"TensorShape({list(self.dims)})"

    def __str__(self) -> str:
        if self.dims is None:
            return "<unknown>"
        return "(" + ", ".join(str(d) for d in self.dims) + ("," if len(self.dims) == 1 else "") \
            + ")"


def as_shape(shape: Any) -> TensorShape:
    """A TensorShape from a TensorShape, a list/tuple of dimensions or None.

    Example:
        >>> as_shape((2, None)).as_list()
        [2, None]
    """
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


class TensorSpec:
    """``tf.TensorSpec(shape, dtype=tf.float32, name=None)``.

    Example:
        >>> TensorSpec.from_tensor(np.arange(3))
        TensorSpec(shape=(3,), dtype=tf.int64, name=None)
        >>> TensorSpec([], "string") == TensorSpec((), "string")
        True
    """

    def __init__(self, shape: Any, dtype: Any = float32, name: str | None = None) -> None:
        self.shape, self.dtype, self.name = as_shape(shape), as_dtype(dtype), name

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> "TensorSpec":
        """The spec of a value (its exact shape and dtype)."""
        arr = np.asarray(tensor, dtype=object) if isinstance(tensor, bytes) else np.asarray(tensor)
        return cls(arr.shape, as_dtype(arr.dtype), name)

    def is_compatible_with(self, other: Any) -> bool:
        """Whether ``other`` (a spec or a value) has this dtype and a fitting shape."""
        if not isinstance(other, TensorSpec):
            other = TensorSpec.from_tensor(other)
        return self.dtype == other.dtype and self.shape.is_compatible_with(other.shape)

    def most_specific_common_supertype(self, others: Sequence[Any]) -> "TensorSpec | None":
        """The spec that fits this one and ``others`` (None when dtypes differ)."""
        shape = self.shape
        for other in others:
            if not isinstance(other, TensorSpec) or other.dtype != self.dtype:
                return None
            shape = shape.most_specific_compatible_shape(other.shape)
        return TensorSpec(shape, self.dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorSpec) and type(other) is type(self) and \
            (self.shape, self.dtype, self.name) == (other.shape, other.dtype, other.name)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype.name, self.name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r})"


class RaggedTensorSpec:
    """``tf.RaggedTensorSpec(shape, dtype, ragged_rank, row_splits_dtype)``.

    Example:
        >>> RaggedTensorSpec([None, None], "int64", 1)
        RaggedTensorSpec(TensorShape([None, None]), tf.int64, 1, tf.int64)
    """

    def __init__(self, shape: Any = None, dtype: Any = float32, ragged_rank: int | None = None,
                 row_splits_dtype: Any = int64, flat_values_spec: Any = None) -> None:
        self.shape, self.dtype = as_shape(shape), as_dtype(dtype)
        rank = self.shape.rank
        self.ragged_rank = (rank - 1 if rank else 1) if ragged_rank is None else int(ragged_rank)
        self.row_splits_dtype = as_dtype(row_splits_dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RaggedTensorSpec) and self._key() == other._key()

    def _key(self) -> tuple[Any, ...]:
        return (self.shape, self.dtype.name, self.ragged_rank, self.row_splits_dtype.name)

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"RaggedTensorSpec({self.shape!r}, {self.dtype!r}, {self.ragged_rank}, "
                f"{self.row_splits_dtype!r})")


class SparseTensorSpec:
    """``tf.SparseTensorSpec(shape, dtype)``.

    Example:
        >>> SparseTensorSpec([None, 3], "int64")
        SparseTensorSpec(TensorShape([None, 3]), tf.int64)
    """

    def __init__(self, shape: Any = None, dtype: Any = float32) -> None:
        self.shape, self.dtype = as_shape(shape), as_dtype(dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SparseTensorSpec) and \
            (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype.name))

    def __repr__(self) -> str:
        return f"SparseTensorSpec({self.shape!r}, {self.dtype!r})"


class DatasetSpec:
    """``tf.data.DatasetSpec(element_spec)``: the spec of a dataset-valued element
    (a ``window``).

    Example:
        >>> DatasetSpec(TensorSpec([], "int64"))
        DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))
    """

    def __init__(self, element_spec: Any, dataset_shape: Any = ()) -> None:
        self.element_spec, self.shape = element_spec, as_shape(dataset_shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DatasetSpec) and \
            (self.element_spec, self.shape) == (other.element_spec, other.shape)

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        return f"DatasetSpec({self.element_spec!r}, {self.shape!r})"


def scalar(dtype: Any) -> TensorSpec:
    """``TensorSpec([], dtype)``.

    Example:
        >>> scalar("string")
        TensorSpec(shape=(), dtype=tf.string, name=None)
    """
    return TensorSpec((), dtype)


def is_spec(value: Any) -> bool:
    """Whether ``value`` is one of the spec classes (a leaf of an element_spec).

    Example:
        >>> is_spec(scalar("int64")), is_spec((scalar("int64"),))
        (True, False)
    """
    return isinstance(value, (TensorSpec, RaggedTensorSpec, SparseTensorSpec, DatasetSpec))


__all__ = ["DType", "DatasetSpec", "RaggedTensorSpec", "SparseTensorSpec", "TensorShape",
           "TensorSpec", "as_shape", "is_spec", "scalar"]
