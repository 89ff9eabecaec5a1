"""TF's kernel tests for ``list_files`` and ``FixedLengthRecordDataset``
(tensorflow/python/data/kernel_tests/list_files_test.py, fixed_length_record_dataset_test.py),
ported with their literal expectations, in our words.

Not ported: the global-shuffle tests of list_files (``global_shuffle_op``, a TF internal).
"""

from __future__ import annotations

import gzip
import os
import pathlib
import zlib

import pytest

from minibatcher.tfdata import Dataset, FixedLengthRecordDataset, errors

from ..resume import assert_resumes_exactly


def touch(folder, names) -> None:
    for name in names:
        open(os.path.join(folder, name), "a").close()


def paths(folder, names) -> list[bytes]:
    return [os.path.join(str(folder), n).encode() for n in names]


def test_empty_directory(tmp_path) -> None:
    with pytest.raises(errors.InvalidArgumentError, match="No files matched"):
        Dataset.list_files(str(tmp_path / "*"))


def test_simple_directory(tmp_path) -> None:
    touch(tmp_path, ["a", "b", "c"])
    assert sorted(Dataset.list_files(str(tmp_path / "*"))) == paths(tmp_path, ["a", "b", "c"])
    assert list(Dataset.list_files(str(tmp_path / "*"), shuffle=False)) == \
        paths(tmp_path, ["a", "b", "c"])


def test_fixed_seed_results_in_repeatable_order(tmp_path) -> None:
    touch(tmp_path, ["a", "b", "c"])
    runs = [list(Dataset.list_files(str(tmp_path / "*"), shuffle=True, seed=37)) for _ in range(3)]
    assert sorted(runs[0]) == paths(tmp_path, ["a", "b", "c"])
    assert runs[0] == runs[1] == runs[2]


def test_file_suffixes_and_middles(tmp_path) -> None:
    touch(tmp_path, ["a.txt", "b.py", "c.py", "d.pyc"])
    assert sorted(Dataset.list_files(str(tmp_path / "*.py"))) == paths(tmp_path, ["b.py", "c.py"])
    assert sorted(Dataset.list_files(str(tmp_path / "*.py*"))) == \
        paths(tmp_path, ["b.py", "c.py", "d.pyc"])


def test_no_shuffle(tmp_path) -> None:
    touch(tmp_path, ["a", "b", "c"])
    got = list(Dataset.list_files(str(tmp_path / "*"), shuffle=False).repeat(2))
    assert got == paths(tmp_path, ["a", "b", "c"]) * 2


def test_multiple_patterns(tmp_path) -> None:
    touch(tmp_path, ["a.txt", "b.py", "c.py", "d.pyc"])
    patterns = [str(tmp_path / p) for p in ["*.py", "*.txt"]]
    assert sorted(Dataset.list_files(patterns)) == paths(tmp_path, ["a.txt", "b.py", "c.py"])


HEADER, RECORD, FOOTER, FILES, RECORDS = 5, 3, 2, 2, 7


def record(f: int, r: int) -> bytes:
    return str(f * 2 + r).encode() * RECORD


def create_files(folder, compression: str | None = None) -> list[str]:
    names = []
    for i in range(FILES):
        name = os.path.join(str(folder), f"fixed_length_record.{i}.txt")
        names.append(name)
        contents = b"H" * HEADER + b"".join(record(i, j) for j in range(RECORDS)) + b"F" * FOOTER
        if compression == "GZIP":
            contents = gzip.compress(contents)
        elif compression == "ZLIB":
            contents = zlib.compress(contents)
        with open(name, "wb") as f:
            f.write(contents)
    return names


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_fixed_length_record_dataset(tmp_path, compression: str | None) -> None:
    names = create_files(tmp_path, compression)

    def dataset(filenames, epochs, batch_size=None):
        ds = FixedLengthRecordDataset(filenames, RECORD, HEADER, FOOTER,
                                      compression_type=compression).repeat(epochs)
        return ds.batch(batch_size) if batch_size else ds
    assert list(dataset([names[0]], 1)) == [record(0, i) for i in range(RECORDS)]
    assert list(dataset([names[1]], 1)) == [record(1, i) for i in range(RECORDS)]
    both = [record(j, i) for j in range(FILES) for i in range(RECORDS)]
    assert list(dataset(names, 1)) == both
    assert list(dataset(names, 10)) == both * 10
    assert [b.tolist() for b in dataset(names, 10, RECORDS)] == \
        [[record(j, i) for i in range(RECORDS)] for _ in range(10) for j in range(FILES)]


def test_buffering_parallel_reads_and_pathlib(tmp_path) -> None:
    names = create_files(tmp_path)
    both = [record(j, i) for j in range(FILES) for i in range(RECORDS)]
    assert list(FixedLengthRecordDataset(names, RECORD, HEADER, FOOTER, buffer_size=10)) == both
    parallel = FixedLengthRecordDataset(names, RECORD, HEADER, FOOTER, buffer_size=10,
                                        num_parallel_reads=4)
    assert sorted(parallel) == sorted(both)
    as_paths = FixedLengthRecordDataset([pathlib.Path(n) for n in names], RECORD, HEADER, FOOTER,
                                        buffer_size=10, num_parallel_reads=4)
    assert sorted(as_paths) == sorted(both)


def test_wrong_size(tmp_path) -> None:
    names = create_files(tmp_path)
    dataset = FixedLengthRecordDataset(names, RECORD + 1, HEADER, FOOTER, buffer_size=10)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Excluding the header \(5 bytes\) and footer \(2 bytes\), input "
                             r"file \".*fixed_length_record.0.txt\" has body length 21 bytes, "
                             r"which is not an exact multiple of the record length \(4 bytes\)."):
        list(dataset)


def test_checkpoint(tmp_path) -> None:
    names = create_files(tmp_path)
    assert assert_resumes_exactly(
        lambda: FixedLengthRecordDataset(names, RECORD, HEADER, FOOTER).repeat(5)) == \
        5 * FILES * RECORDS
