"""The process executor of ``map(..., num_parallel_calls=N, executor="processes")``:
N worker processes (``forkserver``), each fed chunks of the elements through
its :class:`~minibatcher.process_channel.Channel` (docs/design/tfdata-blocks.md,
"Parallelism").

A map call splits its elements into chunks, largest first and shrinking as
the work runs out (a chunk is about the rest over twice the workers, at least
1/16 of a worker's share), so that the workers finish together; each worker
has up to two chunks in flight, so it starts the next one as soon as it has
answered. A chunk and its results cross in the worker's ring (the elements
pickled into one slot, the results' arrays out of band into another): the
consumer's work per element is a pickle and a copy, not a pipe round trip.
Every element is mapped in a worker process, never in the consumer, so the
function's side effects happen in the workers (as TF runs a Python function
once, when it traces it). The function is sent to each worker once.

Results come in input order; a call that raises gives a
:class:`~minibatcher.tfdata.parallel.Failure` (the exception with notes
naming the process and carrying its traceback), as does an element or a
result that does not pickle. A worker that dies is a
:class:`~minibatcher.errors.WorkerDied` naming it; the pool is then closed and
the next call starts a new one.

Example:
    >>> import operator
    >>> pool = ProcessPool(2)
    >>> pool.map(abs, [-3, 1, -2])
    [3, 1, 2]
    >>> pool.close()
"""

from __future__ import annotations

import functools
import pickle
import select
import threading
import traceback
from collections import deque
from typing import Any, Callable, Iterator

import numpy as np

from ..errors import WorkerDied
from ..process_channel import Channel, WorkerEnd, how_it_ended
from .block import ArrayColumn, ColumnBlock, pack_like
from .parallel import Failure, apply_chunk

DEPTH = 2  # chunks in flight per worker
_BIG_WHOLE = 1 << 16  # a message sent whole beyond this waits until its worker is idle
_READY = select.POLLIN | select.POLLHUP | select.POLLERR


def chunks(count: int, workers: int) -> Iterator[tuple[int, int]]:
    """Chunks of ``count`` elements for ``workers``: about the rest over twice
    the workers, shrinking to 1/16 of a worker's share (at least 1).

    Example:
        >>> [b - a for a, b in chunks(100, 2)]
        [25, 19, 14, 11, 8, 6, 4, 4, 4, 4, 1]
    """
    least = max(1, count // (16 * workers))
    start = 0
    while start < count:
        size = max(least, -(-(count - start) // (2 * workers)))
        yield start, min(count, start + size)
        start += size


class ProcessPool:
    """``n`` worker processes mapping functions over lists, in order.

    Example:
        >>> pool = ProcessPool(3); pool.n, pool.pids()
        (3, [])
    """

    def __init__(self, n: int) -> None:
        self.n = int(n)
        self.channels: list[Channel] | None = None
        self.sent_fn: dict[int, Any] = {}  # worker -> the function it holds
        self.poller: Any = None
        self.fds: dict[int, int] = {}  # a pipe's or a sentinel's descriptor -> its worker
        self._lock = threading.Lock()

    def pids(self) -> list[int]:
        """The worker processes' ids (empty before the first call)."""
        return [] if self.channels is None else [c.pid for c in self.channels]

    def map(self, fn: Callable[..., Any], items: list[Any], block: bool = False) -> Any:
        """``[fn(x) for x in items]`` (tuples unpacked) on the workers, in order;
        failures as :class:`Failure`; a dead worker is ``WorkerDied``. With
        ``block``, results that are arrays of one dtype and shape (or tuples and
        sorted-key dicts of them) come as one :class:`ColumnBlock`."""
        if not items:
            return []
        with self._lock:
            if self.channels is None:
                self._start()
            return _Run(self, fn, items).run(block)

    def _start(self) -> None:
        self.channels = [Channel(_worker_main, (), slots=DEPTH, name=f"minibatcher-map-worker-{w}")
                         for w in range(self.n)]
        self.sent_fn, self.poller, self.fds = {}, select.poll(), {}
        for w, c in enumerate(self.channels):
            for fd in (c.conn.fileno(), c.proc.sentinel):
                self.poller.register(fd, _READY)
                self.fds[fd] = w

    def died(self, w: int, fn: Callable[..., Any]) -> WorkerDied:
        """Closes the pool (the next call starts a new one); the error naming
        worker ``w``'s process and how it ended."""
        channel = (self.channels or [])[w]
        code = channel.exitcode()
        self.close()
        while isinstance(fn, functools.partial):
            fn = fn.func
        name = getattr(fn, "__qualname__", type(fn).__name__)
        return WorkerDied(
            f"tfdata map worker process (pid {channel.pid}) {how_it_ended(code)} while running "
            f"the map function {name!r} (num_parallel_calls={self.n}, executor='processes'). "
            "Nothing is lost: the iterator stays where it was (its get_state() is exact); "
            "reading on starts new worker processes, or restore the state in a new pipeline")

    def close(self) -> None:
        """Stops the workers (idempotent; a later call starts new ones)."""
        channels, self.channels = self.channels, None
        for c in channels or ():
            c.close(("stop",))


class _Dead(Exception):
    """Worker ``w``'s pipe broke (its process ended)."""

    def __init__(self, w: int) -> None:
        super().__init__(w)
        self.w = w


class _Run:
    """One :meth:`ProcessPool.map` call: chunks handed to the workers as they
    answer, results put in place (array results straight into the block's
    columns)."""

    def __init__(self, pool: ProcessPool, fn: Callable[..., Any], items: list[Any]) -> None:
        self.pool, self.fn, self.items = pool, fn, items
        self.channels: list[Channel] = list(pool.channels or ())
        self.todo = chunks(len(items), len(self.channels))
        self.flight: list[deque[tuple[int, int]]] = [deque() for _ in self.channels]
        self.held: dict[int, tuple[tuple[int, int], bytes]] = {}  # big chunks waiting
        self.parts: list[tuple[int, int, Any]] = []  # (start, stop, list or column layout)
        self.layout: Any = None  # the first column chunk's (key, skeleton)
        self.columns: list[np.ndarray] | None = None  # the block's, filled by matching chunks

    def run(self, block: bool) -> Any:
        try:
            for w, channel in enumerate(self.channels):
                if self.pool.sent_fn.get(w) is not self.fn:
                    _guard(w, channel.command, ("fn", self.fn))
                    self.pool.sent_fn[w] = self.fn
            for _ in range(DEPTH):
                for w in range(len(self.channels)):
                    self._feed(w)
            while any(self.flight):
                self._answers()
        except _Dead as dead:
            raise self.pool.died(dead.w, self.fn) from None
        return self._results(block)

    def _feed(self, w: int) -> None:
        """Sends worker ``w`` its next chunk, if any. A chunk too big for a slot
        goes whole through the pipe only when the worker is idle (reading), so
        that neither process blocks writing to the other."""
        channel, flight = self.channels[w], self.flight[w]
        if w in self.held:
            span, header = self.held[w]
            if flight:
                return
            del self.held[w]
        else:
            span = next(self.todo, None)
            if span is None:
                return
            items = self.items[span[0]:span[1]]
            try:
                header = channel.pack(("chunk", items))
            except Exception:  # noqa: BLE001 - an element that does not pickle
                header = channel.pack(("chunk", _picklable(items)))
            if flight and len(header) > _BIG_WHOLE:
                self.held[w] = (span, header)
                return
        _guard(w, channel.post, header)
        flight.append(span)

    def _answers(self) -> None:
        """Waits for answers; takes them (a worker that ended with none is dead)."""
        fds, channels = self.pool.fds, self.channels
        ready = {fd for fd, _ in self.pool.poller.poll()}
        for fd in ready:
            w = fds[fd]
            if fd == channels[w].conn.fileno():
                self._collect(w)
            elif channels[w].conn.fileno() not in ready:  # its process ended, nothing sent
                raise _Dead(w)

    def _collect(self, w: int) -> None:
        channel = self.channels[w]
        if not self.flight[w]:
            raise _Dead(w)  # an answer nobody asked for: the protocol broke
        message = _guard(w, channel.receive)
        a, b = self.flight[w].popleft()
        if message[0] == "columns":
            self._place(a, b, message, channel)
        else:
            self.parts.append((a, b, message[1]))
        self._feed(w)

    def _place(self, a: int, b: int, message: tuple[Any, ...], channel: Channel) -> None:
        """Copies a chunk's columns out of the worker's ring: into the block's
        columns when it has their layout (the first such chunk sets it)."""
        _, key, skeleton, leaves = message
        ring = channel.ring
        views = [np.ndarray((b - a,) + shape, dtype, buffer=ring.view, offset=offset)
                 for dtype, shape, offset in leaves]
        if self.layout is None:
            self.layout = (key, skeleton)
            self.columns = [np.empty((len(self.items),) + v.shape[1:], v.dtype) for v in views]
        if self.layout[0] == key:
            for column, view in zip(self.columns or (), views):
                column[a:b] = view
            self.parts.append((a, b, None))
        else:  # another layout: its own copy
            self.parts.append((a, b, (skeleton, [v.copy() for v in views])))

    def _results(self, block: bool) -> Any:
        """The results in order: one column block when every chunk filled the
        block's columns (and ``block``), else a list."""
        if block and self.columns is not None and all(p[2] is None for p in self.parts):
            return ColumnBlock(self.layout[1], [ArrayColumn(c) for c in self.columns])
        out: list[Any] = [None] * len(self.items)
        for a, b, part in self.parts:
            if part is None:
                out[a:b] = _rows(self.layout[1], [c[a:b] for c in self.columns or ()])
            elif type(part) is tuple:
                out[a:b] = _rows(*part)
            else:
                out[a:b] = part
        return out


def _rows(skeleton: Any, columns: list[np.ndarray]) -> list[Any]:
    """The elements of columns (rows are views of them)."""
    if skeleton is None:
        return list(columns[0])
    return [pack_like(skeleton, list(parts)) for parts in zip(*columns)]


def _guard(w: int, call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)``, a broken pipe to worker ``w`` as :class:`_Dead`."""
    try:
        return call(*args)
    except (OSError, EOFError):
        raise _Dead(w) from None


def _picklable(items: list[Any]) -> list[Any]:
    """``items``, with each element that does not pickle replaced by a
    :class:`_Unpicklable` (its worker answers with the error at its place)."""
    out: list[Any] = []
    for x in items:
        try:
            pickle.dumps(x, protocol=5, buffer_callback=lambda b: None)
            out.append(x)
        except Exception as e:  # noqa: BLE001 - the element's error
            out.append(_Unpicklable(f"{type(e).__name__}: {e}"))
    return out


class _Unpicklable:
    """An element that could not be sent to a worker (its error text)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _worker_main(conn: Any, ring: Any) -> None:
    """A worker process: holds the function, maps the chunks it is sent."""
    end = WorkerEnd(conn, ring)
    fn: Callable[..., Any] | None = None
    k = 0
    while True:
        try:
            message = end.receive()
        except EOFError:  # the main process is gone
            return
        if message[0] == "stop":
            return
        if message[0] == "fn":
            fn = message[1]
            continue
        results = _results(fn, message[1])
        columns = None if ring is None else _columns(ring, k, results)
        if columns is not None:
            end.tell(columns)
        else:
            try:
                end.send(("list", results), k)
            except Exception:  # noqa: BLE001 - a result or error that does not pickle
                end.send(("list", [_sendable(r) for r in results]), k)
        k += 1


def _results(fn: Any, items: list[Any]) -> list[Any]:
    """``fn`` over ``items``; failures carry the worker's traceback as a note."""
    out = []
    for x in items:
        if type(x) is _Unpicklable:
            out.append(Failure(TypeError(
                f"map(..., executor='processes') sends each element to a worker process, but "
                f"this element does not pickle ({x.text}); use executor='threads' for "
                "elements that do not pickle")))
            continue
        out.extend(apply_chunk(fn, (x,)))
        if type(out[-1]) is Failure:
            e = out[-1].error
            e.add_note("(its traceback in the worker:\n" +
                       "".join(traceback.format_exception(e)).rstrip() + ")")
    return out


def _split(value: Any, leaves: list[np.ndarray]) -> Any:
    """The layout key of ``value`` (its leaves appended to ``leaves``), or None
    when it is not arrays of a fixed layout: an array of at least one dimension
    and no Python objects, or a tuple (or namedtuple) or a dict with sorted
    keys of such (a column's rows then rebuild it exactly)."""
    kind = type(value)
    if kind is np.ndarray:
        if value.ndim == 0 or value.dtype.hasobject:
            return None
        leaves.append(value)
        return (value.dtype, value.shape)
    if kind is dict:
        keys = list(value)
        if not all(type(k) is str for k in keys) or keys != sorted(keys):
            return None
        parts = [_split(value[k], leaves) for k in keys]
        return None if None in parts else ("dict", tuple(keys), tuple(parts))
    if kind is tuple or (isinstance(value, tuple) and hasattr(kind, "_fields")):
        parts = [_split(v, leaves) for v in value]
        return None if None in parts else (kind, tuple(parts))
    return None


def _skeleton(value: Any) -> Any:
    if type(value) is dict:
        return {k: _skeleton(v) for k, v in value.items()}
    if isinstance(value, tuple):
        parts = [_skeleton(v) for v in value]
        return type(value)(*parts) if hasattr(type(value), "_fields") else tuple(parts)
    return None


def _columns(ring: Any, k: int, results: list[Any]) -> tuple[Any, ...] | None:
    """Writes ``results`` as columns into the worker's next slot when they share
    one layout (and fit); the message naming them, else None."""
    if not results:
        return None
    rows: list[list[np.ndarray]] = []
    key = None
    for r in results:
        leaves: list[np.ndarray] = []
        this = _split(r, leaves)
        if this is None or (key is not None and this != key):
            return None
        key = this
        rows.append(leaves)
    half = ring.slots // 2
    at = (half + k % half) * ring.slot_bytes
    end, meta = at + ring.slot_bytes, []
    for j, first in enumerate(rows[0]):
        size = len(rows) * first.nbytes
        if at + size > end:
            return None
        column = np.ndarray((len(rows),) + first.shape, first.dtype, buffer=ring.view, offset=at)
        for i, leaves in enumerate(rows):
            column[i] = leaves[j]
        meta.append((first.dtype, first.shape, at))
        at += -(-size // 64) * 64
    return ("columns", key, _skeleton(results[0]), meta)


def _sendable(result: Any) -> Any:
    """``result`` if it pickles, else a :class:`Failure` saying why."""
    try:
        pickle.dumps(result, protocol=5, buffer_callback=lambda b: None)
        return result
    except Exception as e:  # noqa: BLE001 - reported at the element
        failed = type(result) is Failure
        what = "the map function's error" if failed else "the map function's result"
        text = f"{what} does not pickle ({type(e).__name__}: {e}), so it cannot leave the worker"
        if failed:
            text += f": {type(result.error).__name__}: {result.error}"
        return Failure(RuntimeError(text))
