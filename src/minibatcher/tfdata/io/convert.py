"""Checks and conversions of feature specs that TF does when a parse function compiles them:
known shapes, default values converted to the feature's dtype and reshaped to its shape.

Example:
    >>> from minibatcher.tfdata.dtypes import int64, string
    >>> dense_default([1, 2], int64, (2, 1)).tolist(), dense_default("x", string, ()).tolist()
    ([[1], [2]], b'x')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import DType
from ..errors import InvalidArgumentError
from .messages import reshape_error

SUPPORTED = ("float32", "int64", "string")


def check_dtype(key: str, dtype: DType) -> None:
    """Parsing supports float32, int64 and string lists only (TF's op refuses the rest).

    Example:
        >>> from minibatcher.tfdata.dtypes import int32
        >>> check_dtype("a", int32)
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.InvalidArgumentError: feature 'a' has dtype int32, but ...
    """
    if dtype.name not in SUPPORTED:
        raise InvalidArgumentError(f"feature {key!r} has dtype {dtype.name}, but tf.io parsing "
                                   "supports only tfdata.float32, tfdata.int64 and tfdata.string")


def check_dims(shape: tuple[int | None, ...]) -> None:
    """Negative dimensions are refused as TF refuses them.

    Example:
        >>> check_dims((-2,))
        Traceback (most recent call last):
        ...
        ValueError: Dimension -2 must be >= 0
    """
    for d in shape:
        if d is not None and d < 0:
            raise ValueError(f"Dimension {d} must be >= 0")


def _cannot(value: Any, dtype: DType) -> TypeError:
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")


def convert(value: Any, dtype: DType) -> np.ndarray:
    """``value`` as an array of ``dtype`` with TF's conversion rules (no lossy casts,
    no numbers as strings, no strings as numbers).

    Example:
        >>> from minibatcher.tfdata.dtypes import float32, int64
        >>> convert(1, float32).dtype, convert(2.0, int64).tolist()
        (dtype('float32'), 2)
        >>> convert(1.5, int64)
        Traceback (most recent call last):
        ...
        TypeError: Cannot convert 1.5 to EagerTensor of dtype int64
    """
    arr = np.asarray(value)
    if dtype.name == "string":
        if arr.dtype.kind not in "OSU" or not all(isinstance(v, (bytes, str, np.bytes_, np.str_))
                                                 for v in arr.reshape(-1)):
            raise _cannot(value, dtype)
        flat = [v.encode() if isinstance(v, str) else bytes(v) for v in arr.reshape(-1)]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(arr.shape)
    if arr.dtype.kind not in "biuf" or arr.dtype.kind == "b":
        raise _cannot(value, dtype)
    target = np.dtype(dtype.as_numpy_dtype)
    if target.kind == "i" and arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise _cannot(value, dtype)
    return arr.astype(target)


def dense_default(value: Any, dtype: DType, shape: tuple[int, ...]) -> np.ndarray:
    """A FixedLenFeature's default: converted, then reshaped to ``shape`` (TF reshapes, it
    does not broadcast: a scalar default for shape ``[2]`` is an error).

    Example:
        >>> from minibatcher.tfdata.dtypes import int64
        >>> dense_default(3, int64, (2,))
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.InvalidArgumentError: Input to reshape is a tensor with 1 values, but the requested shape has 2
    """
    arr = convert(value, dtype)
    size = int(np.prod(shape, dtype=np.int64))
    if arr.size != size:
        raise InvalidArgumentError(reshape_error(arr.size, size))
    return arr.reshape(shape)


def padding_default(value: Any, dtype: DType) -> Any:
    """A FixedLenSequenceFeature's padding value: one value (TF reshapes it to ``[]``);
    0 or ``b""`` when None.

    Example:
        >>> from minibatcher.tfdata.dtypes import string
        >>> padding_default(None, string), padding_default(["z"], string)
        (b'', b'z')
    """
    if value is None:
        return b"" if dtype.name == "string" else np.dtype(dtype.as_numpy_dtype).type(0)
    arr = convert(value, dtype)
    if arr.size != 1:
        raise InvalidArgumentError(reshape_error(arr.size, 1))
    return arr.reshape(())[()]


__all__ = ["SUPPORTED", "check_dims", "check_dtype", "convert", "dense_default",
           "padding_default"]
