"""TF's kernel tests for ``Dataset.padded_batch``
(tensorflow/python/data/kernel_tests/padded_batch_test.py), ported with their literal inputs and
expectations, in our words; TF's random sequence lengths come from a seeded generator here.
Not ported: see README.md."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from minibatcher import tfdata
from minibatcher.tfdata import Dataset

from ..resume import assert_resumes_exactly


def fill(x: Any) -> np.ndarray:
    return np.full(int(x), x)


def as_string(a: np.ndarray) -> np.ndarray:
    return np.array([str(int(v)).encode() for v in a], dtype=object)


@pytest.mark.parametrize("count", [32, 34])
@pytest.mark.parametrize("padded_shapes", [[None], [25]])
@pytest.mark.parametrize("drop_remainder", [True, False])
def test_padded_batch(count: int, padded_shapes: list[Any], drop_remainder: bool) -> None:
    seq_lens = np.random.default_rng(count).integers(20, size=count).astype(np.int32)
    ds = Dataset.from_tensor_slices(seq_lens).map(fill).padded_batch(
        batch_size=4, drop_remainder=drop_remainder, padded_shapes=padded_shapes)
    batches = list(ds)
    assert len(batches) == count // 4 + (not drop_remainder and count % 4 > 0)
    for i, result in enumerate(batches):
        padded = padded_shapes[0] or (int(np.max(result)) if result.size else 0)
        assert result.shape == (min(4, count - 4 * i), padded)
        for j, row in enumerate(result):
            n = seq_lens[4 * i + j]
            assert row[:n].tolist() == [n] * n and row[n:].tolist() == [0] * (padded - n)


def test_short_padding() -> None:
    ds = Dataset.from_tensor_slices([6, 5, 5, 5, 5]).map(fill).padded_batch(4, padded_shapes=[5])
    with pytest.raises(ValueError, match="smaller size than the input element"):
        list(ds)


def test_empty_tensors() -> None:
    ds = Dataset.from_tensor_slices([0, 0, 0, 0]).map(fill).padded_batch(4, padded_shapes=[-1])
    assert [b.tolist() for b in ds] == [[[], [], [], []]]


def test_default_padded_shapes() -> None:
    ds = Dataset.from_tensor_slices([1, 2, 3, 4]).map(fill).padded_batch(batch_size=2)
    assert [b.tolist() for b in ds] == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]


def test_nested_default_padded_shapes() -> None:
    ds = Dataset.from_tensor_slices([1, 2, 3, 4]).map(lambda x: (x, fill(x))).padded_batch(2)
    assert [(a.tolist(), b.tolist()) for a, b in ds] == [
        ([1, 2], [[1, 0], [2, 2]]), ([3, 4], [[3, 3, 3, 0], [4, 4, 4, 4]])]


@pytest.mark.parametrize("padding_values", [(-1, "<end>", {"structure": ""}), (-1, "<end>", None)])
def test_non_default_padding(padding_values: Any) -> None:
    def fill_tuple(x: Any) -> Any:
        filled = fill(x)
        return filled, as_string(filled), {"structure": as_string(filled)}

    lens = np.random.default_rng(7).integers(20, size=32).astype(np.int32)
    ds = Dataset.from_tensor_slices(lens).map(fill_tuple).padded_batch(
        4, padded_shapes=([-1], [-1], {"structure": [-1]}), padding_values=padding_values)
    batches = list(ds)
    assert len(batches) == 8
    for i, (nums, strs, struct) in enumerate(batches):
        padded = int(np.max(nums))
        assert nums.shape == strs.shape == struct["structure"].shape == (4, padded)
        for j in range(4):
            n = int(lens[4 * i + j])
            assert nums[j, :n].tolist() == [n] * n and nums[j, n:].tolist() == [-1] * (padded - n)
            assert strs[j, :n].tolist() == [str(n).encode()] * n
            assert strs[j, n:].tolist() == [b"<end>"] * (padded - n)
            assert struct["structure"][j, n:].tolist() == [b""] * (padded - n)


def test_unicode() -> None:
    def generator() -> Any:
        for seq in [["Простой", "тест", "юникода"], ["никогда", "не", "бывает", "простым"]]:
            yield seq, [0, 1, 2, 3]

    ds = Dataset.from_generator(generator, (tfdata.string, tfdata.int32), ([None], [None]))
    words, numbers = next(iter(ds.padded_batch(2, padded_shapes=([None], [None]),
                                               padding_values=("", 0))))
    assert words[0, 3] == b"" and words[1, 0] == "никогда".encode() and numbers.shape == (2, 4)


def test_padded_batch_bfloat16() -> None:
    # TF casts with tf.bfloat16; here the dtype is ml_dtypes' (tfdata.bfloat16)
    ds = Dataset.range(5).map(lambda x: np.asarray(x).astype(tfdata.bfloat16.as_numpy_dtype))
    ds = ds.padded_batch(10)
    (batch,) = list(ds)
    assert batch.dtype == tfdata.bfloat16 and batch.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert ds.element_spec.dtype == tfdata.bfloat16


def test_sparse_and_ragged_refused() -> None:
    st = tfdata.SparseTensor(indices=[[0, 0]], values=[42], dense_shape=[1, 1])
    with pytest.raises(TypeError):
        Dataset.from_tensors(st).repeat(10).padded_batch(10)
    rt = tfdata.RaggedTensor.from_row_splits(np.array([0, 42]), np.array([0, 2], np.int64))
    with pytest.raises(TypeError):
        Dataset.from_tensors(rt).repeat(10).padded_batch(10)


@pytest.mark.parametrize("make", [
    lambda: Dataset.range(10).padded_batch(5, padded_shapes=[1]),  # rank 1 for scalars
    lambda: Dataset.from_tensors([1, 2, 3]).padded_batch(5, padded_shapes=[1]),  # too small
    lambda: Dataset.from_tensors([1, 2, 3]).padded_batch(5, padded_shapes=[[1, 1], [1, 1]]),
    lambda: Dataset.range(10).padded_batch(5, padded_shapes=np.array([1], np.int64)),
    lambda: Dataset.from_generator(lambda: iter([1, 2, 3]), output_types=tfdata.int32)
    .padded_batch(2),  # the default padded shape of an unknown rank
])
def test_shape_errors_when_built(make: Any) -> None:
    with pytest.raises(ValueError):
        make()


def test_shape_not_int() -> None:
    with pytest.raises(TypeError):
        Dataset.from_tensors([1, 2, 3]).padded_batch(5, padded_shapes=np.array([1.5, 2.0, 3.0]))


def test_default_padded_value_shapes() -> None:
    a = Dataset.from_tensor_slices([1, 2, 3, 4]).map(fill)
    ds = Dataset.zip((a, Dataset.from_tensor_slices([1, 2, 3, 4]).map(fill)))
    got = [(x.tolist(), y.tolist()) for x, y in ds.padded_batch(batch_size=2, padding_values=-1)]
    assert got == [([[1, -1], [2, 2]], [[1, -1], [2, 2]]),
                   ([[3, 3, 3, -1], [4, 4, 4, 4]], [[3, 3, 3, -1], [4, 4, 4, 4]])]


@pytest.mark.parametrize("strings", [False, True])
def test_checkpoint(strings: bool) -> None:
    lens = np.random.default_rng(3).integers(1, 20, size=32).astype(np.int32)

    def build() -> Dataset:
        ds = Dataset.from_tensor_slices(lens)
        if not strings:
            return ds.map(fill).padded_batch(4, padded_shapes=[-1])
        return ds.map(lambda x: (fill(x), as_string(fill(x)))).padded_batch(
            4, padded_shapes=([-1], [-1]), padding_values=(-1, "<end>"))
    assert assert_resumes_exactly(build) == 8
