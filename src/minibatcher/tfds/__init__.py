"""TFDS-prepared datasets without TensorFlow: ``builder_from_directory``, the
split grammar, ``ReadConfig``, and ``as_dataset`` in TFDS's exact order.

Example:
    >>> from minibatcher import tfds
    >>> tfds.ReadInstruction("train", from_=10, to=20, unit="%")
    ReadInstruction('train[10%:20%]', rounding='closest')
"""

from .even_splits import even_splits, split_for_jax_process
from .splits import (AbsoluteInstruction, AbstractSplit, FileInstruction, ReadInstruction,
                     SplitInfo, file_instructions)

__all__ = [
    "AbsoluteInstruction", "AbstractSplit", "FileInstruction", "ReadInstruction", "SplitInfo",
    "even_splits", "file_instructions", "split_for_jax_process",
]
