"""The base of the one-input ops: :class:`_Unary` (a node over one input dataset) and
:class:`_PassIter` (an iterator whose elements keep their input's addresses), and
:func:`is_random` (whether a plan holds a shuffle, so that its iterations differ).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> [isinstance(d, _Unary) for d in (Dataset.range(3), Dataset.range(3).map(abs))]
    [False, True]
"""

from __future__ import annotations

from typing import Any

from .core import Iter
from .dataset import Dataset

__all__ = ["is_random"]


class _Unary(Dataset):
    """A transformation of one input dataset."""

    def __init__(self, parent: Dataset) -> None:
        if not isinstance(parent, Dataset):
            raise TypeError(f"expected a Dataset, but got {type(parent).__name__}")
        self._parent = parent

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self._parent,)

    def _has_view(self) -> bool:
        return self._parent._has_view()


class _PassIter(Iter):
    """An iterator over one parent whose elements keep the parent's addresses."""

    def __init__(self, parent: Iter) -> None:
        self.parent = parent
        self.addressable = parent.addressable

    def at_start(self) -> bool | None:
        return self.parent.at_start()

    @property
    def address(self) -> int:
        return self.parent.address

    def refetch(self, address: int) -> Any:
        return self.parent.refetch(address)


def is_random(dataset: Dataset) -> bool:
    """Whether a shuffle lies in ``dataset``'s plan (iterations then differ).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> is_random(Dataset.range(3).map(abs)), is_random(Dataset.range(3).shuffle(2).batch(2))
        (False, True)
    """
    if getattr(dataset, "_random", False):
        return True
    return any(is_random(d) for d in dataset._inputs())
