"""``minibatcher.tfdata.io``: ``tf.io``'s parsing and decoding names, without TensorFlow.

Port ``tf.io.X`` as ``tfdata.io.X`` (and ``tf.int64`` as ``tfdata.int64``): the common
TFRecord pipeline runs with only its imports changed::

    ds = tfdata.TFRecordDataset(files).map(lambda r: tfdata.io.parse_single_example(r, spec))

Values are NumPy arrays, ``bytes``, :class:`~minibatcher.tfdata.SparseTensor` and
:class:`~minibatcher.tfdata.RaggedTensor`. ``parse_example`` decodes a whole batch in one
native call; :func:`parse_example_columns` is the columnar form block executors use.
Names of ``tf.io`` that are not provided exist and raise ``NotSupportedError`` saying so
(``NOT_PROVIDED`` lists them; docs/tfdata.md).

Example:
    >>> from minibatcher import tfdata
    >>> from minibatcher.formats.tfrecord import encode_example
    >>> spec = {"x": tfdata.io.FixedLenFeature([2], tfdata.float32)}
    >>> tfdata.io.parse_single_example(encode_example({"x": [1.0, 2.0]}), spec)["x"].tolist()
    [1.0, 2.0]
"""

from .columns import (DenseColumn, RaggedColumn, RecordBlock, SequenceColumn,
                      SequenceSparseColumn, SparseColumn)
from .decode_raw import decode_raw
from .features import (FixedLenFeature, FixedLenSequenceFeature, RaggedFeature,
                       SparseFeature, VarLenFeature)
from .image import decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png
from .parse import parse_example, parse_example_columns, parse_single_example
from .plan import BlockParseError
from .records import TFRecordOptions, TFRecordWriter
from .sequence import parse_sequence_example, parse_single_sequence_example
from .unsupported import NOT_PROVIDED, STAND_INS, gfile

globals().update(STAND_INS)  # tf.io names that raise NotSupportedError when called

__all__ = [
    "BlockParseError", "DenseColumn", "FixedLenFeature", "FixedLenSequenceFeature",
    "NOT_PROVIDED", "RaggedColumn", "RaggedFeature", "RecordBlock", "SequenceColumn",
    "SequenceSparseColumn", "SparseColumn", "SparseFeature", "TFRecordOptions", "TFRecordWriter",
    "VarLenFeature", "decode_bmp", "decode_gif", "decode_image", "decode_jpeg", "decode_png",
    "decode_raw", "gfile", "parse_example", "parse_example_columns", "parse_sequence_example",
    "parse_single_example", "parse_single_sequence_example", *STAND_INS,
]
