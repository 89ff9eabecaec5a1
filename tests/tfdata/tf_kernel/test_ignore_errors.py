"""TF's kernel tests for ``ignore_errors`` (tensorflow/python/data/kernel_tests/
ignore_errors_test.py), ported with their literal expectations, in our words. TF's
``check_numerics`` is a function raising for NaN or infinite values. All methods are ported.
"""

from __future__ import annotations

import logging
import os

import numpy as np
import pytest

from minibatcher.formats.tfrecord import TFRecordWriter
from minibatcher.tfdata import Dataset, TFRecordDataset, errors

from ..resume import assert_resumes_exactly

COMPONENTS = np.array([1., 2., 3., np.nan, 5.]).astype(np.float32)


def check_numerics(x):
    if not np.isfinite(x):
        raise errors.InvalidArgumentError("message : Tensor had NaN values")
    return x


def test_map_ignore_error() -> None:
    dataset = Dataset.from_tensor_slices(COMPONENTS).map(check_numerics).ignore_errors()
    assert [float(x) for x in dataset] == [1., 2., 3., 5.]


def test_ignore_error_with_log_warning(caplog: pytest.LogCaptureFixture) -> None:
    dataset = Dataset.from_tensor_slices(COMPONENTS).map(check_numerics).ignore_errors(
        log_warning=True)
    with caplog.at_level(logging.WARNING, logger="minibatcher.tfdata"):
        assert [float(x) for x in dataset] == [1., 2., 3., 5.]
    assert "Tensor had NaN values" in caplog.text


def test_parallel_map_ignore_error() -> None:
    dataset = Dataset.from_tensor_slices(COMPONENTS).map(
        check_numerics, num_parallel_calls=2).prefetch(2).ignore_errors()
    assert [float(x) for x in dataset] == [1., 2., 3., 5.]


def test_read_file_ignore_error(tmp_path) -> None:
    filenames = [str(tmp_path / f"file_{i}.txt") for i in range(5)]
    for name in filenames:
        with open(name, "w") as f:
            f.write(name)

    def read_file(name):
        with open(name.decode(), "rb") as f:
            return f.read()
    dataset = Dataset.from_tensor_slices(filenames).map(
        read_file, num_parallel_calls=2).prefetch(2).ignore_errors()
    assert list(dataset) == [n.encode() for n in filenames]
    os.remove(filenames[0])
    assert list(dataset) == [n.encode() for n in filenames[1:]]


def test_tfrecord_dataset_ignore_error(tmp_path) -> None:
    filenames = []
    for i in range(5):
        fn = os.path.join(tmp_path, "tf_record.%d.txt" % i)
        filenames.append(fn)
        with TFRecordWriter(fn) as writer:
            for _ in range(10):
                writer.write(b"record")
        with open(fn, "a") as f:  # corrupted data appended
            f.write("corrupted data")
    dataset = TFRecordDataset(filenames).ignore_errors()
    assert list(dataset) == [b"record"] * 50  # all of the files are present
    # without ignore_errors: each file's records, then its DataLossError, then the next file
    it, seen = iter(TFRecordDataset(filenames)), []
    for _ in range(55):
        try:
            seen.append(next(it))
        except errors.DataLossError:
            seen.append("DataLossError")
    assert seen == ([b"record"] * 10 + ["DataLossError"]) * 5 and next(it, None) is None
    assert assert_resumes_exactly(lambda: TFRecordDataset(filenames).ignore_errors()) == 50


def test_zip_ignore_error() -> None:
    a = Dataset.from_tensor_slices([1., 2., 0., 4.])
    b = a.map(lambda x: check_numerics(np.float32(1.) / x) if x else check_numerics(np.inf))
    dataset = Dataset.zip((b, a)).ignore_errors()
    assert [(float(u), float(v)) for u, v in dataset] == [(1. / x, x) for x in [1., 2., 4.]]


def test_cardinality() -> None:
    assert Dataset.range(10).ignore_errors().cardinality() == -2


def test_checkpoint() -> None:
    assert assert_resumes_exactly(
        lambda: Dataset.from_tensor_slices(COMPONENTS).map(check_numerics).ignore_errors()) == 4
