"""``minibatcher convert`` (CTF <-> TFRecord) and ``inspect`` of TFRecord
shards and TFDS folders."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from minibatcher import StreamDef
from minibatcher.cli import main
from minibatcher.formats.ctf import CTFDeserializer
from minibatcher.formats.tfrecord import ExampleDecoder, TFRecordFile
from minibatcher.tfds.testing import write_dataset

DATA = Path(__file__).resolve().parents[2] / "src" / "minibatcher" / "data"


def read_ctf(path: Path, defs: dict) -> list:
    d = CTFDeserializer(str(path), defs)
    out = []
    table = d.table()
    for c in range(table.num_chunks):
        chunk = d.load_chunk(c)
        for i in range(chunk.num_sequences):
            seq = []
            for s in chunk.streams:
                sl = s.sequence_slice(i)
                if s.is_sparse:
                    lo, hi = s.indptr[sl.start], s.indptr[sl.stop]
                    seq.append((s.indices[lo:hi].tolist(), s.values[lo:hi].tolist(),
                                np.diff(s.indptr[sl.start:sl.stop + 1]).tolist()))
                else:
                    seq.append(s.values[sl].tolist())
            out.append(seq)
    return out


@pytest.mark.parametrize("compression", [None, "GZIP"])
def test_ctf_tfrecord_round_trip(tmp_path: Path, capsys, compression: str | None) -> None:
    src = tmp_path / "in.ctf"
    src.write_text("5 |f 1 2.5 |w 3:1 7:0.25\n5 |f -3 4\n9 |f 0.125 6 |w 0:2\n11 |f 1 1 |w 2:1\n")
    specs = ["--stream", "f:2:dense", "--stream", "w:8:sparse"]
    extra = ["--compression", compression] if compression else []
    assert main(["convert", str(src), str(tmp_path / "o.tfrecord"), *specs, *extra]) == 0
    assert "converted 3 sequences: ctf -> tfrecord" in capsys.readouterr().out
    f = TFRecordFile(tmp_path / "o.tfrecord", compression)
    cols = ExampleDecoder({"sequence_id": "int64", "f": "float", "w/indices": "int64",
                           "w/values": "float", "w/lengths": "int64"}).decode(f.read())
    assert cols["sequence_id"].values.tolist() == [5, 9, 11]
    assert cols["f"].row(0).tolist() == [1, 2.5, -3, 4]
    assert cols["w/indices"].row(0).tolist() == [3, 7] and cols["w/lengths"].row(0).tolist() == [2]
    assert cols["w/values"].row(2).tolist() == [1.0]
    assert main(["convert", str(tmp_path / "o.tfrecord"), str(tmp_path / "back.ctf"), *specs,
                 *extra]) == 0
    defs = {"f": StreamDef(shape=2), "w": StreamDef(shape=8, is_sparse=True)}
    assert read_ctf(tmp_path / "back.ctf", defs) == read_ctf(src, defs)


def test_round_trip_of_shipped_sample(tmp_path: Path) -> None:
    src = DATA / "classification.ctf"
    assert main(["convert", str(src), str(tmp_path / "c.tfrecord")]) == 0  # surveyed streams
    out = json.loads(_run_json(["inspect", str(tmp_path / "c.tfrecord"), "--json"]))
    names = {f["name"] for f in out["files"][0]["features"]}
    assert "sequence_id" in names and out["records"] == out["files"][0]["records"] > 0


def _run_json(argv: list[str]) -> str:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(argv) == 0
    return buf.getvalue()


def test_convert_errors(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.ctf").write_text("|x 1\n")
    assert main(["convert", str(tmp_path / "a.ctf"), str(tmp_path / "b.bin")]) == 2
    assert "--to should name the output format (tfrecord, tfds, parquet, ctf)" in \
        capsys.readouterr().err
    assert main(["convert", str(tmp_path / "a.ctf"), str(tmp_path / "b.ctf")]) == 2
    assert ("cannot convert ctf to ctf; CTF is written from tfrecord (with --stream) and scp "
            "(with --mlf)") in capsys.readouterr().err
    assert main(["convert", str(tmp_path / "a.ctf"), str(tmp_path / "t.tfrecord")]) == 0
    assert main(["convert", str(tmp_path / "t.tfrecord"), str(tmp_path / "c.ctf")]) == 2
    assert "--stream specs are needed" in capsys.readouterr().err


def test_inspect_tfrecord_and_tfds(tmp_path: Path, capsys) -> None:
    d = write_dataset(tmp_path, {"train": [3, 2], "test": [1]})
    assert main(["inspect", str(d / "toy-train.tfrecord-*")]) == 0
    out = capsys.readouterr().out
    assert out.count("records:   ") == 2 and "records:   3 (" in out
    assert "  id                       int64  1..1 values" in out
    assert main(["inspect", str(d), "--verify"]) == 0
    out = capsys.readouterr().out
    assert "dataset:   toy 1.0.0 (tfrecord)" in out
    assert "split:     train                 5 examples in 2 shards" in out
    assert "  label                    ClassLabel int64    ()" in out
    assert "shards:    all present, lengths match shardLengths" in out
    (d / "toy-test.tfrecord-00000-of-00001").unlink()
    report = json.loads(_run_json(["inspect", str(d), "--verify", "--json"]))
    assert report["problems"] == 1
    assert report["first_problems"] == ["toy-test.tfrecord-00000-of-00001: missing (1 examples "
                                        "expected)"]
