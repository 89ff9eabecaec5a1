"""TFDS 4.9.10's ``core/reader_test.py``, ported with its literal expected values. TFDS's test
writes shards with its writer and reads raw records through a dummy parser; here the shards
are written with TFDS's shard boundaries by our TFRecord writer and ``Reader(None)`` reads the
raw records. TF's ``assert_cardinality`` is the read's own (its cardinality)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import pytest

from minibatcher import tfds
from minibatcher.formats.tfrecord import TFRecordWriter
from minibatcher.tfds.core import naming, splits
from minibatcher.tfds.core.reader import Reader, id_prefixes
from minibatcher.tfds.core.utils import read_config as read_config_lib
from minibatcher.tfds.core.utils import shard_utils

SHUFFLE_FILES_ERROR = ("Dataset is an ordered dataset ('disable_shuffling=True'), but examples "
                       "will not be read in order because `shuffle_files=True`.")
CYCLE_LENGTH_ERROR = ("Dataset is an ordered dataset ('disable_shuffling=True'), but examples "
                      "will not be read in order because `ReadConfig.interleave_cycle_length "
                      "!= 1`.")
FI = shard_utils.FileInstruction


class Fixture:
    def __init__(self, tmp_dir: Path) -> None:
        self.tmp_dir = tmp_dir
        self.reader = Reader(None, "tfrecord")

    def template(self, split: str) -> naming.ShardedFileTemplate:
        return naming.ShardedFileTemplate(dataset_name="mnist", split=split,
                                          filetype_suffix="tfrecord", data_dir=self.tmp_dir)

    def write(self, split: str, num_shards: int, records: str) -> splits.SplitInfo:
        """The records in order, cut at TFDS's shard boundaries."""
        t, start, lengths = self.template(split), 0, []
        for i, end in enumerate(shard_utils.get_shard_boundaries(len(records), num_shards)):
            with TFRecordWriter(t.sharded_filepath(shard_index=i, num_shards=num_shards)) as w:
                w.write_many(c.encode() for c in records[start:end])
            lengths.append(end - start)
            start = end
        return splits.SplitInfo(name=split, shard_lengths=lengths, num_bytes=0,
                                filename_template=t)

    def read(self, instructions: Any, split_infos: list, **kw: Any) -> Any:
        kw.setdefault("read_config", read_config_lib.ReadConfig())
        kw.setdefault("shuffle_files", False)
        return self.reader.read(instructions=instructions, split_infos=split_infos, **kw)


@pytest.fixture
def fx(tmp_path: Path) -> Fixture:
    return Fixture(tmp_path)


def chars(text: str) -> list[bytes]:
    return [c.encode() for c in text]


def test_nodata_instruction(fx: Fixture) -> None:
    info = splits.SplitInfo("train", [2, 3, 2, 3, 2], 0, fx.template("train"))
    with pytest.raises(ValueError, match="corresponds to no data!"):
        fx.read("train[0:0]", [info])


def test_noskip_notake(fx: Fixture) -> None:
    ds = fx.read("train", [fx.write("train", 5, "abcdefghijkl")])
    read_data = list(tfds.as_numpy(ds))
    assert read_data == chars("abcdefghijkl")
    assert ds.cardinality() == len(read_data)


def test_overlap(fx: Fixture) -> None:
    ds = fx.read("train+train[:2]", [fx.write("train", 5, "abcdefghijkl")])
    read_data = list(tfds.as_numpy(ds))
    assert read_data == chars("abcdefghijklab")
    assert ds.cardinality() == len(read_data)


def test_complex(fx: Fixture) -> None:
    train, test = fx.write("train", 5, "abcdefghijkl"), fx.write("test", 3, "mnopqrs")
    assert (train.name, test.name) == ("train", "test")
    assert train.shard_lengths == [2, 3, 2, 3, 2] and test.shard_lengths == [2, 3, 2]
    ds = fx.read("train[1:-1]+test[:-50%]", [train, test])
    read_data = list(tfds.as_numpy(ds))
    assert read_data == chars("bcdefghijkmno")
    assert ds.cardinality() == len(read_data)


def test_shuffle_files(fx: Fixture) -> None:
    ds = fx.read("train", [fx.write("train", 5, "abcdefghijkl")], shuffle_files=True)
    batches = {tuple(b.tolist()) for b in tfds.as_numpy(ds.batch(12).repeat(100))}
    for batch in batches:  # every char exactly once
        assert len(set(batch)) == 12
    assert len(batches) > 10  # 5! arrangements in theory


def test_shuffle_deterministic(fx: Fixture) -> None:
    ds = fx.read("train", [fx.write("train", 5, "abcdefghijkl")], shuffle_files=True,
                 read_config=read_config_lib.ReadConfig(shuffle_seed=123))
    assert list(tfds.as_numpy(ds)) == chars("abklhijcdefg")


def test_4fold(fx: Fixture) -> None:
    info = fx.write("train", 5, "abcdefghijkl")
    tests = fx.read([splits.ReadInstruction("train", from_=k, to=k + 25, unit="%")
                     for k in range(0, 100, 25)], [info])
    trains = fx.read([splits.ReadInstruction("train", to=k, unit="%")
                      + splits.ReadInstruction("train", from_=k + 25, unit="%")
                      for k in range(0, 100, 25)], [info])
    assert [list(d) for d in tfds.as_numpy(tests)] == [chars(s) for s in ("abc", "def", "ghi",
                                                                          "jkl")]
    assert [list(d) for d in tfds.as_numpy(trains)] == [
        chars(s) for s in ("defghijkl", "abcghijkl", "abcdefjkl", "abcdefghi")]


def test_read_files(fx: Fixture) -> None:
    fx.write("train", 4, "abcdefghijkl")
    t = fx.template("train")
    ds = fx.reader.read_files(
        [FI(os.fspath(t.sharded_filepath(shard_index=1, num_shards=4)), 0, -1, 3),
         FI(os.fspath(t.sharded_filepath(shard_index=3, num_shards=4)), 1, 1, 3)],
        read_config=read_config_lib.ReadConfig(), shuffle_files=False)
    assert list(tfds.as_numpy(ds)) == chars("defk")


def test_input_context(fx: Fixture) -> None:
    info = fx.write("train", 5, "abcdefghijkl")
    assert info.shard_lengths == [2, 3, 2, 3, 2]

    def read(num_workers: int, index: int) -> list[bytes]:
        rc = read_config_lib.ReadConfig(input_context=tfds.InputContext(
            num_input_pipelines=num_workers, input_pipeline_id=index))
        return list(tfds.as_numpy(fx.read("train", [info], read_config=rc, shuffle_files=True)))

    assert sorted(read(1, 0)) == chars("abcdefghijkl")
    assert sorted(read(3, 0)) == chars("abhij")  # shards 0, 3
    assert sorted(read(3, 1)) == chars("cdekl")  # shards 1, 4
    assert read(3, 2) == chars("fg")             # shard 2
    assert read(5, 1) == chars("cde")            # one shard per worker
    with pytest.raises(ValueError, match="Cannot shard the pipeline"):
        read(6, 0)


def one_shard(fx: Fixture) -> list[shard_utils.FileInstruction]:
    fx.write("train", 4, "abcdefghijkl")
    path = fx.template("train").sharded_filepath(shard_index=1, num_shards=4)
    return [FI(os.fspath(path), 0, -1, 3)]


def test_shuffle_files_should_be_disabled(fx: Fixture) -> None:
    with pytest.raises(ValueError) as e:
        fx.reader.read_files(one_shard(fx), read_config=read_config_lib.ReadConfig(),
                             shuffle_files=True, disable_shuffling=True)
    assert SHUFFLE_FILES_ERROR in str(e.value)


def test_cycle_length_must_be_one(fx: Fixture) -> None:
    instructions = one_shard(fx)
    fx.reader.read_files(instructions, read_config=read_config_lib.ReadConfig(),
                         shuffle_files=False, disable_shuffling=True)  # cycle length 1 by default
    with pytest.raises(ValueError) as e:
        fx.reader.read_files(instructions,
                             read_config=read_config_lib.ReadConfig(interleave_cycle_length=16),
                             shuffle_files=False, disable_shuffling=True)
    assert CYCLE_LENGTH_ERROR in str(e.value)


def test_ordering_guard(fx: Fixture, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="minibatcher"):
        fx.reader.read_files(one_shard(fx), read_config=read_config_lib.ReadConfig(
            interleave_cycle_length=16, enable_ordering_guard=False), shuffle_files=True,
            disable_shuffling=True)
    assert SHUFFLE_FILES_ERROR + "\n" + CYCLE_LENGTH_ERROR in caplog.messages


def test_assert_cardinality_is_on_by_default(fx: Fixture) -> None:
    # TFDS's test checks that tf.data's assert_cardinality is called with 12; here the
    # read asserts it: its cardinality is 12 (and more examples would raise)
    assert fx.read("train", [fx.write("train", 5, "abcdefghijkl")]).cardinality() == 12


def test_assert_cardinality_can_be_disabled_through_readconfig(fx: Fixture) -> None:
    ds = fx.read("train", [fx.write("train", 5, "abcdefghijkl")],
                 read_config=read_config_lib.ReadConfig(assert_cardinality=False))
    assert ds.cardinality() == -2  # UNKNOWN: not asserted, as an interleave's


def test_shard_api() -> None:
    si = splits.SplitInfo(name="train", shard_lengths=[10, 20, 13], num_bytes=0,
                          filename_template=naming.ShardedFileTemplate(
                              dataset_name="ds_name", split="train", filetype_suffix="tfrecord",
                              data_dir="/path"))
    fi = [FI(f"/path/ds_name-train.tfrecord-0000{i}-of-00003", 0, -1, n)
          for i, n in enumerate([10, 20, 13])]
    sd = splits.SplitDict([si])
    assert sd["train[0shard]"].file_instructions == [fi[0]]
    assert sd["train[1shard]"].file_instructions == [fi[1]]
    assert sd["train[-1shard]"].file_instructions == [fi[-1]]
    assert sd["train[-2shard]"].file_instructions == [fi[-2]]
    assert sd["train[:2shard]"].file_instructions == fi[:2]
    assert sd["train[1shard:]"].file_instructions == fi[1:]
    assert sd["train[-1shard:]"].file_instructions == fi[-1:]
    assert sd["train[1:-1shard]"].file_instructions == fi[1:-1]


def test_get_tfds_id_prefixes_single_directory() -> None:
    fis = [FI("/a/b/f1", 0, -1, 1), FI("/a/b/f2", 0, -1, 1)]
    assert dict(zip([f.filename for f in fis], id_prefixes(fis))) == {"/a/b/f1": "f1",
                                                                      "/a/b/f2": "f2"}


def test_get_tfds_id_prefixes_multiple_directories() -> None:
    fis = [FI(p, 0, -1, 1) for p in ("/a/b/f1", "/a/b/f2", "/x/y/z/f1", "/a/c/f1",
                                     "/a/b/c/d/e/f1")]
    assert dict(zip([f.filename for f in fis], id_prefixes(fis))) == {
        "/a/b/c/d/e/f1": "e/f1", "/a/b/f1": "b/f1", "/a/b/f2": "b/f2", "/a/c/f1": "c/f1",
        "/x/y/z/f1": "z/f1"}
