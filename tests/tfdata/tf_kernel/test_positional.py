"""TF's kernel tests for ``shard``, ``take``, ``skip`` and ``repeat``
(tensorflow/python/data/kernel_tests/{shard,take,skip,repeat}_test.py), ported with their
literal inputs and expectations, in our words; TF's checkpoint tests (``verify_fn`` over every
break point) run through our every-step resume check. Not ported: see README.md."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from minibatcher.tfdata import Dataset, Options

from ..resume import assert_resumes_exactly


def ints(ds: Dataset) -> list[Any]:
    return [tuple(int(v) for v in x) if isinstance(x, tuple) else int(x) for x in ds]


# -- shard -------------------------------------------------------------------------------------

@pytest.mark.parametrize("n,shards,index,expected", [
    (10, 5, 2, [2, 7]), (10, 5, 0, [0, 5]), (1, 5, 2, []), (10, 7, 5, [5]), (10, 5, 4, [4, 9]),
    (10, 4, 3, [3, 7]), (10, 20, 5, [5])])
def test_shard(n: int, shards: int, index: int, expected: list[int]) -> None:
    assert ints(Dataset.range(n).shard(shards, index)) == expected


def test_shard_nested_data() -> None:
    ds = Dataset.zip((Dataset.range(10), Dataset.range(10, 0, -1))).shard(5, 2)
    assert ints(ds) == [(2, 8), (7, 3)]


@pytest.mark.parametrize("shards,index", [(5, 7), (5, -3), (-3, 1), (0, 1)])
def test_shard_invalid(shards: int, index: int) -> None:
    with pytest.raises(ValueError):
        Dataset.range(10).shard(shards, index)


def test_shard_name() -> None:
    assert ints(Dataset.from_tensors(42).shard(1, 0, name="shard")) == [42]


def resumes(build: Any, stride: int = 1) -> int:
    """Elements of ``build()``, each break point restored exactly (as TF's ``verify_fn``)."""
    whole = ints(build())
    if len(whole) > 2:
        return assert_resumes_exactly(build, stride=stride)
    it = iter(build())
    for k in range(len(whole) + 1):  # the shared helper wants 3+ elements: the same, by hand
        again = iter(build())
        again.set_state(it.get_state())
        assert ints(again) == whole[k:]
        next(it, None)
    return len(whole)


def _symbolic(ds: Dataset, symbolic: bool) -> Dataset:
    options = Options()
    options.experimental_symbolic_checkpoint = symbolic
    return ds.with_options(options)


@pytest.mark.parametrize("symbolic", [False, True])
@pytest.mark.parametrize("elems,shards,index", [(e, s, i) for e in (10, 100) for s in (2, 5)
                                                for i in (0, 1)])
def test_shard_checkpoint(symbolic: bool, elems: int, shards: int, index: int) -> None:
    def build() -> Dataset:
        return _symbolic(Dataset.range(elems).shard(shards, index), symbolic)
    assert resumes(build, stride=7) == elems // shards


# -- take and skip -----------------------------------------------------------------------------

@pytest.mark.parametrize("count", [-1, 0, 4, 10, 25])
def test_take(count: int) -> None:
    ds = Dataset.from_tensor_slices((np.arange(10),)).take(count)
    n = min(count, 10) if count != -1 else 10
    assert ints(ds) == [(i,) for i in range(n)]


@pytest.mark.parametrize("count", [-1, 0, 4, 10, 25])
def test_skip(count: int) -> None:
    ds = Dataset.from_tensor_slices((np.arange(10),)).skip(count)
    start = min(count, 10) if count != -1 else 10
    assert ints(ds) == [(i,) for i in range(start, 10)]


def test_take_and_skip_names() -> None:
    assert ints(Dataset.from_tensors(42).take(1, name="take")) == [42]
    assert ints(Dataset.from_tensors(42).skip(0, name="skip")) == [42]


@pytest.mark.parametrize("symbolic", [False, True])
@pytest.mark.parametrize("count,outputs", [(50, 50), (200, 100), (100, 100), (-1, 100), (0, 0)])
def test_take_checkpoint(symbolic: bool, count: int, outputs: int) -> None:
    def build() -> Dataset:
        return _symbolic(Dataset.range(100).take(count), symbolic)
    if outputs == 0:
        assert ints(build()) == []
        return
    assert assert_resumes_exactly(build, stride=11) == outputs


@pytest.mark.parametrize("symbolic", [False, True])
@pytest.mark.parametrize("count,outputs", [(50, 50), (200, 0), (100, 0), (-1, 0), (0, 100)])
def test_skip_checkpoint(symbolic: bool, count: int, outputs: int) -> None:
    def build() -> Dataset:
        return _symbolic(Dataset.range(100).skip(count), symbolic)
    if outputs == 0:
        assert ints(build()) == []
        return
    assert assert_resumes_exactly(build, stride=11) == outputs


# -- repeat ------------------------------------------------------------------------------------

COMPONENTS = (np.array(1), np.array([1, 2, 3]), np.array(37.0))


def _plain(element: Any) -> Any:
    return tuple(np.asarray(c).tolist() for c in element)


@pytest.mark.parametrize("count", [0, 3, 7])
def test_finite_repeat(count: int) -> None:
    ds = Dataset.from_tensors(COMPONENTS).repeat(count)
    assert [_plain(e) for e in ds] == [_plain(COMPONENTS)] * count


def test_infinite_repeat() -> None:
    it = iter(Dataset.from_tensors(COMPONENTS).repeat(-1))
    assert all(_plain(next(it)) == _plain(COMPONENTS) for _ in range(17))


def test_repeat_repeat() -> None:
    ds = Dataset.from_tensors(COMPONENTS).repeat(7).repeat(14)
    assert [_plain(e) for e in ds] == [_plain(COMPONENTS)] * (7 * 14)


def test_repeat_name() -> None:
    assert ints(Dataset.from_tensors(42).repeat(1, name="repeat")) == [42]


@pytest.mark.parametrize("symbolic", [False, True])
@pytest.mark.parametrize("elements,epochs,outputs", [(10, 10, 100), (10, 0, 0), (10, -1, 100),
                                                     (0, -1, 0)])
def test_repeat_checkpoint(symbolic: bool, elements: int, epochs: int, outputs: int) -> None:
    def build() -> Dataset:
        ds = Dataset.range(elements).repeat(epochs)
        if epochs < 0 and outputs:
            ds = Dataset.zip((ds, Dataset.range(outputs)))
        return _symbolic(ds, symbolic)
    if outputs == 0:
        assert ints(build()) == []
        return
    assert assert_resumes_exactly(build, stride=9) == outputs
