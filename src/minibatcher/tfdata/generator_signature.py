"""``Dataset.from_generator``'s element signature and TF's check of what the generator yields.

TF builds the signature from ``output_signature``, or from ``output_types`` with
``output_shapes`` (each shape a list of dims, None for an unknown one; without
``output_shapes`` every rank is unknown). Every yielded element must then fit it:
a component of another rank or another known dimension is TF's
``InvalidArgumentError`` (``generator yielded an element of shape (1,) where an
element of shape (2,) was expected``), raised for that element only.

Example:
    >>> from minibatcher.tfdata.dtypes import int64
    >>> signature_of(int64, [None], None)
    TensorSpec(shape=(None,), dtype=tf.int64, name=None)
    >>> check_shapes(signature_of(int64, [2], None), [np.zeros(1)])
    Traceback (most recent call last):
    ...
    minibatcher.tfdata.errors.InvalidArgumentError: TypeError: `generator` yielded an element of shape (1,) where an element of shape (2,) was expected.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import InvalidArgumentError
from .specs import TensorShape, TensorSpec
from .structure import flatten, flatten_up_to, pack_as


def signature_of(output_types: Any, output_shapes: Any, output_signature: Any) -> Any:
    """The element signature TF derives from ``from_generator``'s arguments (None when
    only ``output_types`` is given: the spec rules give every rank as unknown then).

    Example:
        >>> from minibatcher.tfdata.dtypes import int32, string
        >>> signature_of((int32, string), ([], [None]), None)[1]
        TensorSpec(shape=(None,), dtype=tf.string, name=None)
    """
    if output_signature is not None or output_types is None or output_shapes is None:
        return output_signature
    shapes = flatten_up_to(output_types, output_shapes, "output_shapes")
    specs = [TensorSpec(TensorShape(None if s is None else s), t)
             for t, s in zip(flatten(output_types), shapes)]
    return pack_as(output_types, specs)


def _fits(shape: tuple[int, ...], expected: TensorShape) -> bool:
    if expected.dims is None:
        return True
    return len(shape) == len(expected.dims) and all(
        d is None or d == n for d, n in zip(expected.dims, shape))


def _text(dims: Any) -> str:
    return str(tuple(dims)) if dims is not None else "<unknown>"


def check_shapes(signature: Any, leaves: list[Any]) -> None:
    """Raises TF's error when a yielded component does not fit ``signature``'s shape.

    Example:
        >>> from minibatcher.tfdata.dtypes import int64
        >>> check_shapes(signature_of(int64, [None], None), [np.zeros(3)]) is None
        True
    """
    if signature is None:
        return
    for spec, leaf in zip(flatten(signature), leaves):
        expected = getattr(spec, "shape", None)
        if not isinstance(expected, TensorShape) or not isinstance(spec, TensorSpec):
            continue
        shape = np.shape(leaf)
        if not _fits(shape, expected):
            raise InvalidArgumentError(
                f"TypeError: `generator` yielded an element of shape {_text(shape)} where an "
                f"element of shape {_text(expected.dims)} was expected.")
