"""``minibatcher validate``: every error printed, a summary, exit status 0/1/2."""

from __future__ import annotations

import pytest

from minibatcher.cli import common, main

CLEAN = "0 |x 1 2 |y 3:1\n0 |x 3 4\n1 |x 5 6 |y 0:2\n"


def validate(path, *extra: str) -> int:
    return main(["validate", str(path), *extra])


def test_clean_file_exits_0(write, capsys: pytest.CaptureFixture) -> None:
    assert validate(write(CLEAN), "--stream", "x:2:dense", "--stream", "y:5:sparse") == 0
    out = capsys.readouterr().out
    assert "validating" in out and "with streams: x:2:dense y:5:sparse" in out
    assert "summary: OK, no errors" in out and "error 1" not in out


def test_streams_default_to_the_survey(write, capsys: pytest.CaptureFixture) -> None:
    assert validate(write(CLEAN)) == 0
    out = capsys.readouterr().out
    assert ("no --stream given: using the streams found by a survey of the file: "
            "x:2:dense y:4:sparse") in out
    assert "summary: OK, no errors" in out


def test_every_error_is_printed_with_its_location(write, capsys: pytest.CaptureFixture) -> None:
    path = write("|x 1 2\n|x 1 2,\n|x 1 2 3\n|x 4 5\n|x 7 x\n")
    assert validate(path, "--stream", "x:2:dense", "--chunk-size", "8") == 1
    out = capsys.readouterr().out
    assert f"error 1: {path}:2:" in out
    assert "(byte offset 13)" in out and "    |x 1 2,\n" in out and "^" in out
    assert f"{path}:3:1" in out and "expected at most dim=2" in out
    assert f"{path}:5:" in out
    assert "summary: " in out and "error(s)" in out
    errors_line = next(line for line in out.splitlines() if line.startswith("  errors"))
    assert int(errors_line.split()[-1]) == out.count("\nerror ") + out.startswith("error ")


def test_summary_counts(write, capsys: pytest.CaptureFixture) -> None:
    path = write("|x 1\n\n|x 1 2 |z 4\n|# comment\n|x 3 4 |z 5\n")
    assert validate(path, "--stream", "x:2:dense") == 0
    out = capsys.readouterr().out
    assert "  zero-filled samples  1" in out
    assert "  unknown inputs       z (2 samples)" in out
    assert "  ignored lines        2" in out


def test_repeated_ids_are_errors(write, capsys: pytest.CaptureFixture) -> None:
    assert validate(write("1 |x 1\n2 |x 2\n1 |x 3\n"), "--stream", "x:1:dense") == 1
    out = capsys.readouterr().out
    assert "sequence id 1 was already used" in out and "  repeated ids         1" in out


def test_max_errors_stops_early(write, capsys: pytest.CaptureFixture) -> None:
    path = write("|x 1 2\n|x a 2\n|x b 2\n|x c 2\n")
    assert validate(path, "--stream", "x:2:dense", "--max-errors", "1",
                    "--skip-sequence-ids") == 1
    out = capsys.readouterr().out
    assert "stopped: more than --max-errors 1 errors" in out
    assert "summary: reading stopped early" in out


def test_incomplete_sequence_is_reported_and_exits_1(write, capsys: pytest.CaptureFixture) -> None:
    path = write("0 |x 1 |y 2\n1 |y 3\n")
    assert validate(path, "--stream", "x:1:dense", "--stream", "y:1:dense") == 1
    out = capsys.readouterr().out
    assert "incomplete sequence 1: " in out and "input 'x' has no sample in sequence (key 1)" in out
    assert "  lost a stream        1 sequence(s) without a sample of some stream" in out


def test_every_problem_is_reported_not_just_the_first_of_a_chunk(
        write, capsys: pytest.CaptureFixture) -> None:
    """A sequence that loses a stream used to end the reading of its chunk:
    the problems after it in the same chunk were never reported."""
    path = write("0 |y 2\n1 |x 1 |y 2\n2 |x 1 2 |y 3\n3 |y 4\n4 |x 7 x |y 5\n")
    assert validate(path, "--stream", "x:1:dense", "--stream", "y:1:dense") == 1
    out = capsys.readouterr().out
    assert "fatal error" not in out
    assert "input 'x' has no sample in sequence (key 0)" in out
    assert "expected at most dim=1" in out  # sequence 2, after the first incomplete one
    assert "input 'x' has no sample in sequence (key 2) (its samples were rejected" in out
    assert "input 'x' has no sample in sequence (key 3)" in out
    assert "incomplete sequence 3: see error 3 above" in out  # charged and skipped: shown once
    assert f"{path}:5:" in out and "malformed number" in out
    # errors: key 0 and key 3 lack x (2), the long sample (1), the bad number (1)
    assert "summary: 4 error(s), 4 incomplete sequence(s)" in out


def test_defines_mb_size_skips_sequences_without_it(write, capsys: pytest.CaptureFixture) -> None:
    path = write("100 |a 1 2 3 |b 1 2\n333 |b 5 6\n400 |a 1 2 3 |b 1 2\n")
    assert validate(path, "--defines-mb-size", "a") == 0
    assert "  dropped sequences    1" in capsys.readouterr().out
    assert validate(path, "--stream", "a:3:dense", "--defines-mb-size", "nope") == 2
    assert ("--defines-mb-size should name one of the streams (a), but got "
            "--defines-mb-size='nope'") in capsys.readouterr().err


def test_precision_double(write, capsys: pytest.CaptureFixture) -> None:
    assert validate(write(CLEAN), "--precision", "double") == 0
    assert validate(write(CLEAN), "--precision", "half") == 2
    assert "invalid choice: 'half'" in capsys.readouterr().err


@pytest.mark.parametrize("spec", ["x", "x:2", "x:two:dense", "x:0:dense", "x:2:csr", "x:²:dense",
                                  "x:2:dense:a:b", ":2:dense", "x:2:dense:"])
def test_bad_stream_spec_lists_the_valid_forms(write, capsys: pytest.CaptureFixture,
                                               spec: str) -> None:
    assert validate(write(CLEAN), "--stream", spec) == 2
    err = capsys.readouterr().err
    assert "minibatcher validate: error: --stream should be one of NAME:DIM:dense, " in err
    assert "NAME:DIM:sparse:ALIAS" in err and f"but got --stream={spec!r}" in err


def test_duplicate_stream_names(write, capsys: pytest.CaptureFixture) -> None:
    assert validate(write(CLEAN), "--stream", "x:2:dense", "--stream", "x:3:dense") == 2
    assert "--stream names should be distinct" in capsys.readouterr().err


def test_file_without_samples(write, capsys: pytest.CaptureFixture) -> None:
    # a file without sequences is a data error (exit 1) in every command, with or without --stream
    assert validate(write("|# nothing here\n")) == 1
    assert "no sequence to read: no line has an input sample" in capsys.readouterr().err


def test_empty_file(write, capsys: pytest.CaptureFixture) -> None:
    assert validate(write(b""), "--stream", "x:1:dense") == 1
    assert "the file is empty" in capsys.readouterr().out


def test_bad_numbers_in_options(write, capsys: pytest.CaptureFixture) -> None:
    assert validate(write(CLEAN), "--max-errors", "-1") == 2
    assert "option --max-errors should be an int >= 0, but got --max-errors=-1" in (
        capsys.readouterr().err)


def test_progress_bars_on_large_files(write, capsys: pytest.CaptureFixture,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tqdm")
    monkeypatch.setattr(common, "LARGE_FILE", 0)
    assert validate(write(CLEAN), "--chunk-size", "10", "--progress") == 0  # no terminal here
    captured = capsys.readouterr()
    assert "chunks" in captured.err and "summary: OK, no errors" in captured.out
