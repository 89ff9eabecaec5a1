"""TF's kernel tests for ``unique`` and ``get_single_element`` (tensorflow/python/data/
kernel_tests/unique_test.py, get_single_element_test.py), ported with their literal
expectations, in our words.

Not ported: the ``tf.function``/variable side-effect tests of get_single_element (TF's
function tracing and automatic control dependencies); the quantized dtypes of
``testUnsupportedTypes`` (no NumPy equivalent).
"""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher import tfdata
from minibatcher.tfdata import Dataset, SparseTensor, errors

from ..resume import assert_resumes_exactly

INT_CASES = [([], []), ([1], [1]), ([1, 1, 1, 1, 1, 1, 1], [1]), ([1, 1, 1, 1, 0], [1, 0]),
             ([1, 2, 3, 4], [1, 2, 3, 4]), ([1, 2, 4, 3, 2, 1, 2, 3, 4], [1, 2, 4, 3]),
             ([[1], [1, 1], [1, 1, 1]], [[1], [1, 1], [1, 1, 1]]),
             ([[1, 1], [1, 1], [2, 2], [3, 3], [1, 1]], [[1, 1], [2, 2], [3, 3]])]
STRING_CASES = [([], []), (["hello"], ["hello"]), (["hello", "hello", "hello"], ["hello"]),
                (["hello", "world"], ["hello", "world"]),
                (["foo", "bar", "baz", "baz", "bar", "foo"], ["foo", "bar", "baz"])]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_simple_int(dtype) -> None:
    current: list = []
    dataset = Dataset.from_generator(lambda: current, dtype).unique()
    for case, expected in INT_CASES:
        current = case
        assert [np.asarray(x).tolist() for x in dataset] == expected


def test_simple_string() -> None:
    current: list = []
    dataset = Dataset.from_generator(lambda: current, tfdata.string).unique()
    for case, expected in STRING_CASES:
        current = case
        assert list(dataset) == [e.encode() for e in expected]


@pytest.mark.parametrize("dtype", [np.bool_, np.float64, np.complex64, np.float32])
def test_unsupported_types(dtype) -> None:
    with pytest.raises(TypeError):
        Dataset.from_generator(lambda: [], dtype).unique()


def test_unique_name() -> None:
    assert [int(x) for x in Dataset.from_tensors(42).unique(name="unique")] == [42]


def test_unique_checkpoint() -> None:
    assert assert_resumes_exactly(
        lambda: Dataset.range(200).map(lambda x: x % 100).unique()) == 100


def _make_sparse(x):
    return SparseTensor(np.reshape(x, [1, 1]), np.reshape(x, [1]), np.reshape(x, [1]))


@pytest.mark.parametrize("skip, take, error", [(0, 1, None), (5, 1, None), (10, 1, None),
                                               (100, 1, "Dataset was empty."),
                                               (0, 2, "Dataset had more than one element.")])
def test_get_single_element(skip: int, take: int, error: str | None) -> None:
    dataset = Dataset.range(100).skip(skip).map(lambda x: (x * x, _make_sparse(x))).take(take)
    if error is not None:
        with pytest.raises(errors.InvalidArgumentError, match=error):
            dataset.get_single_element()
        return
    dense, sparse = dataset.get_single_element()
    assert int(dense) == skip * skip
    assert sparse.indices.tolist() == [[skip]] and sparse.values.tolist() == [skip]
    assert sparse.dense_shape.tolist() == [skip]


def test_get_single_element_of_windows() -> None:
    def flat_map_func(ds):
        return Dataset.from_tensors(ds.batch(2).get_single_element())
    dataset = Dataset.range(10).window(2).flat_map(flat_map_func)
    assert [b.tolist() for b in dataset] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]


def test_get_single_element_name() -> None:
    assert int(Dataset.from_tensors(42).get_single_element(name="get_single_element")) == 42
