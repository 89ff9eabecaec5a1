"""Workers for ``num_parallel_calls``: a function run over many elements at once,
results in input order (docs/design/tfdata-blocks.md, "Parallelism").

Two executors, chosen per ``map`` with ``executor=``:

* ``"threads"`` (the default): a thread pool, ``n - 1`` threads plus the
  calling thread, so ``n`` workers use ``n`` cores. Any function works
  (closures, lambdas); it scales where the function spends its time with the
  GIL released: our native decoders, NumPy on large arrays, file reads.
* ``"processes"``: ``n`` worker processes
  (:mod:`~minibatcher.tfdata.process_pool`), for functions that hold the GIL
  (Python code, or Python around short native calls, as Pillow's decoding of
  small images). The function must pickle (a module-level function or a
  ``functools.partial`` of one; checked when the map is made); elements and
  results cross through shared memory.

``AUTOTUNE`` (-1) is the number of CPUs this process may run on
(``os.sched_getaffinity``). A call that raises gives a :class:`Failure`
holding its exception, with a note naming the worker (a process's exception
also carries its traceback in a note); the consumer raises it at its element.
A worker process that dies (killed, out of memory) is a
:class:`~minibatcher.errors.WorkerDied` naming its pid, its signal or exit
code and the map function, as PyTorch names a dead DataLoader worker; the
read that needed it consumes nothing (the iterator's state is still exact)
and the next read starts new processes.

Example:
    >>> w = Workers(2)
    >>> w.map(lambda x: x * x, list(range(6)))
    [0, 1, 4, 9, 16, 25]
    >>> w.close()
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import pickle
import threading
import weakref
from typing import Any, Callable, Sequence

from ..errors import ConfigError
from .structure import call

AUTOTUNE = -1
EXECUTORS = ("threads", "processes")


def schedulable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask), at least 1.

    Example:
        >>> schedulable_cpus() >= 1
        True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        return max(1, os.cpu_count() or 1)


def parallelism(num_parallel_calls: Any, what: str = "num_parallel_calls") -> int:
    """Workers for tf.data's ``num_parallel_calls``: None -> 1 (sequential),
    ``AUTOTUNE`` (-1) -> the schedulable CPUs, a positive int as given.

    Example:
        >>> parallelism(None), parallelism(3), parallelism(AUTOTUNE) == schedulable_cpus()
        (1, 3, True)
        >>> parallelism(0)
        Traceback (most recent call last):
        ...
        ValueError: num_parallel_calls should be a positive integer or tf.data.AUTOTUNE (-1), but got num_parallel_calls=0
    """
    if num_parallel_calls is None:
        return 1
    if isinstance(num_parallel_calls, bool) or not hasattr(num_parallel_calls, "__index__"):
        raise TypeError(f"{what} should be an integer or tf.data.AUTOTUNE (-1), but got "
                        f"{what}={num_parallel_calls!r} ({type(num_parallel_calls).__name__})")
    n = int(num_parallel_calls)
    if n == AUTOTUNE:
        return schedulable_cpus()
    if n < 1:
        raise ValueError(f"{what} should be a positive integer or tf.data.AUTOTUNE (-1), but "
                         f"got {what}={n}")
    return n


def check_executor(executor: Any) -> str:
    """``executor`` validated.

    Example:
        >>> check_executor("processes")
        'processes'
    """
    if executor not in EXECUTORS:
        raise ConfigError(f"executor should be one of {list(EXECUTORS)}, but got "
                          f"executor={executor!r}; use 'processes' for functions that hold "
                          f"the GIL (Python code, Pillow on small images), 'threads' otherwise")
    return executor


def check_picklable(fn: Callable[..., Any]) -> None:
    """For ``executor="processes"``: the map function is sent to each worker
    process, so it must pickle.

    Example:
        >>> check_picklable(abs)
        >>> check_picklable(lambda x: x)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: map(..., executor='processes') sends the map function to its worker processes, so it should pickle (a module-level function, or a functools.partial of one), but <lambda> does not (PicklingError: ...); use executor='threads' for it
    """
    try:
        pickle.dumps(fn, protocol=5)
    except Exception as e:  # noqa: BLE001 - any failure to pickle
        name = getattr(fn, "__qualname__", type(fn).__name__)
        raise ConfigError(
            "map(..., executor='processes') sends the map function to its worker processes, "
            "so it should pickle (a module-level function, or a functools.partial of one), but "
            f"{name} does not ({type(e).__name__}: {e}); use executor='threads' for it") from e


class Failure:
    """A failed call in a worker's results: the exception, with a note naming
    the worker (thread name or process id).

    Example:
        >>> f = apply_chunk(lambda x: 1 // x, [0])[0]; type(f.error).__name__
        'ZeroDivisionError'
    """

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


def apply_chunk(fn: Callable[..., Any], chunk: Sequence[Any]) -> list[Any]:
    """``fn`` over ``chunk`` (tuples unpacked); a call that raises gives a
    :class:`Failure` with a note naming this worker.

    Example:
        >>> apply_chunk(lambda a, b: a + b, [(1, 2), (3, 4)])
        [3, 7]
    """
    out: list[Any] = []
    for x in chunk:
        try:
            out.append(call(fn, x))
        except Exception as e:  # noqa: BLE001 - returned, raised by the consumer at its element
            e.add_note(f"(raised by the map function in worker {_worker_name()})")
            out.append(Failure(e))
    return out


def _worker_name() -> str:
    thread = threading.current_thread()
    if thread is threading.main_thread():
        return f"process {os.getpid()}"
    return f"thread {thread.name!r} of process {os.getpid()}"


def first_failure(results: list[Any]) -> int:
    """The index of the first :class:`Failure` in ``results`` (len when none).

    Example:
        >>> first_failure([1, Failure(ValueError()), 3]), first_failure([1])
        (1, 1)
    """
    for i, r in enumerate(results):
        if type(r) is Failure:
            return i
    return len(results)


class Workers:
    """``n`` workers mapping a function over lists in order: threads (``n - 1``
    in a pool, plus the calling thread) or ``n`` processes
    (:class:`~minibatcher.tfdata.process_pool.ProcessPool`). The pool starts
    on first use and stops when the owner is garbage-collected or
    :meth:`close` is called.

    Example:
        >>> w = Workers(3, "threads"); w.n, w.executor
        (3, 'threads')
    """

    def __init__(self, n: int, executor: str = "threads") -> None:
        self.n, self.executor = int(n), check_executor(executor)
        self._pool: Any = None
        self._lock = threading.Lock()
        self._finalizer: Any = None

    def _started(self) -> Any:
        with self._lock:
            if self._pool is None:
                if self.executor == "threads":
                    self._pool = cf.ThreadPoolExecutor(max(1, self.n - 1),
                                                       thread_name_prefix="tfdata-map")
                    self._finalizer = weakref.finalize(self, _shutdown, self._pool)
                else:
                    from .process_pool import ProcessPool

                    self._pool = ProcessPool(self.n)
                    self._finalizer = weakref.finalize(self, self._pool.close)
            return self._pool

    def pool(self) -> Any:
        """The started pool: a thread pool, or a
        :class:`~minibatcher.tfdata.process_pool.ProcessPool`."""
        return self._started()

    def map(self, fn: Callable[..., Any], items: list[Any], block: bool = False) -> Any:
        """``[fn(x) for x in items]`` (tuples unpacked) on the workers, in order; a
        call that raises gives a :class:`Failure` in its place. With processes,
        every call runs in a worker process, one that dies is a
        :class:`~minibatcher.errors.WorkerDied` naming it (the next call
        starts new ones), and with ``block`` array results may come as one
        column block (:meth:`ProcessPool.map
        <minibatcher.tfdata.process_pool.ProcessPool.map>`)."""
        if self.executor == "processes":
            return self._started().map(fn, items, block)
        if self.n <= 1 or len(items) <= 1:
            return apply_chunk(fn, items)
        return _map_threads(self._started(), self.n, fn, items)

    def close(self) -> None:
        """Stops the pool (idempotent)."""
        if self._finalizer is not None:
            self._finalizer()


def _map_threads(pool: cf.Executor, n: int, fn: Callable[..., Any], items: list[Any]
                 ) -> list[Any]:
    """:meth:`Workers.map` on ``n - 1`` pool threads and the calling thread, each
    taking the next small chunk of ``items`` as soon as it is free: no thread
    idles while another still has a queue of its own (a static split left
    the calling thread a quarter of the work and the pool thread the rest)."""
    out: list[Any] = [None] * len(items)
    size = max(1, len(items) // (8 * n))
    starts = iter(range(0, len(items), size))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                start = next(starts, None)
            if start is None:
                return
            out[start:start + size] = apply_chunk(fn, items[start:start + size])

    futures = [pool.submit(work) for _ in range(n - 1)]
    try:
        work()
        for f in futures:
            f.result()
    finally:
        for f in futures:
            f.cancel()
    return out


def _split(items: list[Any], parts: int) -> list[list[Any]]:
    size = max(1, -(-len(items) // parts))
    return [items[i:i + size] for i in range(0, len(items), size)]


def _shutdown(pool: cf.Executor) -> None:
    pool.shutdown(wait=False, cancel_futures=True)
