"""``tfdata.experimental``: tf.data.experimental's names as TF 2.21 gives them (the values
below were printed by TF 2.21 for the same calls)."""

from __future__ import annotations

import pytest

from minibatcher.errors import NotSupportedError
from minibatcher.tfdata import Dataset
from minibatcher.tfdata import experimental as e


def values(ds) -> list:
    return [x.tolist() for x in ds]


def test_transformations_as_tf() -> None:
    ds = Dataset.range(5).apply(e.parallel_interleave(lambda x: Dataset.range(x, x * 10 + 3),
                                                      cycle_length=2, block_length=2))
    assert values(ds)[:12] == [0, 1, 1, 2, 2, 3, 4, 2, 3, 5, 6, 4]
    assert values(ds) == values(Dataset.range(5).interleave(
        lambda x: Dataset.range(x, x * 10 + 3), cycle_length=2, block_length=2))
    assert values(Dataset.range(6).apply(e.shuffle_and_repeat(4, 2, seed=3))) == \
        [0, 3, 2, 1, 4, 5, 0, 4, 1, 5, 3, 2]
    assert values(Dataset.range(5).apply(e.map_and_batch(lambda x: x * 2, 2))) == \
        [[0, 2], [4, 6], [8]]
    assert values(Dataset.range(7).batch(3).apply(e.unbatch()).apply(e.take_while(
        lambda x: x < 5))) == [0, 1, 2, 3, 4]
    assert [b.to_list() for b in Dataset.range(5).batch(2).apply(e.dense_to_ragged_batch(2))] \
        == [[[0, 1], [2, 3]], [[4]]]


def test_sources_and_functions_as_tf() -> None:
    assert [(int(a), b) for a, b in e.from_list([(1, "a"), (2, "b")])] == [(1, b"a"), (2, b"b")]
    assert values(e.Counter(2, 2).take(2)) == [2, 4]
    assert values(e.RandomDataset(seed=42).take(1)) == [2985944072]
    assert e.cardinality(Dataset.range(3)) == 3 and e.UNKNOWN_CARDINALITY == -2
    assert int(e.get_single_element(Dataset.range(1))) == 0
    assert e.get_structure(iter(Dataset.range(2))) == Dataset.range(2).element_spec


def test_other_names_say_they_are_not_provided() -> None:
    with pytest.raises(NotSupportedError, match="CsvDataset is not supported by minibatcher"
                       r"\.tfdata\.experimental: CSV files are not parsed here.*has: AUTOTUNE"):
        _ = e.CsvDataset
    assert not hasattr(e, "__wrapped__")
