"""tf.data's integer arguments, refused when and as TF refuses them.

TF converts a count or size to an int64 tensor when the dataset is built, so
a value that is not an integer (``"2"``, ``2.0``, ``True``) is a
``TypeError`` there, one outside int64 (``2**63``) a ``ValueError``, and a
value its kernel refuses (``batch_size=0``) an ``InvalidArgumentError``; here
the last is a :class:`~minibatcher.errors.ConfigError` (a ``ValueError``).
The wording is :mod:`minibatcher.args`'s, naming the option and the value.

Example:
    >>> import numpy as np
    >>> tf_int("batch_size", np.int32(4), lo=1)
    4
    >>> tf_int("batch_size", "2", lo=1)
    Traceback (most recent call last):
    ...
    TypeError: option batch_size should be an integer, but got batch_size='2' (str)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..args import bad_option, check_int, is_int
from ..errors import ConfigError

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
MAX_CYCLE = 2**20  # slots of an interleave (a cycle_length or num_parallel_reads beyond: refused)


def tf_int(name: str, value: Any, lo: int | None = None, hi: int | None = None,
           expected: str | None = None) -> int:
    """An int64 argument in ``[lo, hi]`` (see the module docstring).

    Example:
        >>> tf_int("count", 2**63)
        Traceback (most recent call last):
        ...
        ValueError: option count should be an int64 (in [-2**63, 2**63 - 1]), but got count=9223372036854775808
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not is_int(value):
        raise bad_option(name, value, "an integer", TypeError)
    if not INT64_MIN <= value <= INT64_MAX:
        raise bad_option(name, value, "an int64 (in [-2**63, 2**63 - 1])", ValueError)
    return check_int(name, value, lo, hi, ConfigError, expected)


def tf_opt_int(name: str, value: Any, lo: int | None = None, hi: int | None = None,
               expected: str | None = None) -> int | None:
    """None, or :func:`tf_int`.

    Example:
        >>> tf_opt_int("cycle_length", None), tf_opt_int("cycle_length", 3, lo=1)
        (None, 3)
    """
    return None if value is None else tf_int(name, value, lo, hi, expected)


def clamp_count(count: int) -> int:
    """tf.data's count arguments: a negative count means "all" (-1).

    Example:
        >>> clamp_count(-5), clamp_count(3)
        (-1, 3)
    """
    return -1 if count < 0 else count
