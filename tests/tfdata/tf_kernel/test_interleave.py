"""TF's kernel tests for ``Dataset.interleave``
(tensorflow/python/data/kernel_tests/interleave_test.py), ported with their literal inputs and
expectations, in our words. TF checks its cases against a reference generator of the
cycle/block order; ours is written here from the documented rule. Not ported: see README.md."""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np
import pytest

from minibatcher import tfdata
from minibatcher.tfdata import Dataset


def reference(lists: list[list[Any]], cycle: int, block: int) -> Iterator[Any]:
    """The interleave order: ``cycle`` slots filled in order, ``block`` elements from each
    open slot in turn; an exhausted slot takes the next list when its turn comes."""
    pending = [iter(values) for values in lists]
    slots: list[Iterator[Any] | None] = [pending.pop(0) if pending else None
                                         for _ in range(cycle)]
    while any(s is not None for s in slots) or pending:
        for i in range(cycle):
            if slots[i] is None:
                if not pending:
                    continue
                slots[i] = pending.pop(0)
            for _ in range(block):
                try:
                    yield next(slots[i])  # type: ignore[arg-type]
                except StopIteration:
                    slots[i] = None
                    break


def repeated(values: Any, count: int) -> list[list[Any]]:
    return [[v] * int(v) for v in np.tile(values, count)]


def _interleave(values: Any, cycle: int, block: int, npc: int | None = None) -> list[int]:
    ds = Dataset.from_tensor_slices(np.asarray(values, np.int64)).repeat(2).interleave(
        lambda x: Dataset.from_tensors(x).repeat(x), cycle, block, npc)
    return [int(x) for x in ds]


@pytest.mark.parametrize("values,cycle,block,expected", [
    ([4, 5, 6], 1, 1, [4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 4, 4, 4, 4, 5, 5, 5, 5,
                       5, 6, 6, 6, 6, 6, 6]),
    ([4, 5, 6], 2, 1, [4, 5, 4, 5, 4, 5, 4, 5, 5, 6, 6, 4, 6, 4, 6, 4, 6, 4, 6, 5, 6, 5, 6,
                       5, 6, 5, 6, 5, 6, 6]),
    ([4, 5, 6], 2, 3, [4, 4, 4, 5, 5, 5, 4, 5, 5, 6, 6, 6, 4, 4, 4, 6, 6, 6, 4, 5, 5, 5, 6,
                       6, 6, 5, 5, 6, 6, 6]),
    ([4, 5, 6], 7, 2, [4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6,
                       6, 5, 6, 6, 5, 6, 6]),
    ([4, 0, 6], 2, 1, [4, 4, 6, 4, 6, 4, 6, 6, 4, 6, 4, 6, 4, 4, 6, 6, 6, 6, 6, 6]),
])
def test_literal_orders(values: list[int], cycle: int, block: int, expected: list[int]) -> None:
    assert list(reference(repeated(values, 2), cycle, block)) == expected
    assert _interleave(values, cycle, block) == expected


CASES = [([4, 5, 6], 1, 3, None), ([4, 5, 6], 1, 3, 1), ([4, 5, 6], 2, 1, None),
         ([4, 5, 6], 2, 1, 1), ([4, 5, 6], 2, 1, 2), ([4, 5, 6], 2, 3, None), ([4, 5, 6], 2, 3, 1),
         ([4, 5, 6], 2, 3, 2), ([4, 5, 6], 7, 2, None), ([4, 5, 6], 7, 2, 1), ([4, 5, 6], 7, 2, 3),
         ([4, 5, 6], 7, 2, 5), ([4, 5, 6], 7, 2, 7), ([], 2, 3, None), ([0, 0, 0], 2, 3, None),
         ([4, 0, 6], 2, 3, None), ([4, 0, 6], 2, 3, 1), ([4, 0, 6], 2, 3, 2)]


@pytest.mark.parametrize("values,cycle,block,npc", CASES)
def test_interleave_dataset(values: list[int], cycle: int, block: int, npc: int | None) -> None:
    assert _interleave(values, cycle, block, npc) == list(reference(repeated(values, 2), cycle,
                                                                    block))


ERROR_CASES = [(1, 3, None), (1, 3, 1), (2, 1, None), (2, 1, 1), (2, 1, 2), (2, 3, None),
               (2, 3, 1), (2, 3, 2), (7, 2, None), (7, 2, 1), (7, 2, 3), (7, 2, 5), (7, 2, 7)]


@pytest.mark.parametrize("cycle,block,npc", ERROR_CASES)
def test_interleave_dataset_error(cycle: int, block: int, npc: int | None) -> None:
    values = np.float32([1.0, np.nan, 2.0, np.nan, 3.0])

    def check_numerics(x: Any) -> Any:
        if np.isnan(x):
            raise ValueError("message: Tensor had NaN values")
        return x

    ds = Dataset.from_tensor_slices(values).map(check_numerics).interleave(
        Dataset.from_tensors, cycle, block, npc)
    it = iter(ds)
    for value in values:
        if np.isnan(value):
            with pytest.raises(ValueError):
                next(it)
        else:
            assert next(it) == value
    with pytest.raises(StopIteration):
        next(it)


def test_interleave_sparse() -> None:
    def to_sparse(i: Any) -> Any:
        return tfdata.SparseTensor(indices=[[0, 0], [1, 1]], values=np.array([1, -1]) * i,
                                   dense_shape=[2, 2])

    ds = Dataset.range(10).map(to_sparse).interleave(
        lambda x: Dataset.from_tensor_slices(x.to_dense()), cycle_length=1)
    expected = [[i, 0] if j == 0 else [0, -i] for i in range(10) for j in range(2)]
    assert [x.tolist() for x in ds] == expected
