"""batch, padded_batch, group_by_window and bucket_by_sequence_length (spec §4.1)."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.errors import ConfigError, FormatError
from minibatcher.tfdata import Dataset


def seqs(lengths: list[int]) -> Dataset:
    return Dataset.from_tensor_slices(lengths).map(lambda n: np.arange(1, n + 1, dtype=np.int64))


def test_batch_and_drop_remainder() -> None:
    assert [b.tolist() for b in Dataset.range(5).batch(2)] == [[0, 1], [2, 3], [4]]
    assert [b.tolist() for b in Dataset.range(5).batch(2, drop_remainder=True)] == [[0, 1], [2, 3]]
    b = next(iter(Dataset.from_tensor_slices((["a", "b"], [1, 2])).batch(2)))
    assert b[0].dtype == object and b[0].tolist() == [b"a", b"b"] and b[1].dtype == np.int32
    with pytest.raises(FormatError, match="different shapes in component 0"):
        list(seqs([1, 2]).batch(2))
    with pytest.raises(ConfigError, match="batch_size should be a positive integer, but got batch_size=0"):
        Dataset.range(2).batch(0)


def test_batch_of_a_filtered_stream() -> None:
    ds = Dataset.range(10).filter(lambda x: x % 3 != 0).batch(4, drop_remainder=True)
    assert [b.tolist() for b in ds] == [[1, 2, 4, 5]]


def test_padded_batch_to_the_batch_maximum() -> None:
    batches = list(seqs([1, 3, 2, 2]).padded_batch(2))
    assert [b.tolist() for b in batches] == [[[1, 0, 0], [1, 2, 3]], [[1, 2], [1, 2]]]


def test_padded_batch_shapes_values_and_structures() -> None:
    ds = Dataset.zip((seqs([2, 1]), Dataset.from_tensor_slices(["x", "y"])))
    src, txt = next(iter(ds.padded_batch(2, padded_shapes=([4], []),
                                         padding_values=(np.int64(-1), b"?"))))
    assert src.tolist() == [[1, 2, -1, -1], [1, -1, -1, -1]] and txt.tolist() == [b"x", b"y"]
    with pytest.raises(FormatError, match="smaller size than the input element"):
        list(seqs([3]).padded_batch(1, padded_shapes=[2]))
    with pytest.raises(ConfigError, match="rank"):  # an argument error (TF: ValueError)
        list(seqs([3]).padded_batch(1, padded_shapes=[2, 2]))
    two_d = Dataset.from_tensor_slices([1, 2]).map(lambda n: np.ones((n, 3 - n), np.int8))
    assert next(iter(two_d.padded_batch(2))).shape == (2, 2, 2)


def test_group_by_window_flushes_in_ascending_key_order() -> None:
    keys = [5, -1, 5, 2, -1, 0, 2, 7]
    ds = Dataset.from_tensor_slices(list(range(8))).group_by_window(
        lambda i: np.int64(keys[int(i)]), lambda k, w: w.batch(10), window_size=2)
    # full windows as they fill: key 5 at element 2, key -1 at 4, key 2 at 6; then the
    # partial windows, flushed by ascending key: 0 -> [5], 7 -> [7]
    assert [b.tolist() for b in ds] == [[0, 2], [1, 4], [3, 6], [5], [7]]


def test_group_by_window_reduce_with_several_outputs_and_window_size_func() -> None:
    ds = Dataset.range(9).group_by_window(lambda x: x % 2, lambda k, w: w.batch(2),
                                          window_size_func=lambda k: 3 + int(k))
    # key 0 windows of 3: [0,2,4] at element 4 -> batches [0,2],[4]; key 1 windows of 4:
    # [1,3,5,7] at 7 -> [1,3],[5,7]; flush: key 0 [6,8], key 1 nothing
    assert [b.tolist() for b in ds] == [[0, 2], [4], [1, 3], [5, 7], [6, 8]]


def test_group_by_window_arguments() -> None:
    with pytest.raises(ConfigError, match="exactly one of window_size"):
        Dataset.range(3).group_by_window(lambda x: x, lambda k, w: w)
    with pytest.raises(TypeError, match="scalar integer"):
        list(Dataset.range(3).group_by_window(lambda x: 0.5, lambda k, w: w, window_size=2))
    with pytest.raises(TypeError, match="should return a Dataset"):
        list(Dataset.range(3).group_by_window(lambda x: x, lambda k, w: 1, window_size=1))


def test_bucket_by_sequence_length() -> None:
    lengths = [1, 5, 2, 3, 9, 1, 4, 3]
    ds = seqs(lengths).bucket_by_sequence_length(len, [2, 4], [2, 3, 2])
    shapes = [b.shape for b in ds]
    # buckets: [<2] = lengths 1,1 -> batch of 2 at element 5; [2,4) = 2,3,3 -> batch of 3 at
    # element 7; [4,inf) = 5,9 -> at element 4, then 4 flushed last
    assert shapes == [(2, 9), (2, 1), (3, 3), (1, 4)]


def test_bucket_pad_to_boundary_and_no_padding() -> None:
    ds = seqs([1, 2, 3]).bucket_by_sequence_length(len, [3, 5], [2, 2, 2],
                                                   pad_to_bucket_boundary=True)
    assert [b.shape for b in ds] == [(2, 2), (1, 4)]
    with pytest.raises(ValueError, match="length < max"):
        list(seqs([7]).bucket_by_sequence_length(len, [3, 5], [1, 1, 1],
                                                 pad_to_bucket_boundary=True))
    same = seqs([2, 2, 2]).bucket_by_sequence_length(len, [3], [2, 2], no_padding=True)
    assert [b.shape for b in same] == [(2, 2), (1, 2)]
    with pytest.raises(ConfigError, match="len\\(bucket_batch_sizes\\)"):
        seqs([1]).bucket_by_sequence_length(len, [3], [2])
