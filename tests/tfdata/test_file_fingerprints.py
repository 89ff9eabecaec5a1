"""Checkpoints keep the identity of the files they read (issue 18, the fingerprint bug; 15.12).

A file's fingerprint is its size and a digest of its whole content (TFRecord:
every record's length and data CRC; text: every byte), so a same-size edit
in the middle of a file is refused on restore (the digest covered only the
first and last 64 KiB, or nothing). Paths are not part of it: a copied
dataset keeps its checkpoints valid.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from minibatcher.errors import CheckpointError
from minibatcher.formats.tfrecord import TFRecordWriter
from minibatcher.tfdata import TextLineDataset, TFRecordDataset

RECORDS = 2000  # 200 bytes each: 400 KB, well past two 64 KiB ends


def _records(middle: bytes = b"m") -> list[bytes]:
    out = [b"%05d" % i + b"." * 195 for i in range(RECORDS)]
    out[RECORDS // 2] = middle * 200
    return out


def _write(path: Path, records: list[bytes], compression: str | None = None) -> str:
    with TFRecordWriter(path, compression) as w:
        w.write_many(records)
    return str(path)


def _state_after(ds, n: int) -> dict:
    it = iter(ds)
    for _ in range(n):
        next(it)
    return it.get_state()


@pytest.mark.parametrize("compression", [None, "GZIP"])
def test_a_same_size_edit_in_the_middle_of_a_tfrecord_file_is_refused(
        tmp_path: Path, compression: str | None) -> None:
    path = _write(tmp_path / "r.tfrecord", _records(), compression)
    state = _state_after(TFRecordDataset(path, compression_type=compression), 10)
    before = Path(path).stat().st_size
    _write(tmp_path / "r.tfrecord", _records(b"n"), compression)  # valid records, same lengths
    if compression is None:
        assert Path(path).stat().st_size == before  # the same size: only a digest can tell
    it = iter(TFRecordDataset(path, compression_type=compression))
    with pytest.raises(CheckpointError, match=r"step 0 was source\(.*\) there, but is "
                                              r"source\(.*\) here"):
        it.set_state(state)


def test_a_same_size_edit_in_the_middle_of_a_text_file_is_refused(tmp_path: Path) -> None:
    lines = [f"line {i:06d} " + "x" * 40 for i in range(20_000)]  # about 1 MB
    path = tmp_path / "t.txt"
    path.write_text("\n".join(lines) + "\n")
    state = _state_after(TextLineDataset(str(path)), 5)
    lines[10_000] = lines[10_000].replace("x", "y")
    path.write_text("\n".join(lines) + "\n")
    it = iter(TextLineDataset(str(path)))
    with pytest.raises(CheckpointError, match=r"step 0 was source\(.*\) there"):
        it.set_state(state)


def test_a_copied_dataset_keeps_its_checkpoints(tmp_path: Path) -> None:
    """Names and paths are not part of a file's identity: the same bytes elsewhere restore."""
    a = _write(tmp_path / "a.tfrecord", _records())
    (tmp_path / "t.txt").write_text("one\ntwo\nthree\n")
    state = _state_after(TFRecordDataset(a), 7)
    text_state = _state_after(TextLineDataset(str(tmp_path / "t.txt")), 1)
    (tmp_path / "copy").mkdir()
    b = shutil.copy(a, tmp_path / "copy" / "b.tfrecord")
    t = shutil.copy(tmp_path / "t.txt", tmp_path / "copy" / "u.txt")
    it = iter(TFRecordDataset(str(b)))
    it.set_state(state)
    assert next(it) == _records()[7]
    it = iter(TextLineDataset(str(t)))
    it.set_state(text_state)
    assert list(it) == [b"two", b"three"]


def _shards(tmp_path: Path, tag: bytes = b"m") -> list[str]:
    return [_write(tmp_path / f"s{k}.tfrecord",
                   [b"%d:" % k + r for r in _records(tag if k == 1 else b"m")]) for k in range(3)]


def test_a_file_opened_by_the_interleave_is_identified_in_its_slot(tmp_path: Path) -> None:
    """num_parallel_reads interleaves the files: their identity was nowhere in
    the state. A slot's cursor now carries the fingerprint of the file it
    reads; files no slot holds are not read to take or check a state."""
    paths = _shards(tmp_path)
    ds = TFRecordDataset(paths, num_parallel_reads=2)
    state = _state_after(ds, 9)
    assert [fp is not None for fp in _slot_files(state)] == [True, True]
    _shards(tmp_path, b"n")  # file 1: another record in its middle
    it = iter(TFRecordDataset(paths, num_parallel_reads=2))
    with pytest.raises(CheckpointError, match=r"slots\[1\].*\.source' should be .* \(this "
                                              r"file's size and digest\).*the file changed"):
        it.set_state(state)


def _slot_files(state: dict) -> list:
    return [s["it"].get("source") if s else None for s in state["iterator"]["slots"]]


def test_an_unchanged_interleaved_read_resumes_exactly(tmp_path: Path) -> None:
    paths = _shards(tmp_path)
    for n in (0, 5, 2000, 6000):
        ds = TFRecordDataset(paths, num_parallel_reads=2)
        state = _state_after(ds, n)
        it = iter(TFRecordDataset(paths, num_parallel_reads=2))
        it.set_state(state)
        rest = list(it)
        assert rest == list(TFRecordDataset(paths, num_parallel_reads=2))[n:]


def test_a_same_size_edit_of_a_tfds_shard_being_read_is_refused(tmp_path: Path) -> None:
    from minibatcher import tfds
    from minibatcher.tfds.testing import write_dataset

    folder = write_dataset(tmp_path, {"train": [5000, 5000]})
    read = lambda: tfds.builder_from_directory(folder).as_dataset(  # noqa: E731
        "train", read_config=tfds.ReadConfig(interleave_cycle_length=2))
    state = _state_after(read(), 11)
    shard = next(folder.glob("*train.tfrecord-00000-of-00002"))  # the open slot's
    data = shard.read_bytes()
    records = list(TFRecordDataset(str(shard)))
    records[2500] = records[2500][:-1] + bytes([records[2500][-1] ^ 1])  # another label
    _write(shard, records)
    assert len(shard.read_bytes()) == len(data) > 1 << 17 and shard.read_bytes() != data
    it = iter(read())
    with pytest.raises(CheckpointError, match=r"slots\[0\]\.file' should be .*the file changed"):
        it.set_state(state)
