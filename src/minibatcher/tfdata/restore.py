"""Consistency checks for cursors that refer to elements of their input.

Buffering ops (``interleave``, ``group_by_window``, ``shuffle`` without a
view) checkpoint *references* to the input elements they hold: addresses
(positions in the nearest view below) or ordinals (the n-th element they
read). A restore checks each reference against the input's own restored
cursor before anything is read: an address must be one the input has
already delivered (below a view read from its start: exactly the ordinal),
an ordinal one of the elements taken, an "input exhausted" flag must agree
with the input. A bad reference is a ``CheckpointError`` naming its field.

Example:
    >>> from minibatcher.state import Fields
    >>> from .core import ListView, ViewIter
    >>> refs = InputRefs(ViewIter(ListView("abcd"), 3), taken=3)
    >>> cursor = Fields({"address": 4}, "iterator.slots[0]")
    >>> refs.address(cursor, "address", ordinal=1)
    Traceback (most recent call last):
    ...
    minibatcher.errors.CheckpointError: checkpoint state field 'iterator.slots[0].address' should be 1 (the address of input element 1), but got iterator.slots[0].address=4; the state is damaged or was edited
"""

from __future__ import annotations

from typing import Any

from ..state import Fields
from .core import Iter, ViewIter


class InputRefs:
    """References into an op's input iterator ``input`` (restored at its
    cursor) after the op has taken ``taken`` elements from it.

    Example:
        >>> from .core import ListView, ViewIter
        >>> refs = InputRefs(ViewIter(ListView("abcd"), 2), taken=2)
        >>> refs.fetch(Fields({"a": 1}), "a")
        'b'
    """

    def __init__(self, input: Iter, taken: int) -> None:
        self.input, self.taken = input, taken
        self.dense = isinstance(input, ViewIter)  # read from its start: address == ordinal
        self.last = input.address if input.addressable and taken else -1

    def check_taken(self, state: Fields, key: str) -> None:
        """Below a view, the op took exactly as many elements as the input delivered.

        Example:
            >>> from .core import ListView, ViewIter
            >>> InputRefs(ViewIter(ListView("abcd"), 2), taken=3).check_taken(
            ...     Fields({"taken": 3}), "taken")
            Traceback (most recent call last):
            ...
            minibatcher.errors.CheckpointError: checkpoint state field 'taken' should be 2 (the elements its input delivered), but got taken=3; the state is damaged or was edited
        """
        if self.dense and self.input.pos != self.taken:  # type: ignore[attr-defined]
            raise state.bad(key, f"{self.input.pos} (the elements its input "  # type: ignore
                            "delivered)")

    def address(self, fields: Fields, key: Any, ordinal: int | None = None) -> int:
        """An address field: one the input delivered (``ordinal``'s own, below a view)."""
        if self.dense and ordinal is not None:
            value = fields.int(key)
            if value != ordinal:
                raise fields.bad(key, f"{ordinal} (the address of input element {ordinal})")
            return value
        within = "the addresses its input delivered"
        return fields.int(key, 0, max(self.last, 0), within) if self.last >= 0 else \
            fields.int(key, 0, -1, "the addresses of an input that delivered nothing")

    def fetch(self, fields: Fields, key: Any) -> Any:
        """The input element at the address in field ``key`` (checked by the input:
        an address its filters reject is refused)."""
        address = fields.int(key, 0)
        try:
            return self.input.refetch(address)
        except IndexError as e:
            raise fields.bad(key, "the address of an element of the input", str(e)) from None

    def check_exhausted(self, state: Fields, key: str, exhausted: bool) -> None:
        """A cursor that says its input ended: the input must have no element left
        (one element is read to know; the input is not read again after it ended)."""
        if not exhausted:
            return
        try:
            next(self.input)
        except StopIteration:
            return
        raise state.bad(key, "False (its input has more elements)")


def exhausted_probe(input: Iter, state: Fields, key: str) -> None:
    """Refuses ``state[key]`` = True when ``input`` has an element left.

    Example:
        >>> from .core import ListView, ViewIter
        >>> exhausted_probe(ViewIter(ListView("ab"), 2), Fields({"done": True}), "done")
    """
    InputRefs(input, 0).check_exhausted(state, key, True)


def start_of(parent: Any, state: Fields) -> Iter:
    """The input's iterator at ``state["in0"]``, the input's cursor when the
    iteration began (what replays start from); refused unless it is at its start.

    Example:
        >>> from .core import ListView, view_iter
        >>> start_of(type("D", (), {"_make_iter": lambda self, s: view_iter(
        ...     lambda p: ListView("ab"), s)})(), Fields({"in0": {"pos": 1, "pins": None}}))
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'in0' should be the input's cursor when the iteration began (nothing read), but got in0={'pos': 1, 'pins': None}; the state is damaged or was edited
    """
    start = parent._make_iter(state.child("in0"))
    if start.at_start() is False:
        raise state.bad("in0", "the input's cursor when the iteration began (nothing read)")
    return start


def check_moved(state: Fields, key: str, moved: bool, input: Iter, ended: bool = False) -> None:
    """Field ``key`` says whether the op has read from ``input`` (``moved``);
    the input's own cursor must agree. An input that moved although the op
    took nothing (or that must have ended: ``ended``) has ended: one element
    is read to know, the input is not read again after its end.

    Example:
        >>> from .core import ListView, ViewIter
        >>> check_moved(Fields({"consumed": 2}, "it"), "consumed", True, ViewIter(ListView("ab")))
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'it.consumed' should be consistent with its input's cursor (at its start, nothing read), but got it.consumed=2; the state is damaged or was edited
    """
    start = input.at_start()
    if moved and start is True:
        raise state.bad(key, "consistent with its input's cursor (at its start, nothing read)")
    if (not moved or ended) and start is False:
        try:
            next(input)
        except StopIteration:
            return
        raise state.bad(key, "consistent with its input's cursor (moved on, not ended)")


def distinct(values: list[int], fields: list[tuple[Fields, Any]], what: str) -> None:
    """Refuses a value that appears twice (naming its second field).

    Example:
        >>> distinct([1, 1], [(Fields({"o": 1}, "s0"), "o"), (Fields({"o": 1}, "s1"), "o")],
        ...          "ordinal")
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 's1.o' should be an ordinal no other reference holds, but got s1.o=1; the state is damaged or was edited
    """
    seen: set[int] = set()
    for value, (f, key) in zip(values, fields):
        if value in seen:
            raise f.bad(key, f"an {what} no other reference holds")
        seen.add(value)


def check_iterations(generators: list[Any], saved: list[Fields]) -> None:
    """After a restore: every iteration a cursor of a random node reads was
    started, so it is below the node's saved count (``shuffles[i].started``).
    (Several may be open: the input of an op's start cursor ``in0`` and its
    current one, or the epochs a fused shuffle-repeat has started ahead.)

    Example:
        >>> class Node: _restored, iterations_started = {3: "iterator.pins.k"}, 3
        >>> check_iterations([Node()], [Fields({"started": 3}, "shuffles[0]")])
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'shuffles[0].started' should be at least 4 (iterator.pins.k=3 is an iteration it started), but got shuffles[0].started=3; the state is damaged or was edited
    """
    for i, node in enumerate(generators):
        restored = [(k, path) for k, path in (node._restored or {}).items() if isinstance(k, int)]
        if restored:
            k, path = max(restored)
            if node.iterations_started <= k:
                raise saved[i].bad("started", f"at least {k + 1} ({path}={k} is an iteration "
                                   "it started)")
        following = (node._restored or {}).get("next")  # a repeated order's next repetition
        if following is not None and node.iterations_started != following[0]:
            raise saved[i].bad("started", f"{following[0]} (the iteration the next repetition "
                               f"of {following[1]} takes: its repetitions take consecutive "
                               "iterations)")
