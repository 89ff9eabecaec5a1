"""TFDS-prepared datasets without TensorFlow: ``builder_from_directory``, the
split grammar, ``ReadConfig``, and ``as_dataset`` in TFDS's exact order.

Port code by changing its import (``from minibatcher import tfds``); see
docs/tfrecord-tfds.md.

Example:
    >>> from minibatcher import tfds
    >>> tfds.ReadInstruction("train", from_=10, to=20, unit="%")
    ReadInstruction('train[10%:20%]', rounding='closest')
"""

from . import decode
from .builder import ReadOnlyBuilder, builder_from_directory
from .elastic import ElasticRemainder, InstructionSplit, elastic_remainder
from .even_splits import even_splits, split_for_jax_process
from .info import DatasetInfo, SplitDict
from .read_config import InputContext, ReadConfig
from .reader import skipped_records
from .splits import (AbsoluteInstruction, AbstractSplit, FileInstruction, ReadInstruction,
                     SplitInfo, SubSplitInfo, file_instructions)

__all__ = [
    "AbsoluteInstruction", "AbstractSplit", "DatasetInfo", "ElasticRemainder", "InstructionSplit",
    "elastic_remainder", "FileInstruction", "InputContext",
    "ReadConfig", "ReadInstruction", "ReadOnlyBuilder", "SplitDict", "SplitInfo", "SubSplitInfo",
    "builder_from_directory", "decode", "even_splits", "file_instructions",
    "skipped_records", "split_for_jax_process",
]
