"""``minibatcher inspect``."""

from __future__ import annotations

import json
import sys

import pytest

from minibatcher.cli import common, main

DATA = ("0 |x 1 2 |y 3:1 |# a comment\n0 |x 3 4 5\n\n1 |x 5 6 |y 0:2 17:1\n"
        "2 |x 7\n2 |x 8\n2 |x 9\n")


def test_text_report(write, capsys: pytest.CaptureFixture) -> None:
    path = write(DATA)
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"file:          {path} (" in out
    assert "mode:          sequence ids" in out
    assert "sequences:     3\n" in out and "rows:          6\n" in out
    assert "chunks:        1 (chunk size 32.0 MiB)" in out
    assert "lines:         7 (1 ignored: blank or comment-only)" in out
    x_line = next(line for line in out.splitlines() if line.startswith("  x "))
    assert x_line.split() == ["x", "6", "10", "dense", "3", "1..3"]
    y_line = next(line for line in out.splitlines() if line.startswith("  y "))
    assert y_line.split() == ["y", "2", "3", "sparse", "18", "1..2"]
    assert "as --stream:   --stream x:3:dense --stream y:18:sparse" in out
    assert "sequence lengths (rows):" in out
    assert "  1  " in out and "  2  " in out and "  3  " in out


def test_json_report(write, capsys: pytest.CaptureFixture) -> None:
    assert main(["inspect", str(write(DATA)), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["mode"], report["sequences"], report["rows"], report["chunks"]) == (
        "sequence ids", 3, 6, 1)
    assert report["ignored_lines"] == 1
    streams = {s["name"]: s for s in report["streams"]}
    assert streams["x"]["looks_sparse"] is False and streams["x"]["dim"] == 3
    assert (streams["x"]["min_values_per_sample"], streams["x"]["max_values_per_sample"]) == (1, 3)
    assert streams["y"]["looks_sparse"] is True and streams["y"]["max_index"] == 17
    assert report["histogram"] == [{"min": 1, "max": 1, "count": 1},
                                   {"min": 2, "max": 2, "count": 1},
                                   {"min": 3, "max": 3, "count": 1}]


def test_skip_sequence_ids_and_chunk_size(write, capsys: pytest.CaptureFixture) -> None:
    assert main(["inspect", str(write(DATA)), "--json", "--skip-sequence-ids",
                 "--chunk-size", "20"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mode"] == "lines" and report["sequences"] == 6 and report["chunks"] > 1


def test_histogram_buckets_many_lengths(write, capsys: pytest.CaptureFixture) -> None:
    lines = [f"{seq} |a 1\n" * (seq + 1) for seq in range(20)]
    assert main(["inspect", str(write("".join(lines))), "--json"]) == 0
    buckets = json.loads(capsys.readouterr().out)["histogram"]
    assert [(b["min"], b["max"]) for b in buckets] == [(1, 1), (2, 3), (4, 7), (8, 15), (16, 31)]
    assert sum(b["count"] for b in buckets) == 20


def test_mixed_stream_and_no_streams(write, capsys: pytest.CaptureFixture) -> None:
    assert main(["inspect", str(write("|m 1:2 3\n|# only comments\n"))]) == 0
    assert " mixed " in capsys.readouterr().out
    # a file without sequences is a data error (exit 1) in every command
    assert main(["inspect", str(write("|#a\n|#b\n", "comments.ctf"))]) == 1
    assert "comments.ctf: no sequence to read: no line has an input sample" in (
        capsys.readouterr().err)


def test_empty_file_is_a_data_error(write, capsys: pytest.CaptureFixture) -> None:
    assert main(["inspect", str(write(b""))]) == 1
    assert "the file is empty" in capsys.readouterr().err


def test_bad_chunk_size(write, capsys: pytest.CaptureFixture) -> None:
    assert main(["inspect", str(write(DATA)), "--chunk-size", "0"]) == 2
    assert "option --chunk-size should be an int >= 1, but got --chunk-size=0" in (
        capsys.readouterr().err)


def test_progress_bars_on_large_files(write, capsys: pytest.CaptureFixture,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tqdm")
    monkeypatch.setattr(common, "LARGE_FILE", 0)
    assert main(["inspect", str(write(DATA)), "--progress"]) == 0  # stderr is no terminal here
    captured = capsys.readouterr()
    assert "survey" in captured.err and "sequences:     3" in captured.out


def test_no_progress_bar_without_tqdm(write, capsys: pytest.CaptureFixture,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "LARGE_FILE", 0)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # makes `from tqdm import tqdm` fail
    assert main(["inspect", str(write(DATA)), "--progress"]) == 0
    assert capsys.readouterr().err == ""


def test_repeated_ids_are_reported(write, capsys: pytest.CaptureFixture) -> None:
    path = write("1 |a 1\n2 |a 2\n1 |a 3\n")
    assert main(["inspect", str(path)]) == 0
    assert "repeated ids:  1 sequence(s) reuse an id" in capsys.readouterr().out
    assert main(["inspect", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["repeated_ids"] == 1
