"""The CPUs this process may run on: what ``AUTOTUNE`` and the reading threads
size themselves by (TF's ``port::MaxParallelism()``).

Example:
    >>> schedulable_cpus() >= 1
    True
"""

from __future__ import annotations

import os


def schedulable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask), at least 1.

    Example:
        >>> schedulable_cpus() == len(os.sched_getaffinity(0))
        True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        return max(1, os.cpu_count() or 1)


__all__ = ["schedulable_cpus"]
