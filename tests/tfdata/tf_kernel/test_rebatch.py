"""TF's kernel tests for ``rebatch`` (tensorflow/python/data/kernel_tests/rebatch_test.py),
ported with their literal expectations, in our words.

Not ported: ``testNoneDataset`` (``None`` components). ``testRaggedDataset`` builds its ragged
batches with ``from_tensors`` instead of ``from_tensor_slices(RaggedTensor).batch(4)``.
"""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.tfdata import Dataset, RaggedTensor

from ..resume import assert_resumes_exactly


def shapes(ds):
    return [list(s.shape.dims) for s in
            (ds.element_spec.values() if isinstance(ds.element_spec, dict) else
             [ds.element_spec])]


def out(ds):
    return [b.tolist() for b in ds]


def test_shape_inference() -> None:
    batched = Dataset.range(8).batch(4, drop_remainder=True)
    assert shapes(batched.rebatch(batch_size=[2, 1, 1])) == [[None]]
    for drop in (True, False):
        assert shapes(batched.rebatch(batch_size=[2, 2], drop_remainder=drop)) == [[2]]
    unknown = Dataset.range(8).batch(4, drop_remainder=False)
    assert shapes(unknown.rebatch(batch_size=[2, 2], drop_remainder=False)) == [[None]]
    assert shapes(unknown.rebatch(batch_size=[2, 2], drop_remainder=True)) == [[2]]
    indivisible = Dataset.range(10).batch(5, drop_remainder=True)
    assert shapes(indivisible.rebatch(batch_size=[2, 2], drop_remainder=False)) == [[None]]
    assert shapes(indivisible.rebatch(batch_size=[2, 2], drop_remainder=True)) == [[2]]


@pytest.mark.parametrize("drop", [True, False])
def test_basic(drop: bool) -> None:
    ds = Dataset.range(8).batch(4, drop_remainder=True).rebatch(batch_size=[2, 2],
                                                                 drop_remainder=drop)
    assert shapes(ds) == [[2]]
    assert out(ds) == [[0, 1], [2, 3], [4, 5], [6, 7]]


def test_partial_batch() -> None:
    ds = Dataset.range(5).batch(4, drop_remainder=False)
    assert out(ds.rebatch(batch_size=[2, 2], drop_remainder=False)) == [[0, 1], [2, 3], [4]]
    assert out(ds.rebatch(batch_size=[2, 2], drop_remainder=True)) == [[0, 1], [2, 3]]


@pytest.mark.parametrize("drop", [True, False])
def test_batch_size_greater_than_original(drop: bool) -> None:
    ds = Dataset.range(12).batch(4, drop_remainder=False).rebatch(batch_size=[6],
                                                                   drop_remainder=drop)
    assert out(ds) == [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]]


@pytest.mark.parametrize("batch_size", [2, 3, 4])
@pytest.mark.parametrize("drop", [True, False])
def test_batch_size_equal_to_original(batch_size: int, drop: bool) -> None:
    ds = Dataset.range(11).batch(batch_size, drop_remainder=drop)
    assert out(ds.rebatch(batch_size=batch_size, drop_remainder=False)) == out(ds)


@pytest.mark.parametrize("drop", [True, False])
def test_empty_splits(drop: bool) -> None:
    batched = Dataset.range(8).batch(4, drop_remainder=True)
    assert out(batched.rebatch(batch_size=[1, 1, 1, 1, 0], drop_remainder=drop)) == \
        [[0], [1], [2], [3], [], [4], [5], [6], [7], []]
    assert out(batched.rebatch(batch_size=[0, 1], drop_remainder=drop)) == \
        [[], [0], [], [1], [], [2], [], [3], [], [4], [], [5], [], [6], [], [7], []]
    assert out(batched.rebatch(batch_size=[1, 0], drop_remainder=drop)) == \
        [[0], [], [1], [], [2], [], [3], [], [4], [], [5], [], [6], [], [7], []]


@pytest.mark.parametrize("drop", [True, False])
def test_empty_tensors(drop: bool) -> None:
    ds = Dataset.range(8).map(lambda x: np.zeros((5, 0))).batch(2)
    got = list(ds.rebatch(batch_size=4, drop_remainder=drop))
    assert [b.shape for b in got] == [(4, 5, 0)] * 2


def test_multiple_batches() -> None:
    ds = Dataset.range(16).batch(2, drop_remainder=True).batch(4, drop_remainder=True)
    assert shapes(ds) == [[4, 2]]
    rebatched = ds.rebatch([2, 2])
    assert shapes(rebatched) == [[2, 2]]
    assert out(rebatched) == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9], [10, 11]],
                              [[12, 13], [14, 15]]]


def test_nested_dictionary_output() -> None:
    ds = Dataset.range(8).map(lambda x: {"a": x, "b": {"c": x + 1}}).batch(4, True).rebatch([2, 2])
    assert [{"a": e["a"].tolist(), "b": {"c": e["b"]["c"].tolist()}} for e in ds] == [
        {"a": [0, 1], "b": {"c": [1, 2]}}, {"a": [2, 3], "b": {"c": [3, 4]}},
        {"a": [4, 5], "b": {"c": [5, 6]}}, {"a": [6, 7], "b": {"c": [7, 8]}}]


@pytest.mark.parametrize("drop", [True, False])
def test_ragged_dataset(drop: bool) -> None:
    rt = RaggedTensor.from_row_lengths(np.arange(10), [1, 2, 3, 4])
    ds = Dataset.from_tensors(rt).map(lambda x: x).rebatch(batch_size=[2, 2],
                                                           drop_remainder=drop)
    assert [b.to_list() for b in ds] == [[[0], [1, 2]], [[3, 4, 5], [6, 7, 8, 9]]]


def test_checkpoint() -> None:
    assert assert_resumes_exactly(
        lambda: Dataset.range(24).batch(8, drop_remainder=True).rebatch(batch_size=[4, 4])) == 6
