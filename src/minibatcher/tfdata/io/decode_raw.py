"""``tf.io.decode_raw``: the bytes of every string as numbers, with TF's shapes and errors.

The output has one more dimension than the input: element ``x`` of ``input_bytes`` becomes
``len(x) / itemsize`` numbers (every string must have the same length, a multiple of the
item size), or ``fixed_length / itemsize`` numbers with ``fixed_length`` (shorter strings
are zero-padded, longer ones cut). A batch of equal-length strings is decoded with one
native join (types and lengths checked in the same pass) into a writable array. Under block
execution a block's strings (``Rows``, or a parsed :class:`DenseColumn`) give ``Rows`` of the
decoded values; a DenseColumn still in the native buffer is decoded straight from it, without
a Python object per value.

Example:
    >>> decode_raw(b"\\x01\\x00\\x02\\x00", "int16").tolist()
    [1, 2]
    >>> decode_raw([b"\\x01", b"\\x02\\x03"], "uint8", fixed_length=2).tolist()
    [[1, 0], [2, 3]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _native
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError, NotFoundError
from .columns import BufferRows, DenseColumn

_TYPES = ("float16", "float32", "float64", "int32", "uint16", "uint8", "int16", "int8", "int64",
          "complex64", "complex128", "bool")
_PADDED = ("float32", "float64", "int32", "uint16", "uint8", "int16", "int8", "int64")
_WORD = {"float16": "half", "float32": "float", "float64": "double"}


def _strings(input_bytes: Any) -> tuple[list[bytes], tuple[int, ...]]:
    if isinstance(input_bytes, (bytes, str, np.bytes_)):
        arr = np.empty((), dtype=object)
        arr[()] = input_bytes
    else:
        arr = np.asarray(input_bytes, dtype=object)
    return arr.reshape(-1).tolist(), arr.shape


def _as_bytes(flat: list[Any]) -> list[bytes]:
    return [v.encode() if isinstance(v, str) else bytes(v) for v in flat]


def _joined(flat: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """The strings back to back in one writable array and their end offsets (one
    native pass; other string types than ``bytes`` are converted first)."""
    try:
        return _native.join_bytes(flat)
    except TypeError:
        return _native.join_bytes(_as_bytes(flat))


def _out_type(out_type: Any, fixed_length: int | None) -> np.dtype:
    dtype = as_dtype(out_type)
    if dtype.name not in _TYPES or (fixed_length is not None and dtype.name not in _PADDED
                                    and dtype.name != "float16"):
        allowed = _PADDED if fixed_length is not None else _TYPES
        raise InvalidArgumentError(f"Value for attr 'out_type' of {dtype.name} is not in the "
                                   f"list of allowed values: {', '.join(allowed)}")
    if fixed_length is not None and dtype.name == "float16":
        raise NotFoundError("Could not find a DecodePaddedRaw kernel for out_type half "
                            "(TensorFlow registers none)")
    return np.dtype(dtype.as_numpy_dtype)


def _padded(flat: list[Any], fixed_length: int, itemsize: int) -> bytearray:
    flat = flat if set(map(type, flat)) <= {bytes} else _as_bytes(flat)
    if fixed_length <= 0:
        raise InvalidArgumentError(f"fixed_length ({fixed_length}) must be greater than zero.")
    if fixed_length % itemsize:
        raise InvalidArgumentError(f"fixed_length ({fixed_length}) must be a multiple of the "
                                   f"size of out_type ({itemsize})")
    if all(len(v) == fixed_length for v in flat):
        return bytearray().join(flat)
    return bytearray().join(v[:fixed_length].ljust(fixed_length, b"\0") for v in flat)


def _same_size(ends: np.ndarray, dtype: np.dtype) -> int:
    """The common length of strings ending at ``ends``, or TF's error."""
    size = int(ends[0]) if len(ends) else 0
    lengths = np.diff(ends, prepend=0)
    if len(ends) and (lengths != size).any():
        i = int(np.flatnonzero(lengths != size)[0])
        raise InvalidArgumentError(f"DecodeRaw requires input strings to all be the same "
                                   f"size, but element {i} has size {size} != {lengths[i]}")
    if size % dtype.itemsize:
        word = _WORD.get(dtype.name, dtype.name)
        raise InvalidArgumentError(f"Input to DecodeRaw has length {size} that is not a "
                                   f"multiple of {dtype.itemsize}, the size of {word}")
    return size


def _is_block(value: Any) -> bool:
    """A block's values (``Rows``, or a parsed ``DenseColumn``) given by block execution."""
    return type(value).__name__ in ("Rows", "BufferRows", "DenseColumn")


def _native_strings(value: Any) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]] | None:
    """``(data, ends, (N, *shape))`` of a block's strings still in the native buffer."""
    if isinstance(value, DenseColumn):
        buffer, shape = value.strings(), value.shape
    elif isinstance(value, BufferRows):
        buffer, shape = value.strings(), value.column_shape
    else:
        return None
    return None if buffer is None else (buffer[0], buffer[1], shape)


def _from_buffer(data: np.ndarray, ends: np.ndarray, shape: tuple[int, ...], dtype: np.dtype,
                 little_endian: bool, fixed_length: int | None) -> np.ndarray | None:
    """A string column's values decoded straight from the native buffer (equal lengths)."""
    n = len(ends)
    width = int(ends[0]) if n else 0
    if not n or (fixed_length is not None and fixed_length != width) or \
            int(ends[-1]) != n * width or width % dtype.itemsize or \
            not np.array_equal(np.diff(ends), np.full(n - 1, width)):
        return None
    raw = data[:n * width].reshape(n, width)
    if dtype == np.bool_:
        return (raw != 0).reshape(*shape, width)
    values = raw.view(dtype.newbyteorder("<" if little_endian else ">")).astype(dtype, copy=False)
    return values.reshape(*shape, width // dtype.itemsize)


def decode_raw(input_bytes: Any, out_type: Any, little_endian: bool = True,
               fixed_length: int | None = None, name: str | None = None) -> Any:
    """``tf.io.decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None)``.

    Example:
        >>> decode_raw([b"\\x3f\\x80\\x00\\x00"], "float32", little_endian=False).tolist()
        [[1.0]]
        >>> decode_raw([b"a", b"bc"], "uint8")
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.InvalidArgumentError: DecodeRaw requires input strings to all be the same size, but element 1 has size 1 != 2
    """
    dtype = _out_type(out_type, fixed_length)
    if _is_block(input_bytes):  # a block's strings (block execution): row i is decode_raw(string i)
        from ..rows import Rows

        buffer = _native_strings(input_bytes)
        out = None if buffer is None else _from_buffer(*buffer, dtype, little_endian,
                                                       fixed_length)
        if out is None:  # strings of different lengths, or not from the native buffer
            out = decode_raw(input_bytes.values, out_type, little_endian, fixed_length)
        return Rows(out)  # type: ignore[return-value]
    flat, shape = _strings(input_bytes)
    if fixed_length is not None:
        padded, width = _padded(flat, int(fixed_length), dtype.itemsize), int(fixed_length)
        data = np.frombuffer(padded, np.uint8)  # writable
    else:
        data, ends = _joined(flat)
        width = _same_size(ends, dtype)
    raw = data.reshape(len(flat), width)
    if dtype == np.bool_:
        return (raw != 0).reshape(*shape, width)
    order = "<" if little_endian else ">"
    values = raw.view(dtype.newbyteorder(order)).astype(dtype, copy=False)
    return values.reshape(*shape, width // dtype.itemsize)


__all__ = ["decode_raw"]
