"""One rule for every file the project reads (issue 15, items 9 to 11; docs/design/guarded-files.md).

Regular files only (a FIFO is refused at once, never a hang), UTF-8 text or a
``FormatError`` naming the file and byte offset, counts in ``dataset_info.json``
checked, and TFRecord length fields checked against what the (inflated) stream
holds before anything is allocated for them.
"""

from __future__ import annotations

import gzip
import json
import os
import struct
import subprocess
import sys
import textwrap
import tracemalloc
import zlib
from pathlib import Path

import pytest

from minibatcher.errors import FormatError
from minibatcher.formats.htk.labels import read_state_list
from minibatcher.formats.tfrecord import TFRecordFile, TFRecordWriter
from minibatcher.formats.tfrecord.crc import masked_crc32c
from minibatcher.nmt.vocab_utils import check_vocab, load_vocab
from minibatcher.tfds.info import load_info

OPENERS = {
    "text": "from minibatcher.tfdata import TextLineDataset as f; f(P)",
    "tfrecord": "from minibatcher.tfdata import TFRecordDataset as f; f(P)",
    "vocab": "from minibatcher.nmt.vocab_utils import load_vocab as f; f(P)",
    "vocab table": "from minibatcher.nmt.vocab_utils import index_table_from_file as f; f(P)",
    "scp": "from minibatcher import StreamDef; from minibatcher.formats.htk import "
           "HTKFeatureDeserializer as f; f({'x': StreamDef(scp=P, shape=2)})",
    "mlf": "from minibatcher import StreamDef; from minibatcher.formats.htk import "
           "HTKMLFDeserializer as f; f(None, {'y': StreamDef(mlf=P, shape=2)})",
    "state list": "from minibatcher.formats.htk.labels import read_state_list as f; f(P)",
    "htk file": "from minibatcher.formats.htk import read_htk as f; f(P)",
    "config": "from minibatcher.config import load_config as f; f(P)",
    "config of a source": "from minibatcher import MinibatchSource as f; f.from_config(P)",
    "dataset_info.json": "from minibatcher.tfds.info import load_info as f; "
                         "f(os.path.dirname(P))",
    "snapshot.json": "from minibatcher.tfdata import Dataset; "
                     "Dataset.load(os.path.join(os.path.dirname(P), 'snap'))",
    "cache lock file": "from minibatcher.tfdata import Dataset; "
                       "list(Dataset.range(2).cache(os.path.join(os.path.dirname(P), 'c')))",
    # a ClassLabel's names were skipped (Path.is_file), and format detection called a folder
    # whose dataset_info.json is a FIFO one "with no dataset_info.json"
    "ClassLabel names": "from minibatcher.convert.sources import class_names as f; "
                        "f(os.path.dirname(P), 'label')",
    "format detection": "from minibatcher.formats.detect import detect_format as f; "
                        "f(os.path.dirname(P))",
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_at_once_by_every_reader(tmp_path: Path) -> None:
    """TextLineDataset blocked forever on a FIFO; every file the project
    opens now follows one rule. Each reader runs in a child with a timeout,
    so that a regression fails instead of hanging the test run."""
    fifo = tmp_path / "dataset_info.json"
    os.mkfifo(fifo)
    (tmp_path / "snap").mkdir()
    os.mkfifo(tmp_path / "snap" / "snapshot.json")
    os.mkfifo(tmp_path / "c.mbcache.lock")
    os.mkfifo(tmp_path / "label.labels.txt")
    code = "import os\nfrom minibatcher.errors import NotARegularFileError\n" + "\n".join(
        textwrap.dedent(f"""
        try:
            P = {str(fifo)!r}; {opener}
            print({name!r}, "opened", flush=True)
        except NotARegularFileError as e:
            print({name!r}, "refused", "FIFO" in str(e), flush=True)
        """) for name, opener in OPENERS.items())
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    lines = done.stdout.splitlines()
    assert lines == [f"{name} refused True" for name in OPENERS], done.stderr[-2000:]


@pytest.mark.parametrize("read, what", [
    (load_vocab, "vocabulary file"),
    (lambda p: check_vocab(p, os.path.dirname(p)), "vocabulary file"),
    (read_state_list, "label mapping file"),
])
def test_text_that_is_not_utf8_names_the_file_and_byte(tmp_path: Path, read, what) -> None:
    p = tmp_path / "list.txt"
    p.write_bytes(b"<unk>\n<s>\n</s>\ncaf\xe9\n")
    with pytest.raises(FormatError, match=rf"list\.txt:4: the {what} is not UTF-8 text: byte "
                                          r"offset 18 is b'\\xe9' \(invalid continuation byte"):
        read(str(p))


def test_dataset_info_that_is_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "dataset_info.json").write_bytes(b'{"name": "caf\xe9"}')
    with pytest.raises(FormatError, match=r"dataset_info\.json:1: the dataset_info\.json is not "
                                          r"UTF-8 text: byte offset 13"):
        load_info(tmp_path)


@pytest.mark.parametrize("content, message", [
    (b'{"format": "caf\xe9"}', r"snapshot\.json:1: the snapshot metadata file is not UTF-8 text: "
                                r"byte offset 15"),
    (b'{"format": 1,}', r"snapshot\.json:1:14 \(byte 13\): malformed JSON in the snapshot "
                        r"metadata file: Expecting property name"),
    (b'[1, 2]', r"snapshot\.json: the snapshot metadata file should hold a JSON object, but got "
                r"a list"),
])
def test_a_damaged_snapshot_json_names_the_file(tmp_path: Path, content: bytes,
                                                message: str) -> None:
    """Dataset.load read snapshot.json with open() and json.load: a bare
    UnicodeDecodeError or JSONDecodeError naming no file (issue 15.11)."""
    from minibatcher.tfdata import Dataset

    Dataset.range(3).save(str(tmp_path / "snap"))
    (tmp_path / "snap" / "snapshot.json").write_bytes(content)
    with pytest.raises(FormatError, match=message):
        Dataset.load(str(tmp_path / "snap"))


@pytest.mark.parametrize("split, message", [
    ({"shardLengths": ["3"], "numBytes": "lots"},
     r"'numBytes' should be an integer .*, but got numBytes='lots'"),
    ({"shardLengths": ["3", str(10**20)]},
     r"'shardLengths' should be a list of integers .*< 2\*\*63.*, but got "
     r"shardLengths\[1\]='100000000000000000000'"),
    ({"shardLengths": [10**20]}, r".*" + r"but got shardLengths\[0\]=100000000000000000000"),
    ({"shardLengths": "534"}, r"'shardLengths' should be a list of integers, but got "
                              r"shardLengths='534'"),
    ({"shardLengths": [5.7]}, r".*" + r"but got shardLengths\[0\]=5\.7"),
    ({"shardLengths": [True]}, r".*" + r"but got shardLengths\[0\]=True"),
    ({"shardLengths": ["-3"]}, r".*" + r"but got shardLengths\[0\]='-3'"),
])
def test_dataset_info_counts_are_checked(tmp_path: Path, split: dict, message: str) -> None:
    info = {"name": "toy", "splits": [{"name": "train", **split}]}
    (tmp_path / "dataset_info.json").write_text(json.dumps(info))
    with pytest.raises(FormatError, match=r"dataset_info\.json: split 'train': " + message):
        load_info(tmp_path)


def _claiming(length: int) -> bytes:
    """A frame header (with a valid CRC) whose length field says ``length``."""
    head = struct.pack("<Q", length)
    return head + struct.pack("<I", masked_crc32c(head))


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_a_length_beyond_the_inflated_stream_is_refused_before_allocating(
        tmp_path: Path, compression: str) -> None:
    """A 64 KB compressed file whose first length field claims 3 GiB inflated
    until MemoryError; now the claim is checked against what inflation
    produces, keeping one block at a time."""
    body = _claiming(3 << 30) + bytes(64 << 20)  # 64 MiB of zeros: about 64 KB compressed
    p = tmp_path / "bomb.tfrecord"
    p.write_bytes(gzip.compress(body) if compression == "GZIP" else zlib.compress(body))
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match=rf"bomb\.tfrecord: truncated record 0 at byte 0: "
                                              rf"its length field says 3221225472 data bytes, but "
                                              rf"the {compression} stream ends 67108876 bytes"):
            len(TFRecordFile(p, compression))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"{peak} bytes allocated for a claim the stream cannot back"


def test_a_length_beyond_the_file_names_the_record(tmp_path: Path) -> None:
    p = tmp_path / "plain.tfrecord"
    with TFRecordWriter(p) as w:
        w.write_many([b"x" * 100] * 3)
    with open(p, "ab") as f:
        f.write(_claiming(1 << 40) + bytes(3 << 20))
    with pytest.raises(FormatError, match=r"plain\.tfrecord: truncated record 3 at byte 348: its "
                                          r"length field says 1099511627776 data bytes, but the "
                                          r"file ends 3145740 bytes into the frame"):
        len(TFRecordFile(p))


def test_gzip_members_and_trailing_bytes(tmp_path: Path) -> None:
    """Concatenated GZIP members read as one stream (TensorFlow 2.21 reads
    [a, b, c] from the two files below joined); other bytes after a member
    are corrupt data. Trailing bytes looped forever: run in a child."""
    parts = []
    for name, records in (("a", [b"a", b"b"]), ("c", [b"c"])):
        with TFRecordWriter(tmp_path / name, "GZIP") as w:
            w.write_many(records)
        parts.append((tmp_path / name).read_bytes())
    (tmp_path / "joined").write_bytes(parts[0] + parts[1])
    (tmp_path / "padded").write_bytes(parts[0] + bytes(10))
    code = textwrap.dedent(f"""
        from minibatcher.errors import FormatError
        from minibatcher.formats.tfrecord import TFRecordFile
        print(TFRecordFile({str(tmp_path / "joined")!r}, "GZIP").read_list())
        try:
            TFRecordFile({str(tmp_path / "padded")!r}, "GZIP").read_list()
        except FormatError as e:
            print(e)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.splitlines() == [
        "[b'a', b'b', b'c']",
        f"{tmp_path / 'padded'}: corrupt GZIP data before compressed byte {len(parts[0]) + 10}: "
        "Error -3 while decompressing data: incorrect header check"], done.stderr[-2000:]
