"""Positional transformations: ``skip``, ``take``, ``shard`` (and ``repeat``, in
:mod:`.repeat`, re-exported here).

Over an input with a view they are views themselves (strides of it: O(1)
seeks); otherwise iterators that count.

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
from .core import INFINITE, Iter, ListView, View, clamp_count, view_iter
from .dataset import Dataset
from .repeat import RepeatDataset  # noqa: F401 (re-exported)
from .restore import check_moved
from .transforms import _PassIter, _Unary

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
