"""``prefetch(n)``: the input runs ahead on a background thread; elements, order
and states are the input's (docs/design/tfdata-blocks.md, "Prefetch").

* Over a view, the prefetch view computes the *next* block read (the range the
  iterator above reads next, as blocks grow) while the consumer works on the
  current one; a read of another range is computed at once.
* Over an iterator, a thread reads the input element by element into a queue
  of ``n`` (at least 1), with the input's state after each; the prefetch
  iterator's state is the state recorded with the last element handed out, so
  a checkpoint never holds work in flight (a restore reads it again). Shuffle
  iterations the thread starts ahead (a ``repeat`` around a shuffle) are
  counted on a ledger of its own and reach the nodes only with the elements
  they belong to (:func:`~minibatcher.tfdata.shuffle.seed_ledger`).

Threads are daemons that stop when their iterator or view is garbage-collected.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> it = iter(Dataset.range(8).filter(lambda x: x % 2 == 0).prefetch(2))
    >>> int(next(it)), it.get_state()["iterator"]
    (0, {'in': {'pos': 1, 'pins': None}})
"""

from __future__ import annotations

import concurrent.futures as cf
import contextvars
import queue
import threading
import weakref
from typing import Any

import numpy as np

from .block import Block
from .core import Iter, View
from .shuffle import SEED_LEDGER

_AHEAD = 4096  # elements a view's prefetch computes ahead at most


class PrefetchView(View):
    """A view whose next sequential block read is computed in the background."""

    def __init__(self, parent: View, buffer_size: int) -> None:
        self.parent = parent
        self.block_limit = parent.block_limit
        self._lock = threading.Lock()
        self._pool = cf.ThreadPoolExecutor(1, thread_name_prefix="tfdata-prefetch")
        weakref.finalize(self, self._pool.shutdown, wait=False, cancel_futures=True)
        self._next: tuple[int, int, cf.Future] | None = None
        self._length = len(parent)

    def __len__(self) -> int:
        return self._length

    def _read(self, start: int, stop: int) -> Block:
        with self._lock:
            return self.parent.block(start, stop)

    def __getitem__(self, index: int) -> Any:
        with self._lock:
            return self.parent[index]

    def read(self, start: int, stop: int) -> list[Any]:
        with self._lock:
            return self.parent.read(start, stop)

    def gather(self, positions: np.ndarray) -> Block:
        with self._lock:
            return self.parent.gather(positions)

    def block(self, start: int, stop: int) -> Block:
        ahead, self._next = self._next, None
        if ahead is not None and ahead[0] == start and ahead[1] == stop:
            out = ahead[2].result()
        else:
            if ahead is not None:
                ahead[2].cancel()
            out = self._read(start, stop)
        size = min(2 * (stop - start), self.block_limit, _AHEAD)
        if stop < self._length:  # the next read of an iterator whose blocks grow
            nxt = min(self._length, stop + size)
            self._next = (stop, nxt, self._pool.submit(self._read, stop, nxt))
        return out

    def pins(self) -> Any:
        return self.parent.pins()


def _produce(parent: Iter, out: queue.Queue, stop: threading.Event, ledger: dict[int, int]
             ) -> None:
    """The background thread of :class:`PrefetchIter`."""
    SEED_LEDGER.set(ledger)
    while not stop.is_set():
        kind, value = "ok", None
        try:
            value = next(parent)
        except StopIteration:
            kind = "end"
        except Exception as e:  # noqa: BLE001 - handed to the consumer at its place
            kind, value = "error", e
        address = parent.address if kind == "ok" and parent.addressable else None
        item = (kind, value, parent.state(), dict(ledger), address)
        while not stop.is_set():
            try:
                out.put(item, timeout=0.1)
                break
            except queue.Full:
                continue
        if kind == "end":
            return


class PrefetchIter(Iter):
    """An iterator read ahead by a background thread (see the module docstring)."""

    def __init__(self, parent: Iter, buffer_size: int, generators: list[Any]) -> None:
        self.parent, self.generators = parent, generators
        self.addressable = parent.addressable  # addresses recorded with each element
        self._address: int | None = None
        self._state = parent.state()
        self._queue: queue.Queue = queue.Queue(max(1, buffer_size))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ended = False

    def _start(self) -> None:
        ledger = {id(g): g.iterations_started for g in self.generators}
        context = contextvars.copy_context()  # the pipeline's options reach the thread
        self._thread = threading.Thread(target=context.run, daemon=True,
                                        args=(_produce, self.parent, self._queue, self._stop,
                                              ledger), name="tfdata-prefetch")
        weakref.finalize(self, self._stop.set)
        self._thread.start()

    def __next__(self) -> Any:
        if self._ended:
            raise StopIteration
        if self._thread is None:
            self._start()
        kind, value, state, seen, address = self._queue.get()
        self._state, self._address = state, address
        for g in self.generators:  # the shuffle iterations these elements started
            g.iterations_started = seen[id(g)]
        if kind == "end":
            self._ended = True
            raise StopIteration
        if kind == "error":
            raise value
        return value

    def state(self) -> dict[str, Any]:
        return self._state

    @property
    def address(self) -> int:
        if self._address is None:
            raise TypeError("no element was handed out yet")
        return self._address

    def refetch(self, address: int) -> Any:
        if self._thread is not None:
            raise TypeError("a running prefetch cannot refetch (its input is read ahead)")
        return self.parent.refetch(address)
