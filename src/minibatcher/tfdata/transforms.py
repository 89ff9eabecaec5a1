"""Element-wise transformations: ``map``, ``filter``, ``prefetch``.

A map over an input with a view is a view (the function runs when an element
is read; skips do not call it); a filter has no view (which elements pass is
known only by reading them). Both keep their input's element addresses.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> [int(x) for x in Dataset.range(6).filter(lambda x: x % 2 == 1).map(lambda x: x * 3)]
    [3, 9, 15]
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

import numpy as np

from ..errors import WorkerDied
from ..state import Fields
from .arguments import tf_int
from .block import Block, ListBlock, blocks_enabled
from .core import INFINITE, UNKNOWN, Iter, View, inner_of, state_after
from .dataset import Dataset
from .lift import Lift
from .parallel import (Failure, Workers, check_executor, check_picklable, first_failure,
                       parallelism, schedulable_cpus)
from .prefetch import PrefetchIter, PrefetchView
from .process_pool import Ahead
from .structure import call
# the base of one-input ops is re-exported: every op module imports it from here
from .unary import _PassIter, _Unary, is_random  # noqa: F401


# -- map ---------------------------------------------------------------------------------------

class _MapView(View):
    """A map over a view: elements mapped when read, a block at a time (lifted
    to one call per block where the function allows, on ``workers`` when
    ``num_parallel_calls > 1``)."""

    def __init__(self, parent: View, fn: Callable[..., Any], lift: Lift | None = None,
                 workers: Workers | None = None) -> None:
        self.parent, self.fn, self.lift, self.workers = parent, fn, lift, workers
        limit = parent.block_limit
        if workers is not None:
            limit = min(limit, 64 * workers.n)
        elif lift is None or lift.liftable is False:
            limit = min(limit, View.block_limit)
        self.block_limit = limit
        self._ahead = None  # processes: the next range of blocks, computing ahead
        if workers is not None and workers.executor == "processes" and \
                (lift is None or lift.liftable is False):
            self._ahead = Ahead(workers.pool)
            weakref.finalize(self, self._ahead.cancel)

    def __len__(self) -> int:
        return len(self.parent)

    def available(self, stop: int) -> int:
        return self.parent.available(stop)

    def __getitem__(self, index: int) -> Any:
        return call(self.fn, self.parent[index])

    def read(self, start: int, stop: int) -> list[Any]:
        return self._map(self.parent.read(start, stop))

    def block(self, start: int, stop: int) -> Block:
        if self._ahead is not None:
            results, error = self._ahead.map(self.fn, start, stop, len(self),
                                             self.parent.block)
            return _mapped(results, error)
        return self._apply(self.parent.block(start, stop))

    def gather(self, positions: np.ndarray) -> Block:
        return self._apply(self.parent.gather(positions))

    def _apply(self, block: Block) -> Block:
        if self.lift is not None:
            lifted = self.lift.apply(block)
            if lifted is not None:
                return lifted
        if self.workers is None:
            return ListBlock(self._map(block.elements()), block.error)
        return _mapped(self.workers.map(self.fn, block.elements(), block=True), block.error)

    def _map(self, items: list[Any]) -> list[Any]:
        if self.workers is not None:
            results = self.workers.map(self.fn, items)
            k = first_failure(results)
            if k < len(results):
                raise results[k].error
            return results
        fn = self.fn
        return [call(fn, x) for x in items]

    def pins(self) -> Any:
        return self.parent.pins()


def _mapped(results: Any, error: BaseException | None) -> Block:
    """The block of a map's results on workers (a list with failures in place,
    or a column block of array results): it ends at the first failure, else
    with ``error``, the input block's (the input element after them failed)."""
    if isinstance(results, Block):
        return results if error is None else ListBlock(results.elements(), error)
    k = first_failure(results)
    return ListBlock(results[:k], results[k].error if k < len(results) else error)


class _MapIter(_PassIter):
    def __init__(self, parent: Iter, fn: Callable[..., Any], lift: Lift | None = None,
                 workers: Workers | None = None, source: Dataset | None = None) -> None:
        super().__init__(parent)
        self.fn, self.lift, self.workers, self.source = fn, lift, workers, source
        self._pending: tuple[list[Any], BaseException | None] | None = None
        self._start: tuple[dict[str, Any], int] | None = None  # the input's state, items read
        self._ready: list[Any] = []  # mapped elements not handed out yet (last first)

    def __next__(self) -> Any:
        if self._ready:
            return self._next_ready()
        if self.workers is not None:  # a block on the workers, handed out one by one
            block = self.next_block(2 * self.workers.n)
            if block.error is not None:
                self._ready = [_Raise(block.error)]
            self._ready.extend(reversed(block.elements()))
            if not self._ready:
                raise StopIteration
            return self._next_ready()
        if self._pending is not None:
            return _one(self.next_block(1))
        return call(self.fn, next(self.parent))

    def _next_ready(self) -> Any:
        x = self._ready.pop()
        if type(x) is _Raise:
            raise x.error
        return x

    def next_block(self, count: int) -> Block:
        """The next mapped elements: one read of the input's block, one lifted
        call or a map on the workers; an element whose function fails ends the
        block (its error), the input elements after it wait for the next call."""
        if self._pending is None:
            start = self.parent.state() if self.source is not None else None
            block = self.parent.next_block(count)
            self._start = None if start is None else (start, 0)
            if self.lift is not None and block.error is None:
                lifted = self.lift.apply(block)
                if lifted is not None:
                    return lifted
            items, error = block.elements(), block.error
            return self._map(items, error)
        items, error = self._pending
        self._pending = None
        if len(items) > count:
            self._pending, items, error = (items[count:], error), items[:count], None
        head = self._map(items, error)
        if head.error is not None or len(head) == count or self._pending is not None:
            return head
        more = self.next_block(count - len(head))  # the input elements after the pending ones
        return ListBlock(head.elements() + more.elements(), more.error)

    def _map(self, items: list[Any], error: BaseException | None) -> Block:
        if self.workers is not None:
            try:
                out = self.workers.map(self.fn, items)
            except WorkerDied:
                self._pending = (items, error)  # mapped again by the next read
                raise
        else:
            out, fn = [], self.fn
            for x in items:
                try:
                    out.append(call(fn, x))
                except Exception as e:  # noqa: BLE001 - the block's error
                    out.append(Failure(e))
                    break
        k = first_failure(out)
        if k == len(out):
            self._consumed(len(items))
            return ListBlock(out, error)
        if k + 1 < len(items) or error is not None:
            self._pending = (items[k + 1:], error)
            self._consumed(k + 1)
        return ListBlock(out[:k], out[k].error)

    def _consumed(self, count: int) -> None:
        """Counts input elements handed on (or failed) since the block's start."""
        if self._start is not None:
            self._start = (self._start[0], self._start[1] + count)

    def state(self) -> dict[str, Any]:
        ahead = len(self._ready)  # mapped (or failed) elements not handed out yet
        if (self._pending is not None or ahead) and self._start is not None:  # read ahead
            start, consumed = self._start
            return {"in": state_after(self.source, start, consumed - ahead)}
        return {"in": self.parent.state()}

    def skip(self, count: int) -> int:
        done = min(count, len(self._ready))
        del self._ready[len(self._ready) - done:]
        if self._pending is not None and done < count:
            items, error = self._pending
            take = min(len(items), count - done)
            self._pending = (items[take:], error) if take < len(items) or error else None
            self._consumed(take)
            done += take
        return done + self.parent.skip(count - done)

    def refetch(self, address: int) -> Any:
        return call(self.fn, self.parent.refetch(address))


class _Raise:
    """An error waiting among mapped elements (raised when its turn comes)."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


def _one(block: Block) -> Any:
    """The single element of a one-element block (its error raised)."""
    if len(block):
        return block.elements()[0]
    if block.error is not None:
        raise block.error
    raise StopIteration


def _fn_name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__qualname__", type(fn).__name__)


class MapDataset(_Unary):
    """``map``: the function is applied when an element is read (skips do not call it).

    With ``num_parallel_calls`` N > 1 it runs on N workers (``executor``:
    "threads" or "processes", see :mod:`~minibatcher.tfdata.parallel`);
    elements, order and states are the same for every N.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> [int(x) for x in MapDataset(Dataset.range(3), lambda x: -x)]
        [0, -1, -2]
        >>> [int(x) for x in MapDataset(Dataset.range(3), lambda x: -x, num_parallel_calls=2)]
        [0, -1, -2]
    """

    def __init__(self, parent: Dataset, fn: Callable[..., Any], num_parallel_calls: Any = None,
                 deterministic: bool | None = None, executor: str = "threads") -> None:
        super().__init__(parent)
        if not callable(fn):
            raise TypeError(f"map_func should be callable, but got {type(fn).__name__}")
        self._fn = fn
        self._parallel = parallelism(num_parallel_calls)
        self._deterministic = deterministic
        self._executor = check_executor(executor)
        if executor == "processes" and self._parallel > 1:
            check_picklable(fn)
        self._workers = Workers(self._parallel, executor) if self._parallel > 1 else None
        self._lift = Lift(fn)

    def _spec(self) -> dict[str, Any]:
        return {"op": "map", "fn": _fn_name(self._fn)}

    def _make_view(self, pins: Fields | None) -> View:
        return _MapView(self._parent._make_view(pins), self._fn, self._lift, self._workers)

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._has_view():
            return super()._make_iter(state)
        return _MapIter(self._parent._make_iter(inner_of(state)), self._fn,
                        self._lift if blocks_enabled() else None, self._workers, self._parent)

    def _cardinality(self) -> int:
        return self._parent._cardinality()


# -- filter ------------------------------------------------------------------------------------

def _truth(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    arr = np.asarray(value)
    if arr.shape != () or arr.dtype != np.bool_:
        raise TypeError("the filter predicate should return a scalar boolean, but returned "
                        f"dtype {arr.dtype} with shape {list(arr.shape)}")
    return bool(arr)


class _FilterIter(_PassIter):
    def __init__(self, parent: Iter, predicate: Callable[..., Any]) -> None:
        super().__init__(parent)
        self.predicate = predicate

    def __next__(self) -> Any:
        parent, predicate = self.parent, self.predicate
        while True:
            x = next(parent)
            if _truth(call(predicate, x)):
                return x

    def state(self) -> dict[str, Any]:
        return {"in": self.parent.state()}

    def refetch(self, address: int) -> Any:
        x = self.parent.refetch(address)
        if not _truth(call(self.predicate, x)):
            raise IndexError(f"the element at address {address} does not pass the filter")
        return x


class FilterDataset(_Unary):
    """``filter``: no view (which elements pass is known only by reading them).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> [int(x) for x in FilterDataset(Dataset.range(4), lambda x: x % 2 == 0)]
        [0, 2]
    """

    def __init__(self, parent: Dataset, predicate: Callable[..., Any]) -> None:
        super().__init__(parent)
        if not callable(predicate):
            raise TypeError(f"predicate should be callable, but got {type(predicate).__name__}")
        self._predicate = predicate

    def _has_view(self) -> bool:
        return False

    def _spec(self) -> dict[str, Any]:
        return {"op": "filter", "fn": _fn_name(self._predicate)}

    def _make_iter(self, state: Fields | None) -> Iter:
        parent = self._parent._make_iter(inner_of(state))
        return _FilterIter(parent, self._predicate)

    def _cardinality(self) -> int:
        return INFINITE if self._parent._cardinality() == INFINITE else UNKNOWN


class PrefetchDataset(_Unary):
    """``prefetch(buffer_size)``: the input runs ahead on a background thread
    (:mod:`~minibatcher.tfdata.prefetch`); elements, order and states are the
    input's. ``AUTOTUNE`` keeps twice the schedulable CPUs (at least 2);
    ``buffer_size=0`` reads in the consuming thread.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> [int(x) for x in PrefetchDataset(Dataset.range(2), 8)]
        [0, 1]
    """

    def __init__(self, parent: Dataset, buffer_size: int) -> None:
        super().__init__(parent)
        self._buffer_size = tf_int("buffer_size", buffer_size, -1)

    def _depth(self) -> int:
        return max(2, 2 * schedulable_cpus()) if self._buffer_size == -1 else self._buffer_size

    def _spec(self) -> dict[str, Any]:
        return {"op": "prefetch"}

    def _make_view(self, pins: Fields | None) -> View:
        view = self._parent._make_view(pins)
        return PrefetchView(view, self._depth()) if self._depth() else view

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._has_view():
            return super()._make_iter(state)
        parent = self._parent._make_iter(state)
        if not self._depth():
            return parent
        return PrefetchIter(parent, self._depth(), _generators(self._parent))

    def _cardinality(self) -> int:
        return self._parent._cardinality()


def _generators(dataset: Dataset) -> list[Any]:
    """The random nodes (seed generators) of ``dataset``'s plan."""
    out, stack = [], [dataset]
    while stack:
        node = stack.pop()
        stack.extend(node._inputs())
        if hasattr(node, "iterations_started"):
            out.append(node)
    return out
