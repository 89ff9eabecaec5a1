"""CLI polish (issue 6, item 8): progress only on a terminal, cat --max-errors, one exit
status for files without sequences in every command."""

from __future__ import annotations

import io
import json

import pytest

from minibatcher.cli import common, main

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

    for command in ("inspect", "validate", "cat"):
        assert build_parser().parse_args([command, "x.ctf", "--no-progress"]).progress is False
        assert build_parser().parse_args([command, "x.ctf", "--progress"]).progress is True
        assert build_parser().parse_args([command, "x.ctf"]).progress is None


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
