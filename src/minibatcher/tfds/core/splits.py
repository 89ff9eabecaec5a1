"""``tfds.core.splits``: the split grammar and the split infos in one namespace.

Example:
    >>> from minibatcher.tfds.core import splits
    >>> from minibatcher.tfds.naming import ShardedFileTemplate
    >>> t = ShardedFileTemplate("/d", dataset_name="ds", filetype_suffix="tfrecord")
    >>> splits.SplitDict([splits.SplitInfo("train", [3], 0, t)])["train[1:]"].num_examples
    2
"""

from ..split_info import MultiSplitInfo, SplitDict, SplitInfo, SubSplitInfo, make_file_instructions
from ..splits import AbsoluteInstruction, AbstractSplit, ReadInstruction, Split, SplitArg

__all__ = ["AbsoluteInstruction", "AbstractSplit", "MultiSplitInfo", "ReadInstruction", "Split",
           "SplitArg", "SplitDict", "SplitInfo", "SubSplitInfo", "make_file_instructions"]
