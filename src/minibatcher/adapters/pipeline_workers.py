"""``PipelineReader``: a ``tfdata`` pipeline read by N worker processes, one stream
in the pipeline's own order (docs/design/tfdata-blocks.md, "Worker processes").

Worker ``w`` of ``N`` builds the pipeline, restores the state the read starts
from and hands out the elements whose index (counted from there) is ``w``
modulo ``N``: it reads one and *skips* the next ``N - 1`` (O(1) over views; a
``map`` skips without calling its function, so the expensive work is split by
element index after the cheap order is fixed). The main process takes them
round-robin, so the stream is the pipeline's, element for element. Each element
comes with the pipeline's state after it, so the reader's ``state`` is exact
whatever ``N`` and restores with any other ``N`` (or none). Work in flight is
never part of a state.

A worker that dies (killed, out of memory) is an error naming it; the state is
still the one after the last element handed out. A worker's exception is
raised in the main process with a note naming the worker and its traceback.
Used by ``minibatcher.torch.PipelineDataset(num_workers=N)``; usable as it is
with JAX (each process reading its share, e.g. ``tfds.split_for_jax_process``).

Example:
    >>> import functools
    >>> from minibatcher import tfdata
    >>> reader = PipelineReader(functools.partial(tfdata.Dataset.range, 5), 2)
    >>> [int(x) for x in reader.read(epoch=0, state=None)], reader.state["iterator"]["pos"]
    ([0, 1, 2, 3, 4], 5)
    >>> reader.close()
"""

from __future__ import annotations

import multiprocessing
import traceback
import weakref
from typing import Any, Callable, Iterator

from ..args import check_int
from ..errors import WorkerDied
from ..process_channel import SLOT_BYTES, Channel, WorkerEnd, how_it_ended

QUEUE = 4  # messages a worker may have sent that the main process has not taken


def _shuffles(pipeline: Any) -> list[Any]:
    from ..tfdata.iterator import _shuffles as shuffles

    return shuffles(pipeline)


class _Sender:
    """A worker's way to the main process: its end of the channel, and the
    credits the main process gives back as it takes messages (at most
    ``QUEUE`` in flight, so a slot of the ring is never written while the main
    process may read it: the ring has ``QUEUE`` slots for this direction)."""

    def __init__(self, end: WorkerEnd, credits: Any) -> None:
        self.end, self.credits = end, credits
        self.sent = 0

    def put(self, message: Any) -> bool:
        """Sends ``message`` (pickled here, so a failure is ours to report); False
        when a command arrived meanwhile (the run is over)."""
        while not self.end.pending():
            if not self.credits.acquire(timeout=0.1):
                continue
            try:
                self.end.send(message, self.sent)
            except Exception as e:  # noqa: BLE001 - an element or error that does not pickle
                generation, _, _, state = message
                text = f"{type(e).__name__}: {e} (a value of the pipeline does not pickle)"
                self.end.send((generation, "error", (RuntimeError(text), ""), state), self.sent)
            self.sent += 1
            return True
        return False


def _run(pipeline: Any, index: int, count: int, sender: _Sender, run: tuple[Any, ...]) -> None:
    """One read in a worker: restore, then every ``count``-th element from ``index``."""
    _, generation, epoch, state = run
    for node in _shuffles(pipeline):
        node.iterations_started = epoch
    it = iter(pipeline)
    if state is not None:
        it.set_state(state)
    it._skip(index)
    state_after = it._state_taker()  # it.get_state(), the plan found once for the run
    while True:
        kind, payload = "ok", None
        try:
            payload = next(it)
        except StopIteration:
            kind = "end"
        except Exception as e:  # noqa: BLE001 - raised by the main process at its element
            kind, payload = "error", (e, traceback.format_exc())
        if not sender.put((generation, kind, payload, state_after())) or kind == "end":
            return
        it._skip(count - 1)


def _worker_main(conn: Any, ring: Any, make_pipeline: Callable[[], Any], index: int, count: int,
                 credits: Any) -> None:
    """A worker process: builds the pipeline once, then runs reads as commanded."""
    pipeline = None
    end = WorkerEnd(conn, ring)
    sender = _Sender(end, credits)
    while True:
        try:
            message = end.receive()
        except EOFError:  # the main process is gone
            return
        if message[0] == "stop":
            return
        if message[0] != "run":
            continue
        try:
            pipeline = make_pipeline() if pipeline is None else pipeline
            _run(pipeline, index, count, sender, message)
        except Exception as e:  # noqa: BLE001 - the read cannot go on: tell the main process
            sender.put((message[1], "fatal", (e, traceback.format_exc()), None))


class _Pool:
    """The worker processes, their channels and credits."""

    slot_bytes = SLOT_BYTES  # the most bytes of an element sent through its ring

    def __init__(self, make_pipeline: Callable[[], Any], count: int, start_method: str) -> None:
        ctx = multiprocessing.get_context(start_method)
        self.credits = [ctx.BoundedSemaphore(QUEUE) for _ in range(count)]
        self.channels = [
            Channel(_worker_main, (make_pipeline, w, count, self.credits[w]), slots=QUEUE,
                    name=f"minibatcher-pipeline-worker-{w}", slot_bytes=self.slot_bytes,
                    start_method=start_method)
            for w in range(count)]

    @property
    def procs(self) -> list[Any]:
        return [c.proc for c in self.channels]

    def send(self, message: tuple[Any, ...]) -> None:
        for channel in self.channels:
            channel.command(message)

    def receive(self, w: int, generation: int) -> tuple[str, Any, Any]:
        channel = self.channels[w]
        while True:
            try:
                if not channel.wait(0.1):
                    continue
                gen, kind, payload, state = channel.receive()
            except (OSError, EOFError):
                raise self._died(w) from None
            self.credits[w].release()
            if gen == generation:
                return kind, payload, state

    def _died(self, w: int) -> WorkerDied:
        channel = self.channels[w]
        return WorkerDied(f"PipelineReader worker {w} (pid {channel.pid}) "
                          f"{how_it_ended(channel.exitcode())} while the stream needed it; the state "
                          "after the last element handed out is exact: restore it to go on")

    def close(self) -> None:
        for channel in self.channels:
            channel.close(("stop",))


def _close(holder: list[_Pool | None]) -> None:
    if holder[0] is not None:
        holder[0].close()
        holder[0] = None


class PipelineReader:
    """Reads a pipeline with ``num_workers`` processes (see the module docstring).

    Args:
        make_pipeline: a picklable zero-argument callable returning a
            ``minibatcher.tfdata.Dataset`` (built once in each worker).
        num_workers: worker processes (at least 1); they start on the first
            read and stay until :meth:`close` (or garbage collection).
        start_method: ``multiprocessing``'s (``forkserver`` by default: safe with
            threads; ``spawn`` works too).

    Example:
        >>> PipelineReader(lambda: None, 0)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option num_workers should be a positive integer, but got num_workers=0; use PipelineDataset(num_workers=0) to read in this process
    """

    def __init__(self, make_pipeline: Callable[[], Any], num_workers: int, *,
                 start_method: str = "forkserver") -> None:
        num_workers = check_int("num_workers", num_workers, 1,
                                advice="use PipelineDataset(num_workers=0) to read in this process")
        self.make_pipeline, self.num_workers = make_pipeline, num_workers
        self.start_method = start_method
        self.state: dict[str, Any] | None = None
        self._holder: list[_Pool | None] = [None]
        self._finalizer = weakref.finalize(self, _close, self._holder)
        self._generation = 0

    def worker_pids(self) -> list[int]:
        """The worker processes' ids (empty before the first read)."""
        pool = self._holder[0]
        return [] if pool is None else [p.pid for p in pool.procs]

    def read(self, epoch: int, state: dict[str, Any] | None) -> Iterator[Any]:
        """The elements of iteration ``epoch`` from ``state`` (a pipeline state, or
        None: the start); ``self.state`` follows the elements handed out."""
        if self._holder[0] is None:
            self._holder[0] = _Pool(self.make_pipeline, self.num_workers, self.start_method)
        pool = self._holder[0]
        self._generation += 1
        generation, self.state = self._generation, state
        pool.send(("run", generation, epoch, state))
        return self._elements(pool, generation)

    def _elements(self, pool: _Pool, generation: int) -> Iterator[Any]:
        k = 0
        try:
            while True:
                try:
                    kind, payload, state = pool.receive(k % self.num_workers, generation)
                except WorkerDied:
                    self.close()
                    raise
                if kind == "fatal":
                    raise _with_origin(payload, k % self.num_workers)
                self.state, k = state, k + 1
                if kind == "end":
                    return
                if kind == "error":
                    raise _with_origin(payload, (k - 1) % self.num_workers)
                yield payload
        finally:
            if self._holder[0] is pool and self._generation == generation:
                pool.send(("abort", generation))

    def close(self) -> None:
        """Stops the worker processes (a later read starts new ones)."""
        _close(self._holder)


def _with_origin(payload: tuple[BaseException, str], w: int) -> BaseException:
    error, text = payload
    error.add_note(f"(raised in PipelineReader worker {w}; its traceback:\n{text.rstrip()})")
    return error


__all__ = ["PipelineReader", "WorkerDied"]
