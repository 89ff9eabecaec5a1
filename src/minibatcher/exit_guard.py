"""Readers that daemon threads still use when the interpreter exits (issue 15, item 12).

When the interpreter finalizes, a daemon thread is frozen wherever it stands.
Inside a native call that released the GIL, it is ended (``pthread_exit``)
when the call returns, and unwinding through C++ frames aborts the process
("terminate called without an active exception"); holding native objects
(a chunk registry, a vocabulary table), it keeps them past the interpreter's
end and nanobind prints "leaked N instances". So, once exiting starts:

1. in threading's exit hooks (before the interpreter joins non-daemon
   threads), daemon threads that enter a reader (:func:`check` at
   ``MinibatchSource.next_minibatch`` and a tfdata iterator's ``next``) wait
   there for the end; other threads go on (the interpreter waits for them);
2. at ``atexit`` (after they were joined), once no daemon thread runs code of
   this package (waiting a bounded time for calls under way: they end, or
   wait at their next entry), the native objects of live readers are
   released (:func:`release_at_exit`).

Hooks are installed by the first reader that registers something, never at
import.

Example:
    >>> class Reader:
    ...     native = "a native object"
    >>> r = Reader()
    >>> release_at_exit(r, lambda reader: setattr(reader, "native", None))
    >>> _release_all(); r.native is None
    True
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time
import weakref
from typing import Any, Callable

__all__ = ["check", "exiting", "install", "release_at_exit", "stopped"]

exiting = False  # set when the interpreter starts to exit; readers read it on entry
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_live: dict[int, tuple[weakref.ref, Callable[[Any], None]]] = {}
_lock = threading.Lock()
_installed = False
WAIT_S = 2.0


def check() -> None:
    """At a reader's entry: once the interpreter is exiting, a daemon thread
    waits here for the end (it must not start native work that could outlive
    the interpreter); other threads go on.

    Example:
        >>> check()  # not exiting: returns at once
    """
    if exiting and threading.current_thread().daemon:
        _park()


def stopped() -> None:
    """Where a reader's work failed because the interpreter is exiting (an
    executor refuses new work after its exit hook): a daemon thread waits for
    the end instead of dying with a traceback; otherwise returns (the caller
    re-raises).

    Example:
        >>> stopped()  # not exiting: returns at once
    """
    shutting_down = exiting or getattr(threading, "_SHUTTING_DOWN", False) or sys.is_finalizing()
    if shutting_down and threading.current_thread().daemon:
        _park()


def _park() -> None:
    threading.Event().wait()  # for good: the interpreter ends around this thread


def release_at_exit(obj: Any, release: Callable[[Any], None]) -> None:
    """Calls ``release(obj)`` at exit if ``obj`` is still alive then (after the
    daemon threads' reader calls ended); installs the exit hooks once."""
    install()
    key = id(obj)
    ref = weakref.ref(obj, lambda _: _live.pop(key, None))
    with _lock:
        _live[key] = (ref, release)


def install() -> None:
    """Installs the exit hooks (once; readers call it when they are made).

    Example:
        >>> install(); install()
    """
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    register = getattr(threading, "_register_atexit", None)  # before threads are joined
    if register is not None:
        register(_start_exiting)
    atexit.register(_at_exit)


def _start_exiting() -> None:
    global exiting
    exiting = True


def _at_exit() -> None:
    _start_exiting()
    _wait_for_readers()
    _release_all()


def _in_reader(frame: Any) -> bool:
    """Whether a thread whose top frame is ``frame`` runs code of this package
    (which may be native code that released the GIL), not waiting in :func:`_park`."""
    inside = False
    while frame is not None:
        if frame.f_code is _park.__code__:
            return False
        inside = inside or frame.f_code.co_filename.startswith(_PACKAGE)
        frame = frame.f_back
    return inside


def _wait_for_readers() -> None:
    me, end = threading.get_ident(), time.monotonic() + WAIT_S
    while time.monotonic() < end:
        frames = sys._current_frames()
        if not any(_in_reader(f) for tid, f in frames.items() if tid != me):
            return
        time.sleep(0.001)  # let them finish their call (and park at the next)


def _release_all() -> None:
    with _lock:
        live = list(_live.values())
    for ref, release in live:
        obj = ref()
        if obj is not None:
            release(obj)
