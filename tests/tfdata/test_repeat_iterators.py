"""When TF's iterators start their inputs' iterations (issue 13.2): a finite repeat makes
one more input iterator after its last repetition; shuffle(b).repeat(n) is fused, its
buffer reading into later epochs; a shuffle makes its input's iterator when first read;
take(0) never. Seen through reshuffling shuffles in the next iteration. Expected values
were printed by TensorFlow 2.21."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from minibatcher.tfdata import Dataset

from .resume import assert_resumes_exactly


def epochs(ds: Dataset, n: int = 2) -> list[list[int]]:
    return [[int(x) for x in ds] for _ in range(n)]


def plus0(x: Any) -> Any:
    return x + 0


def test_extra_iterator_after_the_last_repetition() -> None:
    ds = Dataset.range(6).shuffle(6, seed=0).map(plus0).repeat(2)
    assert epochs(ds) == [[0, 1, 2, 5, 3, 4, 3, 0, 2, 5, 1, 4],
                          [0, 5, 2, 4, 3, 1, 1, 3, 0, 2, 4, 5]]


def test_extra_iterators_of_nested_repeats() -> None:
    ds = Dataset.range(6).shuffle(6, seed=0).map(plus0).repeat(2).repeat(2)
    assert epochs(ds) == [
        [0, 1, 2, 5, 3, 4, 3, 0, 2, 5, 1, 4, 0, 5, 2, 4, 3, 1, 1, 3, 0, 2, 4, 5],
        [0, 1, 3, 4, 2, 5, 4, 1, 3, 0, 2, 5, 1, 2, 4, 5, 0, 3, 5, 4, 1, 2, 0, 3]]


def test_repeat_one_has_no_extra_iterator() -> None:
    # TF removes repeat(1) (no-op elimination): iterations 0, 1, 2 of the shuffle
    ds = Dataset.range(6).shuffle(6, seed=0).map(plus0).repeat(1)
    assert epochs(ds, 3) == [[0, 1, 2, 5, 3, 4], [3, 0, 2, 5, 1, 4], [1, 3, 2, 5, 4, 0]]


def test_fused_shuffle_repeat_reads_later_epochs_of_a_stateful_input() -> None:
    inner = Dataset.range(3).shuffle(7, 42).map(plus0)
    assert epochs(inner.shuffle(7, 5).repeat().take(2)) == [[2, 1], [1, 2]]
    inner = Dataset.range(3).shuffle(7, 42).map(plus0)  # no fusion over a prefetch
    assert epochs(inner.shuffle(7, 5).prefetch(1).repeat().take(2)) == [[2, 1], [1, 0]]


def test_the_extra_iterator_does_not_start_a_shuffles_input() -> None:
    s = Dataset.range(6).shuffle(6, 1)
    outer = s.map(lambda x: x + 100).shuffle(2, 9).map(plus0).repeat(2)
    assert epochs(outer, 1) == [[104, 105, 102, 101, 100, 103, 103, 104, 101, 100, 102, 105]]
    assert epochs(s, 1) == [[3, 5, 0, 1, 4, 2]]  # iteration 2: two repetitions, no third


def test_take_zero_never_starts_its_input() -> None:
    s = Dataset.range(6).shuffle(6, 1)
    assert epochs(s.take(0).concatenate(s), 1) == [[4, 5, 1, 2, 3, 0]]  # iteration 0


FUSED: dict[str, Callable[[], Dataset]] = {
    "over a view": lambda: Dataset.range(3).shuffle(7, 42).map(plus0).shuffle(7, 5).repeat()
    .take(9),
    "short epochs": lambda: Dataset.range(2).shuffle(2, 3).shuffle(9, 4).repeat().take(7),
    "over a filter": lambda: Dataset.range(5).shuffle(4, 1).filter(lambda x: x != 2)
    .shuffle(3, 2).repeat(3),
    "over a repeat": lambda: Dataset.range(3).shuffle(3, 1).map(plus0).repeat(3).shuffle(4, 5)
    .repeat(2).take(11),
    "through no-op steps": lambda: Dataset.range(4).shuffle(4, 1).shuffle(6, 2).take(-1)
    .skip(0).repeat(3),
    "extra iterator": lambda: Dataset.range(6).shuffle(6, 1).map(plus0).shuffle(2, 9)
    .map(plus0).repeat(2),
}


@pytest.mark.parametrize("name", sorted(FUSED))
def test_resumes_exactly(name: str) -> None:
    assert assert_resumes_exactly(FUSED[name]) > 2
