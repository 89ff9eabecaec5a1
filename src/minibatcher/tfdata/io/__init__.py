"""``minibatcher.tfdata.io``: ``tf.io``'s parsing and decoding names, without TensorFlow.

Port ``tf.io.X`` as ``tfdata.io.X`` (and ``tf.int64`` as ``tfdata.int64``): the common
TFRecord pipeline runs with only its imports changed::

    ds = tfdata.TFRecordDataset(files).map(lambda r: tfdata.io.parse_single_example(r, spec))

Values are NumPy arrays, ``bytes``, :class:`~minibatcher.tfdata.SparseTensor` and
:class:`~minibatcher.tfdata.RaggedTensor`. ``parse_example`` decodes a whole batch in one
native call; :func:`parse_example_columns` is the columnar form block executors use.
Names of ``tf.io`` that are not provided raise ``NotSupportedError`` saying so (docs/tfdata.md).

Example:
    >>> from minibatcher import tfdata
    >>> from minibatcher.formats.tfrecord import encode_example
    >>> spec = {"x": tfdata.io.FixedLenFeature([2], tfdata.float32)}
    >>> tfdata.io.parse_single_example(encode_example({"x": [1.0, 2.0]}), spec)["x"].tolist()
    [1.0, 2.0]
"""

from .columns import DenseColumn, RaggedColumn, RecordBlock, SequenceColumn, SparseColumn
from .features import (FixedLenFeature, FixedLenSequenceFeature, RaggedFeature,
                       VarLenFeature)
from .parse import parse_example, parse_example_columns, parse_single_example
from .plan import BlockParseError
from .sequence import parse_sequence_example, parse_single_sequence_example

__all__ = [
    "BlockParseError", "DenseColumn", "FixedLenFeature", "FixedLenSequenceFeature",
    "RaggedColumn", "RaggedFeature", "RecordBlock", "SequenceColumn", "SparseColumn",
    "VarLenFeature", "parse_example", "parse_example_columns", "parse_sequence_example",
    "parse_single_example", "parse_single_sequence_example",
]
