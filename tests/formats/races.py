"""A writer thread against a reader: the harness of the file race tests.

Each run makes the file (version 1, its modification time set an hour back,
so that any later write moves it whatever the clock's granularity), starts
a reader, lets a writer thread change the file in place at a random moment
(the same size with other values, or a truncation), and collects what the
reader delivered until it finished or raised ``FileChangedError``.
"""

from __future__ import annotations

import gc
import os
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from minibatcher.errors import FileChangedError


def make_old(path: Path, data: bytes) -> None:
    """Writes ``data`` with a modification time an hour back."""
    path.write_bytes(data)
    past = time.time_ns() - 3600 * 10**9
    os.utime(path, ns=(past, past))


def rewrite(path: Path, data: bytes, parts: int = 4) -> None:
    """Rewrites the file in place (same size) in ``parts`` writes, front to back."""
    step = -(-len(data) // parts)
    with open(path, "r+b") as f:
        for start in range(0, len(data), step):
            os.pwrite(f.fileno(), data[start:start + step], start)


def truncate(path: Path, size: int) -> None:
    """Cuts the file to ``size`` bytes."""
    os.truncate(path, size)


def opened(path: Path) -> Callable[[threading.Event], bool]:
    """A ``before`` for :func:`race`: waits until this process holds a
    descriptor of ``path`` (the reader opened it); False when the reader
    finished first."""
    target = os.path.realpath(path)

    def wait(finished: threading.Event) -> bool:
        while not finished.is_set():
            for fd in os.listdir("/proc/self/fd"):
                try:
                    if os.readlink(f"/proc/self/fd/{fd}") == target:
                        return True
                except OSError:
                    continue
            time.sleep(0)  # let the reader run
        return False

    return wait


@dataclass
class Outcome:
    """What one run delivered, and whether the reader reported the change."""

    delivered: list[Any] = field(default_factory=list)
    error: FileChangedError | None = None
    changed: bool = False  # whether the writer changed the file


Before = Callable[[threading.Event], bool]


def race(read: Callable[[Outcome], None], change: Callable[[], None], delay: float,
         before: Before | None = None) -> Outcome:
    """Runs ``read(outcome)`` (which appends what it delivers) against a writer
    thread calling ``change()`` after ``before`` said go (default: at once) and
    a sleep of ``delay`` seconds; with ``before``, ``change`` is called again
    and again until the reader finished."""
    out, finished = Outcome(), threading.Event()

    def writer() -> None:
        if before is None:
            time.sleep(delay)
            change()
            out.changed = True
        elif before(finished):
            while not finished.is_set():
                change()
                out.changed = True

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        read(out)
    except FileChangedError as e:
        out.error = FileChangedError(*e.args)  # no traceback or context: their frames
        # would keep the abandoned reader's files open
    finished.set()
    thread.join(10)
    return out


def run_races(setup: Callable[[], Any], read: Callable[[Any, Outcome], None],
              change: Callable[[], None], check: Callable[[Any], None], *, runs: int,
              max_delay: float | None, budget_s: float = 3.0, before: Before | None = None,
              seed: int = 0) -> list[Outcome]:
    """``runs`` races (fewer when ``budget_s`` runs out): ``setup()`` writes
    version 1 (see :func:`make_old`) and returns the reader, ``read(reader,
    outcome)`` reads, ``change`` is the writer's change and ``check(item)``
    asserts that a delivered item is the file as indexed. Returns the
    outcomes; the caller asserts that changes were reported.

    The writer waits ``uniform(0, max_delay)`` seconds; ``max_delay=None``
    takes 1.5 times an undisturbed read of this machine, measured first, so
    that a loaded or a fast machine still lands most changes during a read.
    While no run has reported a change, races go on past ``runs`` and
    ``budget_s`` (up to four times the budget): a run whose change came after
    the reader finished proves nothing, and a slow machine has fewer runs."""
    if max_delay is None:
        max_delay = 1.5 * _read_seconds(setup, read)
    rng, outcomes, start = random.Random(seed), [], time.monotonic()
    while True:
        spent, reported = time.monotonic() - start, any(o.error for o in outcomes)
        if (len(outcomes) >= runs or spent > budget_s) and (reported or spent > 4 * budget_s):
            break
        reader = setup()
        out = race(lambda o: read(reader, o), change, rng.uniform(0, max_delay), before)
        for item in out.delivered:
            check(item)
        outcomes.append(out)
    gc.collect()  # readers abandoned mid-read: close their descriptors now
    return outcomes


def _read_seconds(setup: Callable[[], Any], read: Callable[[Any, Outcome], None]) -> float:
    """The fastest of three reads of version 1 with no writer (setup excluded)."""
    best = float("inf")
    for _ in range(3):
        reader = setup()
        t0 = time.perf_counter()
        read(reader, Outcome())
        best = min(best, time.perf_counter() - t0)
    return best
