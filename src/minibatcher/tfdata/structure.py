"""Elements: NumPy values nested in tuples (namedtuples too) and dicts, as tf.data's.

A tuple element is unpacked into the arguments of ``map``/``filter``/
``interleave`` functions; a dict is passed as one argument. Strings are
``bytes`` (what ``.numpy()`` gives in TF); string arrays have dtype object.

Example:
    >>> flatten(({"a": 1, "b": (2, 3)}, 4))
    [1, 2, 3, 4]
    >>> pack_as(({"a": 0, "b": (0, 0)}, 0), [5, 6, 7, 8])
    ({'a': 5, 'b': (6, 7)}, 8)
    >>> call(lambda x, y: x + y, (1, 2))
    3
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

import numpy as np

from ..errors import FormatError
from .ragged_tensor import RaggedTensor
from .sparse_tensor import SparseTensor


def is_structure(value: Any) -> bool:
    """Whether ``value`` nests other values (a tuple or a dict).

    Example:
        >>> is_structure((1,)), is_structure([1]), is_structure(np.zeros(2))
        (True, False, False)
    """
    return isinstance(value, (tuple, Mapping))


def _rebuild(template: tuple, parts: list[Any]) -> tuple:
    if hasattr(template, "_fields"):  # namedtuple
        return type(template)(*parts)
    return tuple(parts)


def _children(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return [value[k] for k in sorted(value)]
    return list(value)


def flatten(value: Any) -> list[Any]:
    """The leaves of an element in a fixed order (dict keys sorted).

    Example:
        >>> flatten({"b": 1, "a": (2,)})
        [2, 1]
    """
    if not is_structure(value):
        return [value]
    out: list[Any] = []
    for child in _children(value):
        out.extend(flatten(child))
    return out


def pack_as(template: Any, leaves: list[Any]) -> Any:
    """The structure of ``template`` filled with ``leaves`` (in flatten order).

    Example:
        >>> pack_as((0, {"x": 0}), ["a", "b"])
        ('a', {'x': 'b'})
    """
    it = iter(leaves)

    def build(t: Any) -> Any:
        if not is_structure(t):
            return next(it)
        parts = [build(c) for c in _children(t)]
        if isinstance(t, Mapping):
            return dict(zip(sorted(t), parts))
        return _rebuild(t, parts)

    return build(template)


def flatten_up_to(template: Any, value: Any, what: str) -> list[Any]:
    """``value``'s parts at the leaf positions of ``template`` (for
    ``padded_shapes``/``padding_values``, whose leaves may be lists).

    Example:
        >>> flatten_up_to((0, 0), ([None], []), "padded_shapes")
        [[None], []]
    """
    if not is_structure(template):
        return [value]
    if not is_structure(value) or len(_children(value)) != len(_children(template)):
        raise ValueError(f"{what} should have the structure of the dataset's elements, but got "
                         f"{what}={value!r} for elements like {template!r}")
    if isinstance(template, Mapping) and sorted(template) != sorted(value):
        raise ValueError(f"{what} should have the keys {sorted(template)}, but got {sorted(value)}")
    out: list[Any] = []
    for t, v in zip(_children(template), _children(value)):
        out.extend(flatten_up_to(t, v, what))
    return out


def call(fn: Callable[..., Any], element: Any) -> Any:
    """``fn(*element)`` for a tuple element, else ``fn(element)`` (tf.data's rule).

    Example:
        >>> call(len, {"a": 1})
        1
    """
    if isinstance(element, tuple):
        return fn(*element)
    return fn(element)


def to_array(value: Any) -> np.ndarray:
    """A leaf as a NumPy array with TF's dtypes for Python values: ``str`` ->
    ``bytes`` (dtype object), Python ``int`` -> int32, ``float`` -> float32.

    Example:
        >>> to_array([1, 2]).dtype, to_array(["a"]).tolist(), to_array(np.arange(2)).dtype
        (dtype('int32'), [b'a'], dtype('int64'))
    """
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        python = False
    else:
        arr = np.asarray(value)
        python = True
    if arr.dtype.kind == "U":
        return np.vectorize(lambda s: s.encode("utf-8"), otypes=[object])(arr) if arr.size \
            else arr.astype(object)
    if arr.dtype.kind == "S":
        return arr.astype(object)
    if python and arr.dtype == np.int64 and arr.size and \
            np.iinfo(np.int32).min <= arr.min() and arr.max() <= np.iinfo(np.int32).max:
        return arr.astype(np.int32)
    if python and arr.dtype == np.int64 and not arr.size:
        return arr.astype(np.int32)
    if python and arr.dtype == np.float64:
        return arr.astype(np.float32)
    return arr


def to_leaf(value: Any) -> Any:
    """One element's leaf: ``str`` -> ``bytes``, other Python values -> NumPy.

    Example:
        >>> to_leaf("é"), to_leaf(3).dtype
        (b'\\xc3\\xa9', dtype('int32'))
    """
    if isinstance(value, (bytes, SparseTensor, RaggedTensor)):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    arr = to_array(value)
    return arr[()] if arr.ndim == 0 else arr


def as_array(value: Any) -> np.ndarray:
    """A leaf as an array for batching, strings as TF's (``bytes`` in object arrays:
    ``str`` encoded as UTF-8, fixed-width ``S``/``U`` arrays converted).

    Example:
        >>> as_array("é").tolist(), as_array(np.array([b"ab", b"c"])).dtype
        (b'\\xc3\\xa9', dtype('O'))
    """
    if isinstance(value, str):
        value = value.encode("utf-8")
    if isinstance(value, bytes):
        out = np.empty((), dtype=object)
        out[()] = value
        return out
    arr = np.asarray(value)
    if arr.dtype.kind == "U":
        return np.vectorize(lambda s: s.encode("utf-8"), otypes=[object])(arr) if arr.size \
            else arr.astype(object)
    if arr.dtype.kind == "S":
        return arr.astype(object)
    return arr


def _shape_error(component: int, first: tuple, index: int, other: tuple) -> FormatError:
    return FormatError(f"Cannot batch tensors with different shapes in component {component}. "
                       f"First element had shape {list(first)} and element {index} had shape "
                       f"{list(other)}; use padded_batch to pad them to a common shape")


def stack_leaves(values: list[Any], component: int) -> np.ndarray:
    """``values`` (one leaf of every element) stacked along a new first axis.

    Example:
        >>> stack_leaves([np.int64(1), np.int64(2)], 0).tolist()
        [1, 2]
        >>> stack_leaves([b"a", b"bc"], 0).dtype
        dtype('O')
        >>> stack_leaves([SparseTensor([[1]], [5], [2])] * 2, 0).dense_shape.tolist()
        [2, 2]
    """
    if isinstance(values[0], (SparseTensor, RaggedTensor)):  # TF batches them as composites
        kind = type(values[0])
        if not all(isinstance(v, kind) for v in values):
            raise FormatError(f"Cannot batch component {component}: it holds {kind.__name__}s "
                              "and other values")
        return kind.stack(values)
    if isinstance(values[0], (bytes, str)) and all(isinstance(v, (bytes, str)) for v in values):
        out = np.empty(len(values), dtype=object)
        out[:] = [v.encode("utf-8") if isinstance(v, str) else v for v in values]
        return out
    arrays = [as_array(v) for v in values]
    first = arrays[0].shape
    for i, a in enumerate(arrays):
        if a.shape != first:
            raise _shape_error(component, first, i, a.shape)
    return np.stack(arrays)


def stack(elements: list[Any]) -> Any:
    """A batch: every leaf stacked, in the elements' structure.

    Example:
        >>> b = stack([(np.int64(1), b"x"), (np.int64(2), b"y")])
        >>> b[0].tolist(), b[1].tolist()
        ([1, 2], [b'x', b'y'])
    """
    columns = list(zip(*(flatten(e) for e in elements)))
    return pack_as(elements[0], [stack_leaves(list(c), i) for i, c in enumerate(columns)])
