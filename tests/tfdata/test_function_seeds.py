"""Random ops inside dataset functions see TF's traced-function seeds (issue 13.5).

TF traces ``interleave``/``flat_map``/``group_by_window`` functions once, when the dataset is
built: a shuffle there gets the global seed of that moment and op seeds 0, 1, 2, ... counted
in the function, so every inner dataset and every epoch has the same inner order. Expected
values were printed by TensorFlow 2.21."""

from __future__ import annotations

from typing import Any

from minibatcher.tfdata import Dataset, random_seed_scope


def epochs(ds: Dataset, n: int = 2) -> list[list[int]]:
    return [[int(x) for x in ds] for _ in range(n)]


def test_unseeded_shuffle_in_interleave_draws_one_seed() -> None:
    # TF: set_seed(7); range(3).interleave(lambda x: range(100x, 100x+5).shuffle(5), 3)
    with random_seed_scope(7):
        ds = Dataset.range(3).interleave(
            lambda x: Dataset.range(100 * x, 100 * x + 5).shuffle(5), cycle_length=3)
    expected = [2, 102, 202, 4, 104, 204, 1, 101, 201, 0, 100, 200, 3, 103, 203]
    assert epochs(ds) == [expected, expected]


def test_op_seeds_count_from_zero_inside_the_function() -> None:
    # TF: set_seed(7); range(1).flat_map(lambda x: range(5).shuffle(5).shuffle(5)) gives the
    # order of shuffle(seed=0).shuffle(seed=1), with seeds 0 then 1 in the traced function
    with random_seed_scope(7):
        ds = Dataset.range(2).flat_map(lambda x: Dataset.range(5).shuffle(5).shuffle(5))
    assert epochs(ds, 1) == [[2, 3, 4, 0, 1] * 2]
    with random_seed_scope(7):
        seeded = Dataset.range(5).shuffle(5, seed=0).shuffle(5, seed=1)
    assert epochs(seeded, 1) == [[2, 3, 4, 0, 1]]


def test_global_seed_zero_in_a_function() -> None:
    # TF: set_seed(0); range(3).flat_map(lambda x: range(10x, 10x+5).shuffle(5))
    with random_seed_scope(0):
        ds = Dataset.range(3).flat_map(lambda x: Dataset.range(10 * x, 10 * x + 5).shuffle(5))
    expected = [4, 2, 3, 0, 1, 14, 12, 13, 10, 11, 24, 22, 23, 20, 21]
    assert epochs(ds) == [expected, expected]


def test_function_sees_the_global_seed_of_construction_time() -> None:
    # TF: set_seed(5); range(5).flat_map(lambda x: range(10x, 10x+5).shuffle(3, seed=1)),
    # iterated after the seed changed: the function still uses global seed 5
    with random_seed_scope(5):
        ds = Dataset.range(5).flat_map(
            lambda x: Dataset.range(10 * x, 10 * x + 5).shuffle(3, seed=1))
    with random_seed_scope(None):
        first: Any = [int(x) for x in ds][:8]
    assert first == [0, 2, 1, 4, 3, 10, 12, 11]


def test_reduce_func_shuffle_is_traced_too() -> None:
    # TF: set_seed(123); range(1, 9).group_by_window(x%3, w.take(1), 2)
    #     .group_by_window(x%3, w.shuffle(3).batch(3), 3): the same order in every epoch
    with random_seed_scope(123):
        ds = Dataset.range(1, 9).group_by_window(
            lambda x: x % 3, lambda k, w: w.take(1), window_size=2).group_by_window(
            lambda x: x % 3, lambda k, w: w.shuffle(3).batch(3), window_size=3)
    got = [[b.tolist() for b in ds] for _ in range(2)]
    assert got == [[[3], [7, 1], [8, 2]]] * 2
