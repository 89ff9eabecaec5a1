"""Map functions for the process-pool tests, in a module of their own that pool
processes import quickly (it imports nothing but the standard library)."""

from __future__ import annotations

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
