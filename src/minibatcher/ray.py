"""Ray Data integration: read any format of this project on a Ray cluster.

* :class:`DeserializerDatasource` -- ``ray.data.read_datasource`` over a
  picklable zero-argument callable returning a ``Deserializer`` (CTF, HTK, ...):
  one row per sequence, one read task per run of chunks.
* :func:`read_ctf` -- a CTF file as a Ray ``Dataset``.
* :class:`TFRecordDatasource` -- TFRecord files (a folder or a list): raw
  records or decoded ``tf.train.Example`` features, one row per record.

Install with ``pip install 'minibatcher[ray]'``.

Example:
    >>> sorted(__all__)
    ['DeserializerDatasource', 'TFRecordDatasource', 'chunk_columns', 'read_ctf', 'tfrecord_files']
"""

from __future__ import annotations

from .adapters.ray_data import (DeserializerDatasource, TFRecordDatasource, chunk_columns,
                                read_ctf, tfrecord_files)

__all__ = ["DeserializerDatasource", "TFRecordDatasource", "chunk_columns", "read_ctf",
           "tfrecord_files"]
