"""The ``minibatcher`` entry point: help, version, usage errors, ``python -m``, doctests."""

from __future__ import annotations

import doctest
import importlib
import os
import subprocess
import sys

import pytest

from minibatcher.cli import main
from minibatcher.cli.common import UsageError, existing_file

MODULES = ["minibatcher.cli", "minibatcher.cli.common", "minibatcher.cli.demo",
           "minibatcher.cli.inspect", "minibatcher.cli.validate", "minibatcher.cli.cat"]


def test_help_lists_the_subcommands_and_exit_statuses(capsys: pytest.CaptureFixture) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("demo", "inspect", "validate", "cat"):
        assert command in out
    assert "exit status: 0 success; 1 the data is wrong: it has errors" in out
    assert "2 the command\nline or configuration is wrong" in out


@pytest.mark.parametrize("command, option", [("demo", "usage: minibatcher demo"),
                                             ("inspect", "--skip-sequence-ids"),
                                             ("validate", "--max-errors"),
                                             ("inspect", "--max-errors"),
                                             ("inspect", "--no-verify-crc"),
                                             ("validate", "--no-verify-crc"),
                                             ("cat", "--minibatch-size")])
def test_subcommand_help(command: str, option: str, capsys: pytest.CaptureFixture) -> None:
    assert main([command, "--help"]) == 0
    assert option in capsys.readouterr().out


def test_version(capsys: pytest.CaptureFixture) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("minibatcher 0.")


def test_no_command_prints_usage_and_fails(capsys: pytest.CaptureFixture) -> None:
    assert main([]) == 2
    assert "usage: minibatcher" in capsys.readouterr().err


def test_unknown_command(capsys: pytest.CaptureFixture) -> None:
    assert main(["frobnicate"]) == 2
    assert "invalid choice: 'frobnicate'" in capsys.readouterr().err


def test_missing_argument(capsys: pytest.CaptureFixture) -> None:
    assert main(["inspect"]) == 2
    assert "the following arguments are required: PATH" in capsys.readouterr().err


def test_missing_file_is_a_usage_error(capsys: pytest.CaptureFixture, tmp_path) -> None:
    for command in ("inspect", "validate", "cat"):
        assert main([command, str(tmp_path / "missing.ctf")]) == 2
        err = capsys.readouterr().err
        assert f"minibatcher {command}: error:" in err and "(no such file)" in err


def test_a_directory_is_not_a_file(capsys: pytest.CaptureFixture, tmp_path) -> None:
    # a folder is read only as a TFDS dataset (it needs dataset_info.json)
    assert main(["inspect", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "PATH should be a file or a TFDS dataset folder" in err
    assert "it has no dataset_info.json" in err
    (tmp_path / "3.0.1").mkdir()
    (tmp_path / "3.0.1" / "dataset_info.json").write_text("{}")
    assert main(["validate", str(tmp_path)]) == 2
    assert f"give one of them: {tmp_path / '3.0.1'}" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_an_input_that_is_no_regular_file_says_what_it_is(capsys: pytest.CaptureFixture,
                                                          tmp_path) -> None:
    # it said "(not a file)"
    os.mkfifo(tmp_path / "in.ctf")
    assert main(["convert", "--format", "tfrecord", str(tmp_path / "in.ctf"),
                 str(tmp_path / "out.ctf"), "--stream", "x:2:dense"]) == 2
    err = capsys.readouterr().err
    assert "INPUT should be a regular file" in err and "(a FIFO (named pipe))" in err
    with pytest.raises(UsageError, match=r"--labels should be a regular file, .* \(a directory\)"):
        existing_file(str(tmp_path), "--labels")


def test_python_m_runs_the_demo() -> None:
    done = subprocess.run([sys.executable, "-m", "minibatcher.cli", "demo"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "== simple.ctf" in done.stdout
    assert "identical (keys, lengths and values): True" in done.stdout
    assert "Traceback" not in done.stderr  # (an editable install may log a rebuild here)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
