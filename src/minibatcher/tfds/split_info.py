"""``info.splits``: :class:`SplitInfo` (a split's shards), :class:`MultiSplitInfo` (a split
spread over several folders), :class:`SubSplitInfo` (a split spec's file instructions) and
:class:`SplitDict`, with TFDS's fields, lists and file instruction rules.

Example:
    >>> from minibatcher.tfds.naming import ShardedFileTemplate
    >>> t = ShardedFileTemplate(data_dir="/data", dataset_name="ds", filetype_suffix="tfrecord")
    >>> splits = SplitDict([SplitInfo("train", [5, 0, 5], 100, t)])
    >>> sub = splits["train[:90%]"]
    >>> sub.num_examples, sub.shard_lengths, sub.filenames
    (9, [5, 4], ['ds-train.tfrecord-00000-of-00003', 'ds-train.tfrecord-00002-of-00003'])
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..args import is_int
from .file_adapters import FileFormat
from .naming import DEFAULT_FILENAME_TEMPLATE, ShardedFileTemplate
from .proto import SplitInfoProto
from .shard_utils import FileInstruction, get_file_instructions
from .splits import AbsoluteInstruction, AbstractSplit, SplitArg


@dataclasses.dataclass(eq=False, frozen=True)
class SplitInfo:
    """A split: ``shard_lengths[i]`` examples in shard ``i``, the shards named by
    ``filename_template`` (whose ``split`` becomes ``name``).

    Example:
        >>> s = SplitInfo("test", [2, 0, 3], 0, ShardedFileTemplate("/d", dataset_name="x",
        ...                                                         filetype_suffix="tfrecord"))
        >>> s, s.num_examples, s.file_instructions[1]
        (<SplitInfo num_examples=5, num_shards=3>, 5, FileInstruction(filename='/d/x-test.tfrecord-00002-of-00003', skip=0, take=3, examples_in_shard=3))
    """

    name: str
    shard_lengths: list[int]
    num_bytes: int
    filename_template: ShardedFileTemplate | None = None

    def __post_init__(self) -> None:
        template = self.filename_template
        if template is not None and template.split and self.name != template.split:
            raise ValueError(f"Split name {self.name} must be equal to split name in template "
                             f"{template.split}")
        if template is not None and not template.split:
            object.__setattr__(self, "filename_template", template.replace(split=self.name))
        if not all(is_int(n) and n >= 0 for n in self.shard_lengths):
            raise ValueError(f"split {self.name!r}: shard lengths should be non-negative ints, "
                             f"but got {list(self.shard_lengths)}")
        object.__setattr__(self, "shard_lengths", [int(n) for n in self.shard_lengths])

    @property
    def num_examples(self) -> int:
        """``sum(shard_lengths)``."""
        return sum(self.shard_lengths)

    @property
    def num_shards(self) -> int:
        """``len(shard_lengths)``."""
        return len(self.shard_lengths)

    def __repr__(self) -> str:
        return f"<SplitInfo num_examples={self.num_examples or 'unknown'}, " \
               f"num_shards={self.num_shards}>"

    @property
    def file_instructions(self) -> list[FileInstruction]:
        """One instruction per non-empty shard (the whole split)."""
        return make_file_instructions([self], str(self.name))

    def _template(self) -> ShardedFileTemplate:
        if not self.filename_template:
            raise ValueError("No filename templates available.")
        return self.filename_template

    @property
    def filenames(self) -> list[str]:
        """The shard file names (without folder), sorted."""
        return sorted(self._template().sharded_filenames(self.num_shards))

    @property
    def filepaths(self) -> list[Path]:
        """The shard paths, sorted."""
        return sorted(self._template().sharded_filepaths(self.num_shards))

    def replace(self, **kwargs: Any) -> "SplitInfo":
        """A copy with some fields changed."""
        return dataclasses.replace(self, **kwargs)

    def file_spec(self, file_format: str | FileFormat) -> str | None:
        """``/path/ds-split.<suffix>@<num_shards>`` (None without a template)."""
        fmt = FileFormat.from_value(file_format)
        if self.filename_template is None:
            return None
        if self.filename_template.filetype_suffix != fmt.file_suffix:
            raise ValueError(f"File format {fmt} does not match filename template "
                             f"{self.filename_template}.")
        return self.filename_template.sharded_filepaths_pattern(num_shards=self.num_shards)

    def get_available_shards(self, data_dir: Path | None = None,
                             file_format: str | FileFormat | None = None,
                             strict_matching: bool = True) -> list[Path]:
        """The shard files present in ``data_dir`` (the template's folder by
        default); ``strict_matching`` wants this split's number of shards."""
        template = self._template() if self.filename_template else None
        if template is None:
            raise ValueError(f"Filename template for split {self.name} is empty.")
        if file_format:
            template = template.replace(
                filetype_suffix=FileFormat.from_value(file_format).file_suffix)
        folder = Path(data_dir or template.data_dir)
        pattern = template.glob_pattern(num_shards=self.num_shards) if strict_matching else \
            template.sharded_filepaths_pattern(num_shards=None)
        return sorted(folder.glob(os.path.relpath(pattern, template.data_dir)))

    @classmethod
    def from_proto(cls, proto: SplitInfoProto, filename_template: ShardedFileTemplate
                   ) -> "SplitInfo":
        """From a ``dataset_info.json`` split entry."""
        return cls(proto.name, list(proto.shard_lengths), proto.num_bytes,
                   filename_template.replace(split=proto.name, template=proto.filepath_template))

    def to_proto(self) -> SplitInfoProto:
        """The ``dataset_info.json`` split entry."""
        template = self.filename_template.template if self.filename_template else \
            DEFAULT_FILENAME_TEMPLATE
        return SplitInfoProto(self.name, list(self.shard_lengths), self.num_bytes, template)


@dataclasses.dataclass(eq=False, frozen=True)
class SubSplitInfo:
    """``info.splits['train[75%:]']``: the file instructions of a split spec.

    Example:
        >>> sub = SubSplitInfo("t[1:]", [FileInstruction("/d/f", 1, -1, 4)])
        >>> sub.num_examples, sub.shard_lengths, sub.filenames
        (3, [3], ['f'])
    """

    name: Any
    file_instructions: list[FileInstruction]

    @property
    def shard_lengths(self) -> list[int]:
        """Examples read per file."""
        return [f.take for f in self.file_instructions]

    @property
    def examples_in_shards(self) -> list[int]:
        """Records in each file read."""
        return [f.examples_in_shard for f in self.file_instructions]

    @property
    def num_examples(self) -> int:
        """Examples in the subsplit."""
        return sum(self.shard_lengths)

    @property
    def num_bytes(self) -> int:
        """Unknown for a subsplit: 0."""
        return 0

    @property
    def num_shards(self) -> int:
        """Files read."""
        return len(self.file_instructions)

    @property
    def filenames(self) -> list[str]:
        """The files read (without folder), sorted."""
        return sorted(os.path.basename(f.filename) for f in self.file_instructions)

    @property
    def filepaths(self) -> list[Path]:
        """The files read, sorted."""
        return sorted(Path(f.filename) for f in self.file_instructions)

    def to_proto(self) -> SplitInfoProto:
        """A split entry for the subsplit."""
        return SplitInfoProto(str(self.name), self.shard_lengths, self.num_bytes)


class MultiSplitInfo(SplitInfo):
    """A split spread over several folders (``builder_from_directories``):
    its parts' shards one after the other.

    Example:
        >>> t = ShardedFileTemplate("/abc", template="{SPLIT}-{SHARD_X_OF_Y}")
        >>> a = SplitInfo("train", [10, 10], 100, t)
        >>> b = SplitInfo("train", [1], 20, t.replace(data_dir="/xyz"))
        >>> m = MultiSplitInfo("train", [a, b])
        >>> m.num_bytes, m.shard_lengths, m.file_instructions[2].filename
        (120, [10, 10, 1], '/xyz/train-00000-of-00001')
    """

    split_infos: list[Any]

    def __init__(self, name: str, split_infos: list[Any]) -> None:
        if not split_infos:
            raise ValueError("Need to pass a non-empty list of SplitInfos")
        object.__setattr__(self, "split_infos", split_infos)
        lengths = [n for s in split_infos for n in s.shard_lengths]
        super().__init__(name, lengths, sum(s.num_bytes for s in split_infos), None)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, split_infos={self.split_infos!r})"

    @property
    def examples_in_shards(self) -> list[int]:
        """Records in each file, part after part."""
        return [n for s in self.split_infos for n in getattr(s, "examples_in_shards",
                                                              s.shard_lengths)]

    @property
    def file_instructions(self) -> list[FileInstruction]:
        return [f for s in self.split_infos for f in s.file_instructions]

    @property
    def filenames(self) -> list[str]:
        return [f for s in self.split_infos for f in s.filenames]

    @property
    def filepaths(self) -> list[Path]:
        return [f for s in self.split_infos for f in s.filepaths]

    def replace(self, **kwargs: Any) -> "MultiSplitInfo":
        raise RuntimeError("replace is not supported on MultiSplitInfo")

    def to_proto(self) -> SplitInfoProto:
        raise RuntimeError("to_proto is not supported on MultiSplitInfo")


class SplitDict(dict):
    """``info.splits``: split name -> :class:`SplitInfo`; any other key (a spec
    string, a ``ReadInstruction``, an ``AbsoluteInstruction``, ``even_splits``
    parts) gives a :class:`SubSplitInfo`.

    Example:
        >>> t = ShardedFileTemplate("/d", dataset_name="ds", filetype_suffix="tfrecord")
        >>> s = SplitDict([SplitInfo("train", [4, 6], 0, t)])
        >>> s["train[:50%]"].num_examples, s.total_num_examples
        (5, 10)
        >>> SplitDict([])["train"]
        Traceback (most recent call last):
        ...
        KeyError: "Trying to access `splits['train']` but `splits` is empty. ..."
    """

    def __init__(self, split_infos: Iterable[SplitInfo] = (), *,
                 dataset_name: str | None = None) -> None:
        super().__init__()
        for info in split_infos:
            if info.name in self:
                raise ValueError(f"Split {info.name} already present")
            super().__setitem__(info.name, info)

    def __getitem__(self, key: Any) -> Any:
        if not len(self):
            raise KeyError(f"Trying to access `splits[{key!r}]` but `splits` is empty. This "
                           "likely indicates the dataset has not been generated yet.")
        if str(key) in self:
            return super().__getitem__(str(key))
        return SubSplitInfo(key, make_file_instructions(list(self.values()), key))

    @classmethod
    def from_proto(cls, repeated_split_infos: Iterable[SplitInfoProto],
                   filename_template: ShardedFileTemplate) -> "SplitDict":
        """From the split entries of ``dataset_info.json``."""
        return cls([SplitInfo.from_proto(p, filename_template.replace(split=p.name))
                    for p in repeated_split_infos])

    def to_proto(self) -> list[SplitInfoProto]:
        """The split entries, in order."""
        return [s.to_proto() for s in self.values()]

    @property
    def total_num_examples(self) -> int:
        """Examples over all splits."""
        return sum(s.num_examples for s in self.values())

    @classmethod
    def merge_multiple(cls, split_dicts: Sequence["SplitDict"]) -> "SplitDict":
        """One :class:`MultiSplitInfo` per split name over several folders."""
        merged = []
        for name in dict.fromkeys(itertools.chain(*split_dicts)):
            parts: list[Any] = []
            for d in split_dicts:
                if name in d:
                    info = d[name]
                    parts += info.split_infos if isinstance(info, MultiSplitInfo) else [info]
            merged.append(MultiSplitInfo(name, parts))
        return cls(merged)


def _for_split(instr: AbsoluteInstruction, info: Any) -> list[FileInstruction]:
    if not info.num_examples:
        return []
    to = info.num_examples if instr.to is None else instr.to
    in_shards = info.examples_in_shards if isinstance(info, (SubSplitInfo, MultiSplitInfo)) \
        else None
    return get_file_instructions(instr.from_ or 0, to, [os.fspath(p) for p in info.filepaths],
                                 info.shard_lengths, in_shards)


def make_file_instructions(split_infos: Sequence[Any], instruction: SplitArg
                           ) -> list[FileInstruction]:
    """The file instructions of ``instruction`` over ``split_infos`` (a split
    with no examples contributes none).

    Example:
        >>> t = ShardedFileTemplate("/d", dataset_name="x", filetype_suffix="tfrecord")
        >>> infos = [SplitInfo("train", [4, 4], 0, t)]
        >>> [(f.basename(), f.skip, f.take) for f in make_file_instructions(infos, "train[-25%:]")]
        [('x-train.tfrecord-00001-of-00002', 2, 2)]
    """
    by_name = {s.name: s for s in split_infos}
    if isinstance(instruction, str):
        instruction = AbstractSplit.from_spec(instruction)
    absolute = instruction.to_absolute(by_name)
    return [f for a in absolute for f in _for_split(a, by_name[str(a.splitname)])]


__all__ = ["MultiSplitInfo", "SplitDict", "SplitInfo", "SubSplitInfo", "make_file_instructions"]
