"""The process executor of ``map(..., num_parallel_calls=N, executor="processes")``:
N worker processes (``forkserver``, :mod:`~minibatcher.tfdata.process_worker`),
each fed chunks of the elements through its
:class:`~minibatcher.process_channel.Channel` (docs/design/tfdata-blocks.md,
"Parallelism").

A request (:meth:`ProcessPool.submit`: a function and a list of elements) is
split into two chunks per worker; each worker has up to two chunks in flight,
so it starts the next one as soon as it has answered, and requests are served
in the order they came (a map over a view submits the block after the one it
was asked for before waiting on that one: the workers go on while the
consumer hands out and batches the block). A chunk and its results cross in
the worker's ring: the consumer's work per element is a pickle and a copy,
not a pipe round trip, and array results arrive as columns. Every element is
mapped in a worker process, never in the consumer, so the function's side
effects happen in the workers (as TF runs a Python function once, when it
traces it). The function is sent to each worker once.

Results come in input order; a call that raises gives a
:class:`~minibatcher.tfdata.parallel.Failure` (the exception with notes
naming the process and carrying its traceback), as does an element or a
result that does not pickle. A worker that dies is a
:class:`~minibatcher.errors.WorkerDied` naming it, for every request not
finished; the pool is then closed and the next request starts a new one.

Example:
    >>> pool = ProcessPool(2)
    >>> job = pool.submit(abs, [-3, 1, -2])
    >>> pool.result(job), pool.map(abs, [-5])
    ([3, 1, 2], [5])
    >>> pool.close()
"""

from __future__ import annotations

import functools
import select
import threading
from collections import deque
from typing import Any, Callable, Iterator

import numpy as np

from ..errors import WorkerDied
from ..process_channel import SLOT_BYTES, Channel, how_it_ended
from .block import ArrayColumn, ColumnBlock
from .process_worker import picklable, read_columns, rows, worker_main

DEPTH = 2  # chunks in flight per worker
_BIG_WHOLE = 1 << 16  # a chunk sent whole beyond this waits until its worker is idle
_READY = select.POLLIN | select.POLLHUP | select.POLLERR


def chunks(count: int, workers: int) -> Iterator[tuple[int, int]]:
    """Chunks of ``count`` elements for ``workers``: two each, of equal size
    (requests follow one another, so a worker that finishes first goes on
    with the next request's chunks).

    Example:
        >>> [b - a for a, b in chunks(100, 2)]
        [25, 25, 25, 25]
    """
    size = max(1, -(-count // (2 * workers)))
    for start in range(0, count, size):
        yield start, min(count, start + size)


class Job:
    """One request to a :class:`ProcessPool`: its chunks, and its results as
    they arrive (array results straight into the request's columns).

    Example:
        >>> job = Job(abs, [], False, 2); job.done(), job.results()
        (True, [])
    """

    def __init__(self, fn: Callable[..., Any], items: list[Any], block: bool,
                 workers: int) -> None:
        self.fn, self.items, self.block = fn, items, block
        self.todo = chunks(len(items), workers)
        self.unsent, self.waiting = bool(items), 0
        self.cancelled = False  # set by any thread: its chunks are dropped, its answers ignored
        self.error: BaseException | None = None
        self.parts: list[tuple[int, int, Any]] = []  # (start, stop, results, columns or None)
        self.layout: Any = None  # the first column chunk's (layout, template)
        self.columns: list[np.ndarray] | None = None

    def done(self) -> bool:
        """Whether every chunk was answered (or the request failed)."""
        return self.error is not None or not (self.unsent or self.waiting)

    def cancel(self) -> None:
        """Drops the request (its chunks in flight are computed, their answers ignored)."""
        self.cancelled = True

    def next_span(self) -> tuple[int, int] | None:
        span = next(self.todo, None)
        self.unsent = span is not None
        return span

    def place(self, a: int, b: int, message: tuple[Any, ...], ring: Any) -> None:
        """Takes the answer for elements ``a .. b-1``: columns are copied out of
        the ring into the request's (the first such chunk sets their layout)."""
        if message[0] != "columns":
            self.parts.append((a, b, message[1]))
            return
        _, key, template, meta = message
        views = read_columns(ring, meta, b - a)
        if self.layout is None:
            self.layout = (key, template)
            self.columns = [np.empty((len(self.items),) + v.shape[1:], v.dtype) for v in views]
        if self.layout[0] == key:
            for column, view in zip(self.columns or (), views):
                column[a:b] = view
            self.parts.append((a, b, None))
        else:  # another layout: a copy of its own
            self.parts.append((a, b, (template, [v.copy() for v in views])))

    def results(self) -> Any:
        """The results in order: one column block when every chunk filled the
        request's columns (and it asked for a block), else a list."""
        if self.block and self.columns is not None and all(p[2] is None for p in self.parts):
            return ColumnBlock(self.layout[1], [ArrayColumn(c) for c in self.columns])
        out: list[Any] = [None] * len(self.items)
        for a, b, part in self.parts:
            if part is None:
                out[a:b] = rows(self.layout[1], [c[a:b] for c in self.columns or ()])
            elif type(part) is tuple:
                out[a:b] = rows(*part)
            else:
                out[a:b] = part
        return out


class _Dead(Exception):
    """Worker ``w``'s pipe broke (its process ended)."""

    def __init__(self, w: int) -> None:
        super().__init__(w)
        self.w = w


class ProcessPool:
    """``n`` worker processes mapping functions over lists, in order.

    Example:
        >>> pool = ProcessPool(3); pool.n, pool.pids()
        (3, [])
    """

    slot_bytes = SLOT_BYTES  # the most bytes of a chunk (or its results) sent through a ring

    def __init__(self, n: int) -> None:
        self.n = int(n)
        self.channels: list[Channel] | None = None
        self._lock = threading.Lock()

    def pids(self) -> list[int]:
        """The worker processes' ids (empty before the first request)."""
        return [] if self.channels is None else [c.pid for c in self.channels]

    def map(self, fn: Callable[..., Any], items: list[Any], block: bool = False) -> Any:
        """``[fn(x) for x in items]`` (tuples unpacked) on the workers, in order;
        failures as :class:`Failure`; a dead worker is ``WorkerDied``. With
        ``block``, results that are arrays of one layout come as one
        :class:`ColumnBlock`."""
        return self.result(self.submit(fn, items, block))

    def submit(self, fn: Callable[..., Any], items: list[Any], block: bool = False) -> Job:
        """Starts a request (served after the ones before it)."""
        job = Job(fn, items, block, self.n)
        if items:
            with self._lock:
                if self.channels is None:
                    self._start()
                self.jobs.append(job)
                try:
                    for w in range(self.n):
                        while len(self.flight[w]) < DEPTH and self._feed(w):
                            pass
                except _Dead as dead:
                    self._fail(dead.w, job)
        return job

    def result(self, job: Job) -> Any:
        """The request's results (waiting for them); its ``WorkerDied`` if a
        worker died before it was done."""
        if not job.done():
            with self._lock:
                try:
                    while not job.done():
                        self._pump()
                except _Dead as dead:
                    self._fail(dead.w, job)
        if job.error is not None:
            raise job.error
        return job.results()

    def _start(self) -> None:
        self.channels = [Channel(worker_main, (), slots=DEPTH, name=f"minibatcher-map-worker-{w}",
                                 slot_bytes=self.slot_bytes) for w in range(self.n)]
        self.jobs: deque[Job] = deque()  # requests with chunks not sent yet, in order
        self.flight: list[deque[tuple[Job, int, int]]] = [deque() for _ in range(self.n)]
        self.held: dict[int, tuple[Job, int, int, bytes]] = {}  # big chunks waiting
        self.sent_fn: dict[int, Any] = {}  # worker -> the function it holds
        self.poller, self.fds = select.poll(), {}
        for w, c in enumerate(self.channels):
            for fd in (c.conn.fileno(), c.proc.sentinel):
                self.poller.register(fd, _READY)
                self.fds[fd] = w

    def _feed(self, w: int) -> bool:
        """Sends worker ``w`` the next chunk, if any (whether it did). A chunk
        too big for a slot goes whole through the pipe only when the worker is
        idle (reading), so that neither process blocks writing to the other."""
        channel, flight = (self.channels or [])[w], self.flight[w]
        if w in self.held:
            if flight:
                return False
            job, a, b, header = self.held.pop(w)
        else:
            while self.jobs and (self.jobs[0].cancelled or not self.jobs[0].unsent):
                self.jobs.popleft()
            if not self.jobs:
                return False
            job = self.jobs[0]
            a, b = job.next_span() or (0, 0)
            if a == b:
                return self._feed(w)
            if self.sent_fn.get(w) is not job.fn:
                _guard(w, channel.command, ("fn", job.fn))
                self.sent_fn[w] = job.fn
            try:
                header = channel.pack(("chunk", job.items[a:b]))
            except Exception:  # noqa: BLE001 - an element that does not pickle
                header = channel.pack(("chunk", picklable(job.items[a:b])))
            if flight and len(header) > _BIG_WHOLE:
                self.held[w] = (job, a, b, header)
                return False
        _guard(w, channel.post, header)
        flight.append((job, a, b))
        job.waiting += 1
        return True

    def _pump(self) -> None:
        """Waits for answers and takes them (a worker that ended with none is dead)."""
        channels = self.channels or []
        ready = {fd for fd, _ in self.poller.poll()}
        for fd in ready:
            w = self.fds[fd]
            if fd != channels[w].conn.fileno():
                if channels[w].conn.fileno() not in ready:  # its process ended, nothing sent
                    raise _Dead(w)
                continue
            if not self.flight[w]:
                raise _Dead(w)  # an answer nobody asked for: the protocol broke
            message = _guard(w, channels[w].receive)
            job, a, b = self.flight[w].popleft()
            job.waiting -= 1
            if not job.cancelled:
                job.place(a, b, message, channels[w].ring)
            self._feed(w)

    def _fail(self, w: int, waited: Job) -> None:
        """Worker ``w`` died: every request not done fails with a ``WorkerDied``
        naming it, and the pool closes (the next request starts a new one)."""
        channel = (self.channels or [])[w]
        running = self.flight[w][0][0] if self.flight[w] else waited
        text = _death(channel, running.fn, self.n)
        pending = {id(j): j for j in self.jobs}
        for q in self.flight:
            pending.update({id(j): j for j, _, _ in q})
        pending.update({id(h[0]): h[0] for h in self.held.values()})
        pending[id(waited)] = waited
        for job in pending.values():
            if not job.done() or job is waited:
                job.error = WorkerDied(text)
        self._close()

    def close(self) -> None:
        """Stops the workers (idempotent; a later request starts new ones)."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        channels, self.channels = self.channels, None
        for c in channels or ():
            c.close(("stop",))


def _death(channel: Channel, fn: Callable[..., Any], n: int) -> str:
    """The ``WorkerDied`` message for ``channel``'s process, PyTorch's way."""
    code = channel.exitcode()
    while isinstance(fn, functools.partial):
        fn = fn.func
    name = getattr(fn, "__qualname__", type(fn).__name__)
    return (f"tfdata map worker process (pid {channel.pid}) {how_it_ended(code)} while running "
            f"the map function {name!r} (num_parallel_calls={n}, executor='processes'). Nothing "
            "is lost: the iterator stays where it was (its get_state() is exact); reading on "
            "starts new worker processes, or restore the state in a new pipeline")


def _guard(w: int, call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)``, a broken pipe to worker ``w`` as :class:`_Dead`."""
    try:
        return call(*args)
    except (OSError, EOFError):
        raise _Dead(w) from None


class Ahead:
    """A map over consecutive ranges of a view on a :class:`ProcessPool`,
    one range ahead: asked for ``start .. stop``, it also submits the range
    of the same size after it (read from the view now), so the workers
    compute it while the consumer uses this one; the next call takes it (or
    its part: a range that grew submits the rest). Anything else (another
    start, a failed read, a dead worker) drops it. The view's states are
    positions, so reading ahead changes none; the function's side effects
    happen in the workers.

    Example:
        >>> from minibatcher.tfdata.block import ListBlock
        >>> pool = ProcessPool(2); ahead = Ahead(lambda: pool)
        >>> read = lambda a, b: ListBlock(list(range(-a, -b, -1)))
        >>> ahead.map(abs, 0, 3, 10, read), ahead.map(abs, 3, 6, 10, read)
        (([0, 1, 2], None), ([3, 4, 5], None))
        >>> pool.close()
    """

    def __init__(self, pool: Callable[[], ProcessPool]) -> None:
        self.pool = pool
        self._lock = threading.Lock()
        self._next: tuple[int, int, Job] | None = None

    def map(self, fn: Callable[..., Any], start: int, stop: int, length: int,
            read: Callable[[int, int], Any]) -> tuple[Any, BaseException | None]:
        """``fn`` over the elements of the block ``read(start, stop)`` (a list, or
        a column block) and that block's error (the element after them failed)."""
        pool, first, error = self.pool(), start, None
        with self._lock:
            ahead, self._next = self._next, None
            jobs = []
            if ahead is not None and ahead[0] == start and ahead[1] <= stop:
                jobs.append(ahead[2])
                start = ahead[1]
            elif ahead is not None:
                ahead[2].cancel()
            if start < stop:
                try:
                    block = read(start, stop)
                except BaseException:
                    for job in jobs:
                        job.cancel()
                    raise
                jobs.append(pool.submit(fn, block.elements(), True))
                error = block.error
            end = min(length, stop + (stop - first))
            if error is None and stop < end:
                self._next = _read_ahead(pool, fn, stop, end, read)
        try:
            results = [pool.result(job) for job in jobs]
        except WorkerDied:
            self.cancel()
            raise
        if len(results) == 1:
            return results[0], error
        return [x for r in results for x in (r.elements() if isinstance(r, ColumnBlock) else r)], \
            error

    def cancel(self) -> None:
        """Drops the range computing ahead."""
        ahead, self._next = self._next, None
        if ahead is not None:
            ahead[2].cancel()


def _read_ahead(pool: ProcessPool, fn: Callable[..., Any], start: int, stop: int,
                read: Callable[[int, int], Any]) -> tuple[int, int, Job] | None:
    """The range ``start .. stop`` submitted, unless its read fails or falls short
    (then the call that needs it reads it)."""
    try:
        block = read(start, stop)
    except Exception:  # noqa: BLE001 - raised by the read that needs it
        return None
    if block.error is not None or len(block) != stop - start:
        return None
    return start, stop, pool.submit(fn, block.elements(), True)
