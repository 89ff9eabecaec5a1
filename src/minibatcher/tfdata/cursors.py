"""Helpers on the cursors of :mod:`.core`'s iterators: whether iterators are at their
start, the input's cursor in a pass-through cursor, the state ``count`` elements
later, and the elements at given positions of a fresh iterator (a restore's reads).

Example:
    >>> from minibatcher.tfdata.core import ListView, ViewIter
    >>> it = ViewIter(ListView("abc"))
    >>> all_at_start(it), fetch_positions(it, [2], "x"), all_at_start(it)
    (True, {2: 'c'}, False)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import CheckpointError
from ..state import Fields

if TYPE_CHECKING:
    from .core import Iter

__all__ = ["all_at_start", "fetch_positions", "inner_of", "state_after"]


def all_at_start(*iters: Iter | None) -> bool | None:
    """Whether every iterator is at its start (False if one is not, None if one cannot tell).

    Example:
        >>> from minibatcher.tfdata.core import ListView, ViewIter
        >>> all_at_start(ViewIter(ListView([1]), 0), ViewIter(ListView([1]), 1))
        False
    """
    answers = [True if it is None else it.at_start() for it in iters]
    return False if False in answers else None if None in answers else True


def inner_of(state: Fields | None) -> Fields | None:
    """The input's cursor in a pass-through cursor ``{"in": ...}`` (None: a fresh iteration).

    Example:
        >>> inner_of(Fields({"in": {"pos": 0, "pins": None}}, "iterator")).path
        'iterator.in'
    """
    return None if state is None else state.only("in").child("in")


def state_after(node: Any, start: dict[str, Any], count: int) -> dict[str, Any]:
    """The state of ``node``'s iterator ``count`` elements after ``start`` (a state
    of it): a fresh iterator restored at ``start`` skips ``count``. The seed
    generators of the node's shuffles are left as they were. For an iterator
    that read ahead of what it handed out (rare: after an error in a block).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> state_after(Dataset.range(5).filter(lambda x: x > 1), {"in": {"pos": 0, "pins": None}}, 2)
        {'in': {'pos': 4, 'pins': None}}
    """
    generators, stack = [], [node]
    while stack:
        n = stack.pop()
        stack.extend(n._inputs())
        if hasattr(n, "iterations_started"):
            generators.append((n, n._generator_state()))
    try:
        it = node._make_iter(Fields(start))
        it.skip(count)
        return it.state()
    finally:
        for n, saved in generators:
            n._restore_generator(Fields(saved))


def fetch_positions(iterator: Iter, positions: Any, what: str) -> dict[int, Any]:
    """The elements at ``positions`` (ascending) of a fresh ``iterator``; the gaps
    are skipped (O(1) over views, no reading), and the iterator is left after the
    last position.

    Example:
        >>> from minibatcher.tfdata.core import ListView, ViewIter
        >>> fetch_positions(ViewIter(ListView("abcdef")), [1, 4], "example")
        {1: 'b', 4: 'e'}
    """
    out: dict[int, Any] = {}
    at = 0
    for pos in positions:
        if iterator.skip(pos - at) != pos - at:
            raise CheckpointError(f"{what}: the input ended before element {pos} the checkpoint "
                                  "refers to; the data changed or the state was edited")
        try:
            out[pos] = next(iterator)
        except StopIteration:
            raise CheckpointError(f"{what}: the input ended before element {pos} the "
                                  "checkpoint refers to; the data changed or the state was "
                                  "edited") from None
        at = pos + 1
    return out
