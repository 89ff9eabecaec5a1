"""``shuffle(b).repeat(n)``: TF's fused shuffle-and-repeat, as far as it can be seen.

TF rewrites a ``repeat`` directly over a ``shuffle`` (no-op steps between removed:
``take(-1)``, ``skip(0)``, ``shard(1, 0)``, ``repeat(1)``) into one kernel whose buffer
runs across epochs: after epoch ``e``'s input ends, the buffer keeps filling from the
input's next iterations (at most three epochs ahead), while elements are still drawn
from epoch ``e`` only, with epoch ``e``'s seeds (a new pair from the seed generator
when an epoch's slice empties). The elements and their order are those of a shuffle
per epoch, which is what we compute (:mod:`~minibatcher.tfdata.shuffle`); what
differs is *when the input's iterations start*: TF starts epoch ``e + 1``'s input
while emitting epoch ``e``. That is visible through random ops inside the input (a
shuffle there takes its next iteration then), e.g. when the pipeline stops early
(``take``) and is iterated again.

This iterator therefore tracks TF's fill frontier: before each element it computes,
from the epoch's length and the buffer size, how many later epochs TF's buffer has
started, and starts their input iterations then (their fresh cursors are kept, and
the shuffle of that epoch reads them when its turn comes). The state adds those
cursors to the repeat's: ``{"rep", "count", "j", "produced", "in", "ahead"}``.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> inner = Dataset.range(3).shuffle(7, 42).map(lambda x: x + 1)
    >>> ds = inner.shuffle(7, 5).repeat().take(2)
    >>> [[int(x) for x in ds] for _ in range(2)]  # TF 2.21: 3 2 || 2 3
    [[3, 2], [2, 3]]
"""

from __future__ import annotations

from typing import Any

from ..state import Fields
from .core import Iter
from .dataset import Dataset
from .shuffle import FusedEpoch, ShuffleDataset

MAX_AHEAD = 3  # TF's kMaxEpochsInBuffer: the buffer spans at most 4 epochs


def fused_shuffle(node: Dataset, noops: bool = True) -> ShuffleDataset | None:
    """The shuffle a ``repeat`` over ``node`` fuses with in TF, or None: ``node``
    itself, or (when TF's no-op elimination runs, ``noops``) the shuffle under TF's
    no-op steps (``take(-1)``, ``skip(0)``, ``shard(1, 0)``, ``repeat(1)``).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> s = Dataset.range(3).shuffle(3, 1)
        >>> fused_shuffle(s.take(-1).skip(0)) is s, fused_shuffle(s.prefetch(1)) is None
        (True, True)
    """
    from .positional import RepeatDataset, ShardDataset, SkipDataset, TakeDataset
    while not isinstance(node, ShuffleDataset):
        noop = noops and (isinstance(node, TakeDataset) and node._count < 0 or
                          isinstance(node, SkipDataset) and node._count == 0 or
                          isinstance(node, ShardDataset) and node._n == 1 or
                          isinstance(node, RepeatDataset) and node._count == 1)
        if not noop:
            return None
        node = node._parent
    return node


class _Ahead:
    """An epoch whose input TF's buffer has started: its fresh cursor, and what the
    buffer has read of it (TF reads it as room frees up; its end is seen only when
    the buffer asks for more). Over an input without a view the elements are read by
    the iterator the epoch then reads on from, so that iterators inside the input (a
    repeat's) start when TF's do; over a view only the length is needed (O(1))."""

    __slots__ = ("cursor", "it", "read", "ended", "view", "length")

    def __init__(self, parent: Dataset, cursor: Any, size: int) -> None:
        self.view = parent._has_view()
        self.it = parent._make_iter(None if cursor is None else Fields(cursor, "ahead.cursor"))
        self.cursor = self.it.state() if cursor is None else cursor
        self.read: list[Any] = []
        self.ended = False
        self.length = self.it.skip(size) if self.view else 0  # a view: up to the buffer size

    def fill(self, room: int) -> int:
        """The elements TF's buffer holds of this epoch with ``room`` free: reads up
        to ``room`` (seeing the end only when asked for more than there are)."""
        if self.view:
            self.ended = self.length < room
            return min(self.length, room)
        while len(self.read) < room and not self.ended:
            try:
                self.read.append(next(self.it))
            except StopIteration:
                self.ended = True
        return min(len(self.read), room)

    def epoch(self) -> FusedEpoch:
        """The epoch that reads this input (a view is rebuilt from the cursor's pins)."""
        if self.view:
            return FusedEpoch(self.cursor)
        return FusedEpoch(self.cursor, _Prefixed(self.read, self.it))

    def state(self) -> dict[str, Any]:
        # a view's length is read again in O(1): only an iterator's reading is replayed
        return {"cursor": self.cursor, "read": len(self.read), "ended": self.ended and not self.view}


class _Prefixed(Iter):
    """``elements``, then the rest of ``it``."""

    def __init__(self, elements: list[Any], it: Iter) -> None:
        self.elements, self.it = list(elements), it

    def __next__(self) -> Any:
        return self.elements.pop(0) if self.elements else next(self.it)

    def state(self) -> dict[str, Any]:
        return self.it.state()


class FusedRepeatIter(Iter):
    """The iterator of ``repeat(count)`` over a shuffle (see the module docstring)."""

    def __init__(self, chain: Dataset, shuffle: ShuffleDataset, count: int,
                 state: Fields | None) -> None:
        self.chain, self.shuffle, self.count = chain, shuffle, count
        self.size = shuffle._buffer_size
        self.epoch: FusedEpoch | None = None
        if state is None:
            self.rep = self.j = 0
            self.produced = False
            self.ahead: list[_Ahead] = []
            self.cur: Iter | None = self._start(None, None) if count != 0 else None
        else:
            self._restore(state)

    def _start(self, ahead: _Ahead | None, state: Fields | None) -> Iter:
        """The epoch's iterator (over ``ahead``'s pre-started input, or at ``state``)."""
        epoch = FusedEpoch(None) if ahead is None else ahead.epoch()
        self.shuffle._epoch = epoch
        try:
            it = self.chain._make_iter(state)
        finally:
            self.shuffle._epoch = None
        self.epoch = epoch
        return it

    def __next__(self) -> Any:
        while True:
            if self.cur is None:
                if 0 <= self.count <= self.rep:
                    raise StopIteration
                self.cur = self._start(self.ahead.pop(0) if self.ahead else None, None)
                self.j = 0
            try:
                x = next(self.cur)
            except StopIteration:
                self.cur = None
                self.rep += 1
                if self.count < 0 and not self.produced:
                    self.count = self.rep  # an empty input ends a forever-repeat (as TF)
                continue
            self._frontier()
            self.j += 1
            self.produced = True
            return x

    def _fill(self) -> tuple[bool, int]:
        """(whether epoch ``rep``'s input had ended, elements of it in the buffer)
        before the element just read, as TF's buffer saw them."""
        epoch, j, size = self.epoch, self.j, self.size
        if epoch is None:  # _start() sets it before an element is read
            raise RuntimeError("a fused shuffle-repeat read an element before its epoch started")
        if epoch.length is not None:  # a shuffle over random access: its length is known
            return j + size > epoch.length, min(size, epoch.length - j)
        it = epoch.iter  # the element or the block iterator of a shuffle over an iterator
        return bool(it.done), it.end - it.emitted + 1

    def _frontier(self) -> None:
        """Starts the input iterations TF's buffer has reached before this element."""
        done, held = self._fill()
        if not done:
            return
        # TF drops the previous epoch's emptied slice after filling: before an epoch's
        # first element it still counts against the four slices the buffer may span
        cap = MAX_AHEAD - (self.j == 0 and self.rep > 0)
        room, f = self.size - held, 0
        while room > 0 and f < cap and (self.count < 0 or self.rep + 1 + f < self.count):
            if f == len(self.ahead):
                self.ahead.append(self._prestart())
            got = self.ahead[f].fill(room)
            if not self.ahead[f].ended:
                return
            room -= got
            f += 1

    def _prestart(self) -> _Ahead:
        """Starts the input's next iteration, as TF does when its buffer reaches it."""
        return _Ahead(self.shuffle._parent, None, self.size + 1)

    def state(self) -> dict[str, Any]:
        return {"rep": self.rep, "count": self.count, "j": self.j, "produced": self.produced,
                "in": None if self.cur is None else self.cur.state(),
                "ahead": [a.state() for a in self.ahead]}

    def _restore(self, state: Fields) -> None:
        state.only("rep", "count", "j", "produced", "in", "ahead")
        self.rep, self.j = state.int("rep", 0), state.int("j", 0)
        self.produced = state.bool("produced")
        count = state.int("count", -1)
        if count != self.count and not (self.count < 0 and count == self.rep):
            raise state.bad("count", f"{self.count} (the plan's) or {self.rep} once ended")
        self.count = count
        ahead = state.items("ahead")
        if len(ahead) > MAX_AHEAD:
            raise state.bad("ahead", f"a list of at most {MAX_AHEAD} epochs")
        inner = state.opt_child("in")  # the current epoch first: its input's iterations
        if self.count >= 0 and self.rep > self.count - (inner is not None):
            raise state.bad("rep", f"an int in [0, {self.count - (inner is not None)}]",
                            f"outside the {self.count} repetitions")
        self.cur = None if inner is None else self._start(None, inner)  # came before those
        self.ahead = [self._restore_ahead(a) for a in ahead]  # of the epochs ahead

    def _restore_ahead(self, saved: Fields) -> _Ahead:
        """A started epoch, its input read again as far as the buffer had read it."""
        saved.only("cursor", "read", "ended")
        read, ended = saved.int("read", 0, self.size), saved.bool("ended")
        ahead = _Ahead(self.shuffle._parent, saved.child("cursor").raw, self.size + 1)
        got = ahead.fill(read + ended)
        if got != read or ahead.ended != ended:
            raise saved.bad("read", f"{got} (the elements the input has now)", "the data changed")
        return ahead
