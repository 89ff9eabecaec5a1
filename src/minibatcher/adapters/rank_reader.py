"""``RankReader``: one rank's epochs, position and state, shared by the framework adapters.

It owns the epoch, the position (``step``: items of this rank's stream
delivered; ``anchor``: where loader workers start dealing), the per-process
reader (a reader inherited through ``fork`` is never reused: its threads did
not come along) and the epoch's :class:`~.rank_plan.RankPlan`. The PyTorch
dataset and the JAX iterator wrap it.

Example:
    >>> import tempfile, pathlib, functools
    >>> from minibatcher import CTFDeserializer, MinibatchSource, StreamDef
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("".join(f"|x {i}\\n" for i in range(5)))
    >>> make = functools.partial(lambda path: MinibatchSource(
    ...     CTFDeserializer(path, {"x": StreamDef()}), randomize=False), str(p))
    >>> rr = RankReader(make, Layout(world=2, rank=1, minibatch_size=2, equal_batches=True))
    >>> [mb["x"].values.ravel().tolist() for mb in rr.minibatches()], rr.state()["step"]
    ([[1.0], [3.0]], 2)
    >>> len(rr), rr.state()["step"]
    (2, 2)
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterator, Mapping

from ..args import non_negative_int
from ..errors import ConfigError
from .position import Layout, check_source, make_state, read_state
from .reader import PartitionedReader, as_reader
from .rank_plan import RankPlan, iterate


class RankReader:
    """A rank's reader of ``make_source()`` with epochs and an exact position."""

    def __init__(self, make_source: Callable[[], Any], layout: Layout) -> None:
        if not callable(make_source):
            raise ConfigError(f"make_source should be a zero-argument callable returning a "
                              f"MinibatchSource, but got {make_source!r}")
        self.make_source, self.layout = make_source, layout
        self.epoch = self.origin = self.step = self.anchor = 0
        self._pending: Mapping[str, Any] | None = None  # a loaded state's source fingerprint
        self._reader: PartitionedReader | None = None
        self._reader_pid = -1
        self._plan: RankPlan | None = None

    def set_epoch(self, epoch: int) -> None:
        """The next iteration reads epoch (sweep) ``epoch`` from its start."""
        self.epoch, self.origin, self.step, self.anchor = non_negative_int("epoch", epoch), 0, 0, 0

    def state(self, consumed: int | None = None) -> dict[str, Any]:
        """The position after the items delivered in this process, or after
        ``consumed`` items of the current iteration (as a fresh iteration's state)."""
        fingerprint = self.reader().fingerprint()
        if consumed is None:
            return make_state(self.epoch, self.step, self.layout, fingerprint, self.anchor)
        consumed = non_negative_int("consumed", consumed)
        return make_state(self.epoch, self.origin + consumed, self.layout, fingerprint)

    def load(self, state: Mapping[str, Any]) -> None:
        """The next iteration continues exactly after ``state``'s position (a state
        of other data or options is refused here, naming the difference)."""
        epoch, origin, anchor = read_state(state, self.layout)
        check_source(state.get("source"), self.reader().fingerprint())
        self._pending = state.get("source")
        self.position(epoch, origin, anchor)

    def position(self, epoch: int, origin: int, anchor: int) -> None:
        """Sets where the next iteration starts (no checks: see :meth:`load`)."""
        self.epoch, self.origin, self.step, self.anchor = epoch, origin, origin, anchor

    def __len__(self) -> int:
        plan = self.plan()
        if plan.length is not None:
            return plan.length
        lay = self.layout
        return self.reader().partition_counts(self.epoch, lay.minibatch_size, lay.world)[lay.rank]

    def minibatches(self, workers: int = 1, worker: int = 0) -> Iterator[Mapping[str, Any]]:
        """This worker's items of the epoch from the position, advancing it."""
        reader, plan = self.reader(), self.plan()
        self.step = self.origin
        for step, minibatch in iterate(reader, plan, self.origin, workers, worker, self.anchor):
            self.step = step + 1
            yield minibatch

    def reader(self) -> PartitionedReader:
        """This process's reader."""
        if self._reader is None or self._reader_pid != os.getpid():
            self._reader, self._reader_pid = as_reader(self.make_source()), os.getpid()
            check_source(self._pending, self._reader.fingerprint())
        return self._reader

    def plan(self) -> RankPlan:
        """The current epoch's plan (cached)."""
        if self._plan is None or self._plan.epoch != self.epoch:
            lay = self.layout
            self._plan = RankPlan.compute(self.reader(), self.epoch, lay.world, lay.rank,
                                          lay.minibatch_size, lay.equal_batches)
        return self._plan

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.update(_reader=None, _reader_pid=-1)
        return state

    def close(self) -> None:
        """Closes this process's reader."""
        if self._reader is not None and self._reader_pid == os.getpid():
            self._reader.close()
        self._reader = None
