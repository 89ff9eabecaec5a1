"""``padded_batch``'s padding: shapes, values and one padded batch (TF's rules).

A batch component is padded in every dimension left unknown (``None``/-1 in
``padded_shapes``, or every dimension when ``padded_shapes`` is None) to the
batch's maximum, and in fixed dimensions to their size, with the component's
``padding_values`` entry (default 0, or ``b""`` for strings). Strings are TF's
strings: ``bytes`` in object arrays, whatever the elements held (``str``,
``bytes``, fixed-width ``S``/``U`` arrays); a ``str`` padding value is
encoded as UTF-8, as TF does.

Checks: ``padded_shapes`` and ``padding_values`` are checked when the dataset
is built, as TF checks them (a dimension below -1, a padding value that is not
a scalar); what needs the elements' dtypes and ranks (a string padding value
for an integer component, a shape of the wrong rank) is checked at the first
batch, since NumPy pipelines carry no element specs.

Example:
    >>> import numpy as np
    >>> pad_batch([np.array([1]), np.array([2, 3])], None, None).tolist()
    [[1, 0], [2, 3]]
    >>> pad_batch([b"a", b"bb"], None, None).tolist()
    [b'a', b'bb']
    >>> pad_batch([np.array([b"a"]), np.array([b"b", b"c"])], None, "<end>").tolist()
    [[b'a', b'<end>'], [b'b', b'c']]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ConfigError, FormatError
from .structure import as_array, flatten, is_structure, pack_as


def _shape_dims(shape: Any) -> list[Any]:
    return shape.as_list() if hasattr(shape, "as_list") else list(shape)


def parts_of(template: Any, value: Any, what: str) -> list[Any]:
    """``value`` at each leaf of ``template``: None anywhere means "the default" for
    the leaves below (TF: ``padding_values=(-1, None)`` pads the second component
    with its default); a single value for a structure applies to every leaf.

    Example:
        >>> parts_of((0, {"a": 0, "b": 0}), (-1, None), "padding_values")
        [-1, None, None]
    """
    if value is None:
        return [None] * len(flatten(template))
    if not is_structure(template):
        return [value]
    if not is_structure(value):
        return [value] * len(flatten(template))
    keys = sorted(template) if isinstance(template, dict) else range(len(template))
    if isinstance(template, dict) != isinstance(value, dict) or len(value) != len(template) or \
            (isinstance(template, dict) and sorted(value) != sorted(template)):
        raise ValueError(f"{what} should have the structure of the dataset's elements, but got "
                         f"{what}={value!r} for elements like {template!r}")
    return [leaf for k in keys for leaf in parts_of(template[k], value[k], what)]


def check_padded_shapes(padded_shapes: Any) -> None:
    """Refuses a dimension below -1 (TF: ``Dimension -5 must be >= 0``) or one
    that is not an integer, when the dataset is built.

    Example:
        >>> check_padded_shapes(([None, 3], [-1]))
        >>> check_padded_shapes([-5])
        Traceback (most recent call last):
        ...
        ValueError: padded_shapes should hold dimensions >= 0, -1 or None (the batch's \
maximum), but got padded_shapes=[-5]
    """
    if padded_shapes is None:
        return
    for shape in flatten(padded_shapes):
        if shape is None:
            continue
        for d in _shape_dims(shape) if not isinstance(shape, (int, np.integer)) else [shape]:
            if d is None:
                continue
            if isinstance(d, (list, tuple, np.ndarray)):
                raise ValueError(f"padded_shapes should hold one shape (a list of dimensions) "
                                 f"per component, but got padded_shapes={padded_shapes!r}")
            if isinstance(d, (bool, float, str, bytes)) or not isinstance(d, (int, np.integer)):
                raise TypeError(f"padded_shapes should hold integers or None, but got "
                                f"padded_shapes={padded_shapes!r}")
            if d < -1:
                raise ValueError(f"padded_shapes should hold dimensions >= 0, -1 or None (the "
                                 f"batch's maximum), but got padded_shapes={padded_shapes!r}")


def check_padding_values(padding_values: Any) -> None:
    """Refuses a padding value that is not a scalar, when the dataset is built.

    Example:
        >>> check_padding_values((np.int64(-1), "<end>"))
        >>> check_padding_values([1, 2])
        Traceback (most recent call last):
        ...
        ValueError: padding_values should hold scalars, but got padding_values=[1, 2]
    """
    if padding_values is None:
        return
    for value in flatten(padding_values):
        if value is not None and not isinstance(value, (str, bytes)) and np.ndim(value) != 0:
            raise ValueError(f"padding_values should hold scalars, but got "
                             f"padding_values={padding_values!r}")


def check_against_spec(spec: Any, padded_shapes: Any, padding_values: Any) -> None:
    """TF's build-time checks where the elements' static spec is known (a padding
    value of another kind than its component, a padded shape of another rank):
    ``TypeError`` and ``ValueError`` as TF raises them.

    Example:
        >>> from minibatcher.tfdata.specs import TensorSpec
        >>> check_against_spec(TensorSpec([], "int64"), None, "pad")
        Traceback (most recent call last):
        ...
        TypeError: padding_values of component 0 should be a number of dtype int64 (the component's dtype), but got padding_values='pad'
    """
    if spec is None:
        return
    leaves = flatten(spec)
    shapes = parts_of(spec, padded_shapes, "padded_shapes")
    values = parts_of(spec, padding_values, "padding_values")
    for i, (leaf, shape, value) in enumerate(zip(leaves, shapes, values)):
        _check_component(leaf, shape, value, i)


def _check_component(leaf: Any, shape: Any, value: Any, i: int) -> None:
    from .specs import TensorSpec
    if leaf is None:
        return
    if not isinstance(leaf, TensorSpec):  # TF: sparse and ragged components cannot be padded
        raise TypeError(f"padded_batch cannot pad component {i}, a {type(leaf).__name__}; "
                        "batch it with batch() or ragged_batch()")
    _fill(value, np.dtype(leaf.dtype.as_numpy_dtype), i)
    rank = leaf.shape.rank
    if shape is None:
        if rank is None:
            raise ValueError(f"padded_shapes must be given for component {i}: its elements have "
                             "an unknown rank")
        return
    dims = list(_shape_dims(shape))
    known = leaf.shape.as_list() if rank is not None else None
    if known is not None and (len(dims) != rank or any(
            d is not None and d >= 0 and k is not None and k > d for d, k in zip(dims, known))):
        raise ValueError(f"padded_shapes of component {i} is {dims}, which does not fit the "
                         f"shape {leaf.shape} of the elements")


def _fill(value: Any, dtype: np.dtype, component: int) -> Any:
    """The padding value of a component of ``dtype`` (TF's type check)."""
    string = dtype.kind == "O"
    if value is None:
        return b"" if string else dtype.type(0)
    given_string = isinstance(value, (str, bytes)) or np.asarray(value).dtype.kind in "OSU"
    if string != given_string:
        expected = "a string" if string else f"a number of dtype {dtype}"
        raise TypeError(f"padding_values of component {component} should be {expected} (the "
                        f"component's dtype), but got padding_values={value!r}")
    if string:
        return value.encode("utf-8") if isinstance(value, str) else as_array(value)[()]
    kind = np.asarray(value).dtype.kind
    if kind == "f" and dtype.kind in "iub" or kind == "b" and dtype.kind != "b":
        raise TypeError(f"padding_values of component {component} should have dtype {dtype}, "
                        f"but got padding_values={value!r} ({np.asarray(value).dtype})")
    return dtype.type(value)


def _target(arrays: list[np.ndarray], shape: Any, component: int) -> list[int]:
    rank = arrays[0].ndim
    for i, a in enumerate(arrays):
        if a.ndim != rank:
            raise FormatError(f"Cannot pad tensors of different ranks in component {component}: "
                              f"element 0 has rank {rank} and element {i} has rank {a.ndim}")
    dims = [None] * rank if shape is None else \
        [None if d is None or int(d) < 0 else int(d) for d in _shape_dims(shape)]
    if len(dims) != rank:
        raise ConfigError(f"padded_shapes of component {component} has rank {len(dims)}, but "
                          f"its elements have rank {rank}")
    target = []
    for d, fixed in enumerate(dims):
        longest = max(a.shape[d] for a in arrays)
        if fixed is not None and longest > fixed:
            raise FormatError(f"Attempted to pad to a smaller size than the input element: "
                              f"component {component}, dimension {d} has size {longest} > "
                              f"padded size {fixed}")
        target.append(longest if fixed is None else fixed)
    return target


def pad_column(values: list[Any], shape: Any, value: Any, component: int) -> np.ndarray:
    """One component of a padded batch.

    Example:
        >>> pad_column([np.arange(2), np.arange(3)], [4], np.int64(-1), 0).tolist()
        [[0, 1, -1, -1], [0, 1, 2, -1]]
    """
    arrays = [as_array(v) for v in values]
    target = _target(arrays, shape, component)
    dtype = arrays[0].dtype
    out = np.full((len(arrays), *target), _fill(value, dtype, component), dtype=dtype)
    for i, a in enumerate(arrays):
        if a.ndim == 0:
            out[i] = a[()]
        else:
            out[(i, *(slice(0, s) for s in a.shape))] = a
    return out


def pad_batch(elements: list[Any], padded_shapes: Any, padding_values: Any) -> Any:
    """One padded batch of ``elements`` (see the module docstring).

    Example:
        >>> pad_batch([np.zeros((1, 2)), np.zeros((2, 1))], None, None).shape
        (2, 2, 2)
    """
    template = elements[0]
    columns = list(zip(*(flatten(e) for e in elements)))
    shapes = parts_of(template, padded_shapes, "padded_shapes")
    values = parts_of(template, padding_values, "padding_values")
    return pack_as(template, [pad_column(list(c), s, v, i)
                              for i, (c, s, v) in enumerate(zip(columns, shapes, values))])
