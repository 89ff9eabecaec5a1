"""Worker processes that exchange messages with this process through a pipe and
a shared-memory ring: the one transport of ``map(..., executor="processes")``
(:mod:`minibatcher.tfdata.process_pool`) and of ``PipelineDataset``'s workers
(:mod:`minibatcher.adapters.pipeline_workers`); docs/design/tfdata-blocks.md,
"Parallelism".

Through a pipe alone (or a ``multiprocessing`` queue) a message crosses as a
pickle: pickled, written to a pipe (in pieces when it is larger than the
pipe's 64 KiB, each a wake-up of the other side), read, unpickled; a queue adds
its own pickle and a feeder thread that contends for the GIL with the work.
Instead each worker owns a :class:`Ring` of slots in one shared ``memfd``
mapped by both processes: a message is pickled with protocol 5 straight into a
slot, its contiguous arrays out of band after it (one copy), and only a small
header naming the spans goes through the pipe; the reader unpickles from the
slot, copying the arrays out (the arrays are then its own). A message that
does not fit its slot (or a platform without ``memfd``) goes through the pipe
whole.

A :class:`Channel`'s ring has ``slots`` slots for each direction: message ``k``
from the main process goes into slot ``k mod slots``, message ``k`` from the
worker into slot ``slots + k mod slots``. The writer must know that the reader
is done with the message that was there before: its protocol bounds the
messages in flight (a map chunk's answer frees its slot; a pipeline worker
waits for a credit).

Example:
    >>> import numpy as np
    >>> ring = Ring.create(slots=2)
    >>> header = ring.pack(("ok", np.arange(4), b"abc"), 1)
    >>> message = ring.unpack(header); message[1].tolist(), message[2]
    ([0, 1, 2, 3], b'abc')
    >>> ring.close()
"""

from __future__ import annotations

import ctypes
import mmap
import multiprocessing
import os
import pickle
import select
import signal
from typing import Any, Callable, Sequence

from multiprocessing import reduction

SLOT_BYTES = 16 << 20  # address space only: a slot's pages are committed where written
_ALIGN = 64
# glibc's mallopt parameters and the ceilings of its dynamic thresholds (64-bit):
# DEFAULT_MMAP_THRESHOLD_MAX, and twice that for trimming, as its own rule sets them.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_WORKER_MMAP_THRESHOLD, _WORKER_TRIM_THRESHOLD = 32 << 20, 64 << 20


class Ring:
    """A worker's ring: ``slots`` slots of ``slot_bytes`` in one shared mapping
    (made by the main process, handed to the worker with the process's
    arguments).

    Example:
        >>> ring = Ring.create(slots=3, slot_bytes=1 << 16); ring.slots, ring.slot_bytes
        (3, 65536)
        >>> ring.close()
    """

    def __init__(self, fd: int, slot_bytes: int, slots: int) -> None:
        self.fd, self.slot_bytes, self.slots = fd, slot_bytes, slots
        self.map = mmap.mmap(fd, slots * slot_bytes)
        self.view = memoryview(self.map)

    @classmethod
    def create(cls, slots: int, slot_bytes: int = SLOT_BYTES) -> "Ring | None":
        """A new ring (None where ``memfd`` is missing: messages go whole)."""
        if not hasattr(os, "memfd_create"):
            return None
        fd = os.memfd_create("minibatcher-worker-ring")
        os.ftruncate(fd, slots * slot_bytes)
        return cls(fd, slot_bytes, slots)

    def __reduce__(self) -> Any:
        return _attach, (reduction.DupFd(self.fd), self.slot_bytes, self.slots)

    def pack(self, message: Any, slot: int) -> bytes:
        """``message`` pickled into slot ``slot``; the header to send."""
        buffers: list[pickle.PickleBuffer] = []
        small = pickle.dumps(message, protocol=5, buffer_callback=buffers.append)
        try:
            raws = [memoryview(small)] + [b.raw() for b in buffers]
        except BufferError:  # a buffer that is not contiguous: the message goes whole
            raws = None
        if raws is None or sum(_aligned(r.nbytes) for r in raws) > self.slot_bytes:
            return _whole(message)
        at, spans = slot * self.slot_bytes, []
        view = self.view
        for raw in raws:
            view[at:at + raw.nbytes] = raw.cast("B")
            spans.append((at, raw.nbytes))
            at += _aligned(raw.nbytes)
        return pickle.dumps(spans)

    def unpack(self, header: bytes) -> Any:
        """The message whose header this is (its arrays copied out of the slot)."""
        spans = pickle.loads(header)
        if type(spans) is not list:  # sent whole
            return pickle.loads(spans[0])
        view = self.view
        (a, n), rest = spans[0], spans[1:]
        return pickle.loads(view[a:a + n], buffers=[bytearray(view[b:b + m]) for b, m in rest])

    def close(self) -> None:
        """Unmaps the ring and closes its descriptor."""
        self.view.release()
        self.map.close()
        os.close(self.fd)


def _attach(fd: Any, slot_bytes: int, slots: int) -> Ring:
    return Ring(fd.detach() if hasattr(fd, "detach") else fd, slot_bytes, slots)


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def _whole(message: Any) -> bytes:
    return pickle.dumps((pickle.dumps(message, protocol=5),))


def pack(ring: Ring | None, message: Any, slot: int) -> bytes:
    """``ring.pack(message, slot)``, or the message whole when there is no ring.

    Example:
        >>> unpack(None, pack(None, {"a": 1}, 0))
        {'a': 1}
    """
    return _whole(message) if ring is None else ring.pack(message, slot)


def unpack(ring: Ring | None, header: bytes) -> Any:
    """The message of a header made by :func:`pack`.

    Example:
        >>> ring = Ring.create(slots=1, slot_bytes=1 << 16)
        >>> unpack(ring, pack(ring, [b"x" * 5], 0)); ring.close()
        [b'xxxxx']
    """
    if ring is None:
        return pickle.loads(pickle.loads(header)[0])
    return ring.unpack(header)


def keep_heap_pages() -> bool:
    """Sets this process's glibc heap thresholds where glibc's dynamic rule
    would take them (mmap 32 MiB, trim 64 MiB), so that memory freed at the top
    of the heap serves the next element instead of being returned to the system
    and faulted back page by page; False where there is no glibc ``mallopt``.

    Only for worker processes of ours (:class:`Channel` calls it there first):
    a worker computes element after element of one size, and the default
    thresholds returned the pages of every block of a ``map`` to the system,
    about 100 page faults per 32 decoded 64x64 images, a fault costing more
    when two workers fault at once (docs/design/tfdata-blocks.md, "Worker
    processes"). The training process's own allocator is left as it is.

    Example:
        >>> import multiprocessing
        >>> ctx = multiprocessing.get_context("forkserver")
        >>> with ctx.Pool(1) as pool: pool.apply(keep_heap_pages)  # on glibc
        True
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):  # not glibc (musl, macOS)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, _WORKER_MMAP_THRESHOLD)
                and mallopt(_M_TRIM_THRESHOLD, _WORKER_TRIM_THRESHOLD))


def _worker_start(target: Callable[..., None], *args: Any) -> None:
    """A :class:`Channel`'s worker process: its heap set up, then ``target``."""
    keep_heap_pages()
    target(*args)


def how_it_ended(exitcode: int | None) -> str:
    """How a process ended, as PyTorch's DataLoader says it.

    Example:
        >>> how_it_ended(-9), how_it_ended(3)
        ('was killed by signal 9 (SIGKILL)', 'exited with code 3')
    """
    if exitcode is None:
        return "closed its pipe"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = "unknown signal"
        return f"was killed by signal {-exitcode} ({name})"
    return f"exited with code {exitcode}"


class Channel:
    """This process's end of one worker process: the process, a duplex pipe and
    the worker's :class:`Ring`. The worker's ``target`` is called with its end
    of the pipe, the ring and ``args``, after :func:`keep_heap_pages`.

    Example:
        >>> c = Channel(print, (), slots=1, name="minibatcher-example")
        >>> c.exitcode(), c.pid > 0
        (0, True)
        >>> c.close()
    """

    def __init__(self, target: Callable[..., None], args: Sequence[Any], *, slots: int,
                 name: str, slot_bytes: int = SLOT_BYTES,
                 start_method: str = "forkserver") -> None:
        ctx = multiprocessing.get_context(start_method)
        self.conn, child = ctx.Pipe(duplex=True)
        self.slots = slots
        self.ring = Ring.create(2 * slots, slot_bytes)
        self.proc = ctx.Process(target=_worker_start, args=(target, child, self.ring, *args),
                                daemon=True, name=name)
        self.proc.start()
        child.close()
        self._poller = select.poll()
        for fd in (self.conn.fileno(), self.proc.sentinel):
            self._poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        self.sent = 0  # messages sent so far

    @property
    def pid(self) -> int:
        """The worker's process id."""
        return int(self.proc.pid or 0)

    def pack(self, message: Any) -> bytes:
        """``message`` pickled into the next slot (the caller bounds the messages
        in flight); the header for :meth:`post`."""
        return pack(self.ring, message, self.sent % self.slots)

    def post(self, header: bytes) -> None:
        """Sends the header of the message just packed; ``OSError`` when the
        worker is gone."""
        self.conn.send_bytes(header)
        self.sent += 1

    def command(self, message: Any) -> None:
        """Sends a small message through the pipe alone (no slot)."""
        self.conn.send_bytes(_whole(message))

    def receive(self) -> Any:
        """The worker's next message; ``EOFError`` when it is gone."""
        return unpack(self.ring, self.conn.recv_bytes())

    def wait(self, timeout: float) -> bool:
        """Whether a message arrived within ``timeout`` seconds; ``EOFError``
        when the worker ended without one."""
        ready = {fd for fd, _ in self._poller.poll(timeout * 1000)}
        if self.conn.fileno() in ready:
            return True
        if ready:  # the sentinel: the process ended, nothing sent
            raise EOFError
        return False

    def exitcode(self) -> int | None:
        """The worker's exit code once it is gone (waiting briefly for it)."""
        self.proc.join(timeout=1)
        return self.proc.exitcode

    def close(self, farewell: Any = None) -> None:
        """Ends the worker (``farewell`` sent first, then up to 2 s to exit,
        then SIGKILL) and releases the pipe and the ring (idempotent)."""
        if self.conn.closed:
            return
        if farewell is not None:
            try:
                self.command(farewell)
            except (OSError, ValueError):
                pass
        self.proc.join(timeout=2)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(timeout=2)
        self.conn.close()
        if self.ring is not None:
            self.ring.close()


class WorkerEnd:
    """A worker's end of its :class:`Channel`: the pipe and the ring.

    Example:
        >>> a, b = multiprocessing.Pipe()
        >>> end = WorkerEnd(b, None); end.pending()
        False
        >>> a.send_bytes(pack(None, ("stop",), 0)); end.pending(), end.receive()
        (True, ('stop',))
    """

    def __init__(self, conn: Any, ring: Ring | None) -> None:
        self.conn, self.ring = conn, ring
        self._poller = select.poll()
        self._poller.register(conn.fileno(), select.POLLIN)
        self._half = 1 if ring is None else ring.slots // 2

    def pending(self) -> bool:
        """Whether a message from the main process waits (no waiting)."""
        return bool(self._poller.poll(0))

    def receive(self) -> Any:
        """The next message from the main process (``EOFError`` when it is gone)."""
        return unpack(self.ring, self.conn.recv_bytes())

    def send(self, message: Any, k: int) -> None:
        """Sends ``message`` as this worker's message ``k`` (through the second
        half of the ring)."""
        self.conn.send_bytes(pack(self.ring, message, self._half + k % self._half))

    def tell(self, message: Any) -> None:
        """Sends a small message through the pipe alone (no slot)."""
        self.conn.send_bytes(_whole(message))
