"""TF's kernel tests for ``Dataset.shuffle`` (tensorflow/python/data/kernel_tests/shuffle_test.py),
ported with their literal inputs and expectations, in our words. Not ported: see README.md."""

from __future__ import annotations

import collections
import functools
from typing import Any

import numpy as np
import pytest

from minibatcher.tfdata import Dataset, random_seed_scope

from ..resume import assert_resumes_exactly

COMPONENTS = (np.array([1, 2, 3, 4]), np.array([5, 6, 7, 8]), np.array([9.0, 10.0, 11.0, 12.0]))


def _basic(count: int = 5, buffer_size: int | None = None, seed: int = 0) -> Dataset:
    ds = Dataset.from_tensor_slices(COMPONENTS).repeat(count)
    return ds.shuffle(buffer_size, seed) if buffer_size else ds


def _values(ds: Dataset) -> list[Any]:
    return [tuple(np.asarray(c).item() for c in e) for e in ds]


def test_basic() -> None:
    unshuffled = _values(_basic())
    assert len(unshuffled) == 20
    shuffled = _values(_basic(buffer_size=100, seed=37))
    assert sorted(shuffled) == sorted(unshuffled)
    assert _values(_basic(buffer_size=100, seed=37)) == shuffled  # the same seeds
    other = _values(_basic(buffer_size=100, seed=137))
    assert other != shuffled and sorted(other) == sorted(shuffled)
    assert sorted(_values(_basic(buffer_size=2, seed=37))) == sorted(unshuffled)
    assert _values(_basic(count=0, buffer_size=100, seed=37)) == []


def test_default_arguments() -> None:
    it = iter(Dataset.from_tensor_slices([0, 1, 2, 3, 4]).shuffle(5).repeat())
    counts: collections.Counter[int] = collections.Counter(int(next(it)) for _ in range(50))
    assert all(counts[i] == 10 for i in range(5))


@pytest.mark.parametrize("reshuffle", [True, False])
@pytest.mark.parametrize("graph_seed,op_seed", [(38, None), (None, 42), (38, 42)])
def test_shuffle_seed(reshuffle: bool, graph_seed: int | None, op_seed: int | None) -> None:
    # (TF runs this one in graph mode; the fact carries over: the same seeds give the same run)
    runs = []
    for _ in range(2):
        with random_seed_scope(graph_seed):
            ds = Dataset.range(10).shuffle(10, seed=op_seed,
                                           reshuffle_each_iteration=reshuffle).repeat(3)
        runs.append([int(x) for x in ds])
    assert runs[0] == runs[1] and len(runs[0]) == 30


@pytest.mark.parametrize("reshuffle", [True, False])
@pytest.mark.parametrize("seed", [None, 42])
def test_reshuffle_repeat_epochs(reshuffle: bool, seed: int | None) -> None:
    out = [int(x) for x in Dataset.range(10).shuffle(10, seed=seed,
                                                      reshuffle_each_iteration=reshuffle).repeat(2)]
    assert (out[:10] == out[10:]) == (not reshuffle)


@pytest.mark.parametrize("reshuffle", [True, False])
@pytest.mark.parametrize("seed", [None, 42])
def test_reshuffle_iteration_epochs(reshuffle: bool, seed: int | None) -> None:
    with random_seed_scope(None):
        ds = Dataset.range(10).shuffle(10, seed=seed, reshuffle_each_iteration=reshuffle)
    first, second = [int(x) for x in ds], [int(x) for x in ds]
    assert (first == second) == (not reshuffle)


def test_shuffle_resource_capture() -> None:
    ids = Dataset.range(10).shuffle(1)

    def interleave_fn(dataset: Dataset, _: Any) -> Dataset:
        return dataset

    ds = Dataset.range(1).interleave(functools.partial(interleave_fn, ids))
    assert [int(x) for x in ds] == list(range(10))


@pytest.mark.parametrize("reshuffle", [True, False])
@pytest.mark.parametrize("seed", [None, 42])
def test_reshuffle_separate_transformations(reshuffle: bool, seed: int | None) -> None:
    ds = Dataset.range(10)
    first = [int(x) for x in ds.shuffle(10, seed=seed, reshuffle_each_iteration=reshuffle)]
    second = [int(x) for x in ds.shuffle(10, seed=seed, reshuffle_each_iteration=reshuffle)]
    assert (first != second) == (seed is None)


def test_empty_dataset() -> None:
    def map_fn(x: Any) -> Any:
        if x != 0:
            raise ValueError("assertion failed: x == 0")
        return x

    it = iter(Dataset.from_tensors(1).map(map_fn).cache().shuffle(buffer_size=10).repeat())
    with pytest.raises(ValueError):  # first time around: the failed assertion
        next(it)
    with pytest.raises(StopIteration):  # then the end: the cached dataset is empty
        next(it)


@pytest.mark.parametrize("reshuffle", [True, False])
@pytest.mark.parametrize("buffer_size", [1, 3, 5, 8, 10])
def test_checkpoint(reshuffle: bool, buffer_size: int) -> None:
    def build() -> Dataset:
        return Dataset.range(5).shuffle(buffer_size, seed=55,
                                        reshuffle_each_iteration=reshuffle).repeat(2)
    assert assert_resumes_exactly(build) == 10
