"""TF's kernel tests for ``Dataset.bucket_by_sequence_length``
(tensorflow/python/data/kernel_tests/bucket_by_sequence_length_test.py), ported with their
literal inputs and expectations, in our words (TF's ``random.shuffle`` of the elements uses a
seeded generator here; the ``no_padding=True`` variants bucket ``tfdata.SparseTensor``s)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from minibatcher import tfdata
from minibatcher.tfdata import INFINITE_CARDINALITY, Dataset

BOUNDARIES, BATCH_SIZES, LENGTHS = [10, 20, 30], [10, 8, 4, 2], [8, 13, 25, 35]


def element_length(x: Any, y: Any = None) -> int:
    return len(x)


def from_records(records: list[list[int]]) -> Dataset:
    return Dataset.from_generator(lambda: ((r,) for r in records), (tfdata.int32,), ([None],))


def test_bucket_drop_remainder() -> None:
    n_elements = [28, 7, 6, 5]
    records = [[1] * length for n, length in zip(n_elements, LENGTHS) for _ in range(n)]
    random.Random(0).shuffle(records)
    ds = from_records(records).bucket_by_sequence_length(
        element_length_func=element_length, bucket_boundaries=BOUNDARIES,
        bucket_batch_sizes=BATCH_SIZES, drop_remainder=True)
    batches = [b for (b,) in ds]
    assert len(batches) == 5
    sums = {length: 0 for length in LENGTHS}
    sizes: dict[int, list[int]] = {length: [] for length in LENGTHS}
    for b in batches:
        sums[b.shape[1]] += int(b.sum())
        sizes[b.shape[1]].append(b.shape[0])
    for length, size, n in zip(LENGTHS, BATCH_SIZES, n_elements):
        assert sums[length] == (n - n % size) * length
        assert sorted(sizes[length]) == [size] * (n // size)


def test_bucket() -> None:
    records = []
    for size, length in zip(BATCH_SIZES, LENGTHS):
        records += [[1] * (length - 1)] + [[1] * length] * (size - 1)
    random.Random(1).shuffle(records)
    ds = from_records(records).bucket_by_sequence_length(
        element_length_func=element_length, bucket_boundaries=BOUNDARIES,
        bucket_batch_sizes=BATCH_SIZES)
    batches = [b for (b,) in ds]
    assert len(batches) == 4
    for b in batches:
        assert int(b.sum()) == b.shape[0] * b.shape[1] - 1
    assert sorted(b.shape[0] for b in batches) == sorted(BATCH_SIZES)
    assert sorted(b.shape[1] for b in batches) == sorted(LENGTHS)


def test_pad_to_boundary() -> None:
    records = [[1] * length for size, length in zip(BATCH_SIZES[:-1], LENGTHS[:3])
               for _ in range(size)]
    random.Random(2).shuffle(records)
    records += [[1] * (BOUNDARIES[-1] + 5)] * BATCH_SIZES[-1]
    ds = from_records(records).bucket_by_sequence_length(
        element_length_func=element_length, bucket_boundaries=BOUNDARIES,
        bucket_batch_sizes=BATCH_SIZES, pad_to_bucket_boundary=True)
    it = iter(ds)
    batches = [next(it)[0] for _ in range(3)]
    try:
        next(it)
    except ValueError as e:
        assert "bucket_boundaries" in str(e)
    else:
        raise AssertionError("an element longer than the last boundary should fail")
    assert sorted(b.shape[0] for b in batches) == sorted(BATCH_SIZES[:-1])
    assert sorted(b.shape[1] for b in batches) == [b - 1 for b in BOUNDARIES]


def test_pad_to_boundary_no_extraneous_padding() -> None:
    ds = from_records([[1] * length for length in range(1, 11)]).bucket_by_sequence_length(
        element_length_func=element_length, bucket_boundaries=[3, 7, 11],
        bucket_batch_sizes=[2, 2, 2, 2], pad_to_bucket_boundary=True)
    assert [b.tolist() for (b,) in ds] == [
        [[1, 0], [1, 1]],
        [[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 0, 0]],
        [[1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1]],
        [[1, 1, 1, 1, 1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]],
        [[1, 1, 1, 1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]]]


def test_tuple_elements() -> None:
    text, label = [[1, 2, 3], [3, 4, 5, 6, 7], [1, 2], [8, 9, 0, 2, 3]], [1, 2, 1, 2]
    ds = Dataset.from_generator(lambda: zip(text, label), (tfdata.int32, tfdata.int32),
                                ([None], [])).bucket_by_sequence_length(
        element_length_func=element_length, bucket_batch_sizes=[2, 2, 2],
        bucket_boundaries=[0, 8])
    words, labels = ds.element_spec
    assert words.shape.as_list() == [None, None] and labels.shape.as_list() == [None]
    assert [(w.shape, lab.tolist()) for w, lab in ds] == [((2, 5), [1, 2]), ((2, 5), [1, 2])]


def test_cardinality() -> None:
    ds = from_records([[1] * length for length in range(1, 11)]).repeat()
    ds = ds.bucket_by_sequence_length(element_length_func=element_length,
                                      bucket_boundaries=[3, 7, 11],
                                      bucket_batch_sizes=[2, 2, 2, 2],
                                      pad_to_bucket_boundary=True)
    assert ds.cardinality() == INFINITE_CARDINALITY
    assert np.asarray(next(iter(ds))[0]).tolist() == [[1, 0], [1, 1]]


def sparse_records(records: list[list[int]]) -> Dataset:
    """The records as SparseTensors (TF's ``_format_record(..., sparse=True)``)."""
    def gen() -> Any:
        for r in records:
            yield {"values": np.array(r, np.int64), "dense_shape": np.array([len(r)], np.int64),
                   "indices": np.arange(len(r), dtype=np.int64)[:, None]}
    kinds = {"values": tfdata.int64, "indices": tfdata.int64, "dense_shape": tfdata.int64}
    return Dataset.from_generator(gen, output_types=kinds).map(
        lambda d: (tfdata.SparseTensor(d["indices"], d["values"], d["dense_shape"]),))


def sparse_length(x: Any, y: Any = None) -> int:
    return int(x.dense_shape[0])


def test_bucket_drop_remainder_sparse() -> None:
    n_elements = [28, 7, 6, 5]
    records = [[1] * length for n, length in zip(n_elements, LENGTHS) for _ in range(n)]
    random.Random(3).shuffle(records)
    ds = sparse_records(records).bucket_by_sequence_length(
        element_length_func=sparse_length, bucket_boundaries=BOUNDARIES,
        bucket_batch_sizes=BATCH_SIZES, no_padding=True, drop_remainder=True)
    batches = [b for (b,) in ds]
    assert len(batches) == 5
    for b in batches:
        size, length = (int(d) for d in b.dense_shape)
        assert size == BATCH_SIZES[LENGTHS.index(length)] and int(b.values.sum()) == size * length


@pytest.mark.parametrize("drop_remainder", [True, False])
def test_bucket_sparse(drop_remainder: bool) -> None:
    ds = sparse_records([list(range(i + 1)) for i in range(100)]).map(lambda s: s)
    boundaries = list(range(11, 100, 10))
    ds = ds.bucket_by_sequence_length(
        element_length_func=lambda x: int(x.dense_shape[0]), bucket_boundaries=boundaries,
        bucket_batch_sizes=[7] * (len(boundaries) + 1), no_padding=True,
        drop_remainder=drop_remainder)
    got = {(tuple(map(tuple, s.indices.tolist())), tuple(s.values.tolist())) for s in ds}
    expected = set()
    for start in range(0, 100, 10):
        for offset in ([0] if drop_remainder else range(0, 10, 7)):
            first, stop = start + offset, min(start + offset + 7, start + 10)
            rows = [(n - first, v) for n in range(first, stop) for v in range(n + 1)]
            expected.add((tuple(rows), tuple(v for _, v in rows)))
    assert got == expected


def test_bucket_no_padding_sparse() -> None:
    records = []
    for size, length in zip(BATCH_SIZES, LENGTHS):
        records += [[1] * (length - 1)] + [[1] * length] * (size - 1)
    random.Random(4).shuffle(records)
    ds = sparse_records(records).bucket_by_sequence_length(
        element_length_func=sparse_length, bucket_boundaries=BOUNDARIES,
        bucket_batch_sizes=BATCH_SIZES, no_padding=True)
    shapes = [tuple(int(d) for d in b.dense_shape) for (b,) in ds]
    assert sorted(s[0] for s in shapes) == sorted(BATCH_SIZES)
    assert sorted(s[1] for s in shapes) == sorted(LENGTHS)


def test_tuple_elements_sparse() -> None:
    text, label = [[1, 2, 3], [3, 4, 5, 6, 7], [1, 2], [8, 9, 0, 2, 3]], [1, 2, 1, 2]
    sparse = sparse_records(text).map(lambda s: s)
    ds = Dataset.zip((sparse, Dataset.from_tensor_slices(np.array(label, np.int32))))
    ds = ds.bucket_by_sequence_length(element_length_func=sparse_length,
                                      bucket_batch_sizes=[2, 2, 2], bucket_boundaries=[0, 8],
                                      no_padding=True)
    words, labels = ds.element_spec
    assert words.shape.as_list() == [None, None] and labels.shape.as_list() == [None]
