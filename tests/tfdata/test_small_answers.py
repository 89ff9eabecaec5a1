"""Smaller differences from TF found by the differential suite (issue 13.8): enumerate near
INT64_MAX, cardinalities over infinite inputs, bucket boundaries TF accepts, and argument
errors raised when TF raises them. Expected values were printed by TensorFlow 2.21."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.tfdata import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset

R = Dataset.range


def test_enumerate_counts_up_to_int64_max() -> None:
    assert [int(i) for i, _ in R(4).enumerate(2**62)] == [2**62 + k for k in range(4)]
    # TF: the index stops below INT64_MAX (zip with range(start, 2**63 - 1))
    assert [int(i) for i, _ in R(4).enumerate(2**63 - 3)] == [2**63 - 3, 2**63 - 2]
    assert [int(i) for i, _ in R(3).enumerate(-2)] == [-2, -1, 0]
    with pytest.raises(ValueError, match="start"):
        R(3).enumerate(2**63)


def test_cardinality_over_infinite_inputs() -> None:
    forever = R(3).repeat()
    grouped = forever.group_by_window(lambda x: x, lambda k, w: w.batch(2), window_size=2)
    assert grouped.cardinality() == INFINITE_CARDINALITY
    assert grouped.take(6).cardinality() == 6
    assert R(3).group_by_window(lambda x: x, lambda k, w: w.batch(2),
                                window_size=2).cardinality() == UNKNOWN_CARDINALITY
    buckets = forever.map(lambda x: np.arange(x)).bucket_by_sequence_length(len, [2], [2, 2])
    assert buckets.cardinality() == INFINITE_CARDINALITY
    assert Dataset.zip((forever, R(4))).cardinality() == 4
    assert Dataset.zip((forever, R(4).filter(lambda x: x > 0))).cardinality() == \
        UNKNOWN_CARDINALITY
    assert forever.interleave(lambda x: R(x), cycle_length=2).cardinality() == \
        UNKNOWN_CARDINALITY
    assert forever.interleave(lambda x: R(x), cycle_length=2,
                              num_parallel_calls=2).cardinality() == INFINITE_CARDINALITY


def _buckets(boundaries: list[int], sizes: list[int]) -> list[list[list[int]]]:
    ds = R(8).map(lambda x: np.arange(x % 4)).bucket_by_sequence_length(len, boundaries, sizes)
    return [b.tolist() for b in ds]


def test_bucket_boundaries_repeated_or_unsorted() -> None:
    # TF: bucket i holds lengths with lo[i] <= length < hi[i], the first that matches
    assert _buckets([2, 2], [1, 2, 3]) == [
        [[]], [[0]], [[]], [[0]], [[0, 1, 0], [0, 1, 2], [0, 1, 0]], [[0, 1, 2]]]
    assert _buckets([3, 1], [1, 2, 3]) == [
        [[]], [[0]], [[0, 1]], [[]], [[0]], [[0, 1]], [[0, 1, 2], [0, 1, 2]]]
    with pytest.raises(ValueError, match="bucket_batch_sizes"):
        _buckets([1], [2])


def test_window_size_errors_at_iteration_as_tf() -> None:
    # TF builds these datasets and raises "Window size must be greater than zero" when a
    # window opens
    ds = R(3).group_by_window(lambda x: x, lambda k, w: w, window_size=0)
    with pytest.raises(ValueError, match="window_size"):
        next(iter(ds))
    zero = R(3).map(lambda x: np.arange(x)).bucket_by_sequence_length(len, [1], [2, 0])
    with pytest.raises(ValueError, match="window_size"):
        list(zero)


def test_shuffle_buffer_of_unknown_cardinality_buffers_the_whole_input() -> None:
    # TF: shuffle(tf.data.UNKNOWN_CARDINALITY) (-2) buffers everything; other negatives refused
    assert [int(x) for x in R(5).shuffle(-2, seed=1)] == [0, 4, 3, 1, 2]
    assert [int(x) for x in R(5).filter(lambda x: x < 4).shuffle(-2, seed=1)] == [0, 3, 1, 2]
    with pytest.raises(ValueError, match="buffer_size"):
        R(5).shuffle(-3)
