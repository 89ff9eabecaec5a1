"""Map functions for the process-pool tests, in a module of their own that pool
processes import quickly (it imports nothing but the standard library)."""

from __future__ import annotations

import collections
import os
import signal
from typing import Any


def square(x: Any) -> Any:
    return x * x


def kill_once(marker: str, x: Any) -> Any:
    """``x * x``, except that the process computing element 14 kills itself
    (SIGKILL) the first time (while ``marker`` exists)."""
    if int(x) == 14 and os.path.exists(marker):
        os.unlink(marker)
        os.kill(os.getpid(), signal.SIGKILL)
    return x * x


def image(x: Any) -> Any:
    """An array result (the JPEG decode's kind): columns."""
    import numpy as np

    return np.full((4, 5, 3), int(x) % 256, np.uint8)


def pair(x: Any) -> Any:
    """A tuple of arrays of two dtypes: columns."""
    import numpy as np

    return np.full(3, int(x)), np.full((2, 2), -float(x), np.float32)


def record(x: Any) -> Any:
    """A dict of arrays with sorted keys: columns."""
    import numpy as np

    return {"a": np.full(2, int(x)), "b": np.full((1,), int(x) * 2, np.int16)}


def unsorted(x: Any) -> Any:
    """A dict whose keys are not sorted: elements (a column block would sort them)."""
    import numpy as np

    return {"b": np.full(2, int(x)), "a": np.full(1, int(x))}


def point(x: Any) -> Any:
    """A namedtuple of arrays: columns."""
    import numpy as np

    return Point(np.full(2, int(x)), np.full(3, float(x)))


def ragged(x: Any) -> Any:
    """Arrays whose shapes differ (x % 3 + 1 long), and a 0-d array: elements."""
    import numpy as np

    return np.arange(int(x) % 3 + 1) if int(x) % 5 else np.array(int(x))


def lock_at_three(x: Any) -> Any:
    """``x``, except a result that does not pickle (a lock) at 3."""
    import threading

    return threading.Lock() if int(x) == 3 else x


def identity(x: Any) -> Any:
    return x


Point = collections.namedtuple("Point", ["x", "y"])
