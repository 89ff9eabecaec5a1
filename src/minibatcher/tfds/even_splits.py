"""``tfds.even_splits`` and ``tfds.split_for_jax_process``.

Example:
    >>> infos = {"train": SplitInfo("train", (10,), ("t",))}
    >>> [s.to_absolute(infos)[0][1:] for s in even_splits("train", 3)]
    [(0, 4), (4, 7), (7, 10)]
"""

from __future__ import annotations

import dataclasses

from .splits import AbsoluteInstruction, AbstractSplit, SplitArg, SplitInfo, SplitInfos

__all__ = ["even_splits", "split_for_jax_process", "SplitInfo"]


@dataclasses.dataclass(frozen=True)
class _EvenSplit(AbstractSplit):
    """Part ``index`` of ``n`` equal parts of every ``+`` part of ``split``."""

    split: AbstractSplit
    index: int
    n: int
    drop_remainder: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.n, int) or self.n <= 0:
            raise ValueError(f"n should be > 0. Got {self.n}")
        if not 0 <= self.index < self.n:
            raise ValueError(f"index should be in [0, {self.n}). Got {self.index}")

    def __repr__(self) -> str:
        return f"even_splits({self.split!r}, n={self.n})[{self.index}]"

    def to_absolute(self, split_infos: SplitInfos) -> list[AbsoluteInstruction]:
        out = []
        for a in self.split.to_absolute(split_infos):
            size = a.to - a.from_
            k, r = divmod(size, self.n)
            lo, hi = a.from_ + k * self.index, a.from_ + k * (self.index + 1)
            if r and not self.drop_remainder:
                lo += min(self.index, r)
                hi += min(self.index + 1, r)
            out.append(AbsoluteInstruction(a.splitname, lo, hi))
        return out


def even_splits(split: SplitArg, n: int, *, drop_remainder: bool = False) -> list[AbstractSplit]:
    """``n`` disjoint parts of ``split`` of equal size (the first ``r`` parts
    get one more example unless ``drop_remainder``).

    Example:
        >>> infos = {"train": SplitInfo("train", (10,), ("t",))}
        >>> [s.to_absolute(infos)[0][1:] for s in even_splits("train", 3, drop_remainder=True)]
        [(0, 3), (3, 6), (6, 9)]
        >>> even_splits("train", 0)
        Traceback (most recent call last):
        ...
        ValueError: n should be > 0. Got 0
    """
    base = AbstractSplit.from_spec(split)
    if not isinstance(n, int) or n <= 0:
        raise ValueError(f"n should be > 0. Got {n}")
    return [_EvenSplit(base, i, n, drop_remainder) for i in range(n)]


def split_for_jax_process(split: SplitArg, *, drop_remainder: bool = False) -> AbstractSplit:
    """This JAX process's part: ``even_splits(split, process_count)[process_index]``
    (needs JAX; ``even_splits(split, n)[i]`` chooses a part without it).

    Example:
        >>> infos = {"train": SplitInfo("train", (10,), ("t",))}
        >>> part = split_for_jax_process("train")  # one process here: all of it
        >>> part, part.to_absolute(infos)[0][1:]
        (even_splits(ReadInstruction('train'), n=1)[0], (0, 10))
    """
    try:
        import jax
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("split_for_jax_process needs JAX (pip install jax); use "
                          "even_splits(split, n)[i] to choose the part yourself") from e
    return even_splits(split, jax.process_count(), drop_remainder=drop_remainder)[
        jax.process_index()]
