"""TFDS 4.9.10's ``core/splits_test.py``, ported: the same cases and literal expected values,
against ``minibatcher.tfds`` (written anew; no TFDS code)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from minibatcher import tfds
from minibatcher.tfds.core import file_adapters, naming, proto, splits
from minibatcher.tfds.core.utils import shard_utils
from minibatcher.tfds.testing import features_dict, tensor_feature, write_dataset

FI = shard_utils.FileInstruction


def template(split: str, dataset_name: str = "ds_name", data_dir: str = "/path"
             ) -> naming.ShardedFileTemplate:
    return naming.ShardedFileTemplate(dataset_name=dataset_name, split=split, data_dir=data_dir,
                                      filetype_suffix="tfrecord")


def test_multi_split_infos() -> None:
    infos = [splits.SplitInfo("train", [10, 10], 100, template("train", data_dir="/abc")),
             splits.SplitInfo("train", [1], 20, template("train", data_dir="/xyz"))]
    multi = splits.MultiSplitInfo(name="train", split_infos=infos)
    assert multi.num_bytes == 120
    assert multi.num_examples == 21
    assert multi.num_shards == 3
    assert multi.shard_lengths == [10, 10, 1]
    assert multi.file_instructions == [
        FI("/abc/ds_name-train.tfrecord-00000-of-00002", 0, -1, 10),
        FI("/abc/ds_name-train.tfrecord-00001-of-00002", 0, -1, 10),
        FI("/xyz/ds_name-train.tfrecord-00000-of-00001", 0, -1, 1)]
    assert str(multi) == ("MultiSplitInfo(name='train', split_infos=[<SplitInfo num_examples=20, "
                          "num_shards=2>, <SplitInfo num_examples=1, num_shards=1>])")


# -- SplitDictTest ---------------------------------------------------------------------------

def split_dict() -> splits.SplitDict:
    return splits.SplitDict([splits.SplitInfo("train", [10, 10], 0, template("train")),
                             splits.SplitInfo("test", [1], 0, template("test"))])


def test_get() -> None:
    s = split_dict()["train"]
    assert s.name == "train" and s.num_shards == 2


def test_from_proto() -> None:
    sd = splits.SplitDict.from_proto(
        filename_template=naming.ShardedFileTemplate(dataset_name="ds_name", data_dir="/path",
                                                     filetype_suffix="tfrecord"),
        repeated_split_infos=[proto.SplitInfo(name="validation", shard_lengths=[5], num_bytes=0)])
    assert "validation" in sd and "train" not in sd and "test" not in sd


def test_to_proto() -> None:
    sdp = split_dict().to_proto()
    assert sdp[0].name == "train" and sdp[0].shard_lengths == [10, 10]  # order kept
    assert sdp[1].name == "test" and sdp[1].shard_lengths == [1]


def test_bool() -> None:
    assert not splits.SplitDict([])
    assert splits.SplitDict([splits.SplitInfo("train", [5], 0, template("train"))])


def test_num_shards() -> None:
    sd = splits.SplitDict([splits.SplitInfo("train", [1, 2, 3], 0, template("train"))])
    assert sd["train"].num_shards == 3


def test_empty_split() -> None:
    with pytest.raises(KeyError, match="`splits` is empty"):
        splits.SplitDict([])["train"]


def test_merge_multiple() -> None:
    def info(name: str, lengths: list[int], t: naming.ShardedFileTemplate) -> splits.SplitInfo:
        return splits.SplitInfo(name=name, shard_lengths=lengths, num_bytes=0, filename_template=t)

    ta, tb, tc = (naming.ShardedFileTemplate(dataset_name="ds_name", data_dir=d,
                                             filetype_suffix="tfrecord") for d in "/a /b /c".split())
    a1, a2, a3 = info("train", [1, 2, 3], ta), info("test", [1], ta), info("banana", [1], ta)
    b1, b2 = info("train", [4, 5, 6], tb), info("test", [3], tb)
    c1, c2 = info("train", [8], tc), info("train", [9], tc)
    merged = splits.SplitDict.merge_multiple([
        splits.SplitDict([a1, a2, a3]), splits.SplitDict([b1, b2]),
        splits.SplitDict([splits.MultiSplitInfo(name="train", split_infos=[c1, c2])])])
    assert len(merged.values()) == 3
    assert merged.get("train").split_infos == [a1, b1, c1, c2]
    assert merged.get("test").split_infos == [a2, b2]
    assert merged.get("banana").split_infos == [a3]


def test_multi_split_sub_split() -> None:
    info = splits.MultiSplitInfo(name="train", split_infos=[
        splits.SubSplitInfo("train[:2]", [FI("/a/file-00000-of-00001", 0, 2, 10)]),
        splits.SubSplitInfo("train[:10]", [FI("/b/file-00000-of-00001", 0, 10, 20)])])
    sub = splits.SplitDict([info])["train[:2]"]
    assert sub.name == "train[:2]" and len(sub.file_instructions) == 1
    assert sub.file_instructions[0] == FI("/a/file-00000-of-00001", 0, 2, 10)


def test_multi_split_empty_shard() -> None:
    info = splits.MultiSplitInfo(name="train", split_infos=[
        splits.SplitInfo("train", [5, 0, 5], 0, template("train", data_dir="/abc"))])
    sub = splits.SplitDict([info])["train[:90%]"]
    assert sub.name == "train[:90%]" and sub.num_examples == 9 and sub.shard_lengths == [5, 4]
    assert sub.file_instructions == [FI("/abc/ds_name-train.tfrecord-00000-of-00003", 0, 5, 5),
                                     FI("/abc/ds_name-train.tfrecord-00002-of-00003", 0, 4, 5)]


# -- SplitsTest (TFDS's dummy dataset: 20 train and 10 test examples, one shard each) --------

@pytest.fixture(scope="module")
def dummy(tmp_path_factory: pytest.TempPathFactory) -> tfds.ReadOnlyBuilder:
    folder = write_dataset(tmp_path_factory.mktemp("dummy"), {"train": [20], "test": [10]},
                           name="dummy_dataset_shared_generator",
                           features=features_dict({"x": tensor_feature("int64", [])}),
                           example=lambda split, k: {"x": [k]})
    return tfds.builder_from_directory(folder)


def test_sub_split_num_examples(dummy: tfds.ReadOnlyBuilder) -> None:
    s = dummy.info.splits
    assert s["train[75%:]"].num_examples == 5 and s["train[:75%]"].num_examples == 15
    assert s["train"].num_examples == s["train[75%:]"].num_examples + s[
        "train[:75%]"].num_examples
    assert s["test[75%:]"].num_examples == 2 and s["test[:75%]"].num_examples == 8
    assert s["test"].num_examples == s["test[75%:]"].num_examples + s["test[:75%]"].num_examples
    assert s["all"].num_examples == s.total_num_examples


def test_sub_split_file_instructions(dummy: tfds.ReadOnlyBuilder) -> None:
    assert dummy.info.splits["train[75%:]"].file_instructions == [FI(
        f"{dummy.data_dir}/dummy_dataset_shared_generator-train.tfrecord-00000-of-00001",
        skip=15, take=-1, examples_in_shard=20)]


def test_sub_split_num_shards(dummy: tfds.ReadOnlyBuilder) -> None:
    assert dummy.info.splits["train[75%:]"].num_shards == 1


def test_sub_split_shard_lengths(dummy: tfds.ReadOnlyBuilder) -> None:
    assert dummy.info.splits["train[75%:]"].shard_lengths == [5]


def test_sub_split_to_proto(dummy: tfds.ReadOnlyBuilder) -> None:
    sp = dummy.info.splits["train[75%:]"].to_proto()
    assert sp.name == "train[75%:]" and sp.shard_lengths == [5]


def test_split_file_instructions(dummy: tfds.ReadOnlyBuilder) -> None:
    assert dummy.info.splits["train"].file_instructions == [FI(
        f"{dummy.data_dir}/dummy_dataset_shared_generator-train.tfrecord-00000-of-00001",
        skip=0, take=-1, examples_in_shard=20)]


def test_sub_split_filenames(dummy: tfds.ReadOnlyBuilder) -> None:
    expected = ["dummy_dataset_shared_generator-train.tfrecord-00000-of-00001"]
    assert dummy.info.splits["train"].filenames == expected
    assert dummy.info.splits["train[75%:]"].filenames == expected


def test_sub_split_wrong_key(dummy: tfds.ReadOnlyBuilder) -> None:
    with pytest.raises(ValueError, match="Unknown split 'unknown'"):
        dummy.info.splits["unknown"]


def test_split_enum() -> None:
    assert repr(splits.Split.TRAIN) == "Split('train')"
    assert isinstance(splits.Split.TRAIN, splits.Split)


# -- ReadInstructionTest ---------------------------------------------------------------------

SPLITS = {name: splits.SplitInfo(name, lengths, 0, template(name)) for name, lengths in [
    ("train", [200]), ("test", [101]), ("validation", [30]), ("dev-train", [5, 5])]}


def check_from_ri(ri: splits.AbstractSplit, expected: list[tuple]) -> splits.AbstractSplit:
    assert ri.to_absolute(SPLITS) == [splits.AbsoluteInstruction(*e) for e in expected]
    return ri


def check_from_spec(spec: str, expected: list[tuple]) -> splits.AbstractSplit:
    return check_from_ri(splits.ReadInstruction.from_spec(spec), expected)


def test_valid() -> None:
    ri = check_from_spec("train", [("train", None, None)])
    assert str(ri) == "ReadInstruction('train')"
    check_from_spec("test", [("test", None, None)])
    check_from_spec("train+test", [("train", None, None), ("test", None, None)])
    for spec, expected in [("train[0:0]", (None, 0)), ("train[:10]", (None, 10)),
                           ("train[0:10]", (None, 10)), ("train[-10:]", (190, None)),
                           ("train[-100:-50]", (100, 150)), ("train[-10:200]", (190, None)),
                           ("train[10:-10]", (10, 190)), ("train[42:99]", (42, 99)),
                           ("train[:10%]", (None, 20)), ("train[90%:]", (180, None)),
                           ("train[-1%:]", (198, None)), ("train[:0.5%]", (None, 1)),
                           ("train[4_2:9_9]", (42, 99)), ("train[:1_0%]", (None, 20))]:
        check_from_spec(spec, [("train", *expected)])
    ri = check_from_spec("test[:99%]", [("test", None, 100)])
    assert str(ri) == "ReadInstruction('test[:99%]', rounding='closest')"
    check_from_spec("test[100%:]", [("test", 101, None)])
    pct1 = "pct1_dropremainder"
    check_from_ri(splits.ReadInstruction("train", to=20, unit="%", rounding=pct1),
                  [("train", None, 40)])
    check_from_ri(splits.ReadInstruction("test", to=100, unit="%", rounding=pct1),
                  [("test", None, 100)])
    check_from_ri(splits.ReadInstruction("test", to=99, unit="%", rounding=pct1),
                  [("test", None, 99)])
    check_from_ri(splits.ReadInstruction("test", from_=100, unit="%", rounding=pct1),
                  [("test", 100, None)])
    check_from_spec("validation[:1%]", [("validation", None, 0)])
    check_from_spec("dev-train", [("dev-train", None, None)])


def test_add() -> None:
    ri = (splits.ReadInstruction.from_spec("train[10:20]")
          + splits.ReadInstruction.from_spec("test[10:20]")
          + splits.ReadInstruction.from_spec("train[1:5]"))
    assert str(ri) == ("ReadInstruction('train[10:20]')+ReadInstruction('test[10:20]')"
                       "+ReadInstruction('train[1:5]')")


def test_invalid_rounding() -> None:
    with pytest.raises(ValueError, match="Rounding should be"):
        splits.ReadInstruction("test", unit="%", rounding="unexisting")


def test_invalid_unit() -> None:
    with pytest.raises(ValueError, match="Unit should be"):
        splits.ReadInstruction("test", unit="kg", rounding="closest")


@pytest.mark.parametrize("spec, message", [
    ("validation[:250%:2]", "Unrecognized split format: 'validation[:250%:2]'"),
    ("imaginary", "Unknown split 'imaginary'"),
    ("validation[:31]", "incompatible with 30 examples"),
    ("validation[:250%]", "percent slice boundaries should be in [-100, 100]"),
    ("validation[-101%:]", "percent slice boundaries should be in [-100, 100]"),
])
def test_invalid_spec(spec: str, message: str) -> None:
    with pytest.raises(ValueError) as e:
        splits.ReadInstruction.from_spec(spec).to_absolute(SPLITS)
    assert message in str(e.value)


def test_invalid_spec_pct1_on_small_split() -> None:  # the last case of test_invalid_spec
    with pytest.raises(ValueError, match="with less than 100 elements is forbidden"):
        splits.ReadInstruction("validation", to=99, unit="%",
                               rounding="pct1_dropremainder").to_absolute(SPLITS)


# -- GetDatasetFilesTest ---------------------------------------------------------------------

PATH_PATTERN = "/path/mnist-train.tfrecord-0000%d-of-00005"
MNIST = splits.SplitDict([splits.SplitInfo("train", [3, 2, 3, 2, 3], 0,
                                           template("train", dataset_name="mnist"))])


def files(from_: int | None, to: int | None) -> list[shard_utils.FileInstruction]:
    return MNIST[splits.AbsoluteInstruction("train", from_, to)].file_instructions


def test_no_skip_no_take() -> None:
    assert files(None, None) == [FI(PATH_PATTERN % i, 0, -1, n)
                                 for i, n in enumerate([3, 2, 3, 2, 3])]


def test_skip() -> None:
    assert files(4, None) == [FI(PATH_PATTERN % 1, 1, -1, 2), FI(PATH_PATTERN % 2, 0, -1, 3),
                              FI(PATH_PATTERN % 3, 0, -1, 2), FI(PATH_PATTERN % 4, 0, -1, 3)]


def test_take() -> None:
    assert files(None, 6) == [FI(PATH_PATTERN % 0, 0, -1, 3), FI(PATH_PATTERN % 1, 0, -1, 2),
                              FI(PATH_PATTERN % 2, 0, 1, 3)]


def test_skip_take1() -> None:
    assert files(1, 2) == [FI(PATH_PATTERN % 0, 1, 1, 3)]


def test_skip_take2() -> None:
    assert files(7, 9) == [FI(PATH_PATTERN % 2, 2, -1, 3), FI(PATH_PATTERN % 3, 0, 1, 2)]


def test_touching_boundaries() -> None:
    assert files(0, 0) == [] and files(None, 0) == [] and files(3, 3) == []
    assert files(13, None) == []


def test_missing_shard_lengths() -> None:
    sd = splits.SplitDict([splits.SplitInfo("train", [], 0, template("train", "mnist"))])
    assert sd["train"].file_instructions == []


# -- SplitInfoTest ---------------------------------------------------------------------------

def test_file_spec() -> None:
    info = splits.SplitInfo("train", [1, 2, 3], 42, template("train"))
    assert info.file_spec(file_format=file_adapters.FileFormat.TFRECORD) == \
        "/path/ds_name-train.tfrecord@3"


def test_file_spec_missing_template() -> None:
    info = splits.SplitInfo("train", [1, 2, 3], 42, filename_template=None)
    assert info.file_spec(file_format=file_adapters.FileFormat.TFRECORD) is None


def test_get_available_shards(tmp_path: Path) -> None:
    shard1 = tmp_path / "ds-train.tfrecord-00000-of-00002"
    incorrect = tmp_path / "ds-train.tfrecord-00000-of-12345"
    for p in (shard1, incorrect, tmp_path / "ds-test.tfrecord-00000-of-00001"):
        p.touch()
    info = splits.SplitInfo("train", [1, 2], 42, template("train", "ds", os.fspath(tmp_path)))
    assert sorted(info.get_available_shards(tmp_path, strict_matching=False)) == sorted(
        [shard1, incorrect])
    assert info.get_available_shards(tmp_path, strict_matching=True) == [shard1]
