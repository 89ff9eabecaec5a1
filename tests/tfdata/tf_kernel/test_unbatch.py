"""TF's kernel tests for ``unbatch`` (tensorflow/python/data/kernel_tests/unbatch_test.py),
ported with their literal expectations, in our words.

Not ported: the SparseTensor cases (``unbatch`` of SparseTensors is not supported: a
``NotSupportedError``), ``testUnbatchNestedDataset`` (datasets as tensor components),
``testNoneComponent`` (``None`` components), ``testUnbatchDynamicShapeMismatch`` (graph-mode
placeholders; its runtime check is ported below with a map) and ``UnbatchRandomAccessTest``
(3 methods: ``tfdata.experimental.at`` answers from a pipeline's view, and ``unbatch`` has
none, so ``at`` raises ``UnimplementedError`` where TF answers for a static batch size).
"""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.tfdata import Dataset, RaggedTensor, errors

from ..resume import assert_resumes_exactly


def values(ds):
    return [tuple(v.tolist() if isinstance(v, np.ndarray) else v for v in x)
            if isinstance(x, tuple) else x for x in ds]


def test_unbatch_with_unknown_rank_input() -> None:
    assert [int(x) for x in Dataset.from_tensors([0, 1, 2, 3]).unbatch()] == [0, 1, 2, 3]


def test_unbatch_scalar_dataset() -> None:
    data = Dataset.from_tensor_slices(tuple(np.arange(10, dtype=np.int32) for _ in range(3)))
    data = data.batch(2).unbatch()
    out = list(data)
    assert [tuple(int(v) for v in x) for x in out] == [(i,) * 3 for i in range(10)]
    assert {v.dtype for x in out for v in x} == {np.dtype(np.int32)}


def test_unbatch_dataset_with_strings() -> None:
    data = Dataset.from_tensor_slices(tuple(np.arange(10, dtype=np.int32) for _ in range(3)))
    data = data.map(lambda x, y, z: (x, str(int(y)).encode(), z)).batch(2).unbatch()
    assert [(int(a), b, int(c)) for a, b, c in data] == \
        [(i, str(i).encode(), i) for i in range(10)]


def test_unbatch_dataset_with_ragged_tensor() -> None:
    rt = RaggedTensor.from_row_lengths(np.arange(10).reshape(10, 1), [1] * 10)
    data = Dataset.from_tensors(rt).unbatch().batch(5).batch(2).unbatch()
    assert [x.tolist() for x in data] == [[[[0]], [[1]], [[2]], [[3]], [[4]]],
                                          [[[5]], [[6]], [[7]], [[8]], [[9]]]]


def test_unbatch_single_element_tuple_dataset() -> None:
    data = Dataset.from_tensor_slices(tuple((np.arange(10, dtype=np.int32),) for _ in range(3)))
    data = data.batch(2).unbatch()
    assert [tuple((int(t[0]),) for t in x) for x in data] == [((i,),) * 3 for i in range(10)]


def test_unbatch_multi_element_tuple_dataset() -> None:
    data = Dataset.from_tensor_slices(tuple((np.arange(10 * i, 10 * i + 10, dtype=np.int32),
                                             np.array([b"hi"] * 10, dtype=object))
                                            for i in range(3)))
    data = data.batch(2).unbatch()
    assert [tuple((int(a), b) for a, b in x) for x in data] == \
        [((i, b"hi"), (10 + i, b"hi"), (20 + i, b"hi")) for i in range(10)]


def test_unbatch_empty() -> None:
    data = Dataset.from_tensors((np.zeros(0, np.float32), np.zeros((0, 4), np.float32),
                                 np.zeros((0, 4, 0), np.float32)))
    assert list(data.unbatch()) == []


def test_unbatch_static_shape_mismatch() -> None:
    data = Dataset.from_tensors((np.arange(7), np.arange(8), np.arange(9)))
    with pytest.raises(ValueError):
        data.unbatch()


def test_unbatch_dynamic_shape_mismatch() -> None:
    data = Dataset.range(1).map(lambda _: (np.arange(7), np.arange(8))).unbatch()
    with pytest.raises(errors.InvalidArgumentError):
        list(data)


def test_unbatch_dataset_with_uint_dtypes() -> None:
    components = (np.tile(np.array([[0], [1], [2], [3]], dtype=np.uint8), 2),
                  np.tile(np.array([[1], [2], [3], [256]], dtype=np.uint16), 2),
                  np.tile(np.array([[2], [3], [4], [65536]], dtype=np.uint32), 2),
                  np.tile(np.array([[3], [4], [5], [4294967296]], dtype=np.uint64), 2))
    data = Dataset.from_tensor_slices(components).batch(2).unbatch()
    out = list(data)
    assert [tuple(v.tolist() for v in x) for x in out] == \
        [tuple(c[i].tolist() for c in components) for i in range(4)]
    assert [v.dtype for v in out[0]] == [np.uint8, np.uint16, np.uint32, np.uint64]


def test_name() -> None:
    assert [int(x) for x in Dataset.from_tensors([42]).unbatch(name="unbatch")] == [42]


def test_checkpoint() -> None:
    components = (np.arange(8), np.array([[1, 2, 3]]) * np.arange(8)[:, np.newaxis],
                  np.array(15.0) * np.arange(8))
    assert assert_resumes_exactly(
        lambda: Dataset.from_tensor_slices(components).batch(2).unbatch()) == 8
