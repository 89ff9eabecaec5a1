"""One format detection for the CLI and ``minibatcher.open``: content first, name second."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from minibatcher.cli import main
from minibatcher.errors import NotARegularFileError
from minibatcher.formats.detect import UnknownFormatError, detect_format
from minibatcher.formats.htk import write_htk
from minibatcher.formats.tfrecord import TFRecordWriter

DATA = Path(__file__).resolve().parents[1] / "data"
SHIPPED = [
    ("an4/subset/an4_subset.htk", "htk"), ("an4/subset/an4_subset.scp", "scp"),
    ("an4/subset/an4_subset.mlf", "mlf"), ("an4/glob_0000.scp", "scp"),
    ("tf_golden/tfrecord/examples.tfrecord", "tfrecord"),
    ("tf_golden/tfrecord/records.gzip.tfrecord", "tfrecord"),
    ("tf_golden/tfrecord/records.zlib.tfrecord", "tfrecord"),
    ("an4/configs/HTKMLFReaderSimpleDataLoop21_Config.txt", "config"),
    ("an4/configs/HTKDeserializersSimpleDataLoop11_Config.cntk", "config"),
    ("cntk-ctf/Tests/UnitTests/ReaderTests/Data/CNTKTextFormatReader/MNIST_dense.txt", "ctf"),
    ("tfds_golden/ctf/ctf/1.0.0", "tfds"), ("tfds_golden/text.txt", "text"),
    ("an4/state.list", "text"),
]


@pytest.mark.parametrize("path, kind", SHIPPED)
def test_shipped_files_are_detected_by_content(path: str, kind: str) -> None:
    assert detect_format(DATA / path).format == kind


def test_every_ctf_data_file_of_cntk_is_ctf_whatever_its_name() -> None:
    files = sorted((DATA / "cntk-ctf/Tests/UnitTests/ReaderTests/Data").rglob("*.txt"))
    assert len(files) > 20
    assert {detect_format(f).format for f in files} == {"ctf"}  # one has a 64 KiB first line


def test_content_wins_over_the_name(tmp_path: Path) -> None:
    write_htk(tmp_path / "feats.ctf", np.ones((3, 2), np.float32))
    assert detect_format(tmp_path / "feats.ctf").format == "htk"
    with TFRecordWriter(tmp_path / "shard.txt") as w:
        w.write(b"record")
    assert detect_format(tmp_path / "shard.txt").format == "tfrecord"
    (tmp_path / "labels.scp").write_text('#!MLF!#\n"a.lab"\n0 1 s 0\n.\n')
    assert detect_format(tmp_path / "labels.scp").format == "mlf"


def test_the_name_decides_what_content_does_not_prove(tmp_path: Path) -> None:
    (tmp_path / "garbage.htk").write_bytes(bytes(range(256)) * 4)
    found = detect_format(tmp_path / "garbage.htk")
    assert (found.format, found.reason) == ("htk", "named *.htk")
    (tmp_path / "list.scp").write_text("a.feat\nb.feat\n")  # bare paths: proven as SCP too
    assert detect_format(tmp_path / "list.scp").format == "scp"
    (tmp_path / "words.scp").write_text("alpha\nbeta\n")  # one token per line: the name says SCP
    assert detect_format(tmp_path / "words.scp").format == "scp"
    (tmp_path / "words.vocab").write_text("alpha\nbeta\n")
    assert detect_format(tmp_path / "words.vocab").format == "text"
    (tmp_path / "empty.tfrecord").write_bytes(b"")
    assert detect_format(tmp_path / "empty.tfrecord").format == "tfrecord"
    (tmp_path / "mnist-train.tfrecord-00000-of-00002").write_bytes(b"")
    assert detect_format(tmp_path / "mnist-train.tfrecord-00000-of-00002").format == "tfrecord"


def test_mostly_text_with_a_few_bad_bytes_is_text(tmp_path: Path) -> None:
    (tmp_path / "train.de").write_bytes(b"gut\n" * 100 + b"schlecht \xff\n")
    assert detect_format(tmp_path / "train.de").format == "text"


def test_an_unknown_file_lists_what_was_tried(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)) * 8)
    with pytest.raises(UnknownFormatError) as e:
        detect_format(tmp_path / "blob.bin")
    message = str(e.value)
    for tried in ("TFRecord (the first frame's length CRC does not match)",
                  "HTK (the header does not account for the file's size)", "text (",
                  "--format NAME", "format=NAME", ".tfrecord"):
        assert tried in message
    (tmp_path / "empty").write_bytes(b"")
    with pytest.raises(UnknownFormatError, match=r"Tried: content \(the file is empty\)"):
        detect_format(tmp_path / "empty")


def test_folders(tmp_path: Path) -> None:
    with pytest.raises(UnknownFormatError, match="it has no dataset_info.json"):
        detect_format(tmp_path)
    (tmp_path / "2.0.0").mkdir()
    (tmp_path / "2.0.0" / "dataset_info.json").write_text("{}")
    with pytest.raises(UnknownFormatError, match="one folder per version; give one of them"):
        detect_format(tmp_path)
    assert detect_format(tmp_path / "2.0.0").format == "tfds"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_dataset_info_json_that_is_no_regular_file_is_named(tmp_path: Path) -> None:
    # it was reported as "it has no dataset_info.json"
    os.mkfifo(tmp_path / "dataset_info.json")
    with pytest.raises(NotARegularFileError, match=r"dataset_info\.json: the dataset_info\.json "
                                                   r"is not a regular file but a FIFO"):
        detect_format(tmp_path)
    (tmp_path / "2.0.0" / "dataset_info.json").mkdir(parents=True)
    with pytest.raises(NotARegularFileError, match="not a regular file but a directory"):
        detect_format(tmp_path / "2.0.0")
    os.remove(tmp_path / "dataset_info.json")  # the version folder is found, then named
    with pytest.raises(UnknownFormatError, match="one folder per version; give one of them"):
        detect_format(tmp_path)
    assert main(["inspect", str(tmp_path / "2.0.0")]) == 1


def test_given_format_and_bad_values(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("|x 1\n")
    assert detect_format(tmp_path / "a.txt", "TEXT").format == "text"
    with pytest.raises(ValueError, match="format should be one of ctf, htk"):
        detect_format(tmp_path / "a.txt", "csv")
    with pytest.raises(FileNotFoundError):
        detect_format(tmp_path / "missing.ctf")


def test_the_cli_no_longer_reads_garbage_as_ctf(tmp_path: Path, capsys) -> None:
    """Issue 16: random bytes named garbage.htk were parsed as CTF, an SCP list
    was validated as CTF ("no line has an input sample"), a TFRecord file said
    "no sequence to read"."""
    (tmp_path / "garbage.htk").write_bytes(bytes(range(1, 256)) * 4)
    assert main(["validate", str(tmp_path / "garbage.htk")]) == 1
    out = capsys.readouterr().out
    assert "(HTK)" in out and "error 1: " in out and "summary: 1 error(s)" in out
    assert "sequence id" not in out  # not parsed as CTF
    scp = DATA / "an4/subset/an4_subset.scp"
    assert main(["validate", str(scp), "--base-dir", str(scp.parent)]) == 0
    assert "summary: OK, no errors" in capsys.readouterr().out
    assert main(["validate", str(DATA / "tf_golden/tfrecord/examples.tfrecord")]) == 0
    out = capsys.readouterr().out
    assert "(TFRecord)" in out and "records   3" in out
    assert main(["inspect", str(tmp_path / "blob"), "--format", "nope"]) == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_a_home_relative_path_is_expanded(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "d.ctf").write_text("|x 1\n")
    found = detect_format("~/d.ctf")
    assert (found.format, found.path) == ("ctf", str(tmp_path / "d.ctf"))
