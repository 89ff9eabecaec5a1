"""The node protocol behind :class:`~minibatcher.tfdata.Dataset`: plans, views,
iterators and their states (docs/design/tfdata-state.md).

A dataset is an immutable *plan* node. Iterating it creates one internal
:class:`Iter` per node for one *iteration* (an epoch); its ``state()`` is a
small JSON-able cursor from which ``node._make_iter(state)`` rebuilds an
iterator at the same place; ``state`` arrives as
:class:`~minibatcher.state.Fields` (None: a fresh iteration), and every
field is validated (type, range, consistency with the plan) before anything
is restored, a bad one being a ``CheckpointError`` naming its path. Nodes
that can reach any element in O(1) also offer a :class:`View` (``len`` and ``view[i]`` for one iteration): views make
``skip``/``shard``/``take`` and restores seek instead of read, and let shuffle
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
from typing import Any, Mapping, Sequence

from ..errors import CheckpointError
from ..state import Fields, as_fields

INFINITE = -1
UNKNOWN = -2


class View(abc.ABC):
    """Random access to one iteration of a dataset: ``len(view)`` elements,
    ``view[i]`` in O(1) (or amortized O(1)), ``pins()`` the JSON-able value
    that recreates this same iteration (the shuffle iterations inside it).

    Example:
        >>> v = ListView([1, 2, 3])
        >>> len(v), v[2], v.read(0, 2), v.pins()
        (3, 3, [1, 2], None)
    """

    @abc.abstractmethod
    def __len__(self) -> int:
        """Number of elements."""

    @abc.abstractmethod
    def __getitem__(self, index: int) -> Any:
        """Element ``index`` (``0 <= index < len(self)``)."""

    def read(self, start: int, stop: int) -> list[Any]:
        """Elements ``start .. stop-1`` (override when a block read is cheaper)."""
        return [self[i] for i in range(start, stop)]

    def pins(self) -> Any:
        """What recreates this iteration (None when the view has no randomness)."""
        return None


class ListView(View):
    """A view over a Python sequence.

    Example:
        >>> len(ListView([1, 2])), ListView([1, 2])[1]
        (2, 2)
    """

    def __init__(self, items: Sequence[Any]) -> None:
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> Any:
        return self.items[index]

    def read(self, start: int, stop: int) -> list[Any]:
        return list(self.items[start:stop])


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

    @property
    def address(self) -> int:
        """The address of the last element returned (addressable iterators)."""
        raise TypeError(f"{type(self).__name__} is not addressable")

    def refetch(self, address: int) -> Any:
        """The element at ``address`` (addressable iterators)."""
        raise TypeError(f"{type(self).__name__} is not addressable")


class ViewIter(Iter):
    """Sequential reading of a view; state ``{"pos", "pins"}``; skip is O(1).

    Blocks grow from 1 to 64 elements, so a short read does little extra work.
    An element whose reading raises (an error in a map function, a batch of
    mismatched shapes) raises once and is consumed: the next call goes on with
    the next element, as TF's iterators do.

    Example:
        >>> it = ViewIter(ListView("abc"), 2)
        >>> next(it), it.state()
        ('c', {'pos': 3, 'pins': None})
    """

    addressable = True

    def __init__(self, view: View, pos: int = 0) -> None:
        self.view = view
        self._length = len(view)
        self.pos = pos
        self._block: list[Any] = []
        self._base = pos
        self._size = 1

    def __next__(self) -> Any:
        i = self.pos - self._base
        if i >= len(self._block) or i < 0:
            if self.pos >= self._length:
                raise StopIteration
            stop = min(self._length, self.pos + self._size)
            try:
                self._block = self.view.read(self.pos, stop)
            except Exception:
                self._block = []
                if stop - self.pos > 1:  # find the failing element: read one at a time
                    self._size = 1
                    return next(self)
                self.pos += 1  # the failing element is consumed: the next call goes on (as TF)
                raise
            self._base = self.pos
            self._size = min(self._size * 2, 64)
            i = 0
        self.pos += 1
        return self._block[i]

    def state(self) -> dict[str, Any]:
        return {"pos": self.pos, "pins": self.view.pins()}

    def skip(self, count: int) -> int:
        done = max(0, min(count, self._length - self.pos))
        self.pos += done
        if done:
            self._size = 1  # after a jump, read small blocks again (no read-ahead waste)
        return done

    @property
    def address(self) -> int:
        return self.pos - 1

    def refetch(self, address: int) -> Any:
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
    view = view_of(state.opt_nested("pins"))
    n = len(view)
    return ViewIter(view, state.int("pos", 0, n, within=f"the dataset's {n} elements"))


def inner_of(state: Fields | None) -> Fields | None:
    """The input's cursor in a pass-through cursor ``{"in": ...}`` (None: a fresh iteration).

    Example:
        >>> inner_of(Fields({"in": {"pos": 0, "pins": None}}, "iterator")).path
        'iterator.in'
    """
    return None if state is None else state.only("in").child("in")


def fetch_positions(iterator: Iter, positions: Any, what: str) -> dict[int, Any]:
    """The elements at ``positions`` (ascending) of a fresh ``iterator``; the gaps
    are skipped (O(1) over views, no reading), and the iterator is left after the
    last position.

    Example:
        >>> fetch_positions(ViewIter(ListView("abcdef")), [1, 4], "example")
        {1: 'b', 4: 'e'}
    """
    out: dict[int, Any] = {}
    at = 0
    for pos in positions:
        if iterator.skip(pos - at) != pos - at:
            raise CheckpointError(f"{what}: the input ended before element {pos} the checkpoint "
                                  "refers to; the data changed")
        try:
            out[pos] = next(iterator)
        except StopIteration:
            raise CheckpointError(f"{what}: the input ended before element {pos} the "
                                  "checkpoint refers to; the data changed") from None
        at = pos + 1
    return out


def clamp_count(count: int) -> int:
    """tf.data's count arguments: a negative count means "all" (-1).

    Example:
        >>> clamp_count(-5), clamp_count(3)
        (-1, 3)
    """
    return -1 if count < 0 else count
