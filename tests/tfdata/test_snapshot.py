"""``Dataset.save`` / ``Dataset.load``: round trips, TF 2.21's shard and reader orders (cited),
the folder format, errors, and exact resume of a loaded dataset."""

from __future__ import annotations

import json
import multiprocessing
import os

import numpy as np
import pytest

from minibatcher.errors import CheckpointError, NotSupportedError
from minibatcher.tfdata import Dataset, RaggedTensor, TensorSpec, errors

from .resume import assert_resumes_exactly


def test_round_trip_of_structures(tmp_path) -> None:
    path = str(tmp_path / "s")
    rt = RaggedTensor.from_row_lengths(np.arange(3), [2, 1])
    ds = Dataset.from_tensor_slices({"x": np.arange(6).reshape(3, 2), "w": ["a", "bb", ""]})
    ds = Dataset.zip((ds, Dataset.from_tensors(rt).repeat(3)))
    ds.save(path, compression="ZLIB")
    back = list(Dataset.load(path))
    assert [(e[0]["x"].tolist(), e[0]["w"], e[1].to_list()) for e in back] == [
        ([0, 1], b"a", [[0, 1], [2]]), ([2, 3], b"bb", [[0, 1], [2]]), ([4, 5], b"", [[0, 1], [2]])]
    assert Dataset.load(path).element_spec[0] == {"w": TensorSpec([], "string"),
                                                  "x": TensorSpec([2], "int64")}


def test_shards_and_readers_as_tf(tmp_path) -> None:
    path = str(tmp_path / "s")
    Dataset.range(10).save(path, shard_func=lambda x: x % 3)
    assert sorted(os.listdir(path)) == ["shard-00000000.tfrecord", "shard-00000001.tfrecord",
                                        "shard-00000002.tfrecord", "snapshot.json"]
    # TF 2.21 on 2 CPUs: [0, 1, 3, 4, 6, 7, 9, 2, 5, 8] (interleave, cycle_length=cpu_count)
    loaded = [int(x) for x in Dataset.load(path)]
    if multiprocessing.cpu_count() == 2:
        assert loaded == [0, 1, 3, 4, 6, 7, 9, 2, 5, 8]
    assert sorted(loaded) == list(range(10))
    # TF 2.21: [0, 3, 6, 9, 1, 4, 7, 2, 5, 8]
    flat = Dataset.load(path, reader_func=lambda dss: dss.flat_map(lambda x: x))
    assert [int(x) for x in flat] == [0, 3, 6, 9, 1, 4, 7, 2, 5, 8]
    assert Dataset.load(path).cardinality() == 10  # TF: 10, from the snapshot's metadata


def test_format(tmp_path) -> None:
    path = str(tmp_path / "s")
    Dataset.range(3).save(path, compression="GZIP")
    with open(os.path.join(path, "snapshot.json")) as f:
        meta = json.load(f)
    assert meta == {"format": "minibatcher.tfdata.snapshot", "version": 1, "compression": "GZIP",
                    "element_spec": {"TensorSpec": [[], "int64"]},
                    "shards": [{"index": 0, "file": "shard-00000000.tfrecord", "elements": 3}]}
    with open(os.path.join(path, "shard-00000000.tfrecord"), "rb") as f:
        assert f.read(2) == b"\x1f\x8b"  # gzip


def test_errors(tmp_path) -> None:
    with pytest.raises(errors.NotFoundError, match="snapshot element_spec file not found"):
        Dataset.load(str(tmp_path / "nothing"))
    (tmp_path / "tf").mkdir()
    (tmp_path / "tf" / "dataset_spec.pb").write_bytes(b"")
    with pytest.raises(NotSupportedError, match="written by TensorFlow"):
        Dataset.load(str(tmp_path / "tf"))
    path = str(tmp_path / "s")
    Dataset.range(3).save(path)
    with pytest.raises(ValueError, match="compression should be None"):
        Dataset.load(path, compression="GZIP")
    with pytest.raises(ValueError, match="shard_func should return a non-negative integer"):
        Dataset.range(3).save(str(tmp_path / "t"), shard_func=lambda x: -1)
    with pytest.raises(NotSupportedError, match="CheckpointManager"):
        Dataset.range(3).save(str(tmp_path / "u"), checkpoint_args={"directory": "x"})


def test_empty_dataset(tmp_path) -> None:
    path = str(tmp_path / "e")
    Dataset.range(0).save(path)
    assert list(Dataset.load(path)) == [] and Dataset.load(path).element_spec == \
        TensorSpec([], "int64")


def test_loaded_dataset_resumes_and_refuses_changed_files(tmp_path) -> None:
    path = str(tmp_path / "s")
    Dataset.range(20).map(lambda x: (x, x * x)).save(path, shard_func=lambda a, b: a % 4)

    def make():
        return Dataset.load(path).shuffle(6, seed=3).batch(3)
    assert assert_resumes_exactly(make) == 7
    it = iter(make())
    next(it)
    state = it.get_state()
    Dataset.range(21).map(lambda x: (x, x * x)).save(path, shard_func=lambda a, b: a % 4)
    with pytest.raises(CheckpointError, match="load"):
        iter(make()).set_state(state)


def test_cardinality_is_the_saved_count_whatever_the_reader(tmp_path) -> None:
    # TF 2.21: load(path, reader_func=...) has the snapshot's count as cardinality, even when
    # the reader drops elements (a flat_map reader: 6; one that takes 2: 6, yielding [0, 1])
    path = str(tmp_path / "s")
    Dataset.range(6).save(path)
    flat = Dataset.load(path, reader_func=lambda dss: dss.flat_map(lambda x: x))
    assert flat.cardinality() == 6 and [int(x) for x in flat] == list(range(6))
    two = Dataset.load(path, reader_func=lambda dss: dss.flat_map(lambda x: x).take(2))
    assert two.cardinality() == 6 and [int(x) for x in two] == [0, 1]
    assert Dataset.load(path).filter(lambda x: x > 2).cardinality() == -2
