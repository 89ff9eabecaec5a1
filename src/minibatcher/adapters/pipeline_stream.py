"""``PipelineStream``: one process's stream of a ``tfdata`` pipeline, epoch after
epoch, read in this process or by N worker processes
(:class:`~minibatcher.adapters.pipeline_workers.PipelineReader`), with an exact
state: the pipeline's state after the last element handed out, the same
whatever N. The JAX entry point (:meth:`~minibatcher.jax.GlobalBatches.from_pipeline`)
reads through it; its states are ``PipelineDataset``'s (one format).

Epoch ``e`` is the iteration in which every shuffle of the pipeline draws its
``e``-th order (as ``PipelineDataset.set_epoch``).

Example:
    >>> import functools
    >>> from minibatcher import tfdata
    >>> s = PipelineStream(functools.partial(tfdata.Dataset.range, 4))
    >>> it = iter(s); [int(next(it)) for _ in range(3)]
    [0, 1, 2]
    >>> state = s.state(); state["iterator"]["iterator"]["pos"]
    3
    >>> s.load(state); [int(x) for x in s]
    [3]
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping

from ..args import non_negative_int
from ..errors import ConfigError
from ..state import PIPELINE, Fields, check_stamp, stamp
from ..tfdata.iterator import _shuffles
from .pipeline_workers import PipelineReader


def checked_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A pipeline-stream state (``PipelineDataset``'s format) checked field by field.

    Example:
        >>> checked_state({"format": PIPELINE, "version": 1, "epoch": -1, "iterator": None})
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'epoch' should be an int >= 0, but got epoch=-1, outside that range; the state is damaged or was edited
    """
    check_stamp(state, PIPELINE)
    fields = Fields(state)
    iterator = fields.opt_child("iterator")
    return {**stamp(PIPELINE), "epoch": fields.int("epoch", 0),
            "iterator": None if iterator is None else dict(iterator.raw)}


class PipelineStream:
    """Elements of a pipeline, one epoch per iteration, exact states.

    Args:
        make_pipeline: a zero-argument callable returning a ``tfdata.Dataset``
            (picklable when ``num_workers`` > 0: each worker builds it).
        num_workers: 0 reads in this process; N > 0 starts N worker processes
            (on the first read, kept until :meth:`close`) that split the
            expensive work by element index.
        start_method: the workers' ``multiprocessing`` start method.

    Example:
        >>> PipelineStream(lambda: None, num_workers=-1)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option num_workers should be a non-negative integer, but got num_workers=-1
    """

    def __init__(self, make_pipeline: Callable[[], Any], num_workers: int = 0, *,
                 start_method: str = "forkserver") -> None:
        if not callable(make_pipeline):
            raise ConfigError("make_pipeline should be a zero-argument callable returning a "
                              f"tfdata Dataset, but got {type(make_pipeline).__name__}")
        self.num_workers = non_negative_int("num_workers", num_workers)
        self.make_pipeline = make_pipeline
        self._reader = PipelineReader(make_pipeline, self.num_workers,
                                      start_method=start_method) if self.num_workers else None
        self._pipeline: Any = None
        self._iterator: Any = None
        self._pending: dict[str, Any] | None = None
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """The next iteration reads epoch ``epoch`` from its start."""
        self.epoch = non_negative_int("epoch", epoch)
        self._pending = self._iterator = None
        if self._reader is not None:
            self._reader.state = None

    def state(self) -> dict[str, Any]:
        """The epoch and the pipeline's state after the last element handed out."""
        if self._reader is not None:
            iterator = self._reader.state
        elif self._iterator is not None:
            iterator = self._iterator.get_state()
        else:
            iterator = None if self._pending is None else self._pending["iterator"]
        return {**stamp(PIPELINE), "epoch": self.epoch, "iterator": iterator}

    def load(self, state: Mapping[str, Any]) -> None:
        """The next iteration continues exactly after ``state``'s position."""
        checked = checked_state(state)
        self.epoch, self._pending, self._iterator = checked["epoch"], checked, None
        if self._reader is not None:
            self._reader.state = checked["iterator"]

    def __iter__(self) -> Iterator[Any]:
        pending, self._pending = self._pending, None
        state = None if pending is None else pending["iterator"]
        if self._reader is not None:
            return self._reader.read(self.epoch, state)
        if self._pipeline is None:
            self._pipeline = self.make_pipeline()
        for node in _shuffles(self._pipeline):
            node.iterations_started = self.epoch
        self._iterator = iter(self._pipeline)
        if state is not None:
            self._iterator.set_state(state)
        return self._iterator

    def worker_pids(self) -> list[int]:
        """The worker processes' ids (empty without workers or before the first read)."""
        return [] if self._reader is None else self._reader.worker_pids()

    def close(self) -> None:
        """Stops the worker processes, if any."""
        if self._reader is not None:
            self._reader.close()
