"""TF dtype names, SparseTensor and RaggedTensor: TF's behaviour on the documented cases."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from minibatcher import tfdata
from minibatcher.tfdata import RaggedTensor, SparseTensor


def test_dtypes_compare_like_tf() -> None:
    assert tfdata.int64 == np.int64 and tfdata.int64 == np.dtype("int64") and tfdata.int64 == "int64"
    assert tfdata.int64 != tfdata.int32 and tfdata.int64 != 3 and tfdata.int64 != None  # noqa: E711
    assert tfdata.as_dtype("float") is tfdata.float32 and tfdata.as_dtype(float) is tfdata.float32
    assert tfdata.half is tfdata.float16 and tfdata.double is tfdata.float64
    assert tfdata.as_dtype(np.bytes_) is tfdata.string and tfdata.as_dtype(np.str_) is tfdata.string
    assert tfdata.string.as_numpy_dtype is object and tfdata.bool.as_numpy_dtype is np.bool_
    assert pickle.loads(pickle.dumps(tfdata.uint8)) is tfdata.uint8


@pytest.mark.parametrize("bad", ["foo", int, str, bytes, 3])
def test_as_dtype_refuses_what_tf_refuses(bad: object) -> None:
    with pytest.raises(TypeError, match="Cannot convert the argument `type_value`"):
        tfdata.as_dtype(bad)


def test_dtype_attributes() -> None:
    assert (tfdata.uint8.min, tfdata.uint8.max, tfdata.int8.is_integer) == (0, 255, True)
    assert tfdata.float32.max == np.finfo(np.float32).max and tfdata.string.size == 0
    assert tfdata.complex64.real_dtype is tfdata.float32 and tfdata.uint16.is_unsigned
    with pytest.raises(TypeError, match="Cannot find minimum value"):
        tfdata.bool.min


def test_dtypes_work_where_the_api_takes_dtypes() -> None:
    ds = tfdata.Dataset.from_generator(lambda: iter([1, 2]), output_types=tfdata.int64)
    assert [x.dtype for x in ds] == [np.int64, np.int64]
    assert next(iter(tfdata.Dataset.range(3, output_type=tfdata.int32))).dtype == np.int32
    assert np.zeros(2, tfdata.float16).dtype == np.float16


def test_sparse_tensor_batches_as_tf() -> None:
    a = SparseTensor([[0, 1]], [5], [1, 3])
    b = SparseTensor([[1, 0], [1, 2]], [6, 7], [2, 3])
    ds = tfdata.Dataset.from_generator(lambda: iter([a, b]), output_types=None).batch(2)
    (batch,) = list(ds)
    assert batch.indices.tolist() == [[0, 0, 1], [1, 1, 0], [1, 1, 2]]
    assert batch.dense_shape.tolist() == [2, 2, 3] and batch.values.tolist() == [5, 6, 7]
    assert batch.to_dense()[1].tolist() == [[0, 0, 0], [6, 0, 7]]


def test_sparse_tensor_checks_its_parts() -> None:
    with pytest.raises(ValueError, match="indices"):
        SparseTensor([[0]], [1, 2], [3])


def test_ragged_factories_agree() -> None:
    values = np.arange(6)
    a = RaggedTensor.from_row_splits(values, [0, 2, 2, 6])
    assert RaggedTensor.from_row_lengths(values, [2, 0, 4]) == a
    assert RaggedTensor.from_row_starts(values, [0, 2, 2]) == a
    assert RaggedTensor.from_row_limits(values, [2, 2, 6]) == a
    assert RaggedTensor.from_value_rowids(values, [0, 0, 2, 2, 2, 2]) == a
    assert a.to_list() == [[0, 1], [], [2, 3, 4, 5]]
    assert a.to_tensor(default_value=-1).tolist() == [[0, 1, -1, -1], [-1] * 4, [2, 3, 4, 5]]
    assert RaggedTensor.from_value_rowids(values[:1], [0], nrows=3).to_list() == [[0], [], []]


def test_ragged_nested_and_uniform() -> None:
    inner = RaggedTensor.from_row_lengths(np.arange(3), [1, 2])
    outer = RaggedTensor.from_row_lengths(inner, [0, 2])
    assert outer.ragged_rank == 2 and outer.shape == (2, None, None)
    assert outer.to_list() == [[], [[0], [1, 2]]]
    assert [s.tolist() for s in outer.nested_row_splits] == [[0, 0, 2], [0, 1, 3]]
    u = RaggedTensor.from_uniform_row_length(np.arange(6), 2)
    assert u.shape == (3, 2) and u.to_list() == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(ValueError, match="row_splits"):
        RaggedTensor.from_row_splits(np.arange(2), [0, 3])


def test_ragged_batches_as_tf() -> None:
    a = RaggedTensor.from_row_lengths(np.array([1, 2]), [2])
    b = RaggedTensor.from_row_lengths(np.array([3]), [0, 1])
    (batch,) = list(tfdata.Dataset.from_generator(lambda: iter([a, b]), output_types=None).batch(2))
    assert batch.to_list() == [[[1, 2]], [[], [3]]] and batch.ragged_rank == 2
    with pytest.raises(ValueError, match="uniform"):
        RaggedTensor.stack([RaggedTensor.from_uniform_row_length(np.arange(2), 1),
                            RaggedTensor.from_uniform_row_length(np.arange(2), 2)])


def test_bfloat16_is_ml_dtypes(monkeypatch: pytest.MonkeyPatch) -> None:
    import ml_dtypes

    from minibatcher.errors import NotSupportedError
    from minibatcher.tfdata import dtypes
    assert tfdata.bfloat16 is tfdata.as_dtype("bfloat16") is tfdata.as_dtype(ml_dtypes.bfloat16)
    assert tfdata.bfloat16.size == 2 and tfdata.bfloat16.is_floating
    assert tfdata.bfloat16 == np.dtype(ml_dtypes.bfloat16)
    assert repr(tfdata.bfloat16) == "tf.bfloat16"
    monkeypatch.setitem(__import__("sys").modules, "ml_dtypes", None)  # not installed
    with pytest.raises(NotSupportedError, match=r"pip install minibatcher\[bfloat16\]"):
        dtypes._bfloat16.__wrapped__()  # what the first use does (the cache is left alone)
