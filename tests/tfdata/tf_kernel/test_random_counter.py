"""TF's kernel tests for ``Dataset.random`` and ``Dataset.counter``
(tensorflow/python/data/kernel_tests/random_test.py, counter_test.py), ported with their
literal expectations, in our words.

Not ported: the TF1-only ``testRerandomizeEachIterationIgnored`` and the ``tf.function`` case
(TF's function tracing); ``graphRoundTrip`` of ``testDeterminism`` is a second dataset built
the same way.
"""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.tfdata import Dataset, TensorSpec, random_seed_scope

from ..resume import assert_resumes_exactly


@pytest.mark.parametrize("global_seed", [None, 10])
@pytest.mark.parametrize("local_seed", [None, 20])
def test_determinism(global_seed: int | None, local_seed: int | None) -> None:
    with random_seed_scope(global_seed):
        first = [int(x) for x in Dataset.random(seed=local_seed).take(10)]
    with random_seed_scope(global_seed):
        second = [int(x) for x in Dataset.random(seed=local_seed).take(10)]
    assert (first == second) == (global_seed is not None or local_seed is not None)


@pytest.mark.parametrize("rerandomize", [None, True, False])
def test_rerandomize_each_iteration_epochs(rerandomize: bool | None) -> None:
    dataset = Dataset.random(seed=42, rerandomize_each_iteration=rerandomize,
                             name="random").take(10)
    first, second = [int(x) for x in dataset], [int(x) for x in dataset]
    assert (first == second) == (not rerandomize)
    epochs = [int(x) for x in dataset.repeat(2)]
    assert (epochs[:10] == epochs[10:]) == (not rerandomize)


def test_random_name() -> None:
    dataset = Dataset.random(seed=42, name="random").take(1).map(lambda _: 42)
    assert [int(x) for x in dataset] == [42]


@pytest.mark.parametrize("rerandomize", [True, False])
def test_random_checkpoint(rerandomize: bool) -> None:
    assert assert_resumes_exactly(lambda: Dataset.random(
        seed=55, rerandomize_each_iteration=rerandomize).take(10)) == 10


@pytest.mark.parametrize("start, step, expected", [(3, 4, [3, 7, 11]), (0, -1, [0, -1, -2])])
def test_counter(start: int, step: int, expected: list[int]) -> None:
    dataset = Dataset.counter(start, step)
    assert dataset.element_spec == TensorSpec([], "int64")
    assert [int(x) for x in dataset.take(3)] == expected
    assert all(x.dtype == np.int64 for x in dataset.take(3))
