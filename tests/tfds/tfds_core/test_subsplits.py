"""TFDS 4.9.10's ``core/subsplits_utils_test.py``, ported with its literal expected values."""

from __future__ import annotations

import sys
import types

import pytest

from minibatcher.tfds.core import naming, splits, subsplits_utils
from minibatcher.tfds.even_splits import _EvenSplit


def info(split: str, lengths: list[int]) -> splits.SplitInfo:
    return splits.SplitInfo(name=split, shard_lengths=lengths, num_bytes=0,
                            filename_template=naming.ShardedFileTemplate(
                                dataset_name="mnist", split=split, filetype_suffix="tfrecord",
                                data_dir="/path"))


@pytest.mark.parametrize("num_examples, n, drop_remainder, expected", [
    (9, 1, True, [""]), (9, 2, True, ["[:4]", "[4:8]"]), (9, 3, True, ["[:3]", "[3:6]", "[6:9]"]),
    (9, 4, True, ["[:2]", "[2:4]", "[4:6]", "[6:8]"]), (11, 2, True, ["[:5]", "[5:10]"]),
    (11, 3, True, ["[:3]", "[3:6]", "[6:9]"]), (9, 1, False, [""]),
    (9, 2, False, ["[:5]", "[5:9]"]), (9, 3, False, ["[:3]", "[3:6]", "[6:9]"]),
    (9, 4, False, ["[:3]", "[3:5]", "[5:7]", "[7:9]"]), (11, 3, False, ["[:4]", "[4:8]", "[8:11]"]),
    (11, 4, False, ["[:3]", "[3:6]", "[6:9]", "[9:11]"])])
def test_even_splits(num_examples: int, n: int, drop_remainder: bool,
                     expected: list[str]) -> None:
    sd = splits.SplitDict([info("train", [num_examples])])
    subsplits = subsplits_utils.even_splits("train", n, drop_remainder=drop_remainder)
    assert [sd[s].file_instructions for s in subsplits] == [
        sd[f"train{s}"].file_instructions for s in expected]


def test_even_splits_subsplit() -> None:
    sd = splits.SplitDict([info("train", [2, 3, 2, 3]), info("test", [8])])
    subsplits = subsplits_utils.even_splits("train+test[50%:]", 3)
    expected = ["train[:4]+test[4:6]", "train[4:7]+test[6:7]", "train[7:]+test[7:8]"]
    assert [sd[s].file_instructions for s in subsplits] == [
        sd[s].file_instructions for s in expected]


def test_even_splits_add() -> None:
    sd = splits.SplitDict([info("train", [2, 3, 2, 3]), info("test", [8]),
                           info("validation", [8])])
    split = subsplits_utils.even_splits("train", 3, drop_remainder=True)[0] + "test"
    assert sd[split].file_instructions == sd["train[:3]+test"].file_instructions
    nested = subsplits_utils.even_splits(subsplits_utils.even_splits("validation", n=2)[1], n=2)
    assert sd[nested[0]].file_instructions == sd["validation[4:6]"].file_instructions
    assert sd[nested[1]].file_instructions == sd["validation[6:8]"].file_instructions


def test_split_for_jax_process(monkeypatch: pytest.MonkeyPatch) -> None:
    jax = types.ModuleType("jax")  # one JAX process, as in TFDS's test
    jax.process_index, jax.process_count = (lambda: 0), (lambda: 1)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jax", jax)
    split = subsplits_utils.split_for_jax_process("train")
    assert isinstance(split, _EvenSplit)
    assert (split.split, split.index, split.count) == ("train", 0, 1)
