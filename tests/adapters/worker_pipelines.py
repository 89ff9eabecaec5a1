"""Pipelines for the worker-process tests, in a module of their own that the
workers import (it imports no torch, so a worker starts quickly)."""

from __future__ import annotations

from minibatcher import tfdata


def double(x):
    return x * 2


def fail_on_13(x):
    if int(x) == 13:
        raise KeyError("thirteen")
    return x


def pipeline(kind: str) -> tfdata.Dataset:
    """A view pipeline, one without random access, and one with a failing element."""
    if kind == "view":
        return tfdata.Dataset.range(50).shuffle(16, seed=3).map(double).batch(3)
    if kind == "iterator":
        return tfdata.Dataset.range(70).filter(lambda x: x % 3 != 0).shuffle(9, seed=4) \
            .map(double).batch(2)
    return tfdata.Dataset.range(30).map(fail_on_13)


def arrays(n: int = 60) -> tfdata.Dataset:
    """Elements with arrays (contiguous, of several sizes, and not contiguous),
    each filled with its index: what crosses from the workers must be intact."""
    import numpy as np

    def element(i):
        k = int(i)
        grid = np.full((k % 7 + 1, 300), k, np.int32)
        return {"big": np.full(20_000 + 1000 * (k % 5), k, np.int64), "grid": grid,
                "strided": grid[:, ::3], "k": i}

    return tfdata.Dataset.range(n).map(element)


def churn(i):
    """Grows the heap by 200 arrays of 16 KiB (each under glibc's mmap
    threshold) and frees them: 3.2 MB that glibc's default trim threshold hands
    back to the system at every call. Returns ``200 * i``."""
    import numpy as np

    parts = [np.full(2048, int(i), np.float64) for _ in range(200)]
    return np.int64(sum(int(p[0]) for p in parts))


def churning(n: int = 40) -> tfdata.Dataset:
    """``churn`` over ``range(n)``, one element per call."""
    return tfdata.Dataset.range(n).map(churn)
