"""Shards written by TensorFlow itself read back identically (runs only when
TensorFlow is installed; CI does not install it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from minibatcher.formats.tfrecord import (ExampleDecoder, TFRecordFile, TFRecordWriter,
                                          encode_example)


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_tensorflow_written_shards(tmp_path: Path, compression: str) -> None:
    tf = pytest.importorskip("tensorflow", reason="TensorFlow is not installed")
    path = str(tmp_path / "tf.tfrecord")
    expected = []
    with tf.io.TFRecordWriter(path, options=compression or None) as w:
        for i in range(50):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[i, -i])),
                "s": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"x" * i]))}))
            expected.append(ex.SerializeToString())
            w.write(expected[-1])
    f = TFRecordFile(path, compression)
    assert list(f) == expected
    cols = ExampleDecoder({"i": "int64", "s": "bytes"}).decode(f.read())
    assert cols["i"].values.reshape(-1, 2)[:, 1].tolist() == [-i for i in range(50)]
    ours = str(tmp_path / "ours.tfrecord")
    with TFRecordWriter(ours, compression) as w:
        for i in range(5):
            w.write(encode_example({"v": np.array([i])}))
    got = [tf.io.parse_single_example(r, {"v": tf.io.FixedLenFeature([1], tf.int64)})["v"].numpy()
           for r in tf.data.TFRecordDataset(ours, compression_type=compression)]
    assert [int(g[0]) for g in got] == list(range(5))
