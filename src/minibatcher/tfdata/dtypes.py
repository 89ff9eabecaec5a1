"""TensorFlow's dtype names (``tf.int64`` -> ``tfdata.int64``) as small NumPy-backed objects.

A :class:`DType` has TF's attributes (``name``, ``as_numpy_dtype``, ``size``, ``min``/``max``,
``is_integer`` ...) and compares equal to the same dtype spelled as NumPy (``np.int64``,
``np.dtype("int64")``) or as a name (``"int64"``), as TF's do. Wherever the tfdata API takes a
dtype (``from_generator(output_types=...)``, ``TensorSpec``, ``range(output_type=...)``,
``tfdata.io.FixedLenFeature``) a DType, a NumPy dtype and a name are all accepted; unlike TF's,
``np.dtype(tfdata.int64)`` works too. ``tfdata.bfloat16`` is ``ml_dtypes.bfloat16``'s (the
optional ``ml_dtypes`` package). ``tfdata.string`` holds ``bytes``: its NumPy dtype is
``object``, as TF's ``.numpy()`` gives. ``repr`` is TF's (``tf.int64``), so messages that
embed a dtype (parse errors, feature reprs) read exactly as TF's.

Example:
    >>> from minibatcher import tfdata
    >>> tfdata.int64 == np.int64, tfdata.as_dtype("float") is tfdata.float32
    (True, True)
    >>> tfdata.string.as_numpy_dtype, tfdata.uint8.max, str(tfdata.bool)
    (<class 'object'>, 255, "<dtype: 'bool'>")
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..errors import NotSupportedError


class DType:
    """One TF dtype (use the module's instances, e.g. ``tfdata.float32``; never construct).

    Example:
        >>> d = as_dtype(np.float32)
        >>> d.name, d.size, d.is_floating, d == "float32", np.zeros(2, d).dtype
        ('float32', 4, True, True, dtype('float32'))
    """

    __slots__ = ("_name", "_np")

    def __init__(self, name: str, numpy_type: Any) -> None:
        self._name = name
        self._np = numpy_type

    @property
    def name(self) -> str:
        """TF's name of the dtype ("int64", "string", ...)."""
        return self._name

    @property
    def as_numpy_dtype(self) -> Any:
        """The NumPy scalar type (``object`` for ``string``)."""
        return self._np

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype (lets ``np.dtype(d)`` and ``np.asarray(x, d)`` accept a DType)."""
        return np.dtype(self._np)

    @property
    def base_dtype(self) -> "DType":
        """This dtype (TF's reference dtypes are not modelled)."""
        return self

    @property
    def real_dtype(self) -> "DType":
        """The dtype of the real part (``float32`` for ``complex64``), else this dtype."""
        return {"complex64": float32, "complex128": float64}.get(self._name, self)

    @property
    def size(self) -> int:
        """Bytes per element (0 for ``string``, as TF)."""
        return 0 if self is string else self.dtype.itemsize

    @property
    def is_bool(self) -> bool:
        """Whether this is ``bool``."""
        return self is bool_

    @property
    def is_integer(self) -> bool:
        """Whether this is a (signed or unsigned) integer dtype."""
        return self.dtype.kind in "iu" and self is not string

    @property
    def is_unsigned(self) -> bool:
        """Whether this is an unsigned integer dtype."""
        return self.dtype.kind == "u"

    @property
    def is_floating(self) -> bool:
        """Whether this is a real floating-point dtype."""
        return self.dtype.kind == "f" or self._name == "bfloat16"  # ml_dtypes' kind is "V"

    @property
    def is_complex(self) -> bool:
        """Whether this is a complex dtype."""
        return self.dtype.kind == "c"

    @property
    def is_numpy_compatible(self) -> bool:
        """Always True here (every modelled dtype has a NumPy counterpart)."""
        return True

    @property
    def min(self) -> Any:
        """The smallest value (TypeError for bool, string and complex, as TF)."""
        return self._limit("min")

    @property
    def max(self) -> Any:
        """The largest value (TypeError for bool, string and complex, as TF)."""
        return self._limit("max")

    def _limit(self, which: str) -> Any:
        if self.is_integer:
            return int(getattr(np.iinfo(self.dtype), which))
        if self._name == "bfloat16":
            import ml_dtypes  # noqa: PLC0415 - present: the dtype exists
            return getattr(ml_dtypes.finfo(self.dtype), which)
        if self.is_floating:
            return getattr(np.finfo(self.dtype), which)
        raise TypeError(f"Cannot find {'minimum' if which == 'min' else 'maximum'} value of "
                        f"{self!r} with type {self!r}.")

    def is_compatible_with(self, other: Any) -> bool:
        """Whether ``other`` names this same dtype.

        Example:
            >>> int32.is_compatible_with(np.int32), int32.is_compatible_with(int64)
            (True, False)
        """
        return self == other

    def __eq__(self, other: object) -> bool:
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(("tfdata.DType", self._name))

    def __repr__(self) -> str:
        return f"tf.{self._name}"  # TF's own repr: messages that embed a dtype read as TF's

    def __str__(self) -> str:
        return f"<dtype: '{self._name}'>"

    def __reduce__(self) -> Any:
        return (as_dtype, (self._name,))


_SPECS = [("bool", np.bool_), ("int8", np.int8), ("int16", np.int16), ("int32", np.int32),
          ("int64", np.int64), ("uint8", np.uint8), ("uint16", np.uint16), ("uint32", np.uint32),
          ("uint64", np.uint64), ("float16", np.float16), ("float32", np.float32),
          ("float64", np.float64), ("complex64", np.complex64), ("complex128", np.complex128),
          ("string", object)]
_BY_NAME: dict[str, DType] = {name: DType(name, t) for name, t in _SPECS}
_ALIASES = {"half": "float16", "float": "float32", "double": "float64"}

bool_ = _BY_NAME["bool"]
int8, int16, int32, int64 = (_BY_NAME[n] for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_BY_NAME[n] for n in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (_BY_NAME[n] for n in ("float16", "float32", "float64"))
complex64, complex128 = _BY_NAME["complex64"], _BY_NAME["complex128"]
string = _BY_NAME["string"]
half, double = float16, float64
_BY_KIND = {np.dtype(t): d for d in _BY_NAME.values() for t in [d.as_numpy_dtype]
            if d is not string}


@functools.cache
def _bfloat16() -> DType:
    """``bfloat16``, NumPy-backed by the ``ml_dtypes`` package (``pip install
    minibatcher[bfloat16]``), made on first use."""
    try:
        import ml_dtypes  # noqa: PLC0415 - optional: only bfloat16 needs it
    except ImportError:
        raise NotSupportedError("bfloat16 needs the ml_dtypes package (NumPy has no bfloat16); "
                                "install it with pip install minibatcher[bfloat16]") from None
    return DType("bfloat16", ml_dtypes.bfloat16)


def __getattr__(name: str) -> Any:
    """``bfloat16`` (the other dtypes are plain attributes).

    Example:
        >>> import minibatcher.tfdata.dtypes as d
        >>> d.bfloat16.name, d.bfloat16.size, d.bfloat16.is_floating
        ('bfloat16', 2, True)
    """
    if name == "bfloat16":
        return _bfloat16()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _from_numpy(value: Any) -> DType | None:
    if value is object or value is np.object_ or value is np.bytes_ or value is np.str_:
        return string
    if value is bytes or value is str or value is int:
        return None  # TF refuses the Python types bytes, str and int
    if value is float:
        return float32
    if value is bool:
        return bool_
    try:
        dt = np.dtype(value)
    except TypeError:
        return None
    if dt.kind in "OSU":
        return string
    if dt.name == "bfloat16":  # ml_dtypes' (NumPy has none)
        return _bfloat16()
    return _BY_KIND.get(dt)


def as_dtype(type_value: Any) -> DType:
    """``tf.as_dtype``: a :class:`DType` from a DType, a TF-style name ("int64", "float",
    "double", "half", "string"), a NumPy dtype or scalar type, ``float`` or ``bool``.

    Example:
        >>> as_dtype("double"), as_dtype(np.dtype("S3")), as_dtype(np.uint8)
        (tf.float64, tf.string, tf.uint8)
        >>> as_dtype("foo")
        Traceback (most recent call last):
        ...
        TypeError: Cannot convert the argument `type_value`: 'foo' to a TensorFlow DType.
    """
    if isinstance(type_value, DType):
        return type_value
    if type_value == "bfloat16" or getattr(type_value, "name", None) == "bfloat16":
        return _bfloat16()
    if isinstance(type_value, str):
        found = _BY_NAME.get(_ALIASES.get(type_value, type_value))
    elif hasattr(type_value, "as_numpy_dtype") and hasattr(type_value, "name"):
        found = _BY_NAME.get(str(type_value.name))  # a TensorFlow DType
    else:
        found = _from_numpy(type_value)
    if found is None:
        raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a "
                        "TensorFlow DType.")
    return found


def numpy_dtype(type_value: Any) -> np.dtype:
    """The NumPy dtype for any dtype spelling ``as_dtype`` accepts (object for strings).

    Example:
        >>> numpy_dtype("string"), numpy_dtype(int32)
        (dtype('O'), dtype('int32'))
    """
    return np.dtype(as_dtype(type_value).as_numpy_dtype)


__all__ = ["DType", "as_dtype", "numpy_dtype", "bool_", "int8", "int16", "int32", "int64",
           "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64",
           "complex128", "string", "half", "double"]
