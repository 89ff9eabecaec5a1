"""``minibatcher cat``: minibatches as JSON lines, from CTF files and configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from minibatcher.cli import main

DENSE = "".join(f"|x {i} {i / 10}\n" for i in range(10))
CONFIG = """
dataFile = "a.ctf"
Train = [
    reader = [
        readerType = "CNTKTextFormatReader"
        file = "$dataFile$"
        randomize = true
        traceLevel = 0
        input = [ x = [ dim = 1; format = "dense" ] ]
    ]
]
"""


def cat(capsys: pytest.CaptureFixture, *args: str, status: int = 0) -> list[dict]:
    assert main(["cat", *args]) == status
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def keys(lines: list[dict], stream: str = "x") -> list[list[int]]:
    return [line["streams"][stream]["keys"] for line in lines]


def test_dense_ctf_in_file_order(write, capsys: pytest.CaptureFixture) -> None:
    lines = cat(capsys, str(write(DENSE)), "--stream", "x:2:dense", "--minibatch-size", "4")
    assert [line["minibatch"] for line in lines] == [0, 1, 2]
    assert keys(lines) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert [line["end_of_sweep"] for line in lines] == [False, False, True]
    first = lines[0]["streams"]["x"]
    assert first["lengths"] == [1, 1, 1, 1]
    assert first["values"] == [[0.0, 0.0], [1.0, 0.1], [2.0, 0.2], [3.0, 0.3]]  # shortest floats


def test_sparse_stream_has_csr_arrays(write, capsys: pytest.CaptureFixture) -> None:
    path = write("0 |w 3:1 5:2 |y 1\n0 |w 0:1 |y 2\n1 |w |y 3\n")
    lines = cat(capsys, str(path), "--stream", "w:8:sparse", "--stream", "y:1:dense")
    w = lines[0]["streams"]["w"]
    assert set(w) == {"keys", "lengths", "indptr", "indices", "values"}
    assert (w["keys"], w["lengths"]) == ([0, 1], [2, 1])
    assert (w["indptr"], w["indices"], w["values"]) == ([0, 2, 3, 3], [3, 5, 0], [1.0, 2.0, 1.0])
    assert lines[0]["streams"]["y"]["values"] == [[1.0], [2.0], [3.0]]


def test_alias_and_survey_streams(write, capsys: pytest.CaptureFixture) -> None:
    path = write("|F 1 2 |L 0:1\n|F 3 4 |L 1:1\n")
    lines = cat(capsys, str(path), "--stream", "features:2:dense:F")
    assert list(lines[0]["streams"]) == ["features"]
    assert main(["cat", str(path)]) == 0
    captured = capsys.readouterr()
    assert "using the streams found by a survey: F:2:dense L:2:sparse" in captured.err
    assert list(json.loads(captured.out.splitlines()[0])["streams"]) == ["F", "L"]


def test_count_and_sweeps(write, capsys: pytest.CaptureFixture) -> None:
    path = str(write(DENSE))
    assert len(cat(capsys, path, "--stream", "x:2:dense", "--minibatch-size", "3",
                   "--count", "2")) == 2
    lines = cat(capsys, path, "--stream", "x:2:dense", "--minibatch-size", "5", "--sweeps", "3")
    assert sum(len(k) for k in keys(lines)) == 30
    assert [line["end_of_sweep"] for line in lines] == [False, True] * 3
    assert cat(capsys, path, "--stream", "x:2:dense", "--count", "0") == []


def test_seed_randomizes_deterministically(write, capsys: pytest.CaptureFixture) -> None:
    path = str(write(DENSE))
    args = (path, "--stream", "x:2:dense", "--minibatch-size", "10")
    plain = keys(cat(capsys, *args))
    first = keys(cat(capsys, *args, "--seed", "3"))
    assert keys(cat(capsys, *args, "--seed", "3")) == first
    assert sorted(first[0]) == plain[0] == list(range(10)) and first[0] != plain[0]


def test_seed_and_no_randomize_exclude_each_other(write, capsys: pytest.CaptureFixture) -> None:
    assert main(["cat", str(write(DENSE)), "--seed", "1", "--no-randomize"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_config_resolves_files_next_to_it(tmp_path: Path, capsys: pytest.CaptureFixture,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.ctf").write_text("".join(f"|x {i}\n" for i in range(6)))
    (tmp_path / "b.ctf").write_text("|x 42\n")
    config = tmp_path / "train.cntk"
    config.write_text(CONFIG)
    monkeypatch.chdir(tmp_path.parent)
    ordered = cat(capsys, str(config), "--section", "Train", "--no-randomize")
    assert keys(ordered) == [[0, 1, 2, 3, 4, 5]]
    shuffled = cat(capsys, str(config), "--section", "Train", "--minibatch-size", "6")
    assert sorted(keys(shuffled)[0]) == list(range(6))
    override = cat(capsys, str(config), "--section", "Train", "--set", "dataFile=b.ctf")
    assert override[0]["streams"]["x"]["values"] == [[42.0]]


def test_section_makes_any_file_a_config(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "a.ctf").write_text("|x 1\n")
    config = tmp_path / "train.conf"
    config.write_text(CONFIG)
    assert cat(capsys, str(config), "--section", "Train")[0]["streams"]["x"]["keys"] == [0]


def test_config_errors(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "a.ctf").write_text("|x 1\n")
    config = tmp_path / "train.cntk"
    config.write_text(CONFIG)
    assert main(["cat", str(config), "--section", "Nope"]) == 2
    assert "no section 'Nope'" in capsys.readouterr().err
    assert main(["cat", str(config), "--section", "Train", "--stream", "x:1:dense"]) == 2
    assert "--stream applies to CTF files only" in capsys.readouterr().err
    assert main(["cat", str(config), "--section", "Train", "--set", "novalue"]) == 2
    assert ("--set should be KEY=VALUE (e.g. --set defMBSize=true), but got --set='novalue'"
            in capsys.readouterr().err)


def test_ctf_errors(write, capsys: pytest.CaptureFixture) -> None:
    path = str(write(DENSE))
    assert main(["cat", path, "--set", "a=1"]) == 2
    assert "--set applies to configs only" in capsys.readouterr().err
    assert main(["cat", path, "--stream", "x:2:dense", "--minibatch-size", "0"]) == 2
    assert ("option --minibatch-size should be an int >= 1, but got --minibatch-size=0"
            in capsys.readouterr().err)
    assert main(["cat", path, "--stream", "x=2"]) == 2
    assert "--stream should be one of NAME:DIM:dense" in capsys.readouterr().err


def test_malformed_data_exits_1(write, capsys: pytest.CaptureFixture) -> None:
    assert main(["cat", str(write("|x 1\n|x 2,\n")), "--stream", "x:1:dense"]) == 1
    err = capsys.readouterr().err
    assert "minibatcher cat: error:" in err
    # the advice names the command's flag, not the Python argument of the message
    assert "Use --max-errors N with a larger N" in err and "max_errors" not in err


def test_defines_mb_size(write, capsys: pytest.CaptureFixture) -> None:
    path = write("100 |a 1 |b 1\n333 |b 5\n400 |a 2 |b 2\n")
    lines = cat(capsys, str(path), "--stream", "a:1:dense", "--stream", "b:1:dense",
                "--defines-mb-size", "a")
    assert keys(lines, "a") == [[100, 400]]


def test_base_dir_resolves_the_config_files(tmp_path, capsys):
    import json

    from minibatcher.cli import main

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "d.ctf").write_text("|x 1\n|x 2\n")
    config = tmp_path / "r.cntk"
    config.write_text('reader = [ readerType = "CNTKTextFormatReader"; file = "d.ctf"; '
                      'randomize = false; input = [ x = [ dim = 1; format = "dense" ] ] ]\n')
    assert main(["cat", str(config), "--base-dir", str(tmp_path / "data"), "--count", "1"]) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[0])
    assert line["streams"]["x"]["values"] == [[1.0], [2.0]]
