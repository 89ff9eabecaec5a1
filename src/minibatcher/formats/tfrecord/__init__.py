"""TFRecord files and ``tf.train.Example`` records, without TensorFlow.

Byte-compatible with TensorFlow's ``TFRecordWriter``/``TFRecordDataset``:
length + masked CRC-32C of the length, data + masked CRC-32C of the data;
CRCs are verified on read by default (DECISIONS.md 14); GZIP and ZLIB files.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.tfrecord"
    >>> with TFRecordWriter(p) as w:
    ...     w.write(encode_example({"label": [3], "name": [b"cat"]}))
    >>> decode_example(TFRecordFile(p).record(0))
    {'label': array([3]), 'name': [b'cat']}
"""

from .crc import crc32c, mask, masked_crc32c, unmask
from .example import ExampleDecoder, FeatureKind, decode_example, encode_example
from .records import RecordBatch, TFRecordFile
from .writer import TFRecordOptions, TFRecordWriter

__all__ = [
    "ExampleDecoder", "FeatureKind", "RecordBatch", "TFRecordFile", "TFRecordOptions",
    "TFRecordWriter", "crc32c", "decode_example", "encode_example", "mask", "masked_crc32c",
    "unmask",
]
