"""TFDS-prepared datasets without TensorFlow: ``tfds.load``, ``builder_from_directory``,
the split grammar, ``ReadConfig``, and ``as_dataset`` in TFDS's exact order.

Port code by changing its import (``from minibatcher import tfds``); see
docs/tfrecord-tfds.md. ``tfds.core`` holds TFDS's object model (``ReadInstruction``,
``SplitInfo``, ``SplitDict``, ``naming``, ``shard_utils`` ...).

Example:
    >>> from minibatcher import tfds
    >>> tfds.core.ReadInstruction("train", from_=10, to=20, unit="%")
    ReadInstruction('train[10%:20%]', rounding='closest')
    >>> tfds.Split.TRAIN
    Split('train')
"""

from . import core, decode, features, folder_dataset
from .builder import ReadOnlyBuilder, builder_from_directories, builder_from_directory
from .elastic import ElasticRemainder, InstructionSplit, elastic_remainder
from .even_splits import even_splits, split_for_jax_process
from .info import DatasetInfo
from .load import DatasetNotFoundError, as_numpy, builder, load
from .read_config import InputContext, ReadConfig
from .read_order import skipped_records
from .shard_utils import FileInstruction
from .split_info import SplitDict, SplitInfo, SubSplitInfo
from .splits import AbsoluteInstruction, AbstractSplit, ReadInstruction, Split

__all__ = [
    "AbsoluteInstruction", "AbstractSplit", "DatasetInfo", "DatasetNotFoundError",
    "ElasticRemainder", "FileInstruction", "InputContext", "InstructionSplit", "ReadConfig",
    "ReadInstruction", "ReadOnlyBuilder", "Split", "SplitDict", "SplitInfo", "SubSplitInfo",
    "as_numpy", "builder", "builder_from_directories", "builder_from_directory", "core",
    "decode", "elastic_remainder", "even_splits", "features", "folder_dataset", "load",
    "skipped_records", "split_for_jax_process",
]
