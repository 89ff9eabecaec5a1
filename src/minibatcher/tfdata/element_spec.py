"""``Dataset.element_spec``: what TF derives statically, and what only an element tells.

Most ops know their elements' specs from their inputs', as TF does: sources
(``range``: int64 scalars; ``from_tensor_slices``: the rows' shapes; file
readers: string scalars), ``batch`` (a leading dimension, the batch size with
``drop_remainder``), ``unbatch``, ``window``, ``zip``, ``concatenate``...
(:func:`static_spec`; ``None`` marks what is not known). Elements made by
Python functions (``map``, ``flat_map``/``interleave``, ``scan``,
``group_by_window``, generators without a signature) cannot be traced as TF
traces them: :func:`element_spec` then looks at the first element of a side
iteration (which moves no shuffle or random source on) and reports its dtypes
and ranks, every dimension unknown (``None``), which holds for all elements.

Static specs also let ops refuse bad inputs when they are built, as TF does
(``unbatch`` of scalars, ``unique`` of floats) and count (``unbatch``'s cardinality).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> Dataset.range(5).batch(2, drop_remainder=True).element_spec
    TensorSpec(shape=(2,), dtype=tf.int64, name=None)
    >>> Dataset.range(3).map(lambda x: np.zeros((x, 2))).element_spec
    TensorSpec(shape=(None, None), dtype=tf.float64, name=None)
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import NotSupportedError
from ..state import Fields
from .dtypes import as_dtype
from .ragged_tensor import RaggedTensor
from .sparse_tensor import SparseTensor
from .specs import DatasetSpec, RaggedTensorSpec, SparseTensorSpec, TensorShape, TensorSpec
from .structure import flatten, is_structure, pack_as

_NOTHING = object()


def spec_of(value: Any, exact: bool = False) -> Any:
    """The spec of one element's structure: dtypes and ranks, dimensions None
    unless ``exact``.

    Example:
        >>> spec_of((np.zeros((2, 3), np.float32), b"x"))  # doctest: +NORMALIZE_WHITESPACE
        (TensorSpec(shape=(None, None), dtype=tf.float32, name=None),
         TensorSpec(shape=(), dtype=tf.string, name=None))
    """
    from .dataset import Dataset

    def leaf(v: Any) -> Any:
        if isinstance(v, Dataset):
            return DatasetSpec(element_spec(v))
        if isinstance(v, RaggedTensor):
            rank = len(v.shape)
            return RaggedTensorSpec([None] * rank, v.dtype, v.ragged_rank, v.row_splits.dtype)
        if isinstance(v, SparseTensor):
            return SparseTensorSpec([None] * len(v.dense_shape), as_dtype(v.values.dtype))
        arr = np.asarray(v, dtype=object) if isinstance(v, bytes) else np.asarray(v)
        shape = arr.shape if exact else [None] * arr.ndim
        return TensorSpec(shape, as_dtype(arr.dtype))

    leaves = [leaf(v) for v in flatten(value)]
    return pack_as(value, leaves) if is_structure(value) else leaves[0]


def _common(a: Any, b: Any) -> Any:
    """The most specific spec two leaves share (None when unknown or incompatible)."""
    if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
        return a.most_specific_common_supertype([b])
    return a if a == b else None


def common_spec(specs: list[Any]) -> Any:
    """The leafwise most specific common spec of several element specs.

    Example:
        >>> common_spec([TensorSpec([3], "int64"), TensorSpec([2], "int64")])
        TensorSpec(shape=(None,), dtype=tf.int64, name=None)
    """
    first = specs[0]
    if any(s is None for s in specs):
        return None
    columns = zip(*(flatten(s) for s in specs), strict=True)
    leaves = []
    for column in columns:
        out = column[0]
        for other in column[1:]:
            out = _common(out, other) if out is not None else None
        leaves.append(out)
    return pack_as(first, leaves) if is_structure(first) else leaves[0]


def map_leaves(spec: Any, fn: Callable[[Any], Any]) -> Any:
    """``fn`` over the leaves of a spec structure (an unknown leaf stays None).

    Example:
        >>> map_leaves((TensorSpec([], "int64"), None), lambda s: s.dtype.name)
        ('int64', None)
    """
    if spec is None:
        return None
    leaves = [None if s is None else fn(s) for s in flatten(spec)]
    return pack_as(spec, leaves) if is_structure(spec) else leaves[0]


def static_spec(dataset: Any) -> Any:
    """What is known of ``dataset``'s elements without reading any (None: nothing).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> static_spec(Dataset.zip((Dataset.range(2), Dataset.range(2).map(abs))))
        (TensorSpec(shape=(), dtype=tf.int64, name=None), None)
    """
    cached = dataset.__dict__.get("_static_spec", _NOTHING)
    if cached is _NOTHING:
        from .spec_rules import rule_for
        rule = rule_for(dataset)
        cached = None if rule is None else rule(dataset)
        dataset.__dict__["_static_spec"] = cached
    return cached


def _unknown(spec: Any) -> bool:
    if spec is None:
        return True
    for leaf in flatten(spec):
        if leaf is None or (isinstance(leaf, DatasetSpec) and _unknown(leaf.element_spec)):
            return True
    return False


def peek(dataset: Any) -> Any:
    """The first element of a side iteration (every seed generator put back after).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = Dataset.range(5).shuffle(5, seed=1)
        >>> first = peek(ds); int(first) == int(next(iter(ds)))
        True
    """
    from .iterator import _stateful
    nodes = _stateful(dataset)
    saved = [node._generator_state() for node in nodes]
    try:
        return next(iter(dataset), _NOTHING)
    finally:
        for node, state in zip(nodes, saved, strict=True):
            node._restore_generator(Fields(state))


def _fill(spec: Any, value: Any) -> Any:
    if spec is None:
        return spec_of(value)
    parts = []
    for leaf, v in zip(flatten(spec), flatten(value), strict=True):
        if leaf is None or (isinstance(leaf, DatasetSpec) and _unknown(leaf.element_spec)):
            leaf = spec_of(v)
        parts.append(leaf)
    return pack_as(spec, parts) if is_structure(spec) else parts[0]


def element_spec(dataset: Any) -> Any:
    """``Dataset.element_spec`` (see the module docstring).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> element_spec(Dataset.range(3).window(2))
        DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))
    """
    spec = static_spec(dataset)
    if not _unknown(spec):
        return spec
    cached = dataset.__dict__.get("_peeked_spec", _NOTHING)
    if cached is not _NOTHING:
        return cached
    value = peek(dataset)
    if value is _NOTHING:
        raise NotSupportedError(
            "element_spec: the elements of this dataset are made by Python functions (which "
            "cannot be traced as TF traces them) and it gave no element to look at")
    spec = dataset.__dict__["_peeked_spec"] = _fill(spec, value)
    return spec


__all__ = ["TensorShape", "common_spec", "element_spec", "map_leaves", "peek", "spec_of",
           "static_spec"]
