"""CLI polish (issue 6, item 8): progress only on a terminal, cat --max-errors, one exit
status for files without sequences in every command."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from minibatcher.cli import common, main
from minibatcher.formats.htk import write_htk

DATA = "|x 1 2\n|x 3 4\n|x 5 6\n"
NO_SEQUENCES = {"empty": b"", "blank": b"\n  \n\t\n", "comments": b"|# a comment\n\n|# another\n"}


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def large(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tqdm")
    monkeypatch.setattr(common, "LARGE_FILE", 0)  # every file gets bars when they are shown


@pytest.mark.parametrize("command", [["inspect"], ["validate", "--stream", "x:2:dense"],
                                     ["cat", "--stream", "x:2:dense"]])
def test_no_progress_in_logs_unless_asked(write, large, capsys, monkeypatch, command):
    path = str(write(DATA))
    assert main([command[0], path, *command[1:]]) == 0
    assert "\r" not in capsys.readouterr().err  # stderr is a pipe or a file: no bars
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main([command[0], path, *command[1:]]) == 0
    assert "\r" in terminal.getvalue()  # a terminal gets bars by default
    terminal.seek(0), terminal.truncate()
    assert main([command[0], path, *command[1:], "--no-progress"]) == 0
    assert terminal.getvalue() == ""


def test_progress_option_is_on_every_command_that_reads_files():
    from minibatcher.cli import build_parser

    for command in (["inspect"], ["validate"], ["cat"], ["convert", "o.tfrecord"]):
        argv = [command[0], "x.ctf", *command[1:]]
        assert build_parser().parse_args([*argv, "--no-progress"]).progress is False
        assert build_parser().parse_args([*argv, "--progress"]).progress is True
        assert build_parser().parse_args(argv).progress is None


def test_cat_max_errors_for_files_and_configs(write, tmp_path, capsys):
    path = write("0 |x 1\n1 |x 2\n0 |x 3\n")  # id 0 repeats on a later line: one error
    assert main(["cat", str(path), "--stream", "x:1:dense"]) == 1
    assert "max_errors" in capsys.readouterr().err
    assert main(["cat", str(path), "--stream", "x:1:dense", "--max-errors", "1"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [v for line in lines for v in line["streams"]["x"]["values"]] == [[1.0], [2.0], [3.0]]
    config = tmp_path / "r.cntk"
    config.write_text(f'reader = [ readerType = "CNTKTextFormatReader"; file = "{path.name}"; '
                      'randomize = false; input = [ x = [ dim = 1; format = "dense" ] ] ]\n')
    assert main(["cat", str(config)]) == 1
    capsys.readouterr()
    assert main(["cat", str(config), "--max-errors", "1"]) == 0
    assert main(["cat", str(config), "--max-errors", "-1"]) == 2
    assert "option --max-errors should be an int >= 0" in capsys.readouterr().err


@pytest.mark.parametrize("kind", sorted(NO_SEQUENCES))
@pytest.mark.parametrize("command", [["inspect"], ["validate"],
                                     ["validate", "--stream", "x:1:dense"],
                                     ["cat"], ["cat", "--stream", "x:1:dense"]],
                         ids=["inspect", "validate", "validate-stream", "cat", "cat-stream"])
def test_files_without_sequences_exit_1_in_every_command(write, capsys, kind, command):
    path = write(NO_SEQUENCES[kind], f"{kind}.ctf")
    assert main([command[0], str(path), *command[1:]]) == 1
    captured = capsys.readouterr()
    assert f"{kind}.ctf" in captured.err + captured.out
    text = captured.err + captured.out
    assert "no sequence to read" in text or "the file is empty (or blank)" in text


@pytest.mark.parametrize("target", [["o.tfrecord"], ["ds", "--to", "tfds"], ["o.parquet"],
                                    ["o.ctf", "--stream", "x:2:dense"], ["scp.ctf"]],
                         ids=["tfrecord", "tfds", "parquet", "ctf-from-tfrecord", "ctf-from-scp"])
def test_convert_draws_a_progress_bar(tmp_path, capsys, monkeypatch, target):
    """Every convert target draws tqdm's bar over the examples on a terminal (``--progress``
    anywhere), none with ``--no-progress`` or into a log."""
    tqdm = pytest.importorskip("tqdm")
    if target[0].endswith(".parquet"):
        pytest.importorskip("pyarrow")

    class EveryUpdate(tqdm.tqdm):  # redraws on every update, so the last count shows
        def __init__(self, *args, **kwargs):
            super().__init__(*args, mininterval=0, miniters=1, **kwargs)

    monkeypatch.setattr(tqdm, "tqdm", EveryUpdate)
    (tmp_path / "d.ctf").write_text("".join(f"{i} |x {i} {i + 1}\n" for i in range(40)))
    assert main(["convert", str(tmp_path / "d.ctf"), str(tmp_path / "d.tfrecord")]) == 0
    source = tmp_path / "d.tfrecord"
    extra: list[str] = []
    if target[0] == "scp.ctf":
        write_htk(tmp_path / "a.htk", np.ones((30, 2), np.float32))
        (tmp_path / "l.scp").write_text("".join(f"u{i}=a.htk[{i},{i + 2}]\n" for i in range(25)))
        (tmp_path / "l.mlf").write_text("#!MLF!#\n" + "".join(
            f'"u{i}.lab"\n0 300000 s 0\n.\n' for i in range(25)))
        source, extra = tmp_path / "l.scp", ["--mlf", str(tmp_path / "l.mlf"), "--label-dim",
                                             "1", "--base-dir", str(tmp_path)]
    capsys.readouterr()
    argv = ["convert", str(source), str(tmp_path / target[0]), *target[1:], *extra]
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(argv) == 0
    bar = terminal.getvalue()
    total = 25 if target[0] == "scp.ctf" else 40
    assert "\r" in bar and "convert" in bar and f"{total}/{total}" in bar, bar
    terminal.seek(0), terminal.truncate()
    if target[0] == "ds":  # a second split: the folder exists now
        argv += ["--split", "test"]
    assert main([*argv, "--no-progress"]) == 0
    assert terminal.getvalue() == ""
    log = io.StringIO()  # a log file: no bar unless asked
    monkeypatch.setattr("sys.stderr", log)
    if target[0] == "ds":
        argv[-1] = "valid"
    assert main(argv) == 0 and "\r" not in log.getvalue()
    if target[0] == "ds":
        argv[-1] = "extra"
    assert main([*argv, "--progress"]) == 0 and f"{total}/{total}" in log.getvalue()
