"""Views: random access to one iteration of a dataset (the :class:`View`
protocol of docs/design/tfdata-state.md, and :class:`ListView` over a Python
sequence). A view defines ``len`` and ``view[i]``; block reads, gathers and
``available`` come with the protocol, and views over native data override them.

Example:
    >>> class Squares(View):
    ...     def __len__(self): return 4
    ...     def __getitem__(self, i): return i * i
    >>> s = Squares()
    >>> s.read(1, 3), s.gather(np.array([3, 0])).elements(), s.available(9)
    ([1, 4], [9, 0], 4)
"""

from __future__ import annotations

import abc
from typing import Any, Sequence

import numpy as np

from .block import Block, ListBlock


class View(abc.ABC):
    """Random access to one iteration of a dataset: ``len(view)`` elements,
    ``view[i]`` in O(1) (or amortized O(1)), ``pins()`` the JSON-able value
    that recreates this same iteration (the shuffle iterations inside it).

    The block path (docs/design/tfdata-blocks.md): ``block(start, stop)`` and
    ``gather(positions)`` return a :class:`~minibatcher.tfdata.block.Block` of
    the same elements; by default they call ``read``/``[i]`` (every view works
    unchanged), views over native data override them. ``block_limit`` is the
    most elements an iterator reads in one block.

    Example:
        >>> v = ListView([1, 2, 3])
        >>> len(v), v[2], v.read(0, 2), v.pins()
        (3, 3, [1, 2], None)
        >>> v.block(1, 3).elements(), v.gather(np.array([2, 0])).elements()
        ([2, 3], [3, 1])
    """

    block_limit = 64

    @abc.abstractmethod
    def __len__(self) -> int:
        """Number of elements."""

    @abc.abstractmethod
    def __getitem__(self, index: int) -> Any:
        """Element ``index`` (``0 <= index < len(self)``)."""

    def read(self, start: int, stop: int) -> list[Any]:
        """Elements ``start .. stop-1`` (override when a block read is cheaper)."""
        return [self[i] for i in range(start, stop)]

    def block(self, start: int, stop: int) -> Block:
        """Elements ``start .. stop-1`` as a block."""
        return ListBlock(self.read(start, stop))

    def gather(self, positions: np.ndarray) -> Block:
        """The elements at ``positions`` (any order, repeats allowed) as a block."""
        return ListBlock([self[i] for i in np.asarray(positions).tolist()])

    def pins(self) -> Any:
        """What recreates this iteration (None when the view has no randomness)."""
        return None

    def available(self, stop: int) -> int:
        """``min(stop, len(self))``; views over files read in order override it
        to measure only as far as ``stop`` (a TFRecord file is framed as it is
        read: its length is known at its end).

        Example:
            >>> ListView([1, 2, 3]).available(2), ListView([1, 2, 3]).available(9)
            (2, 3)
        """
        return min(stop, len(self))


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
