"""The feature specs of ``tf.io``: ``FixedLenFeature``, ``VarLenFeature``,
``FixedLenSequenceFeature`` and ``RaggedFeature`` (with its partitions), TF's names and fields.

As in TF they are plain records of what the user asked for; whether a spec makes sense for a
key (known shapes, ``allow_missing``, defaults that fit) is checked when a parse function
compiles it (:mod:`.plan`), with TF's messages. Only ``dtype`` is converted at once (to a
:class:`~minibatcher.tfdata.DType`; anything ``tfdata.as_dtype`` accepts).

Example:
    >>> from minibatcher import tfdata
    >>> FixedLenFeature([2], tfdata.int64, default_value=[0, 0])
    FixedLenFeature(shape=[2], dtype=tf.int64, default_value=[0, 0])
    >>> RaggedFeature(tfdata.float32, partitions=[RaggedFeature.RowLengths("len")]).partitions
    (RowLengths(key='len'),)
"""

from __future__ import annotations

import dataclasses
from typing import Any, Union

from ..dtypes import DType, as_dtype, int32, int64


def _shape(shape: Any) -> tuple[int | None, ...]:
    if shape is None:
        raise TypeError("shape should be a list of dimensions (ints or None), but got None")
    if isinstance(shape, int):
        shape = [shape]
    dims = getattr(shape, "as_list", lambda: shape)()  # a TensorShape-like object
    out = []
    for d in dims:
        if d is not None and (isinstance(d, bool) or not hasattr(d, "__index__")):
            raise TypeError(f"shape should be a list of dimensions (ints or None), but got "
                            f"shape={shape!r}")
        out.append(None if d is None else int(d))
    return tuple(out)


def _shape_repr(shape: tuple[int | None, ...]) -> str:
    return "[" + ", ".join("None" if d is None else str(d) for d in shape) + "]"


@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class FixedLenFeature:
    """``tf.io.FixedLenFeature(shape, dtype, default_value=None)``: exactly
    ``prod(shape)`` values, reshaped to ``shape``; a record without the feature gets
    ``default_value`` (reshaped to ``shape``), or is an error when there is none.

    Example:
        >>> FixedLenFeature((), "string").shape
        ()
    """

    shape: Any
    dtype: Any
    default_value: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", _shape(self.shape))
        object.__setattr__(self, "dtype", as_dtype(self.dtype))

    def __repr__(self) -> str:
        return (f"FixedLenFeature(shape={_shape_repr(self.shape)}, dtype={self.dtype!r}, "
                f"default_value={self.default_value!r})")


@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class VarLenFeature:
    """``tf.io.VarLenFeature(dtype)``: any number of values, parsed into a
    :class:`~minibatcher.tfdata.SparseTensor`.

    Example:
        >>> VarLenFeature("float32")
        VarLenFeature(dtype=tf.float32)
    """

    dtype: Any

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", as_dtype(self.dtype))

    def __repr__(self) -> str:
        return f"VarLenFeature(dtype={self.dtype!r})"


@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class FixedLenSequenceFeature:
    """``tf.io.FixedLenSequenceFeature(shape, dtype, allow_missing=False, default_value=None)``:
    a sequence of elements of ``shape`` (the values' count must be a multiple of
    ``prod(shape)``), parsed to ``[n, *shape]``; ``parse_example`` pads to the longest
    record with ``default_value``. In ``parse_(single_)example`` ``allow_missing`` must be
    True (as TF requires); in a SequenceExample's feature lists it says whether a record
    may lack the list.

    Example:
        >>> FixedLenSequenceFeature([3], "float32", allow_missing=True).allow_missing
        True
    """

    shape: Any
    dtype: Any
    allow_missing: bool = False
    default_value: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", _shape(self.shape))
        object.__setattr__(self, "dtype", as_dtype(self.dtype))

    def __repr__(self) -> str:
        return (f"FixedLenSequenceFeature(shape={_shape_repr(self.shape)}, dtype={self.dtype!r}, "
                f"allow_missing={self.allow_missing!r}, default_value={self.default_value!r})")


@dataclasses.dataclass(frozen=True)
class RowSplits:
    """``RaggedFeature.RowSplits(key)``: an int64 feature of row offsets (``[0, ..., n]``).

    Example:
        >>> RowSplits("splits").key
        'splits'
    """

    key: str


@dataclasses.dataclass(frozen=True)
class RowLengths:
    """``RaggedFeature.RowLengths(key)``: an int64 feature of row lengths.

    Example:
        >>> RowLengths("n")
        RowLengths(key='n')
    """

    key: str


@dataclasses.dataclass(frozen=True)
class RowStarts:
    """``RaggedFeature.RowStarts(key)``: an int64 feature of row start offsets.

    Example:
        >>> RowStarts("s").key
        's'
    """

    key: str


@dataclasses.dataclass(frozen=True)
class RowLimits:
    """``RaggedFeature.RowLimits(key)``: an int64 feature of row end offsets.

    Example:
        >>> RowLimits("l").key
        'l'
    """

    key: str


@dataclasses.dataclass(frozen=True)
class ValueRowIds:
    """``RaggedFeature.ValueRowIds(key)``: an int64 feature, the row of every value (sorted).

    Example:
        >>> ValueRowIds("ids").key
        'ids'
    """

    key: str


@dataclasses.dataclass(frozen=True)
class UniformRowLength:
    """``RaggedFeature.UniformRowLength(length)``: rows of ``length`` values each.

    Example:
        >>> UniformRowLength(3).length
        3
    """

    length: int


Partition = Union[RowSplits, RowLengths, RowStarts, RowLimits, ValueRowIds, UniformRowLength]
_PARTITIONS = (RowSplits, RowLengths, RowStarts, RowLimits, ValueRowIds, UniformRowLength)


@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class RaggedFeature:
    """``tf.io.RaggedFeature(dtype, value_key=None, partitions=(), row_splits_dtype=int32,
    validate=False)``: the values of ``value_key`` (default: the feature's own key) as a
    :class:`~minibatcher.tfdata.RaggedTensor`, split by ``partitions`` (outermost first; each
    reads an int64 feature, except ``UniformRowLength``). Partitions are always validated
    here (``validate`` is accepted; TF without it returns malformed ragged values).

    Example:
        >>> RaggedFeature("int64", value_key="v", row_splits_dtype="int64").row_splits_dtype
        tf.int64
    """

    dtype: Any
    value_key: str | None = None
    partitions: Any = ()
    row_splits_dtype: Any = int32
    validate: bool = False

    RowSplits = RowSplits
    RowLengths = RowLengths
    RowStarts = RowStarts
    RowLimits = RowLimits
    ValueRowIds = ValueRowIds
    UniformRowLength = UniformRowLength

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", as_dtype(self.dtype))
        splits = as_dtype(self.row_splits_dtype)
        if splits not in (int32, int64):
            raise ValueError(f"Argument `row_splits_dtype` must be int32 or int64; got{splits!r}")
        object.__setattr__(self, "row_splits_dtype", splits)
        parts = tuple(self.partitions)
        for p in parts:
            if not isinstance(p, _PARTITIONS):
                raise TypeError(f"partitions should be RaggedFeature.RowSplits, RowLengths, "
                                f"RowStarts, RowLimits, ValueRowIds or UniformRowLength, but "
                                f"got {p!r}")
        object.__setattr__(self, "partitions", parts)

    def __repr__(self) -> str:
        return (f"RaggedFeature(dtype={self.dtype!r}, value_key={self.value_key!r}, "
                f"partitions={self.partitions!r}, row_splits_dtype={self.row_splits_dtype!r}, "
                f"validate={self.validate!r})")


@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class SparseFeature:
    """``tf.io.SparseFeature(index_key, value_key, dtype, size, already_sorted=False)``: a
    SparseTensor of dense shape ``size`` whose indices are the int64 values of ``index_key``
    (one key per dimension: a str or a list) and whose values are those of ``value_key``.

    Example:
        >>> SparseFeature(["row", "col"], "val", "float32", [3, 4])
        SparseFeature(index_key=['row', 'col'], value_key='val', dtype=tf.float32, size=[3, 4], already_sorted=False)
    """

    index_key: Any
    value_key: str
    dtype: Any
    size: Any
    already_sorted: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", as_dtype(self.dtype))

    def __repr__(self) -> str:
        return (f"SparseFeature(index_key={self.index_key!r}, value_key={self.value_key!r}, "
                f"dtype={self.dtype!r}, size={self.size!r}, "
                f"already_sorted={self.already_sorted!r})")


Feature = Union[FixedLenFeature, VarLenFeature, FixedLenSequenceFeature, RaggedFeature,
                SparseFeature]
FEATURE_TYPES = (FixedLenFeature, VarLenFeature, FixedLenSequenceFeature, RaggedFeature,
                 SparseFeature)


def type_name(dtype: DType) -> str:
    """TF's word for a list kind in parse errors ("int64", "float", "string").

    Example:
        >>> type_name(as_dtype("float32"))
        'float'
    """
    return {"float32": "float", "int64": "int64", "string": "string"}.get(dtype.name, dtype.name)


__all__ = ["FEATURE_TYPES", "Feature", "FixedLenFeature", "FixedLenSequenceFeature",
           "Partition", "RaggedFeature", "RowLengths", "RowLimits", "RowSplits", "RowStarts",
           "SparseFeature",
           "UniformRowLength", "ValueRowIds", "VarLenFeature", "type_name"]
