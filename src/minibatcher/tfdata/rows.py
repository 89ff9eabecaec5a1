"""``Rows``: what a lifted map function sees in place of one element's array: the
values of a whole block (``values[i]`` is element i's value), with the NumPy
operations whose per-row result is a row of the whole result
(docs/design/tfdata-blocks.md, "Lifted maps").

Supported: ``reshape``/``np.reshape`` (per row), ``astype``, elementwise
arithmetic and comparisons and NumPy ufuncs with scalars, arrays of at most a
row's rank and other ``Rows``, ``shape``/``dtype``/``ndim`` (a row's), and
``tfdata.io.decode_raw``. Anything whose meaning depends on the batch
dimension (``len``, indexing, iteration, truth value, ``np.asarray``, other
NumPy functions) raises ``TypeError``, so the map runs per element instead.

Example:
    >>> r = Rows(np.arange(12).reshape(3, 4))
    >>> (np.reshape(r, (2, 2)) * 2 + 1).values[1].tolist(), r.shape, r.astype(np.int8).dtype
    ([[9, 11], [13, 15]], (4,), dtype('int8'))
    >>> len(r)
    Traceback (most recent call last):
    ...
    TypeError: len() of a block's values is not an element's; the map runs per element
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

_NOT = "of a block's values is not an element's; the map runs per element"


class Rows:
    """The values of a block's elements, ``values[i]`` element i's (see the module)."""

    __slots__ = ("values",)
    __array_priority__ = 1000

    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    @property
    def shape(self) -> tuple[int, ...]:
        """One element's shape."""
        return tuple(self.values.shape[1:])

    @property
    def ndim(self) -> int:
        """One element's rank."""
        return self.values.ndim - 1

    @property
    def dtype(self) -> np.dtype:
        """The elements' dtype."""
        return self.values.dtype

    def reshape(self, *shape: Any, **kwargs: Any) -> "Rows":
        """Every element reshaped to ``shape``."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if kwargs or not len(self.values):
            raise TypeError(f"reshape with options {_NOT}")
        return Rows(self.values.reshape(len(self.values), *shape))

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> "Rows":
        """Every element converted to ``dtype``."""
        return Rows(self.values.astype(np.dtype(getattr(dtype, "as_numpy_dtype", dtype)),
                                       *args, **kwargs))

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or kwargs:
            raise TypeError(f"np.{ufunc.__name__}.{method} {_NOT}")
        args = [self._operand(x) for x in inputs]
        out = ufunc(*args)
        return tuple(Rows(o) for o in out) if isinstance(out, tuple) else Rows(out)

    def _operand(self, x: Any) -> Any:
        if isinstance(x, Rows):
            if len(x.values) != len(self.values):
                raise TypeError(f"values of another block {_NOT}")
            return x.values
        if isinstance(x, (bool, int, float, complex, np.generic)):
            return x  # as it is: Python scalars stay weakly typed (NEP 50), as per element
        a = np.asarray(x)
        if a.dtype == object or a.ndim > self.ndim:
            raise TypeError(f"an operand of rank {a.ndim} {_NOT}")
        return x

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func is np.reshape and args and args[0] is self:
            shape = args[1] if len(args) > 1 else kwargs.get("newshape", kwargs.get("shape"))
            return self.reshape(shape)
        raise TypeError(f"np.{getattr(func, '__name__', func)} {_NOT}")

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise TypeError(f"an array {_NOT}")

    def __len__(self) -> int:
        raise TypeError(f"len() {_NOT}")

    def __getitem__(self, key: Any) -> Any:
        raise TypeError(f"indexing {_NOT}")

    def __iter__(self) -> Any:
        raise TypeError(f"iterating {_NOT}")

    def __bool__(self) -> bool:
        raise TypeError(f"the truth value {_NOT}")

    def rows(self) -> list[Any]:
        """Every element's value (a column's protocol)."""
        return list(self.values)

    def row(self, i: int) -> Any:
        """Element i's value."""
        return self.values[i]

    def batch(self, lo: int, hi: int) -> np.ndarray:
        """Elements ``lo .. hi-1`` stacked."""
        return self.values[lo:hi]


def _binary(ufunc: Any, reflected: bool = False) -> Any:
    if reflected:
        return lambda self, other: ufunc(other, self)
    return lambda self, other: ufunc(self, other)


for _name, _ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                      ("truediv", np.true_divide), ("floordiv", np.floor_divide),
                      ("mod", np.remainder), ("pow", np.power), ("and", np.bitwise_and),
                      ("or", np.bitwise_or), ("xor", np.bitwise_xor)):
    setattr(Rows, f"__{_name}__", _binary(_ufunc))
    setattr(Rows, f"__r{_name}__", _binary(_ufunc, reflected=True))
for _name, _ufunc in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                      ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)):
    setattr(Rows, f"__{_name}__", _binary(_ufunc))
Rows.__neg__ = lambda self: np.negative(self)  # type: ignore[attr-defined]
Rows.__abs__ = lambda self: np.absolute(self)  # type: ignore[attr-defined]
Rows.__invert__ = lambda self: np.invert(self)  # type: ignore[attr-defined]
Rows.__hash__ = None  # type: ignore[assignment]
del _name, _ufunc, operator
