"""``repeat(count)``: fresh iterations of the input, each one started as TF starts it
(so shuffles inside reshuffle; TF's extra iterator after a finite repeat's last
repetition; ``shuffle(...).repeat(...)`` fused as TF's static rewrite fuses it). It
is a view only when its input has one and no randomness.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> [int(x) for x in Dataset.range(3).repeat(2)]
    [0, 1, 2, 0, 1, 2]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..state import Fields
from .arguments import clamp_count, tf_int
from .block import Block
from .core import INFINITE, UNKNOWN, Iter, View, all_at_start
from .dataset import Dataset
from .options import static_rewrites
from .shuffle_repeat import FusedRepeatIter, fused_shuffle
from .unary import _Unary, is_random

__all__ = ["RepeatDataset"]


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
