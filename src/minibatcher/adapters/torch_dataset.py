"""``MinibatchDataset``: a PyTorch ``IterableDataset`` of whole minibatches.

Use it with ``DataLoader(dataset, batch_size=None)``. Each rank
(``torch.distributed``) reads its share of every epoch; DataLoader workers
split that share round robin without changing it; with ``equal_batches``
(the default) every rank gets the same number of minibatches per epoch
(docs/design/equal-work.md). ``state_dict()`` / ``load_state_dict()`` follow
torchdata's ``StatefulDataLoader`` convention and restore exactly.

Example:
    >>> import tempfile, pathlib, functools
    >>> from torch.utils.data import DataLoader
    >>> from minibatcher import CTFDeserializer, MinibatchSource, StreamDef
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("".join(f"|x {i}\\n" for i in range(5)))
    >>> make = functools.partial(lambda path: MinibatchSource(
    ...     CTFDeserializer(path, {"x": StreamDef()}), randomize=False), str(p))
    >>> dataset = MinibatchDataset(make, 2, equal_batches=False)
    >>> [b["x"].ravel().tolist() for b in DataLoader(dataset, batch_size=None)]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterator, Mapping

import torch
from torch.utils.data import IterableDataset, get_worker_info

from ..args import check_int, positive_int
from ..errors import ConfigError
from ..gate import SharedIterator
from ..log import logger
from .position import Layout
from .notice import WorkerNotice
from .rank_reader import RankReader
from .shm_ring import WorkerRing
from .torch import batch_to_tensors

__all__ = ["MinibatchDataset", "distributed_rank"]


def distributed_rank(rank: int | None = None, world_size: int | None = None) -> tuple[int, int]:
    """``(rank, world_size)``: the given ones, else the default process group's,
    else ``(0, 1)`` (with a warning when ``WORLD_SIZE`` says otherwise).

    Example:
        >>> distributed_rank(1, 4)
        (1, 4)
    """
    if rank is not None or world_size is not None:
        if rank is None or world_size is None:
            raise ConfigError(f"rank and world_size should be given together, but got rank={rank!r} "
                              f"and world_size={world_size!r}")
        world_size = positive_int("world_size", world_size)
        return check_int("rank", rank, 0, world_size - 1,
                         expected=f"in [0, world_size={world_size})"), world_size
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    if int(os.environ.get("WORLD_SIZE", "1") or 1) > 1:
        logger.warning("WORLD_SIZE=%s is set but no torch.distributed process group is initialized: "
                       "reading as a single rank; create the dataset after init_process_group() or "
                       "pass rank= and world_size=", os.environ["WORLD_SIZE"])
    return 0, 1


class MinibatchDataset(IterableDataset):
    """Minibatches of a reader as ``{stream: torch.Tensor}``, one epoch per iteration.

    Args:
        make_source: a picklable zero-argument callable returning a
            ``MinibatchSource`` (or a ``PartitionedReader``); called once in
            every process that reads (the main process or each DataLoader worker).
        minibatch_size_in_samples: the *global* minibatch size, as in CNTK's
            distributed reading: each of ``W`` ranks gets ``size // W`` samples
            per minibatch (one more for ranks below ``size % W``).
        equal_batches: every rank gets the same number of minibatches per epoch
            (the policy of docs/design/equal-work.md); ``False`` reads CNTK's exact split.
        padded: streams as ``(data[sequences, max_len, dim], mask)`` pairs
            instead of packed ``(samples, dim)`` values (sparse: CSR tensors).
        rank, world_size: override the ``torch.distributed`` process group.
        worker_ring: DataLoader workers hand dense tensors to the main process
            through a shared-memory ring of this many slots (tensors over the
            slot, no per-minibatch segment; docs/design/worker-ring.md); 0 sends
            them the usual way. The data is the same either way.

    An epoch is one sweep of the data, randomized with ``randomization_seed +
    epoch``; call :meth:`set_epoch` before each epoch (as with
    ``DistributedSampler``). DataLoader workers each build their own reader.

    Example:
        >>> MinibatchDataset(print, 0)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option minibatch_size_in_samples should be a positive int, but got minibatch_size_in_samples=0
    """

    def __init__(self, make_source: Callable[[], Any], minibatch_size_in_samples: int, *,
                 equal_batches: bool = True, padded: bool = False, rank: int | None = None,
                 world_size: int | None = None, worker_ring: int = 8) -> None:
        size = check_int("minibatch_size_in_samples", minibatch_size_in_samples, 1,
                         expected="a positive int")
        r, w = distributed_rank(rank, world_size)
        worker_ring = check_int("worker_ring", worker_ring, 0,
                                expected="a slot count >= 0 (0: no ring)")
        self.padded = bool(padded)
        self.worker_ring = worker_ring
        self._ring: WorkerRing | None = None
        self._rank_reader = RankReader(make_source, Layout(w, r, size, bool(equal_batches)))
        # Where the next iteration starts (epoch, origin, anchor), for every worker.
        self._notice = WorkerNotice(fields=3)

    @property
    def layout(self) -> Layout:
        """World size, rank, minibatch size and ``equal_batches``."""
        return self._rank_reader.layout

    @property
    def epoch(self) -> int:
        """The epoch the next iteration reads."""
        return self._rank_reader.epoch

    def set_epoch(self, epoch: int) -> None:
        """Reads epoch (sweep) ``epoch`` from its start in the next iteration (DataLoader
        workers, persistent ones too, start there at their next iteration)."""
        self._rank_reader.set_epoch(epoch)
        self._announce()

    def state_dict(self, consumed: int | None = None) -> dict[str, Any]:
        """A small JSON-able state: the position after the minibatches delivered.

        Without ``consumed``: this process's position (exact in the process
        that iterates: the main one with ``num_workers=0``, or a DataLoader
        worker, which is where torchdata's ``StatefulDataLoader`` asks). With
        a plain ``DataLoader`` and workers, the main process passes the number
        of minibatches it consumed since the iteration began.
        """
        return self._rank_reader.state(consumed)

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """The next iteration continues exactly after ``state``'s position."""
        self._rank_reader.load(state)
        self._announce()

    def _announce(self) -> None:
        """In the main process: publishes the start position to the workers (in a
        worker, restoring its own state for torchdata's StatefulDataLoader: nothing)."""
        rr = self._rank_reader
        self._notice.publish([rr.epoch, rr.origin, rr.anchor])

    def __len__(self) -> int:
        """Minibatches this rank gets in the current epoch (builds the reader)."""
        return len(self._rank_reader)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """One epoch's minibatches (an iterator that threads may share)."""
        return SharedIterator(self._iterate(), "this MinibatchDataset's iterator")

    def _iterate(self) -> Iterator[dict[str, Any]]:
        news = self._notice.news()
        if news is not None:  # a persistent worker: the main process moved on
            self._rank_reader.position(*news[0])
        info = get_worker_info()
        workers, worker = (info.num_workers, info.id) if info is not None else (1, 0)
        ring = self._worker_ring() if info is not None else None
        if ring is not None:  # the reader gathers straight into the ring's slots
            getattr(self._rank_reader.reader(), "set_output_arena", lambda arena: None)(ring)
        for minibatch in self._rank_reader.minibatches(workers, worker):
            batch = batch_to_tensors(minibatch, self.padded)
            yield ring.pack(batch) if ring is not None else batch

    def _worker_ring(self) -> WorkerRing | None:
        """This DataLoader worker's ring (made at its first iteration), or None."""
        if self._ring is None and self.worker_ring:
            self._ring = WorkerRing(self.worker_ring)
        return self._ring

    def close(self) -> None:
        """Closes this process's reader."""
        self._rank_reader.close()
