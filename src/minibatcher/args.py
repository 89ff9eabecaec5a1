"""Argument checks shared by every public constructor and method.

One rule everywhere: Python and NumPy integers are integers (``np.int64(2)``
is as good as ``2``); bools, floats and strings are not (``True``, ``2.0`` and
``"2"`` are refused, never silently coerced). The wording follows PyTorch's:
``option NAME should be EXPECTED, but got NAME=VALUE (TYPE)``, the type shown
when it is what is wrong. Errors are :class:`~minibatcher.errors.ConfigError`
(a ``ValueError``) unless ``error`` names another exception type.

Example:
    >>> import numpy as np
    >>> positive_int("batch_size", np.int64(2))
    2
    >>> positive_int("batch_size", "2")
    Traceback (most recent call last):
    ...
    minibatcher.errors.ConfigError: option batch_size should be a positive integer, but got batch_size='2' (str)
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from .errors import ConfigError


def is_int(value: Any) -> bool:
    """Whether ``value`` is a Python or NumPy integer (bools are not).

    Example:
        >>> is_int(np.uint8(3)), is_int(True), is_int(3.0)
        (True, False, False)
    """
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def bad_option(name: str, value: Any, expected: str, error: type[Exception] = ConfigError,
               advice: str = "") -> Exception:
    """The one wording of a bad argument (the type is shown for a value of the wrong kind).

    Example:
        >>> print(bad_option("seed", 1.5, "an integer or None"))
        option seed should be an integer or None, but got seed=1.5 (float)
    """
    shown = repr(value)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    kind = "" if is_int(value) else f" ({type(value).__name__})"
    advice = f"; {advice}" if advice else ""
    return error(f"option {name} should be {expected}, but got {name}={shown}{kind}{advice}")


def _int_text(lo: int | None, hi: int | None) -> str:
    if lo == 1 and hi is None:
        return "a positive integer"
    if lo == 0 and hi is None:
        return "a non-negative integer"
    if lo is not None and hi is not None:
        return f"an integer in [{lo}, {hi}]"
    if lo is not None:
        return f"an integer >= {lo}"
    return "an integer" if hi is None else f"an integer <= {hi}"


def check_int(name: str, value: Any, lo: int | None = None, hi: int | None = None,
              error: type[Exception] = ConfigError, expected: str | None = None,
              advice: str = "") -> int:
    """``value`` as a Python int in ``[lo, hi]`` (``expected`` rewords the
    requirement, ``advice`` says what to do instead).

    Example:
        >>> check_int("rank", np.int32(1), 0, 3)
        1
        >>> check_int("rank", 4, 0, 3)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option rank should be an integer in [0, 3], but got rank=4
        >>> check_int("window", 0, 1, expected="positive", advice="use randomize=False")
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option window should be positive, but got window=0; use randomize=False
    """
    if not is_int(value) or (lo is not None and value < lo) or (hi is not None and value > hi):
        raise bad_option(name, value, expected or _int_text(lo, hi), error, advice)
    return int(value)


def positive_int(name: str, value: Any, error: type[Exception] = ConfigError) -> int:
    """An integer >= 1.

    Example:
        >>> positive_int("chunk_size_in_bytes", np.int64(1 << 20))
        1048576
    """
    return check_int(name, value, 1, None, error)


def non_negative_int(name: str, value: Any, error: type[Exception] = ConfigError) -> int:
    """An integer >= 0.

    Example:
        >>> non_negative_int("epoch", -1)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option epoch should be a non-negative integer, but got epoch=-1
    """
    return check_int(name, value, 0, None, error)


def optional_int(name: str, value: Any, lo: int | None = None, hi: int | None = None,
                 error: type[Exception] = ConfigError) -> int | None:
    """None, or an integer in ``[lo, hi]``.

    Example:
        >>> optional_int("src_max_len", None), optional_int("src_max_len", np.int16(5), 0)
        (None, 5)
    """
    if value is None:
        return None
    suffix = " or None"
    return check_int(name, value, lo, hi, error, _int_text(lo, hi) + suffix)


def check_bool(name: str, value: Any, error: type[Exception] = ConfigError) -> bool:
    """``True`` or ``False`` (NumPy bools too; 0/1 and strings are refused).

    Example:
        >>> check_bool("randomize", np.bool_(True))
        True
        >>> check_bool("randomize", "no")
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option randomize should be True or False, but got randomize='no' (str)
    """
    if not isinstance(value, (bool, np.bool_)):
        raise bad_option(name, value, "True or False", error)
    return bool(value)


def check_choice(name: str, value: Any, choices: Iterable[Any],
                 error: type[Exception] = ConfigError) -> Any:
    """One of ``choices`` (the message lists them).

    Example:
        >>> check_choice("batching", "greedy", ("nmt", "tokens"))
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option batching should be one of 'nmt', 'tokens', but got batching='greedy' (str)
    """
    options = list(choices)
    if value not in options:
        raise bad_option(name, value, "one of " + ", ".join(repr(c) for c in options), error)
    return value


_PRECISIONS = {"float": np.float32, "float32": np.float32, "double": np.float64,
               "float64": np.float64}


def precision_of(precision: Any) -> type:
    """``np.float32`` or ``np.float64`` for ``"float"``/``"double"`` (any case) or a float dtype.

    Example:
        >>> precision_of("Double").__name__, precision_of(np.float32).__name__
        ('float64', 'float32')
        >>> precision_of("half")
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: precision should be 'float' or 'double', but got precision='half'
    """
    if isinstance(precision, str) and precision.lower() in _PRECISIONS:
        return _PRECISIONS[precision.lower()]
    try:
        dtype = np.dtype(precision) if not isinstance(precision, str) else None
    except TypeError:
        dtype = None
    if dtype in (np.float32, np.float64):
        return dtype.type
    raise ConfigError(f"precision should be 'float' or 'double', but got precision={precision!r}")
