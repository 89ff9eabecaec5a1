"""``PipelineDataset``: a ``minibatcher.tfdata`` pipeline as a PyTorch ``IterableDataset``.

TFDS datasets (``tfds.builder_from_directory(...).as_dataset(...)``), TFRecord and
text pipelines, and tensorflow/nmt's ``get_iterator`` are all ``tfdata``
datasets: one ordered stream per epoch, with exact ``get_state()`` /
``set_state()``. This adapter hands that stream to a training loop:

* ``make_pipeline`` (a picklable zero-argument callable) builds the pipeline in
  the process that reads: the training process (``num_workers=0``), one
  DataLoader worker (a DataLoader with ``num_workers=1``), or, with
  ``PipelineDataset(make_pipeline, num_workers=N)`` in a DataLoader of
  ``num_workers=0``, N processes of its own: worker ``w`` computes the elements
  whose index is ``w`` modulo N (skipping the others: a ``map`` skips without
  calling its function) and the stream comes out in the pipeline's order, with
  a ``state_dict()`` that is exact for any N and restores with any other N
  (:mod:`~minibatcher.adapters.pipeline_workers`).
* Epoch ``e`` (:meth:`set_epoch`, called before each epoch as with
  ``DistributedSampler``) is the iteration in which every shuffle of the
  pipeline draws its ``e``-th order, whatever the process: a worker started
  afresh each epoch reads the same elements as one kept alive, and as
  iterating the pipeline ``e + 1`` times in one process (shuffles inside a
  ``repeat`` aside, which tf.data reshuffles at every repetition).
* ``state_dict()`` / ``load_state_dict()`` (torchdata's ``StatefulDataLoader``
  convention) restore exactly, by seeking (the pipeline's own checkpoint).

Ranks: build each rank's share in ``make_pipeline`` (TFDS:
``ReadConfig(input_context=InputContext(world_size, rank))``; nmt:
``num_ranks=world_size, rank=rank``, which also gives every rank the same number
of batches). Elements reach the loop through the DataLoader's usual conversion
(NumPy arrays become tensors; tuples, named tuples and dicts keep their shape).

Example:
    >>> import functools
    >>> from torch.utils.data import DataLoader
    >>> from minibatcher import tfdata
    >>> make = functools.partial(lambda: tfdata.Dataset.range(6).shuffle(6, seed=1).batch(3))
    >>> ds = PipelineDataset(make)
    >>> [b.tolist() for b in DataLoader(ds, batch_size=None)]
    [[4, 5, 1], [2, 3, 0]]
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterator, Mapping

import torch
from torch.utils.data import IterableDataset, get_worker_info

from ..errors import ConfigError
from ..gate import SharedIterator
from .notice import WorkerNotice
from .pipeline_stream import PipelineStream

_STATE_BYTES = 1 << 20  # room for a pending state handed to persistent workers


class PipelineDataset(IterableDataset):
    """Elements of a ``tfdata`` pipeline, one epoch per iteration, exact checkpoints.

    The epochs, states and worker processes are a
    :class:`~minibatcher.adapters.pipeline_stream.PipelineStream`'s (the JAX
    entry point reads through the same); this class adds PyTorch's side: a
    DataLoader worker that reads the pipeline follows the epoch and state the
    main process sets.

    Args:
        make_pipeline: a picklable zero-argument callable returning a
            ``minibatcher.tfdata.Dataset`` (built once per reading process).
        num_workers: 0 (read in the iterating process) or the number of worker
            processes the dataset starts (use a DataLoader of ``num_workers=0``).
        start_method: the workers' ``multiprocessing`` start method.

    Example:
        >>> ds = PipelineDataset(lambda: None)
        >>> ds.epoch, ds.state_dict()["epoch"]
        (0, 0)
    """

    def __init__(self, make_pipeline: Callable[[], Any], num_workers: int = 0, *,
                 start_method: str = "forkserver") -> None:
        self._stream = PipelineStream(make_pipeline, num_workers, start_method=start_method)
        self.make_pipeline, self.num_workers = make_pipeline, self._stream.num_workers
        # What the next iteration starts from (the epoch and the JSON of a state), for workers;
        # and whether a worker reads (then the main process does not know the position).
        self._notice = WorkerNotice(fields=1, blob_bytes=_STATE_BYTES)
        self._worker_reads = torch.zeros(1, dtype=torch.int64).share_memory_()

    @property
    def epoch(self) -> int:
        """The epoch the next (or current) iteration reads."""
        return self._stream.epoch

    @property
    def _reader(self) -> Any:
        return self._stream._reader

    def set_epoch(self, epoch: int) -> None:
        """The next iteration reads epoch ``epoch`` from its start.

        Example:
            >>> ds = PipelineDataset(lambda: None)
            >>> ds.set_epoch(3); ds.epoch
            3
        """
        self._stream.set_epoch(epoch)
        self._announce(None)

    def state_dict(self) -> dict[str, Any]:
        """A JSON-able state: the epoch and the position after the last element
        delivered. Exact where the pipeline is read: the training process
        (``num_workers=0``), the dataset's own workers, or, with
        ``StatefulDataLoader``, the DataLoader worker.

        Example:
            >>> PipelineDataset(lambda: None).state_dict()["iterator"] is None
            True
        """
        if self._reader is None and get_worker_info() is None and \
                self._stream._iterator is None and int(self._worker_reads[0]):
            raise ConfigError(
                "state_dict() of the main process cannot see where a DataLoader worker is: use "
                "torchdata's StatefulDataLoader (it asks the worker), or num_workers=0")
        return self._stream.state()

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """The next iteration continues exactly after ``state``'s position.

        Example:
            >>> ds = PipelineDataset(lambda: None)
            >>> ds.load_state_dict({"format": "minibatcher.torch.PipelineDataset", "version": 1,
            ...                     "epoch": 2, "iterator": None}); ds.epoch
            2
        """
        self._stream.load(state)
        self._announce(self._stream.state())

    def __iter__(self) -> Iterator[Any]:
        """One epoch's elements (an iterator that threads may share)."""
        return SharedIterator(self._iterate(), "this PipelineDataset's iterator")

    def _iterate(self) -> Iterator[Any]:
        info = get_worker_info()
        if self._reader is not None and info is not None:
            raise ConfigError(f"PipelineDataset(num_workers={self.num_workers}) starts worker "
                              "processes of its own: use it with a DataLoader of num_workers=0")
        if info is not None and info.num_workers > 1:
            raise ConfigError(
                "PipelineDataset reads one ordered stream: the DataLoader's num_workers should be "
                f"0 or 1, but got num_workers={info.num_workers}; use "
                f"PipelineDataset(make_pipeline, num_workers={info.num_workers}) with a "
                "DataLoader of num_workers=0 to read with several processes")
        if info is not None:
            self._follow_main_process()
            self._worker_reads[0] = 1
        yield from self._stream

    def worker_pids(self) -> list[int]:
        """The process ids of the dataset's own workers (``num_workers >= 1``).

        Example:
            >>> PipelineDataset(lambda: None).worker_pids()
            []
        """
        return self._stream.worker_pids()

    def _announce(self, state: dict[str, Any] | None) -> None:
        """In the main process: publishes the epoch (and a state) to persistent workers."""
        if get_worker_info() is None:
            self._worker_reads[0] = 0
        self._notice.publish([self.epoch], json.dumps(state).encode() if state else b"")

    def _follow_main_process(self) -> None:
        """In a persistent worker: takes the epoch and state the main process set since."""
        news = self._notice.news()
        if news is not None:
            (epoch,), blob = news
            if blob:
                self._stream.load(json.loads(blob))
            else:
                self._stream.set_epoch(epoch)
