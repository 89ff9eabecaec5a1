"""Split strings -> absolute ranges -> per-file instructions, with TFDS's
exact grammar, arithmetic, exception types and messages.

Three stages, each a frozen validated dataclass:
``'train[10%:20%]+test'`` -> :class:`ReadInstruction` s (relative) ->
:class:`AbsoluteInstruction` s (``[from_, to)`` per split) ->
:class:`FileInstruction` s (``filename, skip, take, examples_in_shard``).

Example:
    >>> infos = {"train": SplitInfo("train", (5, 5), ("t-0", "t-1"))}
    >>> [f.as_tuple() for f in file_instructions(infos, "train[3:7]")]
    [('t-0', 3, 2, 5), ('t-1', 0, 2, 5)]
"""

from __future__ import annotations

import dataclasses
import functools
import math
import operator
import re
from typing import Mapping, Sequence, Union

_SUB_SPEC_RE = re.compile(r"^(?P<split_name>[\w-]+)(\[(?P<split_selector>[\d\w%:.-]+)\])?$")
_SLICE_RE = re.compile(r"^((?P<val>-?[\d_.]+)(?P<unit>(?:%|shard))?)?$")
_ADDITION_SEP_RE = re.compile(r"\s*\+\s*")
_DOC = "https://www.tensorflow.org/datasets/splits"


@dataclasses.dataclass(frozen=True)
class SplitInfo:
    """A split's shards: ``shard_lengths[i]`` examples in ``filenames[i]``.

    Example:
        >>> SplitInfo("test", (2, 0, 3), ("a", "b", "c")).num_examples
        5
    """

    name: str
    shard_lengths: tuple[int, ...]
    filenames: tuple[str, ...]
    num_bytes: int = 0

    def __post_init__(self) -> None:
        if len(self.shard_lengths) != len(self.filenames):
            raise ValueError(f"split {self.name!r}: {len(self.shard_lengths)} shard lengths but "
                             f"{len(self.filenames)} file names")
        if any(not isinstance(n, int) or n < 0 for n in self.shard_lengths):
            raise ValueError(f"split {self.name!r}: shard lengths should be non-negative ints, "
                             f"but got {list(self.shard_lengths)}")

    @property
    def num_examples(self) -> int:
        """``sum(shard_lengths)``."""
        return sum(self.shard_lengths)

    @property
    def num_shards(self) -> int:
        """The number of files."""
        return len(self.shard_lengths)

    @property
    def file_instructions(self) -> list["FileInstruction"]:
        """One instruction per non-empty shard (the whole split).

        Example:
            >>> [f.as_tuple() for f in SplitInfo("t", (2, 0, 3), ("a", "b", "c")).file_instructions]
            [('a', 0, 2, 2), ('c', 0, 3, 3)]
        """
        return shard_file_instructions(0, self.num_examples, self.filenames, self.shard_lengths)


@dataclasses.dataclass(frozen=True)
class FileInstruction:
    """Read ``take`` examples of ``filename`` after skipping ``skip``.

    Example:
        >>> FileInstruction("f", 2, 3, 10).num_examples
        3
    """

    filename: str
    skip: int
    take: int
    examples_in_shard: int

    def __post_init__(self) -> None:
        if not (0 <= self.skip and 0 <= self.take
                and self.skip + self.take <= self.examples_in_shard):
            raise ValueError(f"a FileInstruction should satisfy 0 <= skip, 0 <= take and skip + "
                             f"take <= examples_in_shard, but got {self}")

    @property
    def num_examples(self) -> int:
        """The number of examples read (``take``)."""
        return self.take

    def as_tuple(self) -> tuple[str, int, int, int]:
        """``(filename, skip, take, examples_in_shard)``."""
        return (self.filename, self.skip, self.take, self.examples_in_shard)


@dataclasses.dataclass(frozen=True)
class AbsoluteInstruction:
    """Examples ``[from_, to)`` of one split (stage 2).

    Example:
        >>> AbsoluteInstruction("train", 3, 1).to
        1
    """

    splitname: str
    from_: int
    to: int

    def __post_init__(self) -> None:
        if self.from_ < 0 or self.to < 0:
            raise ValueError(f"absolute bounds should be non-negative, but got {self}")

    def __getitem__(self, i: int | slice) -> object:
        return (self.splitname, self.from_, self.to)[i]


SplitInfos = Mapping[str, SplitInfo]


class SubSplitInfo:
    """``info.splits['train[:10%]']``: the instructions of a split spec.

    Example:
        >>> SubSplitInfo([FileInstruction("f", 0, 3, 4)]).num_examples
        3
    """

    def __init__(self, instructions: list[FileInstruction]) -> None:
        self._file_instructions = instructions

    @property
    def num_examples(self) -> int:
        """Examples in the subsplit."""
        return sum(f.num_examples for f in self._file_instructions)

    @property
    def num_shards(self) -> int:
        """Files read."""
        return len(self._file_instructions)

    @property
    def file_instructions(self) -> list[FileInstruction]:
        """The per-file instructions.

        Example:
            >>> SubSplitInfo([FileInstruction("f", 1, 2, 4)]).file_instructions
            [FileInstruction(filename='f', skip=1, take=2, examples_in_shard=4)]
        """
        return self._file_instructions

    @property
    def filenames(self) -> list[str]:
        """The files read, sorted."""
        return sorted(f.filename for f in self._file_instructions)


class AbstractSplit:
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
            >>> infos = {"train": SplitInfo("train", (10,), ("t",))}
            >>> AbstractSplit.from_spec("train[2:-2]").to_absolute(infos)
            [AbsoluteInstruction(splitname='train', from_=2, to=8)]
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

    def to_absolute(self, split_infos: SplitInfos) -> list[AbsoluteInstruction]:
        """Stage 2: absolute ranges, one per ``+`` part."""
        raise NotImplementedError

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

    def to_absolute(self, split_infos: SplitInfos) -> list[AbsoluteInstruction]:
        return self.left.to_absolute(split_infos) + self.right.to_absolute(split_infos)


class _SplitAll(AbstractSplit):
    """Every split, in the order of the dataset's splits."""

    def __repr__(self) -> str:
        return "ReadInstruction('all')"

    def to_absolute(self, split_infos: SplitInfos) -> list[AbsoluteInstruction]:
        return AbstractSplit.from_spec("+".join(split_infos)).to_absolute(split_infos)


@dataclasses.dataclass(frozen=True)
class ReadInstruction(AbstractSplit):
    """``tfds.core.ReadInstruction``: a slice of one split (stage 1).

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
        from_ = "" if self.from_ is None else f"{_fmt(self.from_)}{unit}"
        to = "" if self.to is None else f"{_fmt(self.to)}{unit}"
        sl = "" if self.from_ is None and self.to is None else f"[{from_}:{to}]"
        rounding = f", rounding={self.rounding!r}" if self.unit == "%" else ""
        return f"ReadInstruction('{self.split_name}{sl}'{rounding})"

    def to_absolute(self, split_infos: SplitInfos) -> list[AbsoluteInstruction]:
        return [_rel_to_abs(self, split_infos)]


def _fmt(v: int | float) -> int | float:
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _str_to_relative_instruction(spec: str) -> AbstractSplit:
    res = _SUB_SPEC_RE.match(spec)
    err_msg = f"Unrecognized split format: {spec!r}. See format at {_DOC}"
    if not res:
        raise ValueError(err_msg)
    name, selector = res.group("split_name"), res.group("split_selector")
    if name == "all":
        if selector:
            raise NotImplementedError(f"{name!r} does not support slice. Please open a github "
                                      "issue if you need this feature.")
        return _SplitAll()
    from_: str | None = None
    to: str | int | None = None
    unit = "abs"
    if selector is not None:
        slices = [_SLICE_RE.match(x) for x in selector.split(":")]
        if not all(slices) or not any(m.group(0) for m in slices):  # type: ignore[union-attr]
            raise ValueError(err_msg)
        if len(slices) == 1:
            from_, unit = slices[0]["val"], slices[0]["unit"] or "abs"  # type: ignore[index]
            if unit != "shard":
                raise ValueError("Absolute or percent only support slice syntax.")
            to = int(from_) + 1  # type: ignore[arg-type]
        elif len(slices) == 2:
            (f, t) = slices
            from_, to = f["val"], t["val"]  # type: ignore[index]
            unit = f["unit"] or t["unit"] or "abs"  # type: ignore[index]
        else:
            raise ValueError(err_msg)
    cast = float if unit == "%" else int
    return ReadInstruction(name, from_=None if from_ is None else cast(from_),
                           to=None if to is None else cast(to), unit=unit, rounding="closest")


def _pct_to_abs_pct1(boundary: float, num_examples: int) -> int:
    if num_examples < 100:
        raise ValueError('Using "pct1_dropremainder" rounding on a split with less than 100 '
                         "elements is forbidden: it always results in an empty dataset.")
    return int(boundary * math.trunc(num_examples / 100.0))


def _pct_to_abs_closest(boundary: float, num_examples: int) -> int:
    return int(round(boundary * num_examples / 100.0))


def _rel_to_abs(instr: ReadInstruction, split_infos: SplitInfos) -> AbsoluteInstruction:
    split = instr.split_name
    if split not in split_infos:
        raise ValueError(f"Unknown split {split!r}. Should be one of {list(split_infos)}.")
    n = split_infos[split].num_examples
    from_, to = instr.from_, instr.to
    if instr.unit == "%":
        pct = _pct_to_abs_closest if instr.rounding == "closest" else _pct_to_abs_pct1
        from_ = 0 if from_ is None else pct(from_, n)
        to = n if to is None else pct(to, n)
    elif instr.unit == "shard":
        lengths = split_infos[split].shard_lengths
        from_ = 0 if from_ is None else sum(lengths[:int(from_)])
        if to is not None and to <= 0:
            to = len(lengths) + int(to)
        to = n if to is None else sum(lengths[:int(to)])
    else:
        from_ = 0 if from_ is None else from_
        to = n if to is None else to
    if abs(from_) > n or abs(to) > n:
        raise ValueError(f"Requested slice [{from_ or ''}:{to or ''}] incompatible with "
                         f"{n} examples.")
    return AbsoluteInstruction(split, int(from_ + n if from_ < 0 else from_),
                               int(to + n if to < 0 else to))


def shard_file_instructions(from_: int, to: int, filenames: Sequence[str],
                            shard_lengths: Sequence[int]) -> list[FileInstruction]:
    """Stage 3: the per-file skip/take of examples ``[from_, to)``.

    Example:
        >>> [f.as_tuple() for f in shard_file_instructions(1, 6, ["a", "b", "c"], [3, 0, 4])]
        [('a', 1, 2, 3), ('c', 0, 3, 4)]
    """
    out, pos = [], 0
    for filename, length in zip(filenames, shard_lengths):
        if not length:
            continue
        end = pos + length
        if from_ < end and to > pos:
            skip = max(from_ - pos, 0)
            take = (to - pos - skip) if to < end else (length - skip)
            if take > 0:
                out.append(FileInstruction(filename, skip, take, length))
        pos = end
    return out


def file_instructions(split_infos: SplitInfos, split: SplitArg) -> list[FileInstruction]:
    """All three stages: the file instructions of ``split``.

    Example:
        >>> infos = {"train": SplitInfo("train", (4, 4), ("a", "b")),
        ...          "test": SplitInfo("test", (2,), ("t",))}
        >>> [f.as_tuple() for f in file_instructions(infos, "train[-25%:]+test")]
        [('b', 2, 2, 4), ('t', 0, 2, 2)]
    """
    out = []
    for instr in AbstractSplit.from_spec(split).to_absolute(split_infos):
        info = split_infos[instr.splitname]
        if not info.num_examples:
            raise ValueError("Shard empty. This might means that dataset hasn't been generated "
                             "yet and info not restored from GCS, or that legacy dataset is used.")
        out += shard_file_instructions(instr.from_, instr.to, info.filenames, info.shard_lengths)
    return out
