"""The node protocol behind :class:`~minibatcher.tfdata.Dataset`: plans, views,
iterators and their states (docs/design/tfdata-state.md).

A dataset is an immutable *plan* node. Iterating it creates one internal
:class:`Iter` per node for one *iteration* (an epoch); its ``state()`` is a
small JSON-able cursor from which ``node._make_iter(state)`` rebuilds an
iterator at the same place; ``state`` arrives as
:class:`~minibatcher.state.Fields` (None: a fresh iteration), and every
field is validated (type, range, consistency with the plan) before anything
is restored, a bad one being a ``CheckpointError`` naming its path. Nodes
that can reach any element in O(1) also offer a :class:`View` (``len`` and
``view[i]`` for one iteration): views make ``skip``/``shard``/``take`` and
restores seek instead of read, and let shuffle
and window buffers be re-derived from positions ("addresses"). ``_make_view``
takes the view's ``pins`` the same way (``Fields`` or None).

Example:
    >>> v = ListView([b"a", b"b", b"c"])
    >>> it = ViewIter(v)
    >>> next(it), it.state()
    (b'a', {'pos': 1, 'pins': None})
    >>> it2 = ViewIter(v, 1); next(it2)
    b'b'
"""

from __future__ import annotations

import abc
import operator
import json
from typing import Any

from ..errors import WorkerDied
from ..state import Fields, as_fields
# clamp_count, the cursor helpers and the views are re-exported: the op modules import them
# from here
from .arguments import clamp_count  # noqa: F401
from .block import Block, ListBlock, blocks_enabled
from .cursors import all_at_start, fetch_positions, inner_of, state_after  # noqa: F401
from .views import ListView, View  # noqa: F401

INFINITE = -1
UNKNOWN = -2


class Iter(abc.ABC):
    """The iterator of one node for one iteration (internal protocol).

    ``addressable`` iterators can say where their last element came from
    (``address``: a position in the nearest view below) and rebuild any of
    their elements from it (``refetch``); buffers above them (shuffle,
    group_by_window, interleave) checkpoint addresses instead of elements.

    Example:
        >>> it = ViewIter(ListView([5, 6, 7]))
        >>> it.skip(1), next(it), it.address, it.refetch(0)
        (1, 6, 1, 5)
    """

    addressable = False

    def __iter__(self) -> "Iter":
        return self

    @abc.abstractmethod
    def __next__(self) -> Any:
        """The next element, or StopIteration."""

    @abc.abstractmethod
    def state(self) -> dict[str, Any]:
        """The cursor: a small JSON-able dict."""

    def skip(self, count: int) -> int:
        """Skips up to ``count`` elements; returns how many were skipped (an element
        whose reading raises counts as skipped, as one never read over a view)."""
        done = 0
        for _ in range(count):
            try:
                next(self)
            except StopIteration:
                break
            except Exception:  # noqa: BLE001 - a failing element is skipped like the others
                pass
            done += 1
        return done

    def next_block(self, count: int) -> Block:
        """The next ``count`` elements as a block (fewer only at the end). An
        element that fails ends the block: its error is the block's ``error``,
        raised by the consumer after the block's elements, and the iterator is
        where ``next`` would have left it after raising. The iterator reads
        exactly what ``count`` calls of ``next`` read (never more), so states
        and side effects are the element path's; block-aware iterators
        override this to read their input in blocks too.

        Example:
            >>> b = ViewIter(ListView("abc")).next_block(5); b.elements(), b.error
            (['a', 'b', 'c'], None)
        """
        items: list[Any] = []
        while len(items) < count:
            try:
                items.append(next(self))
            except StopIteration:
                break
            except Exception as e:  # noqa: BLE001 - handed to the consumer with the block
                return ListBlock(items, e)
        return ListBlock(items)
    def at_start(self) -> bool | None:
        """Whether nothing has been read yet (None: this iterator cannot tell).
        Restores use it to check cursors against their input's."""
        return None

    @property
    def address(self) -> int:
        """The address of the last element returned (addressable iterators)."""
        raise TypeError(f"{type(self).__name__} is not addressable")

    def refetch(self, address: int) -> Any:
        """The element at ``address`` (addressable iterators; ``IndexError`` when
        ``address`` is not the address of one of this iterator's elements)."""
        raise TypeError(f"{type(self).__name__} is not addressable")


class ViewIter(Iter):
    """Sequential reading of a view; state ``{"pos", "pins"}``; skip is O(1).

    Elements are read a block at a time, blocks growing from 1 to the view's
    ``block_limit`` (64 on the element path), so a short read does little
    extra work. A read that fails is repeated element by element: the
    elements before the failing one are delivered, and an element whose
    reading raises (an error in a map function, a batch of mismatched
    shapes) raises once and is consumed: the next call goes on with the next
    element, as TF's iterators do.

    Example:
        >>> it = ViewIter(ListView("abc"), 2)
        >>> next(it), it.state()
        ('c', {'pos': 3, 'pins': None})
    """

    addressable = True

    def __init__(self, view: View, pos: int = 0) -> None:
        self.view = view
        self._length: int | None = None  # asked of the view when something needs it
        self._blocks = blocks_enabled()
        self._limit = max(1, int(view.block_limit)) if self._blocks else 64
        self._items: list[Any] = []
        self._cur: Any = iter(self._items)
        self._base = pos
        self._size = 1
        self._failed: BaseException | None = None

    @property
    def length(self) -> int:
        """The view's length (blocks are read without it: ``view.available``)."""
        if self._length is None:
            self._length = len(self.view)
        return self._length

    @property
    def pos(self) -> int:
        """Elements read so far (the position of the next one)."""
        return self._base + len(self._items) - operator.length_hint(self._cur)

    def __next__(self) -> Any:
        try:
            return next(self._cur)
        except StopIteration:
            return self._refill()

    def _refill(self) -> Any:
        pos = self._base + len(self._items)
        if self._failed is not None:  # the element after the last block failed: raise it
            error, self._failed = self._failed, None
            self._consume_failed(pos)
            raise error
        stop = self.view.available(pos + self._size)
        if stop <= pos:
            raise StopIteration
        items = self._read(pos, stop)
        self._size = min(self._size * 2, self._limit)
        self._items, self._base = items, pos
        self._cur = iter(items)
        return next(self._cur)

    def _read(self, start: int, stop: int) -> list[Any]:
        try:
            block = self.view.block(start, stop) if self._blocks else \
                ListBlock(self.view.read(start, stop))
        except WorkerDied:
            raise  # nothing read: the iterator stays where it is
        except Exception:
            if stop - start == 1:
                self._consume_failed(start)
                raise
            return self._read_one_by_one(start, stop)
        if block.error is not None:  # the element after the block's elements failed
            if not len(block):
                self._consume_failed(start)
                raise block.error
            self._failed = block.error
        return block.elements()

    def _read_one_by_one(self, start: int, stop: int) -> list[Any]:
        """Finds the failing element of a read: the ones before it, or its error."""
        items: list[Any] = []
        for i in range(start, stop):
            try:
                items.append(self.view[i])
            except Exception:
                if not items:
                    self._consume_failed(start)
                    raise
                break
        self._size = 1
        return items

    def _consume_failed(self, pos: int) -> None:
        """The element at ``pos`` raised: it is consumed (the next call goes on)."""
        self._items, self._base, self._failed = [], pos + 1, None
        self._cur = iter(self._items)

    def next_block(self, count: int) -> Block:
        rest = list(self._cur)  # elements of the current block not handed out yet
        pos = self._base + len(self._items)
        if self._failed is not None:  # the element after them failed
            error = self._failed
            self._consume_failed(pos)
            return ListBlock(rest, error)
        stop = max(pos, self.view.available(pos + max(0, count - len(rest))))
        self._items, self._base = [], stop
        self._cur = iter(self._items)
        if stop == pos:
            return ListBlock(rest)
        try:
            more = self._view_block(pos, stop)
        except WorkerDied:  # nothing read: the iterator stays where it was
            self._items, self._base = rest, pos - len(rest)
            self._cur = iter(self._items)
            raise
        return more if not rest else ListBlock(rest + more.elements(), more.error)

    def _view_block(self, start: int, stop: int) -> Block:
        """Elements ``start .. stop-1``; an element that fails ends the block (its
        error) and is consumed, as on the element path."""
        if start >= stop:
            return ListBlock([])
        try:
            block = self.view.block(start, stop) if self._blocks else \
                ListBlock(self.view.read(start, stop))
            if block.error is not None:  # the element after its elements failed: consumed
                self._base = min(stop, start + len(block) + 1)
            return block
        except WorkerDied:
            raise
        except Exception as e:  # noqa: BLE001 - find the failing element
            error = e
        items: list[Any] = []
        for i in range(start, stop):
            try:
                items.append(self.view[i])
            except Exception as e:  # noqa: BLE001 - the block's error
                error = e
                break
        self._base = min(stop, start + len(items) + 1)
        self._cur = iter(self._items)
        return ListBlock(items, error)

    def seek(self, pos: int) -> None:
        """Moves to ``pos`` (``0 <= pos <= len``)."""
        self._items, self._base, self._failed = [], pos, None
        self._cur = iter(self._items)

    def state(self) -> dict[str, Any]:
        return {"pos": self.pos, "pins": self.view.pins()}

    def at_start(self) -> bool | None:
        return self.pos == 0

    def skip(self, count: int) -> int:
        pos = self.pos
        done = max(0, self.view.available(pos + max(0, count)) - pos)
        if done:
            self._items, self._base, self._failed = [], pos + done, None
            self._cur = iter(self._items)
            self._size = 1  # after a jump, read small blocks again (no read-ahead waste)
        return done

    @property
    def address(self) -> int:
        return self.pos - 1

    def refetch(self, address: int) -> Any:
        if address < 0 or self.view.available(address + 1) <= address:
            raise IndexError(f"address {address} lies outside the input's {self.length} "
                             "elements")
        return self.view[address]


def view_iter(view_of: Any, state: Fields | None) -> ViewIter:
    """A :class:`ViewIter` for a fresh iteration (``state=None``) or at ``state``
    (``{"pos", "pins"}``; the position is checked against the view's length).

    ``view_of(pins)`` makes the view (``pins``: ``Fields`` or None for a fresh
    iteration).

    Example:
        >>> view_iter(lambda pins: ListView([7, 8]), Fields({"pos": 1, "pins": None})).pos
        1
        >>> view_iter(lambda pins: ListView([7, 8]), Fields({"pos": 3, "pins": None}, "iterator"))
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'iterator.pos' should be an int in [0, 2], but got iterator.pos=3, outside the dataset's 2 elements; the state is damaged or was edited
    """
    state = as_fields(state)
    if state is None:
        return ViewIter(view_of(None))
    state.only("pos", "pins")
    pins = state.opt_nested("pins")
    view = view_of(pins)
    made = _json(view.pins())
    if made != _json(None if pins is None else pins.raw):
        raise state.bad("pins", f"{made!r} (the pins of the iteration they recreate)")
    pos = state.value("pos")
    if type(pos) is int and 0 <= pos and view.available(pos) == pos:  # measured up to pos only
        return ViewIter(view, pos)
    n = len(view)
    return ViewIter(view, state.int("pos", 0, n, within=f"the dataset's {n} elements"))


def _json(value: Any) -> Any:
    """``value`` as JSON would give it back (tuples as lists)."""
    return json.loads(json.dumps(value, default=repr))
