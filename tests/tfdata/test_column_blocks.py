"""Column blocks stay columns where the elements allow: ``padded_batch`` of array
columns slices them, a shuffle over an iterator merges its buffered column blocks
by column (fusing them as they arrive), and the elements, states and next epochs
are those of the element path."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from minibatcher.tfdata import Dataset
from minibatcher.tfdata.block import (ArrayColumn, ColumnBlock, ListBlock, block_execution,
                                      concat_blocks, merge_blocks)
from minibatcher.tfdata.column_merge import uniform_columns
from minibatcher.tfdata.block_store import BlockStore

from .test_blocks import trace

SLICES = {"a": np.arange(40), "s": [b"x" * (i % 4) for i in range(40)],
          "v": np.arange(80, dtype=np.float32).reshape(40, 2)}

PIPELINES: dict[str, Callable[[], Any]] = {
    "padded_batch of slices": lambda: Dataset.from_tensor_slices(SLICES).padded_batch(6),
    "shuffle over an iterator, batch": lambda: Dataset.from_tensor_slices(SLICES)
        .take(37).filter(lambda e: e["a"] % 5 != 1).shuffle(11, seed=2).batch(4),
    "shuffle over an iterator, padded_batch": lambda: Dataset.range(50)
        .filter(lambda x: x % 3 != 0).shuffle(9, seed=1).padded_batch(5),
    "padded_batch with padding values": lambda: Dataset.from_tensor_slices(SLICES)
        .padded_batch(4, padding_values={"a": np.int64(-1), "s": b"?", "v": np.float32(0)}),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_block_execution_on_and_off_agree(name: str) -> None:
    with block_execution(False):
        off = trace(PIPELINES[name])
    on = trace(PIPELINES[name])
    assert len(off[0]) > 2 and on == off


def test_padded_batch_of_uniform_columns_is_a_slice() -> None:
    block = ColumnBlock({"x": 0}, [ArrayColumn(np.arange(6).reshape(3, 2))], keep_order=False)
    assert uniform_columns(block) and not uniform_columns(ListBlock([1]))
    ds = Dataset.from_tensor_slices({"x": np.arange(6).reshape(3, 2)}).padded_batch(2)
    it = ds._make_iter(None)
    assert next(it)["x"].base is not None  # a view of the column, not a padded copy


def test_column_blocks_merge_by_column() -> None:
    template = {"b": 0, "a": 0}
    one = ColumnBlock(template, [ArrayColumn(np.array([1, 2])), ArrayColumn(np.array([5, 6]))])
    two = one.take(np.array([1]))
    merged = merge_blocks([(np.array([0, 2]), one), (np.array([1]), two)], 3)
    assert type(merged) is ColumnBlock and merged.template is template
    assert [(int(e["a"]), int(e["b"])) for e in merged.elements()] == [(1, 5), (2, 6), (2, 6)]
    other = ColumnBlock({"b": 0, "a": 0}, [ArrayColumn(np.array([7])),
                                          ArrayColumn(np.array([8]))])
    assert type(concat_blocks([one, other])) is ListBlock  # another structure: elements


def test_the_shuffle_store_fuses_contiguous_blocks() -> None:
    store = BlockStore()
    at = 0
    for n in [8, 8, 8, 8, 8, 8, 8, 8]:
        store.add(at, ColumnBlock(0, [ArrayColumn(np.arange(at, at + n))]))
        at += n
    assert len(store.blocks) <= 3 and store.starts[0] == 0
    got = store.gather(np.array([63, 0, 31, 32]))
    assert [int(x) for x in got.elements()] == [63, 0, 31, 32]


def _key_order(value: Any) -> Any:
    """Every dict's keys, in order, down the structure."""
    if isinstance(value, dict):
        return [(k, _key_order(v)) for k, v in value.items()]
    if isinstance(value, tuple):
        return [_key_order(v) for v in value]
    return None


@pytest.mark.parametrize("batching", ["batch", "padded_batch"])
def test_a_lifted_map_returning_dicts_batches_with_sorted_keys(tmp_path, batching: str) -> None:
    # a map that names parse_single_example runs once per block (its result in columns);
    # the batches of its dicts had the function's key order there, sorted keys on the
    # element path (Dataset.batch packs dicts by sorted key, as TF orders dict components)
    from minibatcher import tfdata
    from minibatcher.formats.tfrecord import TFRecordWriter, encode_example
    from minibatcher.tfdata import io as tfio

    path = tmp_path / "r.tfrecord"
    with TFRecordWriter(path) as w:
        w.write_many([encode_example({"x": [i], "y": [2 * i]}) for i in range(7)])
    spec = {"x": tfio.FixedLenFeature([], tfdata.int64), "y": tfio.FixedLenFeature([], tfdata.int64)}

    def parse(r: Any) -> Any:
        ex = tfio.parse_single_example(r, spec)
        return {"z": ex["y"], "a": {"y": ex["y"], "x": ex["x"]}}

    def make() -> Any:
        ds = tfdata.TFRecordDataset(str(path)).map(parse)
        return getattr(ds, batching)(3)

    got = {}
    for on in (True, False):
        with block_execution(on):
            got[on] = [(_key_order(b), b["z"].tolist(), b["a"]["x"].tolist()) for b in make()]
    assert got[True] == got[False]
    assert got[True][0][0] == [("a", [("x", None), ("y", None)]), ("z", None)]
    with block_execution(True):
        element = next(iter(tfdata.TFRecordDataset(str(path)).map(parse)))
    assert _key_order(element) == [("z", None), ("a", [("y", None), ("x", None)])]  # as returned
