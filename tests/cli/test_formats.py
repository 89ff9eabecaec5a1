"""Every command on every format, on shipped data: ``inspect``, ``validate``, ``cat`` and
``convert`` of CTF, HTK/SCP/MLF, TFRecord, TFDS folders, text and configs, exit codes asserted
(malformed files: tests/cli/test_malformed.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from minibatcher.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
SUBSET = DATA / "an4" / "subset"
GOLDEN = DATA / "tfds_golden"


def run(capsys: pytest.CaptureFixture, *argv: str, status: int = 0) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == status, f"exit {code}, expected {status}\n{out}\n{err}"
    return out


def report(capsys: pytest.CaptureFixture, *argv: str, status: int = 0) -> dict:
    return json.loads(run(capsys, "inspect", *argv, "--json", status=status))


def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


INPUTS = {  # format -> (path, extra arguments of every command)
    "ctf": (GOLDEN / "ctf.ctf", []),
    "scp": (SUBSET / "an4_subset.scp", ["--base-dir", str(SUBSET)]),
    "mlf": (SUBSET / "an4_subset.mlf", ["--labels", str(DATA / "an4" / "state.list")]),
    "htk": (SUBSET / "an4_subset.htk", []),
    "tfrecord": (DATA / "tf_golden/tfrecord/examples.tfrecord", []),
    "tfds": (GOLDEN / "htk/feats/1.0.0", []),
    "text": (GOLDEN / "text.txt", []),
}


@pytest.mark.parametrize("kind", list(INPUTS))
def test_inspect_and_validate_every_format(kind: str, capsys: pytest.CaptureFixture) -> None:
    path, extra = INPUTS[kind]
    r = report(capsys, str(path), *extra)
    assert r["format"] == kind and r["problems"] == 0 and "error" not in r
    out = run(capsys, "validate", str(path), *extra)
    assert "summary: OK, no errors" in out


def test_inspect_figures(capsys: pytest.CaptureFixture) -> None:
    scp = report(capsys, str(SUBSET / "an4_subset.scp"), "--base-dir", str(SUBSET))
    assert (scp["utterances"], scp["frames"], scp["dim"]) == (6, 1918, 33)
    mlf = report(capsys, *[str(a) for a in (INPUTS["mlf"][0], *INPUTS["mlf"][1])])
    assert mlf["frames"] == sum(mlf["labels"].values()) == 1918 and "iy_s3_1" in mlf["labels"]
    tfds = report(capsys, str(GOLDEN / "htk/feats/1.0.0"), "--verify")
    assert tfds["splits"][0]["shard_lengths"] == [4]
    assert tfds["labels"]["train"]["labels"] == {"sil": 3, "ah": 6, "eh": 5}  # labels.labels.txt
    text = report(capsys, str(GOLDEN / "text.txt"))
    assert (text["lines"], text["blank_lines"], text["tokens"]) == (15, 3, 30)
    records = report(capsys, str(DATA / "tf_golden/tfrecord/records*.tfrecord"))
    assert [Path(f["file"]).name for f in records["files"]] == [
        "records.gzip.tfrecord", "records.tfrecord", "records.zlib.tfrecord"]


def test_inspect_config_lists_its_readers(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    (tmp_path / "d.ctf").write_text("|x 1 2\n|x 3 4\n|x 5 6\n")
    (tmp_path / "r.cntk").write_text(
        'Train = [ reader = [ readerType = "CNTKTextFormatReader"; file = "d.ctf"\n'
        '  input = [ x = [ dim = 2; format = "dense" ] ] ] ]\n'
        'Test = [ reader = [ readerType = "CNTKTextFormatReader"; file = "missing.ctf"\n'
        '  input = [ x = [ dim = 2; format = "dense" ] ] ] ]\n')
    r = report(capsys, str(tmp_path / "r.cntk"), status=2)  # a file the config names is missing
    assert r["sections"][0] == {"section": "Train", "deserializer": "d.ctf",
                                "sequences": 3, "samples": 3, "chunks": 1,
                                "streams": ["x:2:dense"]}
    assert r["problems"] == 1 and "missing.ctf" in r["first_problems"][0] and "error" not in r
    assert r["configuration_errors"] == 1 and r["sections"][1]["config_error"] is True
    out = run(capsys, "validate", str(tmp_path / "r.cntk"), status=2)
    assert "error 1: section Test:" in out and "section Train  3 sequences" in out
    assert "section Test   cannot be built (the config is wrong)" in out
    assert "summary: OK" in run(capsys, "validate", str(tmp_path / "r.cntk"), "--section", "Train")


def test_cat_names_every_sequence_or_example(capsys: pytest.CaptureFixture) -> None:
    lines = jsonl(run(capsys, "cat", str(SUBSET / "an4_subset.scp"), "--base-dir", str(SUBSET),
                      "--mlf", str(SUBSET / "an4_subset.mlf"), "--labels",
                      str(DATA / "an4" / "state.list"), "--count", "2"))
    assert lines[0]["streams"]["features"]["names"] == ["An4/71/71/cen5-fjam-b"]
    assert lines[1]["streams"]["labels"]["names"] == ["An4/213/213/cen4-fsaf2-b"]
    lines = jsonl(run(capsys, "cat", str(GOLDEN / "htk/feats/1.0.0"), "--split", "train[1:3]"))
    assert [x["name"] for x in lines] == ["feats-train.tfrecord-00000-of-00001__1",
                                          "feats-train.tfrecord-00000-of-00001__2"]
    assert lines[0]["features"]["name"] == "spk1/u2" and len(lines[0]["features"]["labels"]) == 5
    lines = jsonl(run(capsys, "cat", str(DATA / "tf_golden/tfrecord/examples.tfrecord")))
    assert [x["name"].rsplit(":", 1)[1] for x in lines] == ["0", "1", "2"]
    assert set(lines[0]["features"]) == {"empty", "label", "name", "score"}
    lines = jsonl(run(capsys, "cat", str(GOLDEN / "text.txt"), "--count", "3"))
    assert [(x["name"].rsplit(":", 1)[1], x["text"]) for x in lines] == [
        ("1", "ein kleiner Satz"), ("2", ""), ("3", "zwei Wörter")]
    lines = jsonl(run(capsys, "cat", str(SUBSET / "an4_subset.htk"), "--count", "2"))
    assert len(lines) == 2 and len(lines[1]["values"]) == 33
    lines = jsonl(run(capsys, "cat", str(INPUTS["mlf"][0]), *INPUTS["mlf"][1], "--count", "1"))
    assert lines[0]["streams"]["labels"]["names"] == ["An4/71/71/cen5-fjam-b"]


@pytest.mark.parametrize("kind", ["ctf", "scp", "tfrecord", "tfds", "text"])
@pytest.mark.parametrize("target", ["tfrecord", "tfds", "parquet"])
def test_convert_every_input_to_every_output(kind: str, target: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture) -> None:
    if target == "parquet":
        pytest.importorskip("pyarrow")
    path, extra = INPUTS[kind]
    if kind == "scp":
        extra = [*extra, "--mlf", str(SUBSET / "an4_subset.mlf"), "--labels",
                 str(DATA / "an4" / "state.list")]
    out = tmp_path / ("out" if target == "tfds" else f"out.{target}")
    line = run(capsys, "convert", str(path), str(out), "--to", target, *extra)
    counts = {"ctf": 7, "scp": 6, "tfrecord": 3, "tfds": 4, "text": 15}
    assert line.startswith(f"converted {counts[kind]} ") and f": {kind} -> {target}" in line
    if target == "parquet":  # written for the Hugging Face world: pyarrow reads it back
        import pyarrow.parquet as pq

        assert pq.read_table(out).num_rows == counts[kind]
        return
    r = report(capsys, str(out))  # what was written reads back
    if target == "tfds":
        assert r["splits"][0]["num_examples"] == counts[kind]
        assert "summary: OK, no errors" in run(capsys, "validate", str(out))
    elif target == "tfrecord":
        assert r["records"] == counts[kind]


def test_help_texts_say_what_each_command_reads(capsys: pytest.CaptureFixture) -> None:
    for command, says in [("inspect", "MLF label files"), ("validate", "TFDS      every shard"),
                          ("cat", "TFDS folder the examples of --split"),
                          ("convert", "--to tfds (a TFDS dataset")]:
        out = run(capsys, command, "--help")
        assert says in out
        assert ":data:" not in out and "register" not in out  # no developer docstrings
    top = run(capsys, "--help")
    assert "CTF" in top and "TFRecord" in top and "TFDS" in top and "HTK" in top
