"""TF's random-access kernel tests (``ShardRandomAccessTest``, ``TakeRandomAccessTest``,
``SkipRandomAccessTest``, ``RepeatRandomAccessTest``, ``BatchRandomAccessTest`` of
tensorflow/python/data/kernel_tests/{shard,take,skip,repeat,batch}_test.py), ported with their
literal inputs and expectations, in our words (``random_access.at`` is
``tfdata.experimental.at``).

Not ported: ``BatchRandomAccessTest.testRandomAccessBatchWithShuffle`` (TF answers ``at`` through
a shuffle from a permutation its iterations never use; ours refuses it, tested below) and the
``*GlobalShuffleTest`` classes (TF's private ``global_shuffle_op._global_shuffle``): README.md.
"""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.tfdata import Dataset, errors
from minibatcher.tfdata.experimental import at


def empty() -> Dataset:
    return Dataset.from_tensor_slices(np.array([], np.float32))


# -- shard -------------------------------------------------------------------------------------

@pytest.mark.parametrize("index", [-1, 2, 3, 4])
def test_shard_invalid_index(index: int) -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.range(4).shard(num_shards=2, index=0), index=index)


def test_shard_empty_dataset() -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(empty().shard(num_shards=2, index=1), index=0)


def test_shard_num_shards_and_index_less_than_num_elements() -> None:
    dataset = Dataset.range(10).shard(5, 0)
    assert int(at(dataset, 0)) == 0 and int(at(dataset, 1)) == 5
    with pytest.raises(errors.OutOfRangeError):
        at(dataset, 2)


def test_shard_num_shards_greater_than_num_elements_index_less() -> None:
    dataset = Dataset.range(7).shard(8, 3)
    assert int(at(dataset, 0)) == 3
    with pytest.raises(errors.OutOfRangeError):
        at(dataset, 1)


def test_shard_num_shards_and_index_greater_than_num_elements() -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.range(13).shard(23, 21), 0)


@pytest.mark.parametrize("elements", [0, 10, 50])
@pytest.mark.parametrize("num_shards", [5, 7, 10])
@pytest.mark.parametrize("index", [0, 1, 2, 3, 4])
def test_shard_multiple_combinations(elements: int, num_shards: int, index: int) -> None:
    components = range(elements)
    dataset = Dataset.range(elements).shard(num_shards=num_shards, index=index)
    length = dataset.cardinality()
    for i in range(length):
        assert int(at(dataset, i)) == components[index + num_shards * i]
    with pytest.raises(errors.OutOfRangeError):
        at(dataset, index=length)


# -- take --------------------------------------------------------------------------------------

@pytest.mark.parametrize("index", [-1, 3, 4])
def test_take_invalid_index(index: int) -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.range(10).take(3), index=index)


@pytest.mark.parametrize("index", [-2, 0, 1])
def test_take_empty_dataset(index: int) -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(empty().take(5), index=index)


@pytest.mark.parametrize("count", [-1, 0, 4, 10, 25])
def test_take_basic(count: int) -> None:
    dataset = Dataset.range(10).take(count)
    num_output = min(count, 10) if count != -1 else 10
    assert [int(at(dataset, index=i)) for i in range(num_output)] == list(range(num_output))
    with pytest.raises(errors.OutOfRangeError):
        at(dataset, index=num_output)


# -- skip --------------------------------------------------------------------------------------

@pytest.mark.parametrize("index", [-1, 2, 3])
def test_skip_invalid_index(index: int) -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.range(10).skip(8), index=index)


@pytest.mark.parametrize("index", [-1, 0])
def test_skip_empty_dataset(index: int) -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(empty().skip(8), index=index)


def test_skip_basic() -> None:
    dataset = Dataset.range(11).skip(3)
    assert [int(at(dataset, index=i)) for i in range(8)] == [i + 3 for i in range(8)]


@pytest.mark.parametrize("skip", [-2, -1])
def test_skip_negative_skip(skip: int) -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.range(11).skip(skip), index=0)


@pytest.mark.parametrize("skip", [5, 8])
def test_skip_greater_than_num_elements(skip: int) -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.range(4).skip(skip), index=0)


@pytest.mark.parametrize("elements", [0, 5, 10])
@pytest.mark.parametrize("skip", [-1, 0, 5, 15])
def test_skip_multiple_combinations(elements: int, skip: int) -> None:
    dataset = Dataset.range(elements).skip(skip)
    for i in range(dataset.cardinality()):
        assert int(at(dataset, index=i)) == i + skip


# -- repeat ------------------------------------------------------------------------------------

@pytest.mark.parametrize("index", [-1, 6, 7])
def test_repeat_invalid_index(index: int) -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.from_tensor_slices([1, 2, 3]).repeat(2), index=index)


@pytest.mark.parametrize("index", [-1, 0])
def test_repeat_empty_dataset(index: int) -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(empty().repeat(2), index=index)


@pytest.mark.parametrize("elements", [0, 5, 10])
@pytest.mark.parametrize("count", [0, 3, 8])
def test_repeat_finite_repeat(elements: int, count: int) -> None:
    dataset = Dataset.range(elements).repeat(count)
    expected = np.tile(np.arange(0, elements, 1, dtype=np.int64), count)
    for i in range(elements * count):
        assert at(dataset, index=i) == expected[i]


@pytest.mark.parametrize("elements", [0, 3, 5])
@pytest.mark.parametrize("count_1", [0, 1, 2])
@pytest.mark.parametrize("count_2", [3, 4, 5])
def test_repeat_repeat(elements: int, count_1: int, count_2: int) -> None:
    dataset = Dataset.range(elements).repeat(count_1).repeat(count_2)
    expected = np.tile(np.arange(0, elements, 1, dtype=np.int64), count_1 * count_2)
    for i in range(elements * count_1 * count_2):
        assert at(dataset, index=i) == expected[i]


@pytest.mark.parametrize("elements", [3, 5])
@pytest.mark.parametrize("count", [None, -1, -2])
def test_repeat_infinite_repeat(elements: int, count: int | None) -> None:
    # datasets with infinite cardinality do not support random access
    with pytest.raises(errors.FailedPreconditionError):
        at(Dataset.range(elements).repeat(count=count), index=0)


# -- batch -------------------------------------------------------------------------------------

@pytest.mark.parametrize("index", [-1, 2, 3, 4])
def test_batch_invalid_index(index: int) -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(Dataset.from_tensor_slices([1, 2, 3, 4]).batch(2), index=index)


def test_batch_empty_dataset() -> None:
    with pytest.raises(errors.OutOfRangeError):
        at(empty().batch(2), 0)


@pytest.mark.parametrize("count", [0, 10, 20, 30, 40, 50])
@pytest.mark.parametrize("batch_size", [1, 3, 5, 7, 10, 20])
@pytest.mark.parametrize("drop_remainder", [True, False])
def test_batch_basic(count: int, batch_size: int, drop_remainder: bool) -> None:
    dataset = Dataset.from_tensor_slices(list(range(count))).batch(
        batch_size=batch_size, drop_remainder=drop_remainder)
    num_full_batches = count // batch_size
    for i in range(num_full_batches):
        expected = np.arange(i * batch_size, i * batch_size + batch_size, 1, dtype=np.int32)
        got = at(dataset, i)
        assert got.dtype == np.int32 and got.tolist() == expected.tolist()
    has_remainder = (not drop_remainder) and (count % batch_size != 0)
    if has_remainder:
        expected = np.arange(batch_size * num_full_batches, count, 1)
        assert at(dataset, num_full_batches).tolist() == expected.tolist()
    with pytest.raises(errors.OutOfRangeError):
        at(dataset, index=num_full_batches + (1 if has_remainder else 0))


# -- what TF does not offer, or answers otherwise ---------------------------------------------

def test_random_access_through_a_shuffle_is_refused() -> None:
    # TF 2.21: at(shuffle(10, seed=2) of 1..7, i) gives 5 2 4 7 1 3 6 (a permutation of the
    # whole input) while iterating gives 4 7 6 2 1 5 3: not reproduced, refused
    shuffled = Dataset.from_tensor_slices([1, 2, 3, 4, 5, 6, 7]).shuffle(buffer_size=10, seed=2)
    with pytest.raises(errors.FailedPreconditionError, match="through a shuffle"):
        at(shuffled.batch(2), 0)


def test_ops_without_random_access_raise_unimplemented() -> None:
    with pytest.raises(errors.UnimplementedError, match="not implemented"):
        at(Dataset.range(10).filter(lambda x: x > 2), 0)
    assert int(at(Dataset.range(10).map(lambda x: x * 2), 3)) == 6  # TF: 6
