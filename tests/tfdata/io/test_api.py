"""tfdata.io covers tf.io's names (TF 2.21): provided, or present and raising
NotSupportedError saying so; TFRecordWriter/TFRecordOptions with TF's signatures."""

from __future__ import annotations

from pathlib import Path

import pytest

from minibatcher.errors import NotSupportedError
from minibatcher.formats.tfrecord import TFRecordFile, encode_example
from minibatcher.tfdata import io

# dir(tf.io) in TensorFlow 2.21 (public names)
TF_IO = ["FixedLenFeature", "FixedLenSequenceFeature", "RaggedFeature", "SparseFeature",
         "TFRecordOptions", "TFRecordWriter", "VarLenFeature", "decode_and_crop_jpeg",
         "decode_base64", "decode_bmp", "decode_compressed", "decode_csv", "decode_gif",
         "decode_image", "decode_jpeg", "decode_json_example", "decode_jxl", "decode_png",
         "decode_proto", "decode_raw", "decode_webp", "deserialize_many_sparse", "encode_base64",
         "encode_jpeg", "encode_png", "encode_proto", "extract_jpeg_shape", "gfile", "is_jpeg",
         "match_filenames_once", "matching_files", "parse_example", "parse_sequence_example",
         "parse_single_example", "parse_single_sequence_example", "parse_tensor", "read_file",
         "serialize_many_sparse", "serialize_sparse", "serialize_tensor", "write_file",
         "write_graph"]


@pytest.mark.parametrize("name", TF_IO)
def test_every_tf_io_name_exists(name: str) -> None:
    assert name in io.__all__ and hasattr(io, name)
    if name in io.NOT_PROVIDED:  # the rest is checked against TF's outputs elsewhere
        with pytest.raises(NotSupportedError, match=f"tf.io.{name} is not provided"):
            getattr(io, name)(b"")


def test_gfile_raises_not_supported() -> None:
    with pytest.raises(NotSupportedError, match="tf.io.gfile.GFile is not provided"):
        io.gfile.GFile("x")


def test_writer_and_options(tmp_path: Path) -> None:
    p = tmp_path / "a.tfrecord"
    with io.TFRecordWriter(str(p), io.TFRecordOptions(compression_type="ZLIB",
                                                      compression_level=5, flush_mode=None,
                                                      input_buffer_size=1024)) as w:
        w.write(encode_example({"x": [1]}))
        w.write("text")
    recs = list(TFRecordFile(p, "ZLIB"))
    assert recs[1] == b"text"
    assert io.parse_single_example(recs[0], {"x": io.FixedLenFeature([], "int64")})["x"] == 1
    with pytest.raises(NotSupportedError, match="mem_level"):
        io.TFRecordOptions("GZIP", mem_level=3)
    assert io.TFRecordOptions("GZIP", window_bits=15).compression_type == "GZIP"
