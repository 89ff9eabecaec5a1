"""Files written by TensorFlow 2.21's own TFRecordWriter (tests/data/tf_golden/
tfrecord, made by tools/tf_golden.py): read back exactly, and our writer
reproduces the plain file byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from minibatcher.formats.tfrecord import (ExampleDecoder, TFRecordFile, TFRecordWriter,
                                          decode_example)
from minibatcher.tfdata import TFRecordDataset

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "tf_golden" / "tfrecord"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text())
RECORDS = [bytes.fromhex(r) for r in EXPECTED["records"]]


@pytest.mark.parametrize("name", ["records.tfrecord", "records.gzip.tfrecord",
                                  "records.zlib.tfrecord"])
def test_reads_tensorflow_files(name: str, impl: str) -> None:
    f = TFRecordFile(GOLDEN / name, EXPECTED[name], impl=impl)
    assert list(f) == RECORDS
    assert [bytes(r) for r in f.read()] == RECORDS
    assert list(TFRecordDataset(str(GOLDEN / name), compression_type=EXPECTED[name])) == RECORDS


def test_writer_reproduces_tensorflow_bytes(tmp_path: Path, impl: str) -> None:
    with TFRecordWriter(tmp_path / "ours", impl=impl) as w:
        for r in RECORDS:
            w.write(r)
    assert (tmp_path / "ours").read_bytes() == (GOLDEN / "records.tfrecord").read_bytes()


def test_decodes_tensorflow_examples(impl: str) -> None:
    records = list(TFRecordFile(GOLDEN / "examples.tfrecord"))
    expected = EXPECTED["examples"]
    cols = ExampleDecoder({"label": "int64", "score": "float", "name": "bytes", "empty": "float"},
                          impl=impl).decode(records)
    for i, ex in enumerate(expected):
        assert cols["label"].row(i).tolist() == ex["label"]
        assert cols["score"].row(i).tolist() == ex["score"]
        assert cols["name"].row(i) == [bytes.fromhex(h) for h in ex["name"]]
        assert cols["empty"].row(i).tolist() == []
    generic = decode_example(records[2])
    assert generic["label"].tolist() == [2, -2, 2**40]
    assert generic["score"].dtype == np.float32
