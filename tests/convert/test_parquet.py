"""Parquet for the Hugging Face world: every input's examples as rows, typed columns, and
the ``datasets`` features metadata (checked by hand with datasets 3.6 and 5.2; the note says
how; the tests need only pyarrow)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from minibatcher.cli import main
from minibatcher.convert import (ctf_examples, htk_examples, text_examples, tfds_examples,
                                 tfrecord_examples, write_parquet)
from minibatcher.errors import FormatError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = DATA / "tfds_golden"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text())


def rows(path: Path) -> list[dict]:
    return pq.read_table(path).to_pylist()


def hf_features(path: Path) -> dict:
    return json.loads(pq.read_schema(path).metadata[b"huggingface"])["info"]["features"]


def close(a: object, b: object) -> bool:
    return np.allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=0, atol=0)


def test_ctf_rows_equal_the_examples_tfds_reads(tmp_path: Path) -> None:
    assert write_parquet(ctf_examples(GOLDEN / "ctf.ctf"), tmp_path / "c.parquet") == 7
    got = rows(tmp_path / "c.parquet")
    for row, want in zip(got, EXPECTED["ctf"], strict=True):
        assert row["sequence_id"] == want["sequence_id"] and close(row["x"], want["x"])
        assert row["y"]["indices"] == want["y"]["indices"]
        assert row["y"]["lengths"] == want["y"]["lengths"] and close(row["y"]["values"],
                                                                     want["y"]["values"])
    x = pq.read_schema(tmp_path / "c.parquet").field("x").type  # list<fixed_size_list<f32>[2]>
    assert pa.types.is_list(x) and pa.types.is_fixed_size_list(x.value_type)
    assert x.value_type.list_size == 2 and x.value_type.value_type == pa.float32()
    assert hf_features(tmp_path / "c.parquet")["x"] == {
        "feature": {"feature": {"dtype": "float32", "_type": "Value"}, "length": 2,
                    "_type": "Sequence"}, "length": -1, "_type": "Sequence"}


def test_speech_labels_are_class_labels_with_their_names(tmp_path: Path) -> None:
    source = htk_examples(GOLDEN / "feats.scp", [GOLDEN / "labels.mlf"],
                          labels=GOLDEN / "states.list", base_dir=GOLDEN)
    write_parquet(source, tmp_path / "s.parquet")
    got = rows(tmp_path / "s.parquet")
    assert [r["name"] for r in got] == [e["name"] for e in EXPECTED["htk"]]
    assert [r["labels"] for r in got] == [e["labels"] for e in EXPECTED["htk"]]
    assert all(close(r["features"], e["features"]) for r, e in zip(got, EXPECTED["htk"]))
    assert hf_features(tmp_path / "s.parquet")["labels"]["feature"] == {
        "names": ["sil", "ah", "eh"], "_type": "ClassLabel"}
    write_parquet(tfds_examples(GOLDEN / "htk/feats/1.0.0", "train"), tmp_path / "t.parquet")
    assert rows(tmp_path / "t.parquet") == got  # the names come from labels.labels.txt


def test_text_and_records(tmp_path: Path) -> None:
    write_parquet(text_examples(GOLDEN / "text.txt"), tmp_path / "t.parquet")
    assert [r["text"] for r in rows(tmp_path / "t.parquet")] == [e["text"] for e in
                                                                 EXPECTED["text"]]
    write_parquet(tfrecord_examples([DATA / "tf_golden/tfrecord/examples.tfrecord"]),
                  tmp_path / "r.parquet")  # Examples TensorFlow wrote
    golden = json.loads((DATA / "tf_golden/tfrecord/expected.json").read_text())["examples"]
    got = rows(tmp_path / "r.parquet")
    assert [r["label"] for r in got] == [g["label"] for g in golden]
    assert [r["score"] for r in got] == [g["score"] for g in golden]
    assert [[v.hex() for v in r["name"]] for r in got] == [g["name"] for g in golden]
    assert [r["empty"] for r in got] == [[], [], []]


def test_text_that_is_not_utf8_is_refused_with_its_place(tmp_path: Path, capsys) -> None:
    (tmp_path / "c.txt").write_bytes(b"ok\nnot \xff ok\n")
    with pytest.raises(FormatError, match="byte 4 of the text is not UTF-8"):
        write_parquet(text_examples(tmp_path / "c.txt"), tmp_path / "c.parquet")
    assert main(["convert", str(tmp_path / "c.txt"), str(tmp_path / "c.parquet")]) == 1
    assert "minibatcher validate lists every such line" in capsys.readouterr().err


def test_an_empty_input_gives_an_empty_table_with_its_schema(tmp_path: Path) -> None:
    (tmp_path / "e.txt").write_bytes(b"")
    assert write_parquet(text_examples(tmp_path / "e.txt"), tmp_path / "e.parquet") == 0
    table = pq.read_table(tmp_path / "e.parquet")
    assert table.num_rows == 0 and table.schema.names == ["text"]
