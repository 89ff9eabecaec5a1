"""TF's kernel tests for ``cache`` and ``ragged_batch`` (tensorflow/python/data/kernel_tests/
cache_test.py, ragged_batch_test.py), ported with their literal expectations, in our words.

Not ported: TF's checkpoint-manager tests (``testCheckpointFinishedCache``,
``testCheckpointLargeCache``: TF's Checkpoint objects; the every-element resume test below
covers checkpoints before, inside and after the cached epoch in both cache kinds), and
``tf.Variable``-driven inputs (their effect is reproduced with a Python counter).
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

from minibatcher.tfdata import Dataset, RaggedTensor, SparseTensor, errors

from ..resume import assert_resumes_exactly

COMPONENTS = (np.array([1, 2, 3, 4]), np.array([5, 6, 7, 8]), np.array([9.0, 10.0, 11.0, 12.0]))


def values(ds) -> list:
    return [tuple(v.tolist() for v in x) for x in ds]


def test_file_cache_passthrough(tmp_path) -> None:
    prefix = str(tmp_path / "cache")

    def dataset(count=5, filename=None):
        ds = Dataset.from_tensor_slices(COMPONENTS).repeat(count)
        return ds.cache(filename) if filename else ds
    assert [list(s.shape.dims) for s in dataset().element_spec] == [[], [], []]
    elements = values(dataset())
    assert values(dataset(filename=prefix)) == elements
    assert values(dataset(count=0, filename=prefix)) == elements  # read from the cache file
    assert values(dataset(count=0, filename=prefix + "nonsense")) == []


def test_file_cache_concurrent_writers_and_readers(tmp_path) -> None:
    prefix = str(tmp_path / "cache")
    first = iter(Dataset.from_tensor_slices(COMPONENTS).cache(prefix))
    second = iter(Dataset.from_tensor_slices(COMPONENTS).cache(prefix))
    next(first)
    with pytest.raises(errors.AlreadyExistsError):
        next(second)
    next(first)
    rest = list(first)
    assert len(rest) == 2
    one, two = (iter(Dataset.from_tensor_slices(COMPONENTS).cache(prefix)) for _ in range(2))
    got1, got2 = [], []
    for it, out in ((two, got2), (one, got1), (two, got2), (one, got1), (one, got1),
                    (two, got2), (one, got1), (two, got2)):
        out.append(tuple(v.tolist() for v in next(it)))
    assert got1 == got2 == values(Dataset.from_tensor_slices(COMPONENTS))


def test_file_cache_reading_past_end_of_sequence(tmp_path) -> None:
    dataset = Dataset.range(10).cache(str(tmp_path / "c")).map(lambda a: a).batch(4).repeat(2)
    assert [b.tolist() for b in dataset] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] * 2


def test_file_cache_cleaning_up_cache_files(tmp_path) -> None:
    for steps in [0, 3, 10, 12, 15]:
        it = iter(Dataset.range(10).cache(str(tmp_path / "c")))
        for _ in range(steps):
            if next(it, None) is None:
                break
        del it
        gc.collect()


def test_memory_cache_passthrough() -> None:
    repeat_count = [10]
    dataset = Dataset.range(3).flat_map(lambda x: Dataset.from_tensors(x).repeat(repeat_count[0]))
    cached, uncached = iter(dataset.cache().repeat(2)), iter(dataset.repeat(2))
    for i in range(3):
        for _ in range(10):
            assert int(next(cached)) == i == int(next(uncached))
    repeat_count[0] = 0
    assert next(uncached, None) is None
    assert [int(x) for x in cached] == [i for i in range(3) for _ in range(10)]


def test_memory_cache_empty_and_concurrent_readers() -> None:
    assert list(Dataset.from_tensor_slices(COMPONENTS).repeat(0).cache()) == []
    d1 = Dataset.range(5).cache().map(lambda x: x + 1)
    d2 = Dataset.range(5).cache().map(lambda x: x + 6)
    it1 = iter(d1)
    assert [int(next(it1)) for _ in range(3)] == [1, 2, 3]
    it2 = iter(d2)
    assert [int(next(it2)), int(next(it2)), int(next(it1))] == [6, 7, 4]
    assert [int(next(it2)), int(next(it1)), int(next(it2)), int(next(it2))] == [8, 5, 9, 10]
    assert next(it2, None) is None and next(it1, None) is None


def test_memory_cache_take_repeat_and_epochs() -> None:
    assert [int(x) for x in Dataset.range(10).cache().take(5).repeat(2)] == [0, 1, 2, 3, 4] * 2
    calls = []
    dataset = Dataset.range(10).map(lambda x: calls.append(x) or x).cache()
    assert [int(x) for x in dataset.repeat(2)] == list(range(10)) * 2 and len(calls) == 10
    assert [int(x) for x in dataset] == list(range(10)) and len(calls) == 10


def test_memory_cache_inside_a_function_and_concurrent_iterators() -> None:
    ids = Dataset.range(10).cache()
    assert [int(x) for x in Dataset.range(1).interleave(lambda _: ids)] == list(range(10))
    dataset = Dataset.range(10).cache()
    it1, it2 = iter(dataset), iter(dataset)
    for i in range(10):
        assert int(next(it1)) == i == int(next(it2))


def test_memory_cache_known_cardinality() -> None:
    dataset = Dataset.range(10).shuffle(10, reshuffle_each_iteration=True).cache()
    it = iter(dataset)
    results = [int(next(it)) for _ in range(10)]  # all read, the end not reached
    it = iter(dataset)
    assert [int(next(it)) for _ in range(10)] == results


@pytest.mark.parametrize("memory", [True, False])
def test_cache_checkpoints(tmp_path, memory: bool) -> None:
    filename = "" if memory else str(tmp_path / "test")
    assert assert_resumes_exactly(lambda: Dataset.range(10).cache(filename).repeat(3)) == 30


def scalar_ds(n):
    return Dataset.from_tensor_slices(np.arange(n))


MAKERS = {
    "scalar": scalar_ds,
    "vector": lambda n: scalar_ds(n).map(lambda x: np.full([x], x)),
    "matrix1": lambda n: scalar_ds(n).map(lambda x: np.full([x, 2], x)),
    "matrix2": lambda n: scalar_ds(n).map(lambda x: np.full([2, x], x)),
    "matrix_fully_defined": lambda n: scalar_ds(n).map(lambda x: np.full([2, 3], x)),
    "5d": lambda n: scalar_ds(n).map(lambda x: np.full([2, x, 3, 2 * x, 4], x)),
    "ragged": lambda n: Dataset.from_tensors(RaggedTensor.from_nested_row_splits(
        *_ragged_parts(n))).unbatch() if n else Dataset.range(0),
    "dict": lambda n: scalar_ds(n).map(lambda x: {
        "shape=[]": x, "shape=[x]": np.arange(x), "shape=[x, 2]": np.full([x, 2], x),
        "shape=[2, x]": np.full([2, x], x),
        "shape=[2, x, 3, 2x, 4]": np.full([2, x, 3, 2 * x, 4], x)}),
    "tuple": lambda n: scalar_ds(n).map(lambda x: (x, np.arange(x), np.full([x, 2], x))),
}


def _ragged_parts(nrows):
    """The rows [[[i] * (i % 3) for i in range(j)] * (j % 3) for j in range(nrows)] as
    flat values and nested row lengths."""
    rows = [[[i] * (i % 3) for i in range(j)] * (j % 3) for j in range(nrows)]
    outer = [len(r) for r in rows]
    inner = [len(x) for r in rows for x in r]
    flat = np.array([v for r in rows for x in r for v in x], dtype=np.int32)
    splits = [np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
              for lengths in (outer, inner)]
    return flat, splits


def to_list(value):
    if isinstance(value, dict):
        return {k: to_list(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(to_list(v) for v in value)
    return value.to_list() if hasattr(value, "to_list") else np.asarray(value).tolist()


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("nrows", [0, 20, 23])
@pytest.mark.parametrize("drop", [True, False])
def test_ragged_batch_basic(maker: str, nrows: int, drop: bool) -> None:
    dataset = MAKERS[maker](nrows)
    rows = [to_list(x) for x in dataset]
    expected = [rows[i:i + 4] for i in range(0, nrows, 4) if not drop or i + 4 <= nrows]
    got = [to_list(b) for b in dataset.ragged_batch(4, drop)]
    if maker == "dict":
        expected = [{k: [r[k] for r in batch] for k in batch[0]} for batch in expected]
    elif maker == "tuple":
        expected = [tuple(list(c) for c in zip(*batch, strict=True)) for batch in expected]
    assert got == expected


def test_ragged_batch_with_structured_elements() -> None:
    def make_structure(x):
        return {"dense": np.full([x], x),
                "ragged": RaggedTensor.from_row_lengths(np.array([x, x, x]), [1, 2]),
                "sparse": SparseTensor([[x]], [x], [100])}
    dataset = Dataset.from_tensor_slices(np.arange(20)).map(make_structure).ragged_batch(4)
    for i, result in zip(range(0, 20, 4), dataset, strict=True):
        rows = range(i, i + 4)
        assert result["dense"].to_list() == [[r] * r for r in rows]
        assert result["ragged"].to_list() == [[[r], [r, r]] for r in rows]
        assert result["sparse"].indices.tolist() == [list(p) for p in enumerate(rows)]
        assert result["sparse"].values.tolist() == list(rows)
        assert result["sparse"].dense_shape.tolist() == [4, 100]
