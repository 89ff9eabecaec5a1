"""TF's kernel tests for ``Dataset.group_by_window``
(tensorflow/python/data/kernel_tests/group_by_window_test.py), ported with their literal inputs
and expectations, in our words; TF's random inputs come from a seeded generator here.
Not ported: see README.md."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from minibatcher.tfdata import INFINITE_CARDINALITY, Dataset

from ..resume import assert_resumes_exactly


def _triple(v: Any) -> tuple[Any, np.ndarray, np.ndarray]:
    return v, np.full(int(v), v), np.full(3, str(int(v)).encode(), dtype=object)


def _dynamic_pad(key: Any, window: Dataset) -> Dataset:
    return Dataset.zip((Dataset.from_tensors(key), window.padded_batch(32, ([], [None], [3]))))


def test_single_bucket() -> None:
    ds = Dataset.range(32).map(_triple).group_by_window(
        key_func=lambda x, y, z: np.int64(0), reduce_func=_dynamic_pad, window_size=32)
    which, (scalars, unknown, vec3) = next(iter(ds))
    assert which == 0
    expected_unknown = np.zeros((32, 31), np.int64)
    for i in range(32):
        expected_unknown[i, :i] = i
    assert scalars.tolist() == list(range(32))
    assert unknown.tolist() == expected_unknown.tolist()
    assert vec3.tolist() == [[str(i).encode()] * 3 for i in range(32)]


def test_even_odd_buckets() -> None:
    ds = Dataset.range(64).map(_triple).group_by_window(
        key_func=lambda x, y, z: x % 2, reduce_func=_dynamic_pad, window_size=32)
    it = iter(ds)
    for parity in (0, 1):
        which, (scalars, unknown, vec3) = next(it)
        assert which == parity
        values = list(range(parity, 64, 2))
        expected = np.zeros((32, 62 + parity), np.int64)
        for i, v in enumerate(values):
            expected[i, :v] = v
        assert scalars.tolist() == values and unknown.tolist() == expected.tolist()
        assert vec3.tolist() == [[str(v).encode()] * 3 for v in values]


def test_even_odd_buckets_filter_out_all_odd() -> None:
    def as_dict(v: Any) -> dict[str, Any]:
        x, y, z = _triple(v)
        return {"x": x, "y": y, "z": z}

    def pad(key: Any, window: Dataset) -> Dataset:
        shapes = {"x": [], "y": [None], "z": [3]}
        return Dataset.zip((Dataset.from_tensors(key), window.padded_batch(32, shapes)))

    ds = Dataset.range(128).map(as_dict).filter(lambda d: d["x"] % 2 == 0).group_by_window(
        key_func=lambda d: d["x"] % 2, reduce_func=pad, window_size=32)
    (k0, b0), (k1, b1) = list(ds)
    assert (k0, k1) == (0, 0)
    assert b0["x"].tolist() == list(range(0, 64, 2)) and b1["x"].tolist() == list(range(64, 128, 2))


def test_dynamic_window_size() -> None:
    ds = Dataset.from_tensor_slices(np.arange(100, dtype=np.int64)).group_by_window(
        key_func=lambda x: x % 2, reduce_func=lambda _, xs: xs.batch(20), window_size=None,
        window_size_func=lambda key: np.int64([5, 10][int(key)]))
    batches = [b.tolist() for b in ds]
    for b in batches:
        assert len({x % 2 for x in b}) == 1 and len(b) == (5 if b[0] % 2 == 0 else 10)
    assert len(batches) == 15


def test_simple() -> None:
    components = np.random.default_rng(0).integers(100, size=200).astype(np.int64)
    ds = Dataset.from_tensor_slices(components).map(lambda x: x * x).group_by_window(
        key_func=lambda x: x % 2, reduce_func=lambda _, xs: xs.batch(4), window_size=4)
    counts = []
    for b in ds:
        assert len({int(x) % 2 for x in b}) == 1
        counts.append(len(b))
    full = len([c for c in counts if c == 4])
    assert sum(counts) == 200 and full >= 24 and all(c == 4 for c in counts[:full])


def test_immediate_output() -> None:
    components = np.array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 0, 0, 2, 2, 0, 0], dtype=np.int64)
    ds = Dataset.from_tensor_slices(components).repeat(-1).group_by_window(
        key_func=lambda x: x % 3, reduce_func=lambda _, xs: xs.batch(4), window_size=4)
    it = iter(ds)
    for _ in range(3):
        for value in (0, 1, 2, 0):
            assert next(it).tolist() == [value] * 4


def test_small_groups() -> None:
    components = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0], dtype=np.int64)
    ds = Dataset.from_tensor_slices(components).group_by_window(
        key_func=lambda x: x % 2, reduce_func=lambda _, xs: xs.batch(4), window_size=4)
    assert [b.tolist() for b in ds] == [[0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0], [1]]


def test_empty() -> None:
    ds = Dataset.range(4).group_by_window(key_func=lambda _: np.int64(0),
                                          reduce_func=lambda _, xs: xs, window_size=0)
    with pytest.raises(ValueError, match="window_size should be at least 1, but got "
                                         "window_size=0"):
        next(iter(ds))


def test_reduce_func_error() -> None:
    components = np.random.default_rng(1).integers(100, size=200).astype(np.int64)

    def reduce_func(_: Any, xs: Dataset) -> Dataset:  # a padded shape of -5
        return xs.padded_batch(4, padded_shapes=([], np.array([5], np.int64) * -1))

    ds = Dataset.from_tensor_slices(components).map(lambda x: (x, np.array([x * x]))) \
        .group_by_window(key_func=lambda x, _: x % 2, reduce_func=reduce_func, window_size=32)
    with pytest.raises(ValueError):
        next(iter(ds))


def test_consume_window_dataset_more_than_once() -> None:
    components = np.random.default_rng(2).integers(50, size=200).astype(np.int64)

    def reduce_func(key: Any, window: Dataset) -> Dataset:
        return Dataset.zip((window.padded_batch(4, padded_shapes=[None]),
                            window.padded_batch(4, padded_shapes=[(int(key) + 1) * 10])))

    ds = Dataset.from_tensor_slices(components).map(lambda x: np.full(int(x), x)) \
        .group_by_window(key_func=lambda x: np.int64(len(x) // 10), reduce_func=reduce_func,
                         window_size=4)
    counts = []
    for tight, multiple_of_10 in ds:
        assert multiple_of_10.shape[1] % 10 == 0
        assert tight.tolist() == multiple_of_10[:, :tight.shape[1]].tolist()
        counts.append(tight.shape[0])
    assert sum(counts) == 200


def test_short_circuit() -> None:
    ds = Dataset.range(10).group_by_window(key_func=lambda x: x,
                                           reduce_func=lambda _, w: w.batch(1), window_size=1)
    assert [b.tolist() for b in ds] == [[i] for i in range(10)]


def test_with_autotune() -> None:
    ds = Dataset.range(1000).group_by_window(
        key_func=lambda x: x // 10, reduce_func=lambda key, window: Dataset.from_tensors(key),
        window_size=4).map(lambda x: x + 1, num_parallel_calls=-1)
    assert int(next(iter(ds))) == 1


def test_cardinality() -> None:
    ds = Dataset.range(1).repeat().group_by_window(
        key_func=lambda x: x % 2, reduce_func=lambda key, window: Dataset.from_tensors(key),
        window_size=4)
    assert ds.cardinality() == INFINITE_CARDINALITY


def test_name() -> None:
    ds = Dataset.from_tensors(np.int64(42)).group_by_window(
        key_func=lambda x: x, reduce_func=lambda key, window: window.batch(4), window_size=4,
        name="group_by_window")
    assert [b.tolist() for b in ds] == [[42]]


def test_checkpoint() -> None:
    components = np.array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 0, 0, 2, 2, 0, 0], dtype=np.int64)

    def build() -> Dataset:
        return Dataset.from_tensor_slices(components).repeat(-1).group_by_window(
            key_func=lambda x: x % 3, reduce_func=lambda _, xs: xs.batch(4), window_size=4)
    assert assert_resumes_exactly(build, max_steps=12) == 12
