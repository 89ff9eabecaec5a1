"""One chunk parsed by several threads while cores are idle.

A chunk's own thread parses its pieces from the front; helper threads take
pieces from the back, but only while fewer threads parse than there are CPUs
(chunks loaded in parallel keep every core busy on their own, and then no help
is offered). What the helpers parsed is appended to the front parser's result
afterwards (natively, the GIL released), which gives the arrays a single parse
of the whole chunk gives; the caller decides what to do when an append is not
exact (see ``CtfParser.append``).

Example:
    >>> helpers = PieceHelpers(cpus=2)
    >>> done = []
    >>> helped = helpers.run(4, lambda i: done.append(i) or True, lambda j: j * 10)
    >>> sorted(done + [j for j, _ in helped]), [r for _, r in helped] == [j * 10 for j, _ in helped]
    ([0, 1, 2, 3], True)
    >>> helpers.close()
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import threading
from typing import Any, Callable

import numpy as np

MIN_PIECE_BYTES = 2 << 20  # smaller pieces cost more in hand-offs than they gain
PIECES_PER_CPU = 2         # several per helper, so that a slow thread delays the chunk less


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity where the platform tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def piece_bounds(offsets: np.ndarray, ends: np.ndarray, cpus: int) -> list[int]:
    """Sequence indices ``[0, b1, ..., n]`` cutting sequences ``[offsets[i], ends[i])``
    into pieces of about equal bytes (at least ``MIN_PIECE_BYTES`` each;
    one piece when the span is small or there is one CPU).

    Example:
        >>> piece_bounds(np.arange(0, 10 << 20, 1 << 20), np.arange(1, 11) << 20, 2)
        [0, 3, 5, 8, 10]
        >>> piece_bounds(np.array([0, 5]), np.array([5, 9]), 8)
        [0, 2]
    """
    n = len(offsets)
    span = int(ends[-1] - offsets[0]) if n else 0
    count = min(PIECES_PER_CPU * cpus if cpus > 1 else 1, span // MIN_PIECE_BYTES, n)
    if count < 2:
        return [0, n]
    targets = offsets[0] + (np.arange(1, count, dtype=np.int64) * span) // count
    cuts = np.searchsorted(ends, targets, side="left") + 1  # a piece ends with a whole sequence
    return sorted({0, n, *(int(c) for c in cuts if 0 < c < n)})


class _Claims:
    """Pieces ``[front, back)`` not yet taken; the front parser and helpers take from its ends."""

    def __init__(self, count: int) -> None:
        self.front, self.back, self.closed = 0, count, False

    def take_front(self) -> int | None:
        if self.front >= self.back:
            return None
        self.front += 1
        return self.front - 1

    def take_back(self) -> int | None:
        if self.closed or self.front >= self.back:
            return None
        self.back -= 1
        return self.back


class PieceHelpers:
    """Helper threads shared by the chunk parses of one deserializer."""

    def __init__(self, cpus: int | None = None) -> None:
        self.cpus = cpus or usable_cpus()
        self._lock = threading.Lock()
        self._busy = 0  # threads parsing now: chunks' own threads and helpers
        self._pool: cf.ThreadPoolExecutor | None = None
        self._pid = 0

    def _executor(self) -> cf.ThreadPoolExecutor:
        """The pool (a new one in a forked child: the parent's threads do not exist there)."""
        if self._pool is None or self._pid != os.getpid():
            self._pool = cf.ThreadPoolExecutor(max_workers=self.cpus - 1,
                                               thread_name_prefix="minibatcher-ctf-pieces")
            self._pid = os.getpid()
        return self._pool

    def run(self, count: int, front: Callable[[int], bool],
            back: Callable[[int], Any]) -> list[tuple[int, Any]]:
        """Runs pieces ``0 .. count-1``: ``front(i)`` on this thread for ``i``
        from 0 up (until it returns False), ``back(j)`` on idle helpers for
        ``j`` from ``count - 1`` down. Returns the helpers' ``(j, result)``
        in ascending ``j`` (a helper's exception is its result); they cover
        the pieces after the last one ``front`` took."""
        claims = _Claims(count)
        with self._lock:
            self._busy += 1
            idle = self.cpus - self._busy
        futures = [f for _ in range(min(idle, count - 1)) if (f := self._offer(claims, back))]
        try:
            while (i := self._take(claims, front=True)) is not None and front(i):
                pass
        finally:
            with self._lock:
                self._busy -= 1
                claims.closed = True
        return sorted((pair for f in futures for pair in f.result()), key=lambda pair: pair[0])

    def _take(self, claims: _Claims, front: bool) -> int | None:
        with self._lock:
            return claims.take_front() if front else claims.take_back()

    def _offer(self, claims: _Claims, back: Callable[[int], Any]) -> cf.Future | None:
        try:
            return self._executor().submit(self._help, claims, back)
        except RuntimeError:  # interpreter exit: executors refuse new work; parse alone
            return None

    def _help(self, claims: _Claims, back: Callable[[int], Any]) -> list[tuple[int, Any]]:
        done: list[tuple[int, Any]] = []
        while True:
            with self._lock:
                j = claims.take_back() if self._busy < self.cpus else None
                if j is None:
                    return done
                self._busy += 1
            try:
                done.append((j, back(j)))
            except Exception as e:  # noqa: BLE001 (the caller parses the piece itself)
                done.append((j, e))
            finally:
                with self._lock:
                    self._busy -= 1

    def close(self) -> None:
        """Stops the helper threads (a later :meth:`run` starts new ones)."""
        if self._pool is not None and self._pid == os.getpid():
            self._pool.shutdown(wait=True)
        self._pool = None
