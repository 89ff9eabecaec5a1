"""One thread at a time through a reader: the per-object gate of every iterator
and source (issue 15, item 8).

Several threads may share one tfdata iterator, one ``MinibatchSource`` or one
adapter iterator: each ``next``, ``get_state``/``set_state``,
``next_minibatch``, ``get_checkpoint_state``/``restore_from_checkpoint`` then
runs alone, so every element is delivered exactly once (in some interleaving
of the threads) and a state is one between two elements.

A :class:`Gate` is a lock whose uncontended path costs two list operations
(``free.pop()`` to enter, ``free.append(True)`` to leave: each atomic under the
GIL, and under a free-threaded build's per-object locks), against about three
times that for ``threading.RLock`` on Python 3.11; a tfdata iterator passes it
once per element. A thread that finds the gate taken waits on an event that
the thread inside sets when it leaves (a bounded wait re-checks, so a wake-up
cannot be lost). The gate is not reentrant: a thread that enters an object it
is already inside (a map function calling ``next`` on the iterator that runs
it) gets a ``RuntimeError`` naming the object instead of waiting for itself
(at once through ``with gate``; on a hot path, which records no owner, after
one bounded wait, by finding the gate's ``free`` list in a local of an outer
frame of its own stack).

Example:
    >>> gate = Gate("an iterator")
    >>> with gate:
    ...     gate.held()
    True
    >>> gate.held()
    False
"""

from __future__ import annotations

import functools
import sys
import threading
from typing import Any, Callable, Iterator, TypeVar

from . import exit_guard

__all__ = ["Gate", "SharedIterator", "gated"]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
_RECHECK_S = 0.05  # a waiter re-checks the gate at least this often


class Gate:
    """A cheap non-reentrant lock; ``owner`` names the object in errors.

    Hot paths inline the uncontended case (the local must be named ``free``:
    see the module's note on reentry)::

        free = gate.free
        try:
            free.pop()
        except IndexError:
            gate.wait()
        try:
            ...
        finally:
            free.append(True)  # gate.leave(), inline
            if gate.waiting:
                gate.wake()

    and everything else uses ``with gate:``.

    Example:
        >>> gate = Gate("a source")
        >>> gate.free.pop(); gate.leave(); gate.free
        True
        [True]
    """

    __slots__ = ("free", "owner", "waiting", "_wake", "_queue", "_holder")

    def __init__(self, owner: str) -> None:
        self.free = [True]  # holds one item while no thread is inside
        self.owner = owner
        self.waiting = False  # a thread waits in wait(): leave() wakes it
        self._wake = threading.Event()
        self._queue = threading.Lock()  # the threads that found the gate taken, one at a time
        self._holder = 0  # the thread inside through ``with`` (0: none, or a hot path)

    def wait(self) -> None:
        """Enters after ``free.pop()`` failed: waits for the thread inside to leave.

        Example:
            >>> gate = Gate("x"); gate.wait(); gate.free
            []
        """
        self._refuse_reentry(scan=False)
        with self._queue:
            self.waiting = True
            try:
                while True:
                    self._wake.clear()
                    try:
                        self.free.pop()
                        return
                    except IndexError:
                        pass
                    if not self._wake.wait(_RECHECK_S):
                        self._refuse_reentry(scan=True)
            finally:
                self.waiting = False

    def leave(self) -> None:
        """Leaves the gate (the thread inside calls it once).

        Example:
            >>> gate = Gate("x"); gate.free.pop(); gate.leave(); gate.held()
            True
            False
        """
        self.free.append(True)
        if self.waiting:
            self._wake.set()

    def wake(self) -> None:
        """Wakes the thread waiting to enter (a hot path's inline leave calls it
        when ``waiting``).

        Example:
            >>> Gate("x").wake()
        """
        self._wake.set()

    def held(self) -> bool:
        """Whether some thread is inside.

        Example:
            >>> Gate("x").held()
            False
        """
        return not self.free

    def holds(self) -> bool:
        """Whether this thread is inside through ``with gate``.

        Example:
            >>> gate = Gate("x")
            >>> with gate:
            ...     gate.holds()
            True
        """
        return self._holder == threading.get_ident()

    def _refuse_reentry(self, scan: bool) -> None:
        """Raises when this thread is the one inside (``scan``: look for a hot
        path's ``free`` local in the frames above the one that called :meth:`wait`)."""
        again = self._holder == threading.get_ident()
        frame = sys._getframe(3) if scan else None
        while frame is not None and not again:
            again = frame.f_locals.get("free") is self.free
            frame = frame.f_back
        if again:
            raise RuntimeError(f"{self.owner} was entered again by the thread that is inside it "
                               "(a function it runs calls it): use another iterator or source")

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """A copy (pickled, deep-copied) is a free gate: who is inside does not travel.

        Example:
            >>> import pickle
            >>> gate = Gate("x"); gate.free.pop()
            True
            >>> pickle.loads(pickle.dumps(gate)).held(), gate.held()
            (False, True)
        """
        return Gate, (self.owner,)

    def __enter__(self) -> "Gate":
        try:
            self.free.pop()
        except IndexError:
            self.wait()
        self._holder = threading.get_ident()
        return self

    def __exit__(self, *exc: object) -> None:
        self._holder = 0
        self.leave()


def gated(method: F) -> F:
    """Runs ``method`` inside its object's ``_gate`` (directly when this thread
    is inside already: one gated method calling another). A daemon thread that
    calls it while the interpreter exits waits before the gate, not inside it
    (see :mod:`minibatcher.exit_guard`).

    Example:
        >>> class Counter:
        ...     def __init__(self):
        ...         self._gate, self.n = Gate("a counter"), 0
        ...     @gated
        ...     def add(self):
        ...         self.n += 1
        ...         return self._gate.holds()
        >>> Counter().add()
        True
    """
    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        gate = self._gate
        if gate.holds():
            return method(self, *args, **kwargs)
        if exit_guard.exiting:
            exit_guard.check()
        with gate:
            return method(self, *args, **kwargs)
    return run  # type: ignore[return-value]


class SharedIterator(Iterator[T]):
    """An iterator (a generator) that several threads may share: each ``next``
    runs alone, so every item goes to exactly one thread (a bare generator
    raises ``ValueError: generator already executing`` instead).

    Example:
        >>> it = SharedIterator(iter(range(3)), "numbers")
        >>> next(it), list(it)
        (0, [1, 2])
    """

    def __init__(self, iterator: Iterator[T], owner: str) -> None:
        self._iterator = iterator
        self._gate = Gate(owner)

    def __iter__(self) -> "SharedIterator[T]":
        return self

    def __next__(self) -> T:
        with self._gate:
            return next(self._iterator)

    def close(self) -> None:
        """Closes the wrapped generator (as ``generator.close``).

        Example:
            >>> SharedIterator(iter([]), "nothing").close()
        """
        close: Any = getattr(self._iterator, "close", None)
        if close is not None:
            close()
