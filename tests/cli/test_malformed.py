"""Malformed files of every format: where the problem is and what was expected, and exit
codes (issue 15, item 13: ``inspect`` exits 1 when nothing can be read)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from minibatcher.cli import main
from minibatcher.formats.htk import write_htk
from minibatcher.formats.tfrecord import TFRecordWriter, encode_example
from minibatcher.tfds.testing import write_dataset


def run(capsys: pytest.CaptureFixture, *argv: str, status: int) -> tuple[str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == status, f"exit {code}, expected {status}\n{out}\n{err}"
    return out, err


def test_inspect_exits_1_when_nothing_can_be_read(tmp_path: Path, capsys) -> None:
    """Issue 15.13: these printed an error and exited 0."""
    (tmp_path / "bad.scp").write_text("u1=missing.htk[0,3]\nu2=gone.htk[0,1]\n")
    out, _ = run(capsys, "inspect", str(tmp_path / "bad.scp"), "--json", status=1)
    r = json.loads(out)
    assert r["utterances"] == 0 and r["problems"] == 2 and "no utterance to read" in r["error"]
    (tmp_path / "header.mlf").write_text("#!MLF!#\n")
    out, _ = run(capsys, "inspect", str(tmp_path / "header.mlf"), status=1)
    assert "error: " in out and "it has no entry" in out
    (tmp_path / "invalid.mlf").write_text('#!MLF!#\n"a.lab"\n0 1 s\n.\n')  # 3 columns, no ids
    out, _ = run(capsys, "inspect", str(tmp_path / "invalid.mlf"), status=1)
    assert "no entry is valid" in out and "give the state list" in out
    (tmp_path / "empty.txt").write_bytes(b"")
    run(capsys, "inspect", str(tmp_path / "empty.txt"), status=1)
    (tmp_path / "bad.tfrecord").write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00" + bytes(20))
    out, _ = run(capsys, "inspect", str(tmp_path / "bad.tfrecord"), status=1)
    assert "the CRC of its length field does not match" in out


def test_scp_problems(tmp_path: Path, capsys, monkeypatch) -> None:
    write_htk(tmp_path / "a.htk", np.ones((4, 2), np.float32))
    (tmp_path / "l.scp").write_text("a=a.htk[0,3]\nb=a.htk[2,9]\nc=gone.htk[0,1]\nd=a.htk[2\n")
    monkeypatch.chdir(tmp_path)
    out, _ = run(capsys, "inspect", "l.scp", status=0)  # one utterance is readable
    assert "problems:      3" in out
    out, _ = run(capsys, "validate", "l.scp", status=1)
    assert "error 1: l.scp:4: " in out  # the malformed line, with its number
    assert "l.scp:2: frames [2,9] end past the end of archive" in out
    assert "cannot open archive" in out and "summary: 3 error(s)" in out
    assert "utterances read     1" in out
    _, err = run(capsys, "cat", "l.scp", status=1)  # the reader's default: no error tolerated
    assert "reached the maximum number of allowed errors (--max-errors 0)" in err
    run(capsys, "cat", "l.scp", "--max-errors", "3", status=0)


def test_missing_archive_says_how_to_fix_the_path_not_max_errors(tmp_path, capsys) -> None:
    """Issue 16: a missing SCP archive said "Use max_errors=N with a larger N"."""
    (tmp_path / "l.scp").write_text("u1=feats/a.htk[0,3]\n")
    _, err = run(capsys, "cat", str(tmp_path / "l.scp"), status=1)
    assert "cannot open archive" in err and "No such file or directory" in err
    assert "--base-dir" in err and "max-errors" not in err and "max_errors" not in err
    assert "reached the maximum" not in err


def test_htk_file_problems(tmp_path: Path, capsys) -> None:
    write_htk(tmp_path / "t.htk", np.ones((10, 3), np.float32), kind="USER_K")
    data = (tmp_path / "t.htk").read_bytes()
    (tmp_path / "t.htk").write_bytes(data[:40])  # truncated: its header promises 10 frames
    out, _ = run(capsys, "inspect", str(tmp_path / "t.htk"), status=0)  # the frames present read
    assert "the file is truncated: its header promises 10 frames" in out
    out, _ = run(capsys, "validate", str(tmp_path / "t.htk"), status=1)
    assert "error 1: " in out and "truncated" in out
    (tmp_path / "c.htk").write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # the _K checksum
    out, _ = run(capsys, "validate", str(tmp_path / "c.htk"), "--format", "htk", status=1)
    assert "the _K checksum does not match" in out and "checksum  does not match" in out


def test_mlf_problems(tmp_path: Path, capsys) -> None:
    (tmp_path / "s.list").write_text("sil\nah\n")
    (tmp_path / "l.mlf").write_text('#!MLF!#\n"a.lab"\n0 2 sil\n2 3 xx\n.\n"b.lab"\n0 1 ah\n.\n'
                                    '"b.lab"\n0 1 sil\n.\n')
    out, _ = run(capsys, "validate", str(tmp_path / "l.mlf"), "--labels",
                 str(tmp_path / "s.list"), status=1)
    assert f"error 1: {tmp_path / 'l.mlf'}:4: entry 'a' (line 2): " in out
    assert "label 'xx' is not in the label mapping file" in out and "    2 3 xx" in out
    assert "error 2: " in out and "entry 'b' was already given at" in out
    assert "summary: 2 error(s)" in out and "duplicates          1" in out
    out, _ = run(capsys, "validate", str(tmp_path / "l.mlf"), "--labels",
                 str(tmp_path / "s.list"), "--max-errors", "1", status=1)
    assert "stopped: more than --max-errors 1 errors" in out


def test_tfrecord_problems(tmp_path: Path, capsys) -> None:
    path = tmp_path / "r.tfrecord"
    with TFRecordWriter(path) as w:
        for i in range(4):
            w.write(encode_example({"id": [i], "name": [b"x" * i]}))
    data = bytearray(path.read_bytes())
    frame = 12 + len(encode_example({"id": [0], "name": [b""]})) + 4
    data[frame + 14] ^= 0xFF  # a byte inside record 1's data: its data CRC fails
    (tmp_path / "crc.tfrecord").write_bytes(bytes(data))
    out, _ = run(capsys, "validate", str(tmp_path / "crc.tfrecord"), status=1)
    assert f"corrupted record 1 at byte {frame}: its data CRC does not match" in out
    assert "use --max-errors N" in out and "or --no-verify-crc to read" in out
    assert "records   4" in out and "verify_crc" not in out and "max_errors" not in out
    out, _ = run(capsys, "validate", str(tmp_path / "crc.tfrecord"), "--no-verify-crc", status=0)
    assert "summary: OK, no errors" in out and "records   4" in out
    (tmp_path / "cut.tfrecord").write_bytes(path.read_bytes()[:-3])
    out, _ = run(capsys, "validate", str(tmp_path / "cut.tfrecord"), status=1)
    assert "truncated record at byte" in out
    with TFRecordWriter(tmp_path / "mixed.tfrecord") as w:  # the 2nd record is no Example
        w.write_many([encode_example({"id": [1]}), b"\xff\xff\xff", encode_example({"id": [2]})])
    out, _ = run(capsys, "validate", str(tmp_path / "mixed.tfrecord"), status=1)
    assert "mixed.tfrecord: record 1: not a valid tf.train.Example" in out
    _, err = run(capsys, "cat", str(tmp_path / "crc.tfrecord"), status=1)
    assert "corrupted record 1" in err and "--max-errors N" in err
    out, _ = run(capsys, "cat", str(tmp_path / "crc.tfrecord"), "--max-errors", "1", status=0)
    assert [json.loads(line)["name"][-1] for line in out.splitlines()] == ["0", "2", "3"]
    out, _ = run(capsys, "cat", str(tmp_path / "crc.tfrecord"), "--no-verify-crc", status=0)
    assert len(out.splitlines()) == 4
    run(capsys, "convert", str(tmp_path / "crc.tfrecord"), str(tmp_path / "o.tfrecord"),
        status=1)
    out, _ = run(capsys, "convert", str(tmp_path / "crc.tfrecord"), str(tmp_path / "o.tfrecord"),
                 "--max-errors", "1", status=0)
    assert out.startswith("converted 3 records")


def test_tfrecord_to_ctf_honours_max_errors_and_no_verify_crc(tmp_path: Path, capsys) -> None:
    """TFRecord -> CTF opened its input with max_errors=0 and verify_crc=True whatever the
    flags said."""
    (tmp_path / "d.ctf").write_text("".join(f"{i} |x {i} {i + 1}\n" for i in range(4)))
    run(capsys, "convert", str(tmp_path / "d.ctf"), str(tmp_path / "d.tfrecord"), status=0)
    data = bytearray((tmp_path / "d.tfrecord").read_bytes())
    first = 16 + int.from_bytes(data[:8], "little")
    data[first + 12] ^= 0xFF  # the first data byte of record 1
    (tmp_path / "d.tfrecord").write_bytes(bytes(data))
    to_ctf = ["convert", str(tmp_path / "d.tfrecord"), str(tmp_path / "o.ctf"), "--stream",
              "x:2:dense"]
    _, err = run(capsys, *to_ctf, status=1)
    assert "corrupted record 1" in err and "--no-verify-crc" in err
    assert run(capsys, *to_ctf, "--max-errors", "1", status=0)[0].startswith("converted 3 ")
    assert [line.split()[0] for line in (tmp_path / "o.ctf").read_text().splitlines()] == \
        ["0", "2", "3"]


def test_tfds_problems(tmp_path: Path, capsys) -> None:
    d = write_dataset(tmp_path, {"train": [3, 2], "test": [2]})
    run(capsys, "validate", str(d), status=0)
    (d / "toy-test.tfrecord-00000-of-00001").unlink()
    with TFRecordWriter(d / "toy-train.tfrecord-00001-of-00002") as w:  # 1 record, not 2; no id
        w.write(encode_example({"label": [1]}))
    out, _ = run(capsys, "validate", str(d), status=1)
    assert "toy-test.tfrecord-00000-of-00001: missing shard of split 'test'" in out
    assert "toy-train.tfrecord-00001-of-00002: 1 records, but shardLengths says 2" in out
    assert "record 0: feature 'id' is required but the record does not hold it" in out
    assert "summary: 3 error(s)" in out


def test_text_problems(tmp_path: Path, capsys) -> None:
    (tmp_path / "c.de").write_bytes(b"gut\n" * 50 + b"schlecht \xff\n" + b"gut\n" * 50 + b"\xfe\n")
    out, _ = run(capsys, "validate", str(tmp_path / "c.de"), status=1)
    assert f"error 1: {tmp_path / 'c.de'}:51: byte offset 209: byte 0xff is not UTF-8" in out
    assert f"error 2: {tmp_path / 'c.de'}:102:" in out and "summary: 2 error(s)" in out


def test_config_problems(tmp_path: Path, capsys) -> None:
    (tmp_path / "r.cntk").write_text('reader = [ readerType = "CNTKTextFormatReader"; file = '
                                     '"missing.ctf"\n input = [ x = [ dim = 1; format = "dense" ] ]'
                                     ' ]\n')
    # a file named in a config that does not exist is a configuration error: exit 2 everywhere
    out, _ = run(capsys, "inspect", str(tmp_path / "r.cntk"), status=2)
    assert "no such file" in out and "pass --base-dir DIR to change it" in out
    assert "base_dir" not in out and "CLI:" not in out
    out, _ = run(capsys, "validate", str(tmp_path / "r.cntk"), status=2)
    assert "error 1: section (top level): " in out and "missing.ctf" in out
    _, err = run(capsys, "cat", str(tmp_path / "r.cntk"), status=2)
    assert "missing.ctf" in err and "no such file" in err
    out, _ = run(capsys, "inspect", str(tmp_path / "r.cntk"), "--base-dir", str(tmp_path / "d"),
                 status=2)  # the advice names the flag that was given, not base_dir=
    assert f"resolve against --base-dir {tmp_path / 'd'}; pass another --base-dir DIR" in out


@pytest.mark.parametrize("content", [b"u=a\x00b.htk[0,1]\n",
                                     np.random.default_rng(16).bytes(3000) + b"\n\x00\n"],
                         ids=["nul-byte", "garbage"])
def test_an_scp_with_nul_bytes_is_bad_data_for_every_command(tmp_path: Path, capsys,
                                                             content: bytes) -> None:
    """A NUL byte in an archive path was an uncaught ``ValueError: embedded null byte`` in
    validate, cat and convert, and ``inspect`` said "problems: none"."""
    scp = tmp_path / "g.scp"
    scp.write_bytes(content)
    out, err = run(capsys, "inspect", str(scp), status=1)
    assert f"! {scp}:" in out and "problems:      none" not in out and err == ""
    r = json.loads(run(capsys, "inspect", str(scp), "--json", status=1)[0])
    assert r["utterances"] == 0 and r["problems"] >= 1 and r["skipped"] == r["problems"]
    assert "no utterance to read" in r["error"]
    out, err = run(capsys, "validate", str(scp), status=1)
    assert f"error 1: {scp}:" in out and err == ""
    assert f"skipped utterances  {r['skipped']}" in out  # what the reader skipped
    _, err = run(capsys, "cat", str(scp), status=1)
    assert f"while reading {scp}: {scp}:" in err and "Traceback" not in err
    _, err = run(capsys, "cat", str(scp), "--max-errors", "100000", status=1)
    assert f"{scp}: no utterance to read" in err
    for target in (["o.tfrecord"], ["ds", "--to", "tfds"], ["o.parquet"]):
        _, err = run(capsys, "convert", str(scp), str(tmp_path / target[0]), *target[1:],
                     status=1)
        assert f"while reading {scp}: {scp}:" in err and "embedded null byte" not in err
    assert "the physical path contains a NUL byte (\\x00)" in out + err
    if content.startswith(b"u=a"):
        assert f"{scp}:1: the physical path contains a NUL byte (\\x00)" in err
        assert "    u=a\\x00b.htk[0,1]" in err


def test_validate_counts_what_an_mlf_reader_skipped_before_nothing_was_left(
        tmp_path: Path, capsys) -> None:
    """The error said "(1 skipped)" but the summary said "skipped utterances 0"."""
    (tmp_path / "c.mlf").write_text('#!MLF!#\n"u2.lab"\n0 1 s\n.\n')
    out, _ = run(capsys, "validate", str(tmp_path / "c.mlf"), status=1)
    assert "no label entry to read (1 skipped)" in out and "skipped utterances  1" in out
    out, _ = run(capsys, "validate", str(tmp_path / "c.mlf"), "--max-errors", "0", status=1)
    assert "skipped utterances  unknown (reading stopped)" in out


def test_tfrecord_inspect_counts_the_readable_records(tmp_path: Path, capsys) -> None:
    """One bad data CRC made inspect report "records: 0" and drop the file, advising
    "max_errors=0 ... verify_crc=False" in Python's words."""
    path = tmp_path / "r.tfrecord"
    with TFRecordWriter(path) as w:
        for i in range(3):
            w.write(encode_example({"x": [i, i + 1]}))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # inside record 1's data
    path.write_bytes(bytes(data))
    out, _ = run(capsys, "inspect", str(path), status=0)
    assert "records:   3 (15..15 bytes each; 1 of the first 3 with a bad data CRC)" in out
    assert "features (tf.train.Example, the first 2 readable records):" in out
    assert "corrupted record 1 at byte 31" in out and "--no-verify-crc to read" in out
    assert "max_errors" not in out and "verify_crc=" not in out
    r = json.loads(run(capsys, "inspect", str(path), "--json", status=0)[0])
    assert (r["records"], r["problems"], r["files"][0]["corrupted"]) == (3, 1, 1)
    assert r["features"] == [{"name": "x", "kind": "int64", "min": 2, "max": 2, "records": 2}]
    out, _ = run(capsys, "inspect", str(path), "--no-verify-crc", status=0)
    assert "problems:      none" in out
    _, err = run(capsys, "inspect", str(path), "--max-errors", "0", status=1)
    assert "(--max-errors 0)" in err and "corrupted record 1" in err


def test_tfds_dataset_info_says_what_is_missing(tmp_path: Path, capsys) -> None:
    """No name: "should be a JSON object with a 'name', but got dict"; only a name: exit 0
    and "problems: none" for a folder with nothing to read."""
    (tmp_path / "dataset_info.json").write_text('{"version": "1.0.0", "splits": []}')
    _, err = run(capsys, "inspect", str(tmp_path), status=1)
    assert "expected the dataset's 'name'" in err and "but it has no 'name' (its keys: " \
        "'version', 'splits')" in err and "got dict" not in err
    (tmp_path / "dataset_info.json").write_text('{"name": "x"}')
    out, _ = run(capsys, "inspect", str(tmp_path), status=1)
    assert "error: " in out and "dataset_info.json: no split to read: 'splits' is missing" in out
    out, _ = run(capsys, "validate", str(tmp_path), status=1)
    assert "error 1: " in out and "no split to read" in out


def test_no_verify_crc_reaches_the_htk_readers_of_every_command(tmp_path: Path, capsys) -> None:
    """``--no-verify-crc`` was cat/convert's TFRecord option only; it is every command's now
    and reaches the HTK archives' _K checksum too."""
    write_htk(tmp_path / "a.htk", np.arange(8, dtype=np.float32).reshape(4, 2), kind="USER_K")
    data = bytearray((tmp_path / "a.htk").read_bytes())
    data[-1] ^= 0xFF  # the checksum itself
    (tmp_path / "a.htk").write_bytes(bytes(data))
    scp = tmp_path / "l.scp"
    scp.write_text("u1=a.htk[0,3]\n")
    base = ["--base-dir", str(tmp_path)]
    out, _ = run(capsys, "validate", str(scp), *base, status=1)
    assert "checksum" in out and "skipped utterances  1" in out
    out, _ = run(capsys, "validate", str(scp), *base, "--no-verify-crc", status=0)
    assert "summary: OK, no errors" in out
    run(capsys, "inspect", str(scp), *base, status=1)
    r = json.loads(run(capsys, "inspect", str(scp), *base, "--no-verify-crc", "--json",
                       status=0)[0])
    assert (r["utterances"], r["frames"], r["problems"]) == (1, 4, 0)
    run(capsys, "cat", str(scp), *base, status=1)
    run(capsys, "cat", str(scp), *base, "--no-verify-crc", status=0)
    run(capsys, "convert", str(scp), str(tmp_path / "o.tfrecord"), *base, status=1)
    run(capsys, "convert", str(scp), str(tmp_path / "o.tfrecord"), *base, "--no-verify-crc",
        status=0)
    out, _ = run(capsys, "validate", str(tmp_path / "a.htk"), status=1)
    out, _ = run(capsys, "validate", str(tmp_path / "a.htk"), "--no-verify-crc", status=0)
    assert "checksum  not checked (--no-verify-crc)" in out
