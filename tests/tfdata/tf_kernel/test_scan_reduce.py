"""TF's kernel tests for ``scan`` and ``reduce`` (tensorflow/python/data/kernel_tests/
scan_test.py, reduce_test.py), ported with their literal expectations, in our words.

Not ported: the TensorArray cases (a TF type), ``testUseDefaultDevice`` (GPU placement),
the graph-mode placeholder case of reduce. SparseTensor states are ported.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from minibatcher.tfdata import Dataset, SparseTensor, errors

from ..resume import assert_resumes_exactly


def counting(start, step, take):
    return Dataset.from_tensors(0).repeat().scan(
        initial_state=start, scan_func=lambda state, _: (state + step, state)).take(take)


@pytest.mark.parametrize("start, step, take", [(0, 1, 10), (0, 1, 0), (10, 1, 10), (10, 2, 10),
                                               (10, -1, 10), (10, -2, 10)])
def test_count(start: int, step: int, take: int) -> None:
    assert [int(x) for x in counting(start, step, take)] == \
        [v for v, _ in zip(itertools.count(start, step), range(take))]


def test_fibonacci() -> None:
    data = Dataset.from_tensors(1).repeat(None).scan(
        initial_state=[0, 1], scan_func=lambda a, _: ([a[1], a[0] + a[1]], a[1]))
    assert [int(x) for x in data.take(6)] == [1, 1, 2, 3, 5, 8]


def _sparse(i):
    return SparseTensor(indices=np.array([[0, 0]]), values=i * np.array([1]),
                        dense_shape=np.array([1, 1]))


@pytest.mark.parametrize("start, step, take", [(0, 1, 10), (10, -2, 10)])
def test_sparse_count(start: int, step: int, take: int) -> None:
    ds = Dataset.from_tensors(0).repeat().scan(
        _sparse(start), lambda state, _: (_sparse(state.values[0] + step), state)).take(take)
    assert [int(x.values[0]) for x in ds] == \
        [v for v, _ in zip(itertools.count(start, step), range(take))]


def test_changing_state_shape() -> None:
    def scan_fn(state, value):
        return (np.concatenate([state[0], state[0]]), np.expand_dims(state[1], 0)), (state, value)
    dataset = Dataset.from_tensors(0).repeat(5).scan(initial_state=([0], 1), scan_func=scan_fn)
    for i, ((longer_vector, larger_rank), _) in enumerate(dataset):
        assert longer_vector.tolist() == [0] * 2 ** i
        np.testing.assert_array_equal(larger_rank, np.array(1, ndmin=i))
        assert larger_rank.ndim == i


def test_incorrect_state_type() -> None:
    with pytest.raises(TypeError, match="The element types for the new state must match the "
                                        "initial state"):
        list(Dataset.range(10).scan(np.int32(1), lambda state, _: (np.int64(1), state)))


def test_incorrect_return_type() -> None:
    with pytest.raises(TypeError, match="`scan_func` should return a pair consisting of new "
                                        "state and the output value"):
        list(Dataset.range(10).scan(np.int32(1), lambda state, value: np.int64(1)))


def test_preserve_cardinality() -> None:
    def scan_fn(state, value):
        raise StopIteration()
    with pytest.raises(errors.InvalidArgumentError):
        next(iter(Dataset.from_tensors(0).scan(initial_state=np.int32(1), scan_func=scan_fn)))


def test_name() -> None:
    assert [int(x) for x in Dataset.from_tensors(42).scan(0, lambda x, y: (y, y),
                                                          name="scan")] == [42]


def test_scan_checkpoint() -> None:
    assert assert_resumes_exactly(lambda: Dataset.from_tensors(1).repeat(10).scan(
        initial_state=[0, 1], scan_func=lambda a, _: ([a[1], a[0] + a[1]], a[1]))) == 10


def test_reduce_sum() -> None:
    for i in range(10):
        result = Dataset.range(1, i + 1).reduce(np.int64(0), lambda x, y: x + y)
        assert int(result) == (i + 1) * i // 2


def test_reduce_sum_tuple() -> None:
    for i in range(10):
        ds = Dataset.range(1, i + 1)
        result = Dataset.zip((ds, ds)).reduce(np.int64(0), lambda s, v: s + v[0] + v[1])
        assert int(result) == (i + 1) * i


def test_reduce_sum_and_count() -> None:
    for i in range(10):
        s, c = Dataset.range(1, i + 1).reduce((np.int64(0), np.int64(0)),
                                              lambda state, v: (state[0] + v, state[1] + 1))
        assert (int(s), int(c)) == ((i + 1) * i // 2, i)


def test_reduce_sparse() -> None:
    for i in range(10):
        result = Dataset.from_tensors(_sparse(i + 1)).reduce(_sparse(0), lambda _, v: v)
        assert result.values.tolist() == [i + 1] and result.indices.tolist() == [[0, 0]]


def test_reduce_nested() -> None:
    def reduce_fn(state, value):
        return {"dense": state["dense"] + value["dense"], "sparse": value["sparse"]}

    def map_fn(i):
        return {"dense": np.int64(i), "sparse": _sparse(np.int64(i))}
    for i in range(10):
        result = Dataset.range(1, i + 1).map(map_fn).reduce(map_fn(0), reduce_fn)
        assert int(result["dense"]) == (i + 1) * i // 2
        assert result["sparse"].values.tolist() == [i]
