"""Positional transformations: ``skip``, ``take``, ``shard``, ``repeat``.

Over an input with a view they are views themselves (strides of it: O(1)
seeks); otherwise iterators that count. ``repeat`` starts a fresh iteration
of its input each time (so shuffles inside reshuffle); it is a view only when
its input has one and no randomness.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> [int(x) for x in Dataset.range(10).shard(3, 2).skip(1).take(1)]
    [5]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..state import Fields
from .arguments import tf_int
from .block import Block
from .core import INFINITE, UNKNOWN, Iter, ListView, View, all_at_start, clamp_count, view_iter
from .dataset import Dataset
from .options import static_rewrites
from .restore import check_moved
from .shuffle_repeat import FusedRepeatIter, fused_shuffle
from .transforms import _PassIter, _Unary, is_random

# -- slices: skip, take, shard -----------------------------------------------------------------

def _left_range(count: int) -> tuple[int, int]:
    """What a skip/take cursor's ``left`` may be: -1 for "all", else ``[0, count]``."""
    return (-1, -1) if count < 0 else (0, count)


class _StrideView(View):
    """Elements ``start, start+step, ...`` (below ``stop``) of a parent view."""

    def __init__(self, parent: View, start: int, stop: int, step: int = 1) -> None:
        self.parent, self.start, self.step = parent, start, step
        stop = min(stop, len(parent))
        self._length = max(0, -(-(stop - start) // step))
        self.block_limit = parent.block_limit

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: int) -> Any:
        return self.parent[self.start + index * self.step]

    def read(self, start: int, stop: int) -> list[Any]:
        if self.step == 1:
            return self.parent.read(self.start + start, self.start + stop)
        return [self.parent[self.start + i * self.step] for i in range(start, stop)]

    def block(self, start: int, stop: int) -> Block:
        if self.step == 1:
            return self.parent.block(self.start + start, self.start + stop)
        return self.gather(np.arange(start, stop, dtype=np.int64))

    def gather(self, positions: np.ndarray) -> Block:
        return self.parent.gather(self.start + np.asarray(positions, np.int64) * self.step)

    def pins(self) -> Any:
        return self.parent.pins()


class _SkipIter(_PassIter):
    def __init__(self, parent: Iter, left: int, count: int) -> None:
        super().__init__(parent)
        self.left, self.count = left, count

    def __next__(self) -> Any:
        if self.left:
            if self.left < 0:
                self.parent.skip(2**62)
                while True:
                    next(self.parent)  # an infinite input: skip(-1) never ends, as in TF
            self.left -= self.parent.skip(self.left)
            if self.left:
                raise StopIteration
        return next(self.parent)

    def skip(self, count: int) -> int:
        if self.left > 0:
            self.left -= self.parent.skip(self.left)
        return self.parent.skip(count)

    def state(self) -> dict[str, Any]:
        return {"in": self.parent.state(), "left": self.left}

    def at_start(self) -> bool | None:
        return False if self.left != self.count else self.parent.at_start()


class _TakeIter(_PassIter):
    def __init__(self, parent: Iter, left: int, count: int) -> None:
        super().__init__(parent)
        self.left, self.count = left, count

    def __next__(self) -> Any:
        if self.left == 0:
            raise StopIteration
        x = next(self.parent)
        if self.left > 0:
            self.left -= 1
        return x

    def skip(self, count: int) -> int:
        count = count if self.left < 0 else min(count, self.left)
        done = self.parent.skip(count)
        if self.left > 0:
            self.left -= done
        return done

    def state(self) -> dict[str, Any]:
        return {"in": self.parent.state(), "left": self.left}

    def at_start(self) -> bool | None:
        return False if self.left != self.count else self.parent.at_start()


class _ShardIter(_PassIter):
    def __init__(self, parent: Iter, num_shards: int, index: int, consumed: int) -> None:
        super().__init__(parent)
        self.n, self.index, self.consumed = num_shards, index, consumed

    def __next__(self) -> Any:
        gap = (self.index - self.consumed) % self.n
        skipped = self.parent.skip(gap)
        self.consumed += skipped
        if skipped < gap:
            raise StopIteration
        x = next(self.parent)
        self.consumed += 1
        return x

    def state(self) -> dict[str, Any]:
        return {"in": self.parent.state(), "consumed": self.consumed}

    def at_start(self) -> bool | None:
        return False if self.consumed else self.parent.at_start()


class _Positional(_Unary):
    """skip / take / shard: a stride view over a parent view, else an iterator."""

    def _cardinality(self) -> int:
        n = self._parent._cardinality()
        if n >= 0:
            return len(self._stride(_Len(n)))
        if n == INFINITE and isinstance(self, TakeDataset) and self._count >= 0:
            return self._count
        return n

    def _make_view(self, pins: Fields | None) -> View:
        return self._stride(self._parent._make_view(pins))

    def _stride(self, parent: View) -> View:
        raise NotImplementedError


class _Len(View):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> Any:
        raise IndexError(index)


class SkipDataset(_Positional):
    """``skip(count)``.

    Example:
        >>> [int(x) for x in SkipDataset(Dataset.range(4), 3)]
        [3]
    """

    def __init__(self, parent: Dataset, count: int) -> None:
        super().__init__(parent)
        self._count = clamp_count(tf_int("count", count))

    def _spec(self) -> dict[str, Any]:
        return {"op": "skip", "count": self._count}

    def _stride(self, parent: View) -> View:
        start = len(parent) if self._count < 0 else self._count
        return _StrideView(parent, start, len(parent))

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._has_view():
            return super()._make_iter(state)
        if state is None:
            return _SkipIter(self._parent._make_iter(None), self._count, self._count)
        state.only("in", "left")
        left = state.int("left", *_left_range(self._count))
        parent = self._parent._make_iter(state.child("in"))
        # the skip happens at the first read: then ``left`` is 0, unless the input ended first
        check_moved(state, "left", left == 0 and self._count > 0, parent, ended=0 < left)
        return _SkipIter(parent, left, self._count)


class TakeDataset(_Positional):
    """``take(count)``.

    Example:
        >>> [int(x) for x in TakeDataset(Dataset.range(4), 1)]
        [0]
    """

    def __init__(self, parent: Dataset, count: int) -> None:
        super().__init__(parent)
        self._count = clamp_count(tf_int("count", count))

    def _spec(self) -> dict[str, Any]:
        return {"op": "take", "count": self._count}

    def _stride(self, parent: View) -> View:
        stop = len(parent) if self._count < 0 else self._count
        return _StrideView(parent, 0, stop)

    def _iterate_unread(self) -> None:
        if self._count != 0:  # TF's take(0) never makes its input's iterator
            self._parent._iterate_unread()

    def _make_view(self, pins: Fields | None) -> View:
        return ListView([]) if self._count == 0 else super()._make_view(pins)

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._count == 0:  # nothing is read, and no input iterator is made (as TF)
            return view_iter(lambda pins: ListView([]), state)
        if self._has_view():
            return super()._make_iter(state)
        if state is None:
            return _TakeIter(self._parent._make_iter(None), self._count, self._count)
        state.only("in", "left")
        left = state.int("left", *_left_range(self._count))
        parent = self._parent._make_iter(state.child("in"))
        check_moved(state, "left", left != self._count, parent)
        return _TakeIter(parent, left, self._count)


class ShardDataset(_Positional):
    """``shard(num_shards, index)``: positions ``p`` with ``p % num_shards == index``.

    Example:
        >>> [int(x) for x in ShardDataset(Dataset.range(5), 2, 0)]
        [0, 2, 4]
    """

    def __init__(self, parent: Dataset, num_shards: int, index: int) -> None:
        super().__init__(parent)
        num_shards = tf_int("num_shards", num_shards, lo=1)
        index = tf_int("index", index, 0, num_shards - 1)
        self._n, self._index = num_shards, index

    def _spec(self) -> dict[str, Any]:
        return {"op": "shard", "num_shards": self._n, "index": self._index}

    def _stride(self, parent: View) -> View:
        return _StrideView(parent, self._index, len(parent), self._n)

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._has_view():
            return super()._make_iter(state)
        if state is None:
            return _ShardIter(self._parent._make_iter(None), self._n, self._index, 0)
        state.only("in", "consumed")
        consumed = state.int("consumed", 0)
        parent = self._parent._make_iter(state.child("in"))
        check_moved(state, "consumed", consumed > 0, parent)
        return _ShardIter(parent, self._n, self._index, consumed)


# -- repeat ------------------------------------------------------------------------------------

class _RepeatView(View):
    def __init__(self, parent: View, count: int) -> None:
        self.parent, self.count, self.n = parent, count, len(parent)
        self.block_limit = parent.block_limit

    def __len__(self) -> int:
        return self.n * self.count

    def __getitem__(self, index: int) -> Any:
        return self.parent[index % self.n]

    def block(self, start: int, stop: int) -> Block:
        if start // self.n == (stop - 1) // self.n:  # inside one repetition
            base = start - start % self.n
            return self.parent.block(start - base, stop - base)
        return self.gather(np.arange(start, stop, dtype=np.int64))

    def gather(self, positions: np.ndarray) -> Block:
        return self.parent.gather(np.asarray(positions, np.int64) % self.n)


class _RepeatIter(Iter):
    """TF's repeat iterator: the input's first iterator is made at once; a finite
    repeat makes the next one as soon as one ends, so after its last repetition it
    makes one more that is never read (its shuffles take an iteration: TF's
    "extra" iterator; ``extra=False`` for a ``repeat(1)`` TF's no-op elimination
    removes); a forever-repeat makes the next one when it is read."""

    def __init__(self, dataset: Dataset, count: int, rep: int, inner: Fields | None,
                 started: bool, extra: bool = True) -> None:
        self.dataset, self.count, self.rep, self.extra = dataset, count, rep, extra
        self.cur: Iter | None = dataset._make_iter(inner) if started else None
        self.fresh = False  # nothing read from cur yet (a restored cur had been read: TF's rule)
        if not started and (count > 0 or count < 0) and rep == 0:
            self.cur, self.fresh = dataset._make_iter(None), True  # TF makes it at once

    def __next__(self) -> Any:
        while self.count < 0 or self.rep < self.count:
            if self.cur is None:
                self.cur, self.fresh = self.dataset._make_iter(None), True
            try:
                x = next(self.cur)
            except StopIteration:
                self._ended()
                continue
            self.fresh = False
            return x
        raise StopIteration

    def _ended(self) -> None:
        fresh, self.cur = self.fresh, None
        self.rep += 1
        if fresh and self.count < 0:
            self.count = self.rep  # an empty input ends a forever-repeat (as TF)
        elif self.extra and self.count > 0 and self.rep == self.count:
            self.dataset._iterate_unread()  # TF's extra input iterator
        elif 0 < self.rep < self.count:
            self.cur, self.fresh = self.dataset._make_iter(None), True

    def state(self) -> dict[str, Any]:
        return {"rep": self.rep, "count": self.count,
                "in": None if self.cur is None else self.cur.state()}

    def at_start(self) -> bool | None:
        return False if self.rep else all_at_start(self.cur)


def _repeat_cursor(state: Fields, planned: int) -> tuple[int, int, Fields | None]:
    """``(count, rep, in)`` of a repeat cursor: ``count`` is the plan's (a
    forever-repeat over an empty input ends with ``count == rep``), ``rep <=
    count``, and an open iteration (``in``) only while ``rep < count``."""
    state.only("rep", "count", "in")
    inner = state.opt_child("in")
    rep = state.int("rep", 0)
    if planned >= 0:
        count = state.int("count", planned, planned, within=f"the plan's count={planned}")
    else:
        count = state.int("count", -1)
        if count not in (-1, rep) or (count == rep and inner is not None):
            raise state.bad("count", f"-1 (repeat forever), or {rep} (rep) once ended")
    if count >= 0 and rep > count - (inner is not None):
        raise state.bad("rep", f"an int in [0, {count - (inner is not None)}]",
                        f"outside the {count} repetitions")
    # the first repetition is opened at once, and a finite repeat opens the next one as soon
    # as one ends: no repetition is closed but after the last one (or, repeating forever,
    # between two repetitions)
    if inner is None and (rep == 0 if count < 0 else rep < count):
        raise state.bad("in", f"the cursor of repetition {rep} (it is open)")
    return count, rep, inner


class RepeatDataset(_Unary):
    """``repeat(count)``: fresh iterations of the input (reshuffling shuffles draw
    new seeds); a view only when the input has one and no randomness.

    Example:
        >>> [int(x) for x in RepeatDataset(Dataset.range(2), 2)]
        [0, 1, 0, 1]
    """

    def __init__(self, parent: Dataset, count: int) -> None:
        super().__init__(parent)
        self._count = clamp_count(tf_int("count", count))

    def _spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {"op": "repeat", "count": self._count}
        fuse, noops = static_rewrites()
        if not (fuse and noops):  # its iterator depends on them (default plans unchanged)
            spec["rewrites"] = {"shuffle_and_repeat_fusion": fuse, "noop_elimination": noops}
        return spec

    def _has_view(self) -> bool:
        return self._count >= 0 and self._parent._has_view() and not is_random(self._parent)

    def _make_view(self, pins: Fields | None) -> View:
        return _RepeatView(self._parent._make_view(None), self._count)

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._has_view():
            return super()._make_iter(state)
        fuse, noops = static_rewrites()  # TF's rewrites of the iterated pipeline
        shuffle = None if self._count in (0, 1) or not fuse else fused_shuffle(self._parent,
                                                                              noops)
        if shuffle is not None:  # TF fuses shuffle(...).repeat(...)
            return FusedRepeatIter(self._parent, shuffle, self._count, state)
        extra = self._count > 1 or self._count == 1 and not noops  # repeat(1) left in place
        if state is None:
            return _RepeatIter(self._parent, self._count, 0, None, False, extra)
        count, rep, inner = _repeat_cursor(state, self._count)
        return _RepeatIter(self._parent, count, rep, inner, inner is not None, extra)

    def _iterate_unread(self) -> None:
        if self._count != 0:
            self._parent._iterate_unread()

    def _cardinality(self) -> int:
        n = self._parent._cardinality()
        if self._count == 0 or n == 0:
            return 0
        if self._count < 0 or n == INFINITE:
            return INFINITE
        return UNKNOWN if n == UNKNOWN else n * self._count
