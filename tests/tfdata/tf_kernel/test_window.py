"""TF's kernel tests for ``window`` (tensorflow/python/data/kernel_tests/window_test.py),
ported with their literal expectations, in our words.

Not ported: the SparseTensor cases (windows of SparseTensors are not supported). The static
shape check of ``testWindowDataset`` compares ranks: the dimensions of a ``map`` function's
output are unknown here (docs/tfdata.md, element_spec).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from minibatcher.tfdata import Dataset, errors

from ..resume import assert_resumes_exactly

COMPONENTS = (np.arange(7), np.array([[1, 2, 3]]) * np.arange(7)[:, np.newaxis],
              np.array(37.0) * np.arange(7))
CASES = [(20, size, shift, stride, drop) for size, shift, stride, drop in itertools.product(
    [10, 14, 17], [7, 14], [1, 2, 6], [True, False])] + \
    [(count, 10, 4, 1, drop) for count in (0, 1) for drop in (True, False)]


@pytest.mark.parametrize("count, size, shift, stride, drop", CASES)
def test_window_dataset(count: int, size: int, shift: int, stride: int, drop: bool) -> None:
    dataset = Dataset.from_tensor_slices(COMPONENTS).map(
        lambda x, y, z: (x * x, y * y, z * z)).repeat(count).window(
        size=size, shift=shift, stride=stride, drop_remainder=drop).flat_map(
        lambda x, y, z: Dataset.zip((x.batch(size), y.batch(size), z.batch(size))))
    got = list(dataset)
    full = max(0, (count * 7 - ((size - 1) * stride + 1)) // shift + 1)
    partial = 0 if drop else (count * 7) // shift + ((count * 7) % shift > 0) - full
    assert len(got) == full + partial
    if got:  # TF: [[None], [None, 3], [None]]; a function's output has unknown dimensions here,
        # and without an element to look at its spec is not known at all
        assert [len(s.shape.dims) for s in dataset.element_spec] == [1, 2, 1]
    for i, result in enumerate(got):
        remaining = count * 7 - i * shift
        n = size if i < full else remaining // stride + (remaining % stride > 0)
        for component, result_component in zip(COMPONENTS, result, strict=True):
            for j in range(n):
                np.testing.assert_array_equal(component[(i * shift + j * stride) % 7] ** 2,
                                              result_component[j])


@pytest.mark.parametrize("size, shift, stride", [(0, 3, 1), (3, 0, 1), (3, 3, 0)])
def test_window_dataset_invalid(size: int, shift: int, stride: int) -> None:
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(10).map(lambda x: x).repeat(20).window(
            size=size, shift=shift, stride=stride).flat_map(lambda x: x.batch(batch_size=size))


def test_window_different_nested_structures() -> None:
    next(iter(Dataset.from_tensor_slices(([1, 2], [3, 4])).window(2)))
    next(iter(Dataset.from_tensor_slices({"a": [1, 2]}).window(2)))


def test_window_shape_error() -> None:
    def generator():
        yield [1.0, 2.0, 3.0]
        yield [4.0, 5.0, 6.0]
        yield [7.0, 8.0, 9.0, 10.0]
    dataset = Dataset.from_generator(generator, np.float32, output_shapes=[None]).window(
        size=3, shift=1).flat_map(lambda x: x.batch(batch_size=3))
    with pytest.raises(ValueError, match=r"Cannot batch tensors with different shapes in "
                                         r"component 0. First element had shape \[3\] and "
                                         r"element 2 had shape \[4\]"):
        list(dataset)


def _check_numerics(x):
    if np.isnan(x):
        raise errors.InvalidArgumentError("message: Tensor had NaN values")
    return x


@pytest.mark.parametrize("view", [True, False])
def test_window_ignore_errors(view: bool) -> None:
    # an error at a position no window includes (stride 2) is never raised
    dataset = Dataset.from_tensor_slices(np.float32([1., np.nan, 2., np.nan, 3.]))
    dataset = dataset.map(_check_numerics)
    if not view:
        dataset = dataset.filter(lambda x: True)
    dataset = dataset.window(size=2, shift=2, stride=2, drop_remainder=True).flat_map(
        lambda x: x.batch(batch_size=2))
    assert [b.tolist() for b in dataset] == [[1., 2.], [2., 3.]]


def test_nested_output() -> None:
    dataset = Dataset.range(100)
    for i, (x, y) in enumerate(Dataset.zip((dataset, dataset)).window(10)):
        assert [int(v) for v in x] == list(range(i * 10, (i + 1) * 10))
        assert [int(v) for v in y] == list(range(i * 10, (i + 1) * 10))


def test_drop_remainder_output() -> None:
    dataset = Dataset.range(100).window(30, drop_remainder=True).flat_map(
        lambda x: x.batch(30)).batch(4)
    assert [b.tolist() for b in dataset] == [[[y + 30 * x for y in range(30)] for x in range(3)]]


def test_name() -> None:
    dataset = Dataset.from_tensors(42).window(1, name="window").flat_map(lambda x: x)
    assert [int(x) for x in dataset] == [42]


def test_checkpoint() -> None:
    assert assert_resumes_exactly(lambda: Dataset.range(42).window(6).interleave(
        lambda x: x, cycle_length=2, num_parallel_calls=2)) == 42
