"""``tfds.core.splits``: split strings -> absolute ranges, with TFDS's exact grammar,
arithmetic, exception types and messages.

``'train[10%:20%]+test'`` parses into :class:`ReadInstruction` s (relative bounds), which
``to_absolute(split_infos)`` turns into :class:`AbsoluteInstruction` s: ``[from_, to)`` of one
split, an open end being ``None`` as in TFDS. :mod:`~minibatcher.tfds.split_info` cuts those into
per-file :class:`FileInstruction` s.

Example:
    >>> from minibatcher.tfds.split_info import SplitInfo
    >>> infos = {"train": SplitInfo("train", [5, 5], 0)}
    >>> AbstractSplit.from_spec("train[3:-2]").to_absolute(infos)
    [AbsoluteInstruction(splitname='train', from_=3, to=8)]
    >>> AbstractSplit.from_spec("train[:10%]+train[90%:]").to_absolute(infos)
    [AbsoluteInstruction(splitname='train', from_=None, to=1), AbsoluteInstruction(splitname='train', from_=9, to=None)]
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import math
import operator
import re
from typing import Any, Mapping, Union

from .shard_utils import FileInstruction

_SUB_SPEC_RE = re.compile(r"^(?P<split_name>[\w-]+)(\[(?P<split_selector>[\d\w%:.-]+)\])?$")
_SLICE_RE = re.compile(r"^((?P<val>-?[\d_.]+)(?P<unit>(?:%|shard))?)?$")
_ADDITION_SEP_RE = re.compile(r"\s*\+\s*")
_DOC = "https://www.tensorflow.org/datasets/splits"

__all__ = ["AbsoluteInstruction", "AbstractSplit", "FileInstruction", "ReadInstruction", "Split",
           "SplitArg"]


class Split(str):
    """``tfds.Split``: the usual split names (``TRAIN``, ``TEST``, ``VALIDATION``,
    ``ALL``); a ``str`` wherever a split name is expected.

    Example:
        >>> Split.TRAIN, Split.TRAIN == "train"
        (Split('train'), True)
    """

    TRAIN: "Split"
    TEST: "Split"
    VALIDATION: "Split"
    ALL: "Split"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({super().__repr__()})"


Split.TRAIN = Split("train")
Split.TEST = Split("test")
Split.VALIDATION = Split("validation")
Split.ALL = Split("all")


@dataclasses.dataclass(frozen=True)
class AbsoluteInstruction:
    """Examples ``[from_, to)`` of one split; ``from_=None`` is the start and
    ``to=None`` the end of the split (TFDS's ``_AbsoluteInstruction``).

    Example:
        >>> AbsoluteInstruction("train", None, 4).to_absolute({})
        [AbsoluteInstruction(splitname='train', from_=None, to=4)]
    """

    splitname: str
    from_: int | None
    to: int | None

    def to_absolute(self, split_infos: Any) -> list["AbsoluteInstruction"]:
        """Itself: it is already absolute."""
        return [self]


class AbstractSplit(abc.ABC):
    """A split expression; ``+`` concatenates two of them.

    Example:
        >>> AbstractSplit.from_spec("train[:10%] + test")
        ReadInstruction('train[:10%]', rounding='closest')+ReadInstruction('test')
    """

    @classmethod
    def from_spec(cls, spec: "SplitArg") -> "AbstractSplit":
        """Parses a split string (``AbstractSplit`` s pass through): TFDS's
        grammar, ``name[from:to]`` in examples, ``%`` or ``shard`` units,
        parts joined by ``+``.

        Example:
            >>> AbstractSplit.from_spec("train[-2shard:]")
            ReadInstruction('train[-2shard:]')
            >>> AbstractSplit.from_spec("train[10]")
            Traceback (most recent call last):
            ...
            ValueError: Error parsing split 'train[10]'. ...
        """
        if isinstance(spec, AbstractSplit):
            return spec
        spec = str(spec)
        subs = _ADDITION_SEP_RE.split(spec)
        if not subs:
            raise ValueError(f"No instructions could be built out of {spec!r}")
        try:
            instructions = [_str_to_relative_instruction(s) for s in subs]
        except (ValueError, NotImplementedError) as e:
            raise type(e)(f"Error parsing split {spec!r}. See format at: {_DOC}\n{e}") from None
        return functools.reduce(operator.add, instructions)

    @abc.abstractmethod
    def to_absolute(self, split_infos: Mapping[str, Any]) -> list[AbsoluteInstruction]:
        """Absolute ranges, one per ``+`` part (``split_infos``: name -> info)."""

    def __add__(self, other: "SplitArg") -> "AbstractSplit":
        if not isinstance(other, (str, AbstractSplit)):
            raise TypeError(f"Adding split {self!r} with non-split value: {other!r}")
        return _SplitAdd(self, AbstractSplit.from_spec(other))


SplitArg = Union[str, AbstractSplit]


@dataclasses.dataclass(frozen=True)
class _SplitAdd(AbstractSplit):
    left: AbstractSplit
    right: AbstractSplit

    def __repr__(self) -> str:
        return f"{self.left!r}+{self.right!r}"

    def to_absolute(self, split_infos: Mapping[str, Any]) -> list[AbsoluteInstruction]:
        return self.left.to_absolute(split_infos) + self.right.to_absolute(split_infos)


class _SplitAll(AbstractSplit):
    """Every split, in the order of the dataset's splits."""

    def __repr__(self) -> str:
        return "ReadInstruction('all')"

    def to_absolute(self, split_infos: Mapping[str, Any]) -> list[AbsoluteInstruction]:
        return AbstractSplit.from_spec("+".join(split_infos.keys())).to_absolute(split_infos)


@dataclasses.dataclass(frozen=True)
class ReadInstruction(AbstractSplit):
    """``tfds.core.ReadInstruction``: a slice of one split.

    ``unit`` is ``'%'``, ``'abs'`` or ``'shard'``; ``rounding`` (for ``%``)
    is ``'closest'`` or ``'pct1_dropremainder'``.

    Example:
        >>> ReadInstruction("train", from_=-10, unit="%", rounding="pct1_dropremainder")
        ReadInstruction('train[-10%:]', rounding='pct1_dropremainder')
        >>> ReadInstruction("train", to=101, unit="%")
        Traceback (most recent call last):
        ...
        ValueError: When unit=%, percent slice boundaries should be in [-100, 100]. Got: ...
    """

    split_name: str
    from_: int | float | None = None
    to: int | float | None = None
    unit: str = "abs"
    rounding: str = "closest"

    def __post_init__(self) -> None:
        allowed_units, allowed_rounding = ["%", "abs", "shard"], ["closest", "pct1_dropremainder"]
        if self.unit not in allowed_units:
            raise ValueError(f"Unit should be one of {allowed_units}. Got {self.unit!r}")
        if self.rounding not in allowed_rounding:
            raise ValueError(f"Rounding should be one of {allowed_rounding}. "
                             f"Got: {self.rounding!r}")
        if self.unit == "%" and (abs(self.from_ or 0) > 100 or abs(self.to or 0) > 100):
            raise ValueError(f"When unit=%, percent slice boundaries should be in [-100, 100]. "
                             f"Got: {self}")

    def __repr__(self) -> str:
        unit = "" if self.unit == "abs" else self.unit
        from_ = "" if self.from_ is None else f"{self.from_:g}{unit}"
        to = "" if self.to is None else f"{self.to:g}{unit}"
        sl = "" if self.from_ is None and self.to is None else f"[{from_}:{to}]"
        rounding = f", rounding={self.rounding!r}" if self.unit == "%" else ""
        return f"ReadInstruction('{self.split_name}{sl}'{rounding})"

    def to_absolute(self, split_infos: Mapping[str, Any]) -> list[AbsoluteInstruction]:
        return [_rel_to_abs(self, split_infos)]


def _selector(spec: str, selector: str) -> tuple[str | None, str | int | None, str]:
    """``from``, ``to`` and unit of ``name[selector]``."""
    err_msg = f"Unrecognized split format: {spec!r}. See format at {_DOC}"
    slices = [_SLICE_RE.match(x) for x in selector.split(":")]
    if not all(slices) or not any(m.group(0) for m in slices if m is not None):
        raise ValueError(err_msg)
    if len(slices) == 1:
        from_, unit = slices[0]["val"], slices[0]["unit"] or "abs"  # type: ignore[index]
        if unit != "shard":
            raise ValueError("Absolute or percent only support slice syntax.")
        return from_, int(from_) + 1, unit
    if len(slices) == 2:
        f, t = slices
        return f["val"], t["val"], f["unit"] or t["unit"] or "abs"  # type: ignore[index]
    raise ValueError(err_msg)


def _str_to_relative_instruction(spec: str) -> AbstractSplit:
    res = _SUB_SPEC_RE.match(spec)
    if not res:
        raise ValueError(f"Unrecognized split format: {spec!r}. See format at {_DOC}")
    name, selector = res.group("split_name"), res.group("split_selector")
    if name == "all":
        if selector:
            raise NotImplementedError(f"{name!r} does not support slice. Please open a github "
                                      "issue if you need this feature.")
        return _SplitAll()
    from_, to, unit = (None, None, "abs") if selector is None else _selector(spec, selector)
    cast = float if unit == "%" else int
    return ReadInstruction(name, from_=None if from_ is None else cast(from_),
                           to=None if to is None else cast(to), unit=unit, rounding="closest")


def _pct_to_abs_pct1(boundary: float, num_examples: int) -> Any:
    if num_examples < 100:
        raise ValueError('Using "pct1_dropremainder" rounding on a split with less than 100 '
                         "elements is forbidden: it always results in an empty dataset.")
    return boundary * math.trunc(num_examples / 100.0)


def _pct_to_abs_closest(boundary: float, num_examples: int) -> int:
    return int(round(boundary * num_examples / 100.0))


def _bounds(instr: ReadInstruction, info: Any) -> tuple[Any, Any]:
    """The instruction's bounds in examples (still possibly negative)."""
    n, from_, to = info.num_examples, instr.from_, instr.to
    if instr.unit == "%":
        pct = _pct_to_abs_closest if instr.rounding == "closest" else _pct_to_abs_pct1
        return (0 if from_ is None else pct(from_, n)), (n if to is None else pct(to, n))
    if instr.unit == "shard":
        lengths = info.shard_lengths
        start = 0 if from_ is None else sum(lengths[:from_])
        if to is not None and to <= 0:
            to = len(lengths) + to
        return start, (n if to is None else sum(lengths[:to]))
    return (0 if from_ is None else from_), (n if to is None else to)


def _rel_to_abs(instr: ReadInstruction, split_infos: Mapping[str, Any]) -> AbsoluteInstruction:
    split = instr.split_name
    if split not in split_infos:
        raise ValueError(f"Unknown split {split!r}. Should be one of {list(split_infos)}.")
    n = split_infos[split].num_examples
    from_, to = _bounds(instr, split_infos[split])
    if abs(from_) > n or abs(to) > n:
        raise ValueError(f"Requested slice [{from_ or ''}:{to or ''}] incompatible with "
                         f"{n} examples.")
    from_ = n + from_ if from_ < 0 else (None if from_ == 0 else from_)
    to = n + to if to < 0 else (None if to == n else to)
    return AbsoluteInstruction(split, from_, to)
