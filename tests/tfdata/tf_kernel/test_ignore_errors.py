"""TF's kernel tests for ``ignore_errors`` (tensorflow/python/data/kernel_tests/
ignore_errors_test.py), ported with their literal expectations, in our words. TF's
``check_numerics`` is a function raising for NaN or infinite values.

Not ported: ``testTFRecordDatasetIgnoreError`` (TF yields the good records of TFRecord files
with a corrupted tail; our TFRecordDataset indexes each file first and refuses such a file
unless its ``max_errors`` budget allows skipping).
"""

from __future__ import annotations

import logging
import os

import numpy as np
import pytest

from minibatcher.tfdata import Dataset, errors

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
