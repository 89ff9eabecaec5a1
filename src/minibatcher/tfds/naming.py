"""``tfds.core.naming``: shard file names (``ShardedFileTemplate``, ``FilenameInfo``) and
dataset names (``DatasetName``, ``parse_builder_name_kwargs``), with TFDS's rules.

A template such as ``'{DATASET}-{SPLIT}.{FILEFORMAT}-{SHARD_X_OF_Y}'`` (TFDS's default) names
the shards of a split; shard numbers have at least 5 digits.

Example:
    >>> t = ShardedFileTemplate(data_dir="/data/mnist/3.0.1", dataset_name="mnist",
    ...                         split="train", filetype_suffix="tfrecord")
    >>> str(t.sharded_filepath(shard_index=3, num_shards=10))
    '/data/mnist/3.0.1/mnist-train.tfrecord-00003-of-00010'
    >>> FilenameInfo.from_str("mnist-test.tfrecord-00001-of-00004").shard_index
    1
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from pathlib import Path
from typing import Any

from .names import (
    DatasetName,
    DatasetReference,
    camelcase_to_snakecase,
    is_valid_dataset_and_class_name,
    is_valid_dataset_name,
    parse_builder_name_kwargs,
    reference_for,
    references_for,
    snake_to_camelcase,
)

DEFAULT_FILENAME_TEMPLATE = "{DATASET}-{SPLIT}.{FILEFORMAT}-{SHARD_X_OF_Y}"
_MIN_DIGITS = 5
_VARIABLE_REGEX = {
    "DATASET": r"(?P<dataset_name>[a-zA-Z][\w]*)",
    "FILEFORMAT": r"(?P<filetype_suffix>\w+)",
    "SPLIT": r"(?P<split>(\w|-)+)",
    "SHARD_INDEX": r"(?P<shard_index>\d{5,})",
    "NUM_SHARDS": r"(?P<num_shards>\d{5,})",
    "SHARD_X_OF_Y": r"(?P<shard_index>\d{5,})-of-(?P<num_shards>\d{5,})",
}

__all__ = ["DEFAULT_FILENAME_TEMPLATE", "DatasetName", "DatasetReference", "FilenameInfo",
           "ShardedFileTemplate", "camelcase_to_snakecase", "is_valid_dataset_and_class_name",
           "is_valid_dataset_name", "parse_builder_name_kwargs", "reference_for",
           "references_for", "snake_to_camelcase"]


def _replace_shard_pattern(filepath: str, replacement: str) -> str:
    """The file name's shard part (``-00001-of-01234`` or ``00001``) replaced.

    Example:
        >>> _replace_shard_pattern("/p/file.tfrecord-00001-of-01234", "@3")
        '/p/file.tfrecord@3'
    """
    pattern = r"^(?P<prefix>.+?)-?\d{5,}(-of-\d{5,})?(?P<suffix>\D+)?$"
    path = Path(filepath)
    new, count = re.subn(pattern, lambda m: m["prefix"] + replacement + (m["suffix"] or ""),
                         path.name)
    if count != 1:
        raise RuntimeError(f"Should do 1 shard suffix substitution, but did {count}! "
                           f"Filepath was {filepath}")
    return os.fspath(path.parent / new)


def _filename_template_to_regex(template: str) -> str:
    """The regular expression of a template (refuses unknown variables).

    Example:
        >>> _filename_template_to_regex("{SPLIT}.{SHARD_INDEX}")
        '(?P<split>(\\\\w|-)+)\\\\.(?P<shard_index>\\\\d{5,})'
    """
    result = template.replace(".", r"\.")
    for var, regex in _VARIABLE_REGEX.items():
        result = result.replace("{" + var + "}", regex)
    if re.match(r"\{\w+\}", result):
        raise ValueError(f"Regex still contains variables that have not been substituted: "
                         f"{result}")
    return result


@dataclasses.dataclass
class ShardedFileTemplate:
    """How the shards of a split are named: ``data_dir / template`` with
    ``{DATASET}``, ``{SPLIT}``, ``{FILEFORMAT}``, ``{SHARD_INDEX}``,
    ``{NUM_SHARDS}`` and ``{SHARD_X_OF_Y}`` filled in (an ``%...`` suffix of
    the template is kept in paths and ignored when parsing names).

    Example:
        >>> ShardedFileTemplate(data_dir="/p", dataset_name="ds", split="train",
        ...                     filetype_suffix="tfrecord").glob_pattern(num_shards=42)
        '/p/ds-train.tfrecord-*-of-00042'
        >>> ShardedFileTemplate(data_dir="/p", split="")
        Traceback (most recent call last):
        ...
        ValueError: Split must be a non-empty string: ...
    """

    data_dir: Path
    template: str = DEFAULT_FILENAME_TEMPLATE
    dataset_name: str | None = None
    split: str | None = None
    filetype_suffix: str | None = None

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir)
        if self.split is not None and not self.split:
            raise ValueError(f"Split must be a non-empty string: {self}")
        if self.split is not None and not any(c.isalnum() for c in self.split):
            raise ValueError("Split name should contain at least one alphanumeric character. "
                             f"Given split name: {self.split}")
        if self.filetype_suffix is not None and not self.filetype_suffix:
            raise ValueError(f"Filetype suffix must be a non-empty string: {self}")
        if not self.template:
            self.template = DEFAULT_FILENAME_TEMPLATE

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        """The regular expression file names of this template match."""
        template = self.template[:self.template.rfind("%")] if "%" in self.template else \
            self.template
        return re.compile(_filename_template_to_regex(template))

    def parse_filename_info(self, filename: str) -> "FilenameInfo | None":
        """What a file name says (fields absent from the template come from
        the template's own values); None when it does not match."""
        m = self.regex.fullmatch(filename)
        if m is None:
            return None
        g = m.groupdict()
        return FilenameInfo(
            dataset_name=g.get("dataset_name", self.dataset_name), split=g.get("split", self.split),
            filetype_suffix=g.get("filetype_suffix", self.filetype_suffix),
            shard_index=None if g.get("shard_index") is None else int(g["shard_index"]),
            num_shards=None if g.get("num_shards") is None else int(g["num_shards"]),
            filename_template=self)

    def is_valid(self, filename: str) -> bool:
        """Whether ``filename`` follows this template (and its set fields)."""
        info = self.parse_filename_info(filename)
        if info is None:
            return False
        return all(mine is None or theirs is None or mine == theirs for mine, theirs in (
            (self.dataset_name, info.dataset_name), (self.split, info.split),
            (self.filetype_suffix, info.filetype_suffix)))

    def relative_filepath(self, *, shard_index: int, num_shards: int | None) -> str:
        """The shard's path relative to ``data_dir``."""
        mappings: dict[str, Any] = {}
        for var, value in (("SPLIT", self.split), ("DATASET", self.dataset_name),
                           ("FILEFORMAT", self.filetype_suffix)):
            if value:
                mappings[var] = value
        width = max(len(str(num_shards or 0)), _MIN_DIGITS)
        mappings["SHARD_INDEX"] = f"{shard_index:0{width}d}"
        if num_shards:
            mappings["NUM_SHARDS"] = f"{num_shards:0{width}d}"
            mappings["SHARD_X_OF_Y"] = f"{mappings['SHARD_INDEX']}-of-{mappings['NUM_SHARDS']}"
        try:
            return self.template.format(**mappings)
        except KeyError as e:
            raise ValueError(f"Could not format template {self.template} with mappings "
                             f"{mappings}!") from e

    def sharded_filepath(self, *, shard_index: int, num_shards: int | None) -> Path:
        """The full path of one shard."""
        return self.data_dir / self.relative_filepath(shard_index=shard_index,
                                                      num_shards=num_shards)

    def sharded_filepaths(self, num_shards: int) -> list[Path]:
        """The full paths of all shards, in shard order."""
        return [self.sharded_filepath(shard_index=i, num_shards=num_shards)
                for i in range(num_shards)]

    def sharded_filenames(self, num_shards: int) -> list[str]:
        """The file names of all shards."""
        return [p.name for p in self.sharded_filepaths(num_shards)]

    def filepath_prefix(self) -> str:
        """The shards' path without the shard part and extension."""
        prefix = _replace_shard_pattern(os.fspath(self.sharded_filepath(shard_index=0,
                                                                         num_shards=1)), "")
        return re.sub(r"\.[^.]+$", "", prefix)

    def sharded_filepaths_pattern(self, *, num_shards: int | None = None,
                                  use_at_notation: bool = False) -> str:
        """``/path/name@N`` (or ``@*``), else a glob of every shard number."""
        first = os.fspath(self.sharded_filepath(shard_index=0, num_shards=1))
        if num_shards:
            return _replace_shard_pattern(first, f"@{num_shards}")
        if use_at_notation:
            return _replace_shard_pattern(first, "@*")
        digits = "[0-9]" * _MIN_DIGITS
        return _replace_shard_pattern(first, f"-{digits}-of-{digits}")

    def glob_pattern(self, num_shards: int | None = None) -> str:
        """A glob matching the shards (``*-of-NNNNN`` for a known count)."""
        if num_shards is None:
            return self.sharded_filepaths_pattern(num_shards=None)
        first = self.sharded_filepath(shard_index=0, num_shards=num_shards)
        return os.fspath(first.parent / re.sub(r"0{5,}-of-", "*-of-", first.name))

    def replace(self, **kwargs: Any) -> "ShardedFileTemplate":
        """A copy with some fields changed."""
        return dataclasses.replace(self, **kwargs)


def _template_for(filename: str, template: ShardedFileTemplate | None) -> ShardedFileTemplate:
    return template if template is not None else ShardedFileTemplate(
        data_dir=Path(os.path.dirname(filename)))


@dataclasses.dataclass(frozen=True)
class FilenameInfo:
    """What a shard's file name says.

    Example:
        >>> info = FilenameInfo.from_str("/p/c4-af-validation.tfrecord-00032-of-01024")
        >>> info.dataset_name, info.split, info.num_shards, str(info)
        ('c4', 'af-validation', 1024, 'c4-af-validation.tfrecord-00032-of-01024')
    """

    dataset_name: str | None = None
    split: str | None = None
    filetype_suffix: str | None = None
    shard_index: int | None = None
    num_shards: int | None = None
    filename_template: ShardedFileTemplate | None = None

    def full_filename_template(self) -> ShardedFileTemplate:
        """The template with this name's dataset, split and suffix."""
        template = self.filename_template or ShardedFileTemplate(data_dir=Path(""))
        return template.replace(dataset_name=self.dataset_name, split=self.split,
                                filetype_suffix=self.filetype_suffix)

    def replace(self, **kwargs: Any) -> "FilenameInfo":
        """A copy with some fields changed."""
        return dataclasses.replace(self, **kwargs)

    @classmethod
    def from_str(cls, filename: str,
                 filename_template: ShardedFileTemplate | None = None) -> "FilenameInfo":
        """Parses a file name (a folder in front is ignored)."""
        template = _template_for(filename, filename_template)
        info = template.parse_filename_info(os.path.basename(filename))
        if info is None:
            raise ValueError(f"Could not parse filename {os.path.basename(filename)} with "
                             f"template {template}")
        return info

    @staticmethod
    def is_valid(filename: str, filename_template: ShardedFileTemplate | None = None) -> bool:
        """Whether the name follows the template (TFDS's default when None)."""
        return _template_for(filename, filename_template).is_valid(filename)

    def __str__(self) -> str:
        return self.full_filename_template().relative_filepath(
            shard_index=self.shard_index or 0, num_shards=self.num_shards)
