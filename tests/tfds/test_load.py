"""``tfds.load`` / ``tfds.builder`` over prepared folders, split trees, TFDS's errors for empty
and ordered reads, block length None, optional features (issue 13 items 4, 6 and 11)."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

import numpy as np
import pytest

from minibatcher import tfds
from minibatcher.tfds.testing import DEFAULT_FEATURES, features_dict, tensor_feature

from .helpers import global_ids, make, shard_ids


def test_load_finds_the_latest_prepared_version(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    make(tmp_path, {"train": [3]})                                  # toy/1.0.0
    newer = make(tmp_path / "x", {"train": [2, 2]}).data_dir        # another root
    Path(tmp_path, "toy", "1.2.0").symlink_to(newer)
    ds, info = tfds.load("toy", split="train", data_dir=tmp_path, with_info=True)
    assert info.splits["train"].shard_lengths == [2, 2]             # 1.2.0 > 1.0.0
    assert [int(x["id"]) for x in tfds.as_numpy(ds)] == [0, 1, 2, 3]
    assert tfds.builder("toy:1.0.*", data_dir=tmp_path).info.splits["train"].num_examples == 3
    monkeypatch.setenv("TFDS_DATA_DIR", str(tmp_path))
    assert tfds.builder("toy").data_dir.endswith("1.2.0")


def test_load_refuses_what_is_not_prepared(tmp_path: Path) -> None:
    with pytest.raises(tfds.DatasetNotFoundError, match="does not download or generate"):
        tfds.load("mnist", data_dir=tmp_path)
    make(tmp_path / "cfg", {"train": [1]})  # cfg/toy/1.0.0: 'toy' is a config of dataset 'cfg'
    with pytest.raises(tfds.DatasetNotFoundError, match=r"with the configs \['toy'\]"):
        tfds.load("cfg", data_dir=tmp_path)
    assert tfds.load("cfg/toy", data_dir=tmp_path, split="train", batch_size=-1)["id"].tolist() \
        == [0]
    with pytest.raises(tfds.DatasetNotFoundError, match="namespaces and builder arguments"):
        tfds.load("kaggle:cfg", data_dir=tmp_path)


def test_split_trees_and_all_splits(tmp_path: Path) -> None:
    b = make(tmp_path, {"train": [2, 2], "test": [3]})
    both = b.as_dataset(split=["train[:1]", "test"])
    assert [[int(x["id"]) for x in ds] for ds in both] == [[0], [0, 1, 2]]
    every = b.as_dataset()
    assert sorted(every) == ["test", "train"] and len(list(every["train"])) == 4
    named = b.as_dataset(split={"a": tfds.Split.TEST})
    assert [int(x["id"]) for x in named["a"]] == [0, 1, 2]


def test_block_length_none_is_one(tmp_path: Path) -> None:
    # issue 13.4: TFDS passes None to tf.data's interleave, whose default block length is 1
    b = make(tmp_path, {"train": [10, 10, 10]})
    rc = tfds.ReadConfig(interleave_block_length=None)
    assert shard_ids(b, 6, split="train[:30]", read_config=rc) == [
        "s0:0", "s1:0", "s2:0", "s0:1", "s1:1", "s2:1"]


@pytest.mark.parametrize("split", ["train[:0]", "train[5:5]", "train[25%:25%]"])
def test_empty_reads_raise_as_tfds(tmp_path: Path, split: str) -> None:
    b = make(tmp_path, {"train": [5, 5]})
    with pytest.raises(ValueError, match=r"^Instruction \[\] corresponds to no data!$"):
        b.as_dataset(split)


def test_an_empty_even_splits_part_raises_as_tfds(tmp_path: Path) -> None:
    b = make(tmp_path, {"train": [2]})
    parts = tfds.even_splits("train", 3, drop_remainder=True)  # 0 examples each
    with pytest.raises(ValueError, match=r"Instruction \[\] corresponds to no data!"):
        b.as_dataset(parts[1])


def test_ordered_dataset_guard(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    b = make(tmp_path, {"train": [3, 3]}, extra_info={"disableShuffling": True})
    cycle = "because `ReadConfig.interleave_cycle_length != 1`."
    with pytest.raises(ValueError, match=cycle):
        b.as_dataset("train", read_config=tfds.ReadConfig(interleave_cycle_length=2))
    with pytest.raises(ValueError, match="`shuffle_files=True`.\nDataset is an ordered"):
        b.as_dataset("train", shuffle_files=True,
                     read_config=tfds.ReadConfig(interleave_cycle_length=2, shuffle_seed=1))
    rc = tfds.ReadConfig(interleave_cycle_length=2, interleave_block_length=1,
                         enable_ordering_guard=False)
    with caplog.at_level(logging.WARNING, logger="minibatcher"):
        assert global_ids(b, split="train", read_config=rc) == [0, 3, 1, 4, 2, 5]
    assert any(cycle in m for m in caplog.messages)


def test_optional_and_missing_features_decode_as_tfds(tmp_path: Path) -> None:
    opt = tensor_feature("int32", [], scalar=True)
    opt["tensor"]["optional"] = True
    fopt = tensor_feature("float32", [2])
    fopt["tensor"]["optional"] = True
    feats = features_dict({**DEFAULT_FEATURES["featuresDict"]["features"], "opt": opt,
                           "fopt": fopt, "var": tensor_feature("int64", [-1, 2])})

    def example(split: str, k: int) -> dict:
        ex = {"id": [k], "label": [k % 10]}
        return {**ex, "opt": [k * 3], "fopt": [1.5, 2.5], "var": [k, k]} if k % 2 else ex

    b = make(tmp_path, {"train": [4]}, features=feats, example=example)
    got = list(b.as_dataset("train"))
    assert [int(x["opt"]) for x in got] == [-2147483648, 3, -2147483648, 9]
    assert got[0]["opt"].dtype == np.int32
    assert got[0]["fopt"].tolist() == [np.finfo(np.float32).min] * 2
    assert got[0]["var"].shape == (0, 2) and got[1]["var"].tolist() == [[1, 1]]


def test_autotune_cycle_length_follows_tf_and_the_cpu_budget(tmp_path: Path) -> None:
    from minibatcher.tfdata import Options

    b = make(tmp_path, {"train": [2] * 12})
    options = Options()
    options.autotune.cpu_budget = 7  # TFDS's interleave: AUTOTUNE calls, ceil(7 / 3) = 3 slots
    rc = tfds.ReadConfig(interleave_cycle_length=None, interleave_block_length=1,
                         options=options)
    assert shard_ids(b, 6, split="train", read_config=rc) == [
        "s0:0", "s1:0", "s2:0", "s0:1", "s1:1", "s2:1"]
    rc = tfds.ReadConfig(interleave_cycle_length=None, interleave_block_length=1,
                         options=options, num_parallel_calls_for_interleave_files=None)
    assert shard_ids(b, 8, split="train", read_config=rc)[7] == "s0:1"  # 7 slots
    rest = tfds.elastic_remainder(b, "train", consumed=[5], read_config=dataclasses.replace(
        rc, num_parallel_calls_for_interleave_files=-1))  # 3 slots: s0, s1 read, s2 half
    assert [(f.basename()[-14:-9], f.skip) for f in rest.split_for(1, 0).instructions[:3]] == [
        ("00002", 1), ("00003", 0), ("00004", 0)]
