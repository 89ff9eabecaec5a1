"""TFDS's read order (spec §3), on datasets written to disk: interleave on
equal, uneven and empty shards, subsplits, file shuffling (Philox, known
answers from the TFDS guide), per-worker sharding, sort_fn, example ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from minibatcher import tfds

from .helpers import global_ids, make, shard_ids


def test_default_interleave_reads_16_from_each_shard(tmp_path: Path) -> None:
    b = make(tmp_path, {"train": [30, 30, 30]})
    assert global_ids(b, 20, split="train") == list(range(16)) + [30, 31, 32, 33]
    assert global_ids(b, split="train[:25]") == list(range(25))
    # a range over two shards is interleaved too: 16 from shard 0, shard 1's 5, the rest
    assert global_ids(b, split="train[:35]") == list(range(16)) + list(range(30, 35)) + list(
        range(16, 30))
    # take(25) is not train[:25] (spec §3.2)
    assert global_ids(b, 25, split="train") != global_ids(b, split="train[:25]")


def test_cycle_3_block_2(tmp_path: Path) -> None:
    b = make(tmp_path, {"train": [10, 10, 10]})
    rc = tfds.ReadConfig(interleave_cycle_length=3, interleave_block_length=2)
    assert global_ids(b, 14, split="train", read_config=rc) == [
        0, 1, 10, 11, 20, 21, 2, 3, 12, 13, 22, 23, 4, 5]


def test_interleave_on_uneven_and_empty_shards(tmp_path: Path) -> None:
    b = make(tmp_path, {"train": [5, 0, 3, 9, 1, 4, 7, 2]})
    rc = tfds.ReadConfig(interleave_cycle_length=3, interleave_block_length=2)
    # the empty shard 1 has no file instruction; hand-computed with the cursor rules
    expected = ("s0:0 s0:1 s2:0 s2:1 s3:0 s3:1 s0:2 s0:3 s2:2 s3:2 s3:3 s0:4 s4:0 s3:4 s3:5 "
                "s5:0 s5:1 s6:0 s6:1 s3:6 s3:7 s5:2 s5:3 s6:2 s6:3 s3:8 s6:4 s6:5 s7:0 s7:1 "
                "s6:6").split()
    assert shard_ids(b, split="train", read_config=rc) == expected
    assert shard_ids(b, split="train[3:9]", read_config=rc) == [
        "s0:3", "s0:4", "s2:0", "s2:1", "s3:0", "s2:2"]


def test_subsplit_plus_other_split_and_ids(tmp_path: Path) -> None:
    b = make(tmp_path, {"train": [5, 5], "test": [3]})
    rc = tfds.ReadConfig(interleave_cycle_length=1)
    assert shard_ids(b, split="train[10%:20%]+test", read_config=rc) == ["s0:1", "s0:0", "s0:1",
                                                                          "s0:2"]
    ex = next(iter(b.as_dataset("test", read_config=tfds.ReadConfig(add_tfds_id=True))))
    assert ex["tfds_id"] == b"toy-test.tfrecord-00000-of-00001__0"


def test_file_shuffle_matches_the_tfds_guide(tmp_path: Path) -> None:
    # ImageNet has 1024 shards; seed 32 gives shard order 141, 568, 582, 652, 969 and the
    # next iteration 777, 46, 87 (TFDS determinism guide; spec §3.1). One example per shard.
    b = make(tmp_path, {"train": [1] * 1024})
    rc = tfds.ReadConfig(shuffle_seed=32)
    ds = b.as_dataset("train", shuffle_files=True, read_config=rc)
    it = iter(ds)
    assert [int(next(it)["id"]) for _ in range(5)] == [141, 568, 582, 652, 969]
    assert [int(x["id"]) for x in ds.take(3)] == [777, 46, 87]  # a new iteration reshuffles
    fixed = tfds.ReadConfig(shuffle_seed=32, shuffle_reshuffle_each_iteration=False)
    ds = b.as_dataset("train", shuffle_files=True, read_config=fixed)
    assert [int(x["id"]) for x in ds.take(5)] == [int(x["id"]) for x in ds.take(5)]
    # rebuilding the dataset restarts from the first permutation (tensorflow/datasets#3034)
    again = b.as_dataset("train", shuffle_files=True, read_config=tfds.ReadConfig(shuffle_seed=32))
    assert [int(x["id"]) for x in again.take(2)] == [141, 568]


def test_worker_sharding_with_file_shuffle(tmp_path: Path) -> None:
    b = make(tmp_path, {"train": [2] * 6})
    cfg = dict(interleave_cycle_length=1, shuffle_seed=7)
    per_worker = []
    for i in range(2):
        rc = tfds.ReadConfig(input_context=tfds.InputContext(2, i), **cfg)
        per_worker.append(shard_ids(b, split="train", shuffle_files=True, read_config=rc))
    shards = [[int(s.split(":")[0][1:]) for s in w[::2]] for w in per_worker]
    assert sorted(shards[0]) == [0, 2, 4] and sorted(shards[1]) == [1, 3, 5]  # i, i+n, ...
    # every worker uses the same seed: equal file counts give the same local permutation
    assert [s - 1 for s in shards[1]] == shards[0]
    assert sorted(per_worker[0] + per_worker[1]) == sorted(shard_ids(b, split="train"))
    rc = tfds.ReadConfig(input_context=tfds.InputContext(7, 0))
    with pytest.raises(ValueError, match="Cannot shard the pipeline with given `input_context`"):
        b.as_dataset("train", read_config=rc)


def test_sort_fn_and_ordered_datasets(tmp_path: Path) -> None:
    b = make(tmp_path, {"train": [3, 3, 3]})
    rc = tfds.ReadConfig(experimental_interleave_sort_fn=lambda fis: list(reversed(fis)))
    assert global_ids(b, 4, split="train", read_config=rc) == [6, 7, 8, 3]
    ordered = make(tmp_path / "o", {"train": [3, 3]}, extra_info={"disableShuffling": True})
    assert global_ids(ordered, split="train") == list(range(6))  # cycle length 1 by default
    with pytest.raises(ValueError, match="ordered dataset"):
        ordered.as_dataset("train", shuffle_files=True)


def test_as_supervised_and_batches(tmp_path: Path) -> None:
    info = {"supervisedKeys": {"tuple": {"items": [{"featureKey": "id"}, {"featureKey": "label"}]}}}
    b = make(tmp_path, {"train": [7, 5]}, extra_info=info)
    x, y = next(iter(b.as_dataset("train", as_supervised=True, batch_size=4)))
    assert x.tolist() == [0, 1, 2, 3] and y.tolist() == [0, 1, 2, 3]
    whole = b.as_dataset("train", batch_size=-1)  # TFDS: the split's arrays, not a dataset
    assert whole["id"].shape == (12,)
    x, y = b.as_dataset("train[2:]", batch_size=-1, as_supervised=True)
    assert x.tolist() == list(range(2, 12)) and y.tolist() == [i % 10 for i in range(2, 12)]
