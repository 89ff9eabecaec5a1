"""Sources and element-wise/positional operations, hand-computed (spec §4.1)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

from minibatcher.errors import ConfigError
from minibatcher import tfdata
from minibatcher.tfdata import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, TensorSpec


def ints(ds) -> list[int]:
    return [int(x) for x in ds]


def test_range_like_python() -> None:
    assert ints(Dataset.range(5)) == [0, 1, 2, 3, 4]
    assert ints(Dataset.range(2, 9, 3)) == [2, 5, 8]
    assert ints(Dataset.range(5, 0, -2)) == [5, 3, 1]
    x = next(iter(Dataset.range(1)))
    assert isinstance(x, np.int64)
    assert next(iter(Dataset.range(3, output_type=np.int32))).dtype == np.int32


def test_from_tensor_slices_dtypes_and_structures() -> None:
    a, b = next(iter(Dataset.from_tensor_slices(([1, 2], [0.5, 1.5]))))
    assert a.dtype == np.int32 and b.dtype == np.float32  # TF's defaults for Python values
    assert next(iter(Dataset.from_tensor_slices(np.arange(3)))).dtype == np.int64
    row = next(iter(Dataset.from_tensor_slices({"s": ["é", "b"], "m": np.ones((2, 3))})))
    assert row["s"] == "é".encode() and row["m"].shape == (3,)
    P = namedtuple("P", "x y")
    p = next(iter(Dataset.from_tensor_slices(P([1], [2]))))
    assert isinstance(p, P) and (int(p.x), int(p.y)) == (1, 2)
    with pytest.raises(ConfigError, match="same first dimension"):
        Dataset.from_tensor_slices(([1, 2], [1]))
    with pytest.raises(ConfigError, match="use from_tensors"):
        Dataset.from_tensor_slices(3)


def test_tuple_elements_are_unpacked_dicts_are_not() -> None:
    ds = Dataset.from_tensor_slices(([1, 2], [10, 20]))
    assert ints(ds.map(lambda a, b: a + b)) == [11, 22]
    assert ints(ds.filter(lambda a, b: b > 10).map(lambda a, b: a)) == [2]
    d = Dataset.from_tensor_slices({"a": [1, 2]})
    assert ints(d.map(lambda e: e["a"] * 2)) == [2, 4]


def test_filter_needs_a_scalar_boolean() -> None:
    with pytest.raises(TypeError, match="scalar boolean"):
        list(Dataset.range(3).filter(lambda x: x))
    assert ints(Dataset.range(4).filter(lambda x: np.bool_(x > 1))) == [2, 3]


@pytest.mark.parametrize("view", [True, False])
def test_skip_take_shard(view: bool) -> None:
    base = Dataset.range(10) if view else Dataset.range(20).filter(lambda x: x % 2 == 0) \
        .map(lambda x: x // 2)
    assert ints(base.skip(3)) == list(range(3, 10))
    assert ints(base.skip(-1)) == [] and ints(base.skip(0)) == list(range(10))
    assert ints(base.take(3)) == [0, 1, 2] and ints(base.take(-1)) == list(range(10))
    assert ints(base.take(0)) == [] and ints(base.skip(12)) == []
    assert ints(base.shard(3, 0)) == [0, 3, 6, 9]
    assert ints(base.shard(3, 2)) == [2, 5, 8]
    assert ints(base.shard(4, 1).skip(1).take(1)) == [5]


def test_shard_arguments() -> None:
    with pytest.raises(ConfigError, match=r"index should be an integer in \[0, 2\], but got index=3"):
        Dataset.range(3).shard(3, 3)
    with pytest.raises(ConfigError, match="num_shards should be a positive integer, but got num_shards=0"):
        Dataset.range(3).shard(0, 0)


def test_repeat() -> None:
    assert ints(Dataset.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert ints(Dataset.range(3).repeat(0)) == []
    assert ints(Dataset.range(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert ints(Dataset.range(0).repeat()) == []  # an empty input ends a forever-repeat
    calls = []

    def gen():
        calls.append(1)
        return iter([1, 2])

    assert ints(Dataset.from_generator(gen).repeat(3)) == [1, 2] * 3 and len(calls) == 3


def test_zip_stops_at_the_shortest() -> None:
    ds = Dataset.zip((Dataset.range(3), Dataset.range(10, 20).filter(lambda x: x < 12)))
    assert [(int(a), int(b)) for a, b in ds] == [(0, 10), (1, 11)]
    nested = Dataset.zip({"a": Dataset.range(2), "b": (Dataset.range(2), Dataset.range(2))})
    e = next(iter(nested))
    assert set(e) == {"a", "b"} and isinstance(e["b"], tuple)
    assert len(Dataset.zip(Dataset.range(2), Dataset.range(5))) == 2


def test_enumerate_and_concatenate() -> None:
    ds = Dataset.range(3).filter(lambda x: x > 0).enumerate(start=7)
    assert [(int(i), int(x)) for i, x in ds] == [(7, 1), (8, 2)]
    assert ints(Dataset.range(2).concatenate(Dataset.range(5, 7).filter(lambda x: x > 5))) == \
        [0, 1, 6]


def test_from_generator_and_types() -> None:
    ds = Dataset.from_generator(lambda: ((i, "x" * i) for i in range(3)),
                                output_types=(np.int64, None))
    first = next(iter(ds))
    assert first[0].dtype == np.int64 and first[1] == b""
    with pytest.raises(TypeError, match="pass a function"):
        Dataset.from_generator(iter([1]))  # type: ignore[arg-type]
    assert ints(Dataset.from_generator(lambda n: range(n), args=(3,))) == [0, 1, 2]


def test_from_generator_output_shapes_and_shape_errors() -> None:
    # TF 2.21: output_shapes complete output_types' spec (it was ignored: an unknown rank)
    pairs = Dataset.from_generator(lambda: ((1, [2]), (3, [4, 5])), output_types=(tfdata.int64,
                                   tfdata.int32), output_shapes=([], [None]))
    assert pairs.element_spec == (TensorSpec([], tfdata.int64), TensorSpec([None], tfdata.int32))
    words = Dataset.from_generator(lambda: iter(["a", "bb"]), output_types=tfdata.string,
                                   output_shapes=[])
    assert [b.tolist() for b in words.padded_batch(2)] == [[b"a", b"bb"]]
    assert Dataset.from_generator(lambda: iter([1]), output_types=tfdata.int64).element_spec \
        == TensorSpec(None, tfdata.int64)
    # an element of another shape raises TF's error for that element; the next ones follow
    fixed = Dataset.from_generator(lambda: iter([[1, 2], [3], [4, 5]]),
                                   output_signature=TensorSpec([2], tfdata.int64))
    it = iter(fixed)
    assert next(it).tolist() == [1, 2]
    with pytest.raises(tfdata.errors.InvalidArgumentError,
                       match=r"yielded an element of shape \(1,\) where an element of shape "
                             r"\(2,\) was expected"):
        next(it)
    assert next(it).tolist() == [4, 5] and next(it, None) is None


def test_cardinality() -> None:
    assert Dataset.range(10).shard(3, 1).cardinality() == 3
    assert Dataset.range(10).filter(lambda x: True).cardinality() == UNKNOWN_CARDINALITY
    assert Dataset.range(3).repeat().cardinality() == INFINITE_CARDINALITY
    assert Dataset.range(3).repeat().take(5).cardinality() == 5
    assert Dataset.range(3).shuffle(2, seed=1).batch(2).cardinality() == 2
    with pytest.raises(TypeError, match="infinite"):
        len(Dataset.range(1).repeat())


def test_map_is_not_called_for_skipped_elements() -> None:
    calls = []
    ds = Dataset.range(100).map(lambda x: calls.append(int(x)) or x).skip(95)
    assert ints(ds) == list(range(95, 100)) and calls == list(range(95, 100))


def test_iterating_again_gives_identical_epochs_without_randomness() -> None:
    ds = Dataset.range(6).map(lambda x: x * 2).batch(4)
    assert [b.tolist() for b in ds] == [b.tolist() for b in ds] == [[0, 2, 4, 6], [8, 10]]


def test_prefetch_and_apply_change_nothing() -> None:
    ds = Dataset.range(5).shuffle(5, seed=1)
    assert ints(ds.prefetch(2)) != [] and ints(Dataset.range(3).apply(lambda d: d.prefetch(1))) \
        == [0, 1, 2]
