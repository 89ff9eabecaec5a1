"""``tfds.core``: TFDS's object model under its own names, so code that touches it ports
with only its import changed (``tfds.core.ReadInstruction``, ``tfds.core.SplitInfo``,
``tfds.core.naming``, ``tfds.core.utils.shard_utils`` ...).

Example:
    >>> from minibatcher.tfds import core
    >>> core.naming.ShardedFileTemplate("/p", dataset_name="ds", split="train",
    ...                                 filetype_suffix="tfrecord").sharded_filenames(1)
    ['ds-train.tfrecord-00000-of-00001']
    >>> core.splits.Split.TEST, core.utils.shard_utils.FileInstruction("f", 0, -1, 2).take
    (Split('test'), 2)
"""

from .. import file_adapters, naming, proto, read_only_builder, shard_utils
from ..builder import ReadOnlyBuilder
from ..info import DatasetInfo
from ..read_config import ReadConfig
from ..shard_utils import FileInstruction
from ..split_info import MultiSplitInfo, SplitDict, SplitInfo, SubSplitInfo
from ..splits import AbstractSplit, ReadInstruction, Split
from . import example_parser, reader, splits, subsplits_utils, utils

__all__ = [
    "AbstractSplit", "DatasetInfo", "FileInstruction", "MultiSplitInfo", "ReadConfig",
    "ReadInstruction", "ReadOnlyBuilder", "Split", "SplitDict", "SplitInfo", "SubSplitInfo",
    "example_parser", "file_adapters", "naming", "proto", "read_only_builder", "reader",
    "shard_utils", "splits", "subsplits_utils", "utils",
]
