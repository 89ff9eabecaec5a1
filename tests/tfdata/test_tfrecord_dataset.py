"""``tfdata.TFRecordDataset``: tf.data's order over files (sequential and
num_parallel_reads), seeking skip/shard/restores through the record index,
compression, corrupted records."""

from __future__ import annotations

from pathlib import Path

import pytest

from minibatcher.errors import ErrorBudgetExceeded, FormatError
from minibatcher.formats.tfrecord import TFRecordFile, TFRecordWriter
from minibatcher.tfdata import Dataset, Options, TFRecordDataset

from .resume import assert_resumes_exactly


def shards(tmp_path: Path, lengths: list[int], compression: str | None = None) -> list[str]:
    out = []
    for s, n in enumerate(lengths):
        p = tmp_path / f"s{s}.tfrecord"
        with TFRecordWriter(p, compression) as w:
            w.write_many(b"s%d:%d" % (s, i) for i in range(n))
        out.append(str(p))
    return out


def test_sequential_and_parallel_reads(tmp_path: Path) -> None:
    files = shards(tmp_path, [3, 0, 2])
    assert list(TFRecordDataset(files)) == [b"s0:0", b"s0:1", b"s0:2", b"s2:0", b"s2:1"]
    # num_parallel_reads = interleave(cycle_length=n, block_length=1), as TF does
    # (the empty file costs a cursor move, hand-computed with the cursor rules)
    assert list(TFRecordDataset(files, num_parallel_reads=2)) == [
        b"s0:0", b"s0:1", b"s2:0", b"s0:2", b"s2:1"]
    (tmp_path / "t").mkdir()
    three = shards(tmp_path / "t", [2, 3, 1])
    assert list(TFRecordDataset(three, num_parallel_reads=3)) == [
        b"s0:0", b"s1:0", b"s2:0", b"s0:1", b"s1:1", b"s1:2"]
    same = Dataset.from_tensor_slices(three).interleave(TFRecordDataset, cycle_length=3,
                                                         block_length=1)
    assert list(same) == list(TFRecordDataset(three, num_parallel_reads=3))
    # TF does not count the records of files: UNKNOWN (-2), and len() raises as TF's
    assert TFRecordDataset(three).cardinality() == -2
    with pytest.raises(TypeError, match="length is unknown"):
        len(TFRecordDataset(three))


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed(tmp_path: Path, compression: str) -> None:
    files = shards(tmp_path, [4, 2], compression)
    assert list(TFRecordDataset(files, compression_type=compression).skip(3)) == [
        b"s0:3", b"s1:0", b"s1:1"]


def test_skip_and_shard_seek(tmp_path: Path) -> None:
    files = shards(tmp_path, [50, 50])
    data = bytearray(Path(files[0]).read_bytes())
    data[13] ^= 1  # corrupt record 0's data: a seeking skip never reads it
    Path(files[0]).write_bytes(bytes(data))
    assert next(iter(TFRecordDataset(files).skip(1))) == b"s0:1"
    assert list(TFRecordDataset(files).skip(60).shard(10, 3)) == [b"s1:13", b"s1:23", b"s1:33",
                                                                  b"s1:43"]
    with pytest.raises(FormatError, match=r"s0.tfrecord: corrupted record 0 at byte 0"):
        list(TFRecordDataset(files))


def test_max_errors_leaves_corrupted_records_out(tmp_path: Path) -> None:
    files = shards(tmp_path, [5])
    data = bytearray(Path(files[0]).read_bytes())
    data[16 + 4 + 12 + 1] ^= 1  # record 1 (frames of 20 bytes: 16 + 4)
    Path(files[0]).write_bytes(bytes(data))
    ds = TFRecordDataset(files, max_errors=1)
    assert list(ds) == [b"s0:0", b"s0:2", b"s0:3", b"s0:4"] and ds.skipped == 1
    assert len(ds.sources[0]) == 4  # the source leaves the corrupted record out
    with pytest.raises(ErrorBudgetExceeded):
        list(TFRecordDataset(files, max_errors=0))


def test_resume_with_shuffle_and_interleave(tmp_path: Path) -> None:
    files = shards(tmp_path, [7, 0, 5, 9])
    assert assert_resumes_exactly(lambda: TFRecordDataset(files, num_parallel_reads=3)
                                  .shuffle(5, seed=4).batch(3)) == 7
    assert assert_resumes_exactly(lambda: TFRecordDataset(files).skip(2).shard(2, 1)) == 9


def test_a_dataset_of_file_names_is_read_again_every_iteration(tmp_path: Path) -> None:
    # TF reads `filenames.flat_map(TFRecordDataset)`: a shuffling dataset of names (a
    # list_files) gives every epoch its own file order (it was listed once: every epoch alike)
    files = shards(tmp_path, [2, 1, 1])
    ds = TFRecordDataset(Dataset.from_tensor_slices(files).shuffle(3, seed=1))
    epochs = [list(ds) for _ in range(3)]
    names = Dataset.from_tensor_slices(files).shuffle(3, seed=1)  # the same orders
    for epoch, order in zip(epochs, [list(names) for _ in range(3)]):
        assert epoch == [r for f in order for r in TFRecordDataset(f)]
    assert len({tuple(e) for e in epochs}) > 1
    parallel = TFRecordDataset(Dataset.from_tensor_slices(files), num_parallel_reads=2)
    assert list(parallel) == [b"s0:0", b"s1:0", b"s0:1", b"s2:0"]
    assert assert_resumes_exactly(lambda: TFRecordDataset(
        Dataset.from_tensor_slices(files).shuffle(3, seed=1), num_parallel_reads=2)) == 4


def test_num_parallel_reads_autotune_is_tfs_interleave(tmp_path: Path) -> None:
    # TF: filenames.interleave(read, num_parallel_calls=AUTOTUNE): cycle_length=None's rule,
    # ceil(cores / 3) with AUTOTUNE (it was read one file after the other on any machine)
    files = shards(tmp_path, [2, 2])
    for cores, same_as in ((6, 2), (2, 1)):
        budget = Options()
        budget.autotune.cpu_budget = cores
        ds = TFRecordDataset(files, num_parallel_reads=-1).with_options(budget)
        assert list(ds) == list(TFRecordDataset(files, num_parallel_reads=same_as))


def _elements(ds: Dataset, limit: int = 30) -> list:
    it, out = iter(ds), []
    for _ in range(limit):
        try:
            out.append(next(it))
        except StopIteration:
            return out
        except Exception as e:  # noqa: BLE001 - recorded
            out.append(type(e).__name__)
    return out


def test_a_damaged_tail_ends_its_file_as_tfs_reader(tmp_path: Path) -> None:
    # TF 2.21: a file that cannot be framed to its end gives its records, then DataLossError,
    # and the reader goes on with the next file (it was a FormatError before any record)
    files = shards(tmp_path, [3, 3, 3])
    with open(files[0], "ab") as f:
        f.write(b"corrupted data")                       # a bad length CRC
    Path(files[1]).write_bytes(Path(files[1]).read_bytes()[:-3])  # a truncated last record
    loss = "DataLossError"
    assert _elements(TFRecordDataset(files)) == [
        b"s0:0", b"s0:1", b"s0:2", loss, b"s1:0", b"s1:1", loss, b"s2:0", b"s2:1", b"s2:2"]
    # with num_parallel_reads=2 (TF's order for the same damage, checked with TF 2.21)
    assert _elements(TFRecordDataset(files, num_parallel_reads=2)) == [
        b"s0:0", b"s1:0", b"s0:1", b"s1:1", b"s0:2", loss, loss, b"s2:0", b"s2:1", b"s2:2"]
    assert list(TFRecordDataset(files).ignore_errors().skip(3)) == [
        b"s1:0", b"s1:1", b"s2:0", b"s2:1", b"s2:2"]
    assert assert_resumes_exactly(lambda: TFRecordDataset(files).ignore_errors()) == 8
    with pytest.raises(FormatError, match="cannot be framed"):  # the file layer stays strict
        len(TFRecordFile(files[0]))
