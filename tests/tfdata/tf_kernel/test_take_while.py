"""TF's kernel tests for ``take_while`` (tensorflow/python/data/kernel_tests/take_while_test.py),
ported with their literal expectations, in our words (everything is ported)."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.tfdata import Dataset

from ..resume import assert_resumes_exactly


@pytest.mark.parametrize("num_elements, window_size", [(14, 2), (15, 2), (100, 3)])
def test_take_while_dataset(num_elements: int, window_size: int) -> None:
    dataset = Dataset.range(num_elements).batch(window_size)
    dataset = dataset.take_while(predicate=lambda elem: elem.shape[0] > window_size - 1)
    dataset = dataset.flat_map(Dataset.from_tensor_slices)
    expected = int(num_elements / window_size) * window_size
    assert [int(x) for x in dataset] == list(range(expected))


@pytest.mark.parametrize("num_elements, upper_bound", [(10, 2), (16, 7), (100, 99), (100, 101),
                                                       (0, 1)])
def test_take_while_dataset_range(num_elements: int, upper_bound: int) -> None:
    dataset = Dataset.range(num_elements).take_while(lambda x: x < upper_bound)
    assert [int(x) for x in dataset] == list(range(min(num_elements, upper_bound)))


def test_take_while_dataset_string() -> None:
    strings = ["this", "is", "the", "test", "for", "strings"]
    dataset = Dataset.from_tensor_slices(strings).take_while(predicate=lambda x: x != b"test")
    assert list(dataset) == [b"this", b"is", b"the"]


@pytest.mark.parametrize("size, index", [(5, 3), (10, 0), (100, 5), (8, 7)])
def test_take_while_dataset_short_circuit(size: int, index: int) -> None:
    flags = [True] * size
    flags[index] = False
    dataset = Dataset.from_tensor_slices(flags).take_while(predicate=lambda x: x)
    assert [bool(x) for x in dataset] == [True] * index


def test_take_while_dataset_with_repeat() -> None:
    dataset = Dataset.range(10).take_while(predicate=lambda x: x < 2).repeat(5)
    assert [int(x) for x in dataset] == np.tile([0, 1], 5).tolist()


@pytest.mark.parametrize("num_elements", [10, 23])
@pytest.mark.parametrize("upper_bound", [10, 23])
def test_checkpoint(num_elements: int, upper_bound: int) -> None:
    count = assert_resumes_exactly(
        lambda: Dataset.range(num_elements).take_while(predicate=lambda x: x < upper_bound))
    assert count == min(num_elements, upper_bound)
