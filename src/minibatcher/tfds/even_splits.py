"""``tfds.even_splits`` and ``tfds.split_for_jax_process`` (TFDS's ``subsplits_utils``).

Example:
    >>> from minibatcher.tfds.split_info import SplitInfo
    >>> infos = {"train": SplitInfo("train", [10], 0)}
    >>> [s.to_absolute(infos)[0] for s in even_splits("train", 3)][1]
    AbsoluteInstruction(splitname='train', from_=4, to=7)
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from typing import Any, Mapping

from .splits import AbsoluteInstruction, AbstractSplit, ReadInstruction, SplitArg

__all__ = ["even_splits", "split_for_jax_process"]


@dataclasses.dataclass(frozen=True)
class _EvenSplit(AbstractSplit):
    """Part ``index`` of ``count`` equal parts of every ``+`` part of ``split``."""

    split: SplitArg
    index: int
    count: int
    drop_remainder: bool

    def to_absolute(self, split_infos: Mapping[str, Any]) -> list[AbsoluteInstruction]:
        parts = [self._part(a, split_infos)
                 for a in AbstractSplit.from_spec(self.split).to_absolute(split_infos)]
        return functools.reduce(operator.add, parts).to_absolute(split_infos)

    def _part(self, a: AbsoluteInstruction, split_infos: Mapping[str, Any]) -> ReadInstruction:
        start = a.from_ or 0
        end = split_infos[a.splitname].num_examples if a.to is None else a.to
        per, rest = divmod(end - start, self.count)
        lo, hi = start + per * self.index, start + per * (self.index + 1)
        if rest and not self.drop_remainder:
            lo += min(self.index, rest)
            hi += min(self.index + 1, rest)
        return ReadInstruction(a.splitname, from_=lo, to=hi, unit="abs")


def even_splits(split: SplitArg, n: int, *, drop_remainder: bool = False) -> list[AbstractSplit]:
    """``n`` disjoint parts of ``split`` of equal size (the first ``r`` parts
    get one more example unless ``drop_remainder``), each ``+`` part of
    ``split`` divided separately; parts combine with ``+`` and nest.

    Example:
        >>> from minibatcher.tfds.split_info import SplitInfo
        >>> infos = {"train": SplitInfo("train", [10], 0)}
        >>> [s.to_absolute(infos)[0].to for s in even_splits("train", 3, drop_remainder=True)]
        [3, 6, 9]
    """
    return [_EvenSplit(split, i, n, drop_remainder) for i in range(n)]


def split_for_jax_process(split: SplitArg, *, process_index: int | None = None,
                          process_count: int | None = None,
                          drop_remainder: bool = False) -> AbstractSplit:
    """This process's part: ``even_splits(split, process_count)[process_index]``
    (both default to JAX's ``jax.process_index()`` / ``jax.process_count()``,
    which need JAX).

    Example:
        >>> from minibatcher.tfds.split_info import SplitInfo
        >>> part = split_for_jax_process("train", process_index=1, process_count=2)
        >>> part.to_absolute({"train": SplitInfo("train", [9], 0)})
        [AbsoluteInstruction(splitname='train', from_=5, to=None)]
    """
    if process_index is None or process_count is None:
        try:
            import jax
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("split_for_jax_process needs JAX (pip install jax) unless "
                              "process_index= and process_count= are given") from e
        process_index = jax.process_index() if process_index is None else process_index
        process_count = jax.process_count() if process_count is None else process_count
    return even_splits(split, process_count, drop_remainder=drop_remainder)[process_index]
