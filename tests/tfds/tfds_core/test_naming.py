"""TFDS 4.9.10's ``core/naming_test.py``, ported with its literal expected values."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from minibatcher.tfds.core import naming
from minibatcher.tfds.naming import _filename_template_to_regex, _replace_shard_pattern

DEFAULT = naming.ShardedFileTemplate(data_dir=".")
MNIST_DEFAULT = naming.ShardedFileTemplate(data_dir="/path", dataset_name="mnist", split="train",
                                           filetype_suffix="tfrecord")
CUSTOM_NO_EXTRA = naming.ShardedFileTemplate(data_dir="/path", template="{SPLIT}.{SHARD_INDEX}")
CUSTOM_FULL = naming.ShardedFileTemplate(data_dir="/path", template="{SPLIT}.{SHARD_INDEX}",
                                         dataset_name="mnist", split="train",
                                         filetype_suffix="tfrecord")
Info = naming.FilenameInfo
Ref = naming.DatasetReference


@pytest.mark.parametrize("camel, snake", [
    ("HelloWorld", "hello_world"), ("FooBARBaz", "foo_bar_baz"), ("FooBar123", "foo_bar123"),
    ("FooBar123Baz", "foo_bar123_baz"), ("FooBar123baz", "foo_bar123baz")])
def test_camelcase_to_snakecase(camel: str, snake: str) -> None:
    assert naming.camelcase_to_snakecase(camel) == snake


@pytest.mark.parametrize("camel, snake", [
    ("HelloWorld", "hello_world"), ("FooBar123", "foo_bar123"),
    ("FooBar123Baz", "foo_bar123_baz"), ("FooBar123baz", "foo_bar123baz")])
def test_snake_to_camelcase(camel: str, snake: str) -> None:
    assert naming.snake_to_camelcase(snake) == camel
    assert naming.camelcase_to_snakecase(snake) == snake  # a no-op on snake case


@pytest.mark.parametrize("num_shards, first, last", [
    (2, "00000-of-00002", "00001-of-00002"), (12345, "00000-of-12345", "12344-of-12345"),
    (654321, "000000-of-654321", "654320-of-654321")])
def test_sharded_filepaths(num_shards: int, first: str, last: str) -> None:
    t = naming.ShardedFileTemplate(split="train", dataset_name="ds", data_dir="/path",
                                   filetype_suffix="tfrecord")
    names = t.sharded_filepaths(num_shards)
    assert os.fspath(names[0]) == f"/path/ds-train.tfrecord-{first}"
    assert os.fspath(names[-1]) == f"/path/ds-train.tfrecord-{last}"


def test_encryption_suffix() -> None:
    t = naming.ShardedFileTemplate(split="train", dataset_name="ds", data_dir="/path",
                                   filetype_suffix="tfrecord",
                                   template=naming.DEFAULT_FILENAME_TEMPLATE + "%e=1")
    assert [os.fspath(n) for n in t.sharded_filepaths(2)] == [
        f"/path/ds-train.tfrecord-{s}%e=1" for s in ("00000-of-00002", "00001-of-00002")]


@pytest.mark.parametrize("tfds_name, expected", [
    ("ds1", ("ds1", {})), ("ds1:1.2.*", ("ds1", {"version": "1.2.*"})),
    ("ds1/config1", ("ds1", {"config": "config1"})),
    ("ds1/config1:1.*.*", ("ds1", {"config": "config1", "version": "1.*.*"})),
    ("ds1/config1/arg1=val1,arg2=val2",
     ("ds1", {"config": "config1", "arg1": "val1", "arg2": "val2"})),
    ("ds1/config1:1.2.3/arg1=val1,arg2=val*",
     ("ds1", {"config": "config1", "version": "1.2.3", "arg1": "val1", "arg2": "val*"})),
    ("ds1/arg1=val1", ("ds1", {"arg1": "val1"}))])
def test_dataset_name_and_kwargs_from_name_str(tfds_name: str, expected: tuple) -> None:
    name, kwargs = naming.parse_builder_name_kwargs(tfds_name)
    assert (str(name), kwargs) == expected


def test_dataset_name() -> None:
    for name, ns, text in [(naming.DatasetName("ds1"), None, "ds1"),
                           (naming.DatasetName("namespace123:ds1"), "namespace123",
                            "namespace123:ds1"),
                           (naming.DatasetName(name="ds1", namespace="namespace123"),
                            "namespace123", "namespace123:ds1"),
                           (naming.DatasetName(name="ds1"), None, "ds1")]:
        assert name.name == "ds1" and name.namespace == ns
        assert str(name) == text and repr(name) == f"DatasetName({text!r})"
    with pytest.raises(ValueError, match="Mixing args and kwargs"):
        naming.DatasetName("namespace123", name="abc")


@pytest.mark.parametrize("name, result", [
    ("ds1", (naming.DatasetName("ds1"), {})),
    ("ds1:1.0.0", (naming.DatasetName("ds1"), {"version": "1.0.0"})),
    ("ns1:ds1", (naming.DatasetName("ns1:ds1"), {})),
    ("hugging_face:abc", (naming.DatasetName(namespace="hugging_face", name="abc"), {})),
    ("ns_1-b:ds1", (naming.DatasetName(namespace="ns_1-b", name="ds1"), {})),
    ("ns1:ds1:1.0.0", (naming.DatasetName("ns1:ds1"), {"version": "1.0.0"})),
    ("ns1:ds1/conf:1.0.0", (naming.DatasetName("ns1:ds1"), {"version": "1.0.0", "config": "conf"})),
    ("grand-vision:katr/128x128:1.0.0",
     (naming.DatasetName("grand-vision:katr"), {"version": "1.0.0", "config": "128x128"})),
    ("huggingface:swiss_judgment_prediction/all+mt",
     (naming.DatasetName("huggingface:swiss_judgment_prediction"), {"config": "all+mt"}))])
def test_parse_builder_name_kwargs(name: str, result: tuple) -> None:
    assert naming.parse_builder_name_kwargs(name) == result


def test_parse_builder_name_kwargs_with_kwargs() -> None:
    parse = naming.parse_builder_name_kwargs
    assert parse("ds1", data_dir="/abc") == (naming.DatasetName("ds1"), {"data_dir": "/abc"})
    with pytest.raises(TypeError, match="got multiple values for keyword arg"):
        parse("ds1:1.0.0", version="1.0.0")
    with pytest.raises(ValueError, match="Parsing builder name string .* failed"):
        parse("ds/config:ns:1.0.0")


def test_is_valid_dataset_name() -> None:
    assert naming.is_valid_dataset_name("dataset123_abc")
    assert not naming.is_valid_dataset_name("dataset-abc")
    assert not naming.is_valid_dataset_name("dataset.old")


def test_naming_sorted() -> None:
    names = [naming.DatasetName(n) for n in ("zzz:aaa", "aaa:zzz", "aaa:aaa")]
    assert sorted(names) == [naming.DatasetName(n) for n in ("aaa:aaa", "aaa:zzz", "zzz:aaa")]


def test_filename_info_with_small_shard_num() -> None:
    filename = "mnist-test.tfrecord-00000-of-00001"
    assert Info.is_valid(filename)
    info = Info.from_str(filename)
    assert str(info) == filename
    assert (info.dataset_name, info.split, info.filetype_suffix, info.shard_index,
            info.num_shards) == ("mnist", "test", "tfrecord", 0, 1)


def test_filename_info_with_huge_shard_num() -> None:
    names = ["web_image_text-full.tfrecord-056234-of-104448",
             "web_image_text-full.tfrecord-56234-of-104448"]  # backward compatible
    for filename in names:
        assert Info.is_valid(filename)
        info = Info.from_str(filename)
        assert str(info) == names[0]
        assert (info.dataset_name, info.split, info.filetype_suffix, info.shard_index,
                info.num_shards) == ("web_image_text", "full", "tfrecord", 56234, 104448)


def test_filename_info_with_custom_template() -> None:
    info = Info.from_str("test.00042", filename_template=CUSTOM_FULL)
    assert str(info) == "test.00042"
    assert (info.dataset_name, info.split, info.filetype_suffix, info.shard_index,
            info.num_shards) == ("mnist", "test", "tfrecord", 42, None)
    assert not Info.is_valid("test.00042", filename_template=CUSTOM_FULL)  # the train split's
    assert Info.is_valid("test.00042", filename_template=CUSTOM_FULL.replace(split="test"))


def test_filename_info_with_custom_template_missing_fields() -> None:
    assert Info.is_valid("test.00042", filename_template=CUSTOM_NO_EXTRA)
    info = Info.from_str("test.00042", filename_template=CUSTOM_NO_EXTRA)
    assert str(info) == "test.00042"
    assert (info.dataset_name, info.split, info.filetype_suffix, info.shard_index,
            info.num_shards) == (None, "test", None, 42, None)


@pytest.mark.parametrize("filename", ["mnist-train.tfrecord-00000-of-00001",
                                      "mnist123-test.tfrecord-00032-of-01024",
                                      "mni23_st-test.riegeli-00032-of-01024"])
def test_filename_info_valid(filename: str) -> None:
    assert Info.is_valid(filename) and str(Info.from_str(filename)) == filename


def test_filename_info_invalid() -> None:
    assert not Info.is_valid("mnist-train.tfrecord-000-of-001")  # wrong shard number
    with pytest.raises(ValueError, match="Could not parse filename"):
        Info.from_str("mnist-train.tfrecord-000-of-001")


@pytest.mark.parametrize("path, ds, split", [
    ("/path/mnist-train.tfrecord-00032-of-01024", "mnist", "train"),
    ("/path/c4-af-validation.tfrecord-00032-of-01024", "c4", "af-validation"),
    ("/path/c4-bg-Latn-validation.tfrecord-00032-of-01024", "c4", "bg-Latn-validation")])
def test_filename_info_with_path(path: str, ds: str, split: str) -> None:
    assert Info.from_str(path) == Info(dataset_name=ds, split=split, filetype_suffix="tfrecord",
                                       shard_index=32, num_shards=1024,
                                       filename_template=DEFAULT.replace(data_dir="/path"))


def test_sharded_file_template_sharded_filepath() -> None:
    for index, count, suffix in [(0, 1, "00000-of-00001"), (0, 25, "00000-of-00025"),
                                 (10, 25, "00010-of-00025")]:
        assert os.fspath(MNIST_DEFAULT.sharded_filepath(shard_index=index, num_shards=count)) == \
            f"/path/mnist-train.tfrecord-{suffix}"


def test_sharded_file_template_empty_filetype_suffix() -> None:
    with pytest.raises(ValueError, match="Filetype suffix must be a non-empty string: .+"):
        naming.ShardedFileTemplate(data_dir="/path", dataset_name="mnist", filetype_suffix="")


def test_sharded_file_template_empty_split() -> None:
    with pytest.raises(ValueError, match="Split must be a non-empty string: .+"):
        naming.ShardedFileTemplate(data_dir="/path", dataset_name="mnist",
                                   filetype_suffix="tfrecord", split="")


@pytest.mark.parametrize("split_name", [":", ",", "(())"])
def test_sharded_file_template_non_alphanumeric_split(split_name: str) -> None:
    message = ("Split name should contain at least one alphanumeric character. Given split "
               f"name: {split_name}")
    with pytest.raises(ValueError) as e:
        naming.ShardedFileTemplate(data_dir="/path", dataset_name="ds", filetype_suffix="",
                                   split=split_name)
    assert message in str(e.value)


@pytest.mark.parametrize("split_name", ["train", "1", "c", "train_1", "c:"])
def test_sharded_file_template_valid_split(split_name: str) -> None:
    naming.ShardedFileTemplate(data_dir="/path", dataset_name="mnist",
                               filetype_suffix="tfrecord", split=split_name)


def test_sharded_file_template_shard_index() -> None:
    t = naming.ShardedFileTemplate(template="data/mnist-train.tfrecord-{SHARD_INDEX}",
                                   data_dir=Path("/my/path"))
    assert os.fspath(t.sharded_filepath(shard_index=12, num_shards=100)) == \
        "/my/path/data/mnist-train.tfrecord-00012"
    assert os.fspath(t.sharded_filepaths_pattern()) == ("/my/path/data/mnist-train.tfrecord-"
                                                        "[0-9][0-9][0-9][0-9][0-9]-of-"
                                                        "[0-9][0-9][0-9][0-9][0-9]")
    assert os.fspath(t.sharded_filepaths_pattern(num_shards=100)) == \
        "/my/path/data/mnist-train.tfrecord@100"


def test_glob_pattern() -> None:
    t = naming.ShardedFileTemplate(dataset_name="ds", split="train", filetype_suffix="tfrecord",
                                   data_dir=Path("/data"))
    assert t.glob_pattern() == ("/data/ds-train.tfrecord-[0-9][0-9][0-9][0-9][0-9]-of-"
                                "[0-9][0-9][0-9][0-9][0-9]")
    assert t.glob_pattern(num_shards=42) == "/data/ds-train.tfrecord-*-of-00042"


def test_sharded_file_template_sharded_filepath_shard_x_of_y() -> None:
    for template in ("data/mnist-train.tfrecord-{SHARD_INDEX}-of-{NUM_SHARDS}",
                     "data/mnist-train.tfrecord-{SHARD_X_OF_Y}"):
        t = naming.ShardedFileTemplate(template=template, data_dir=Path("/my/path"))
        assert os.fspath(t.sharded_filepath(shard_index=12, num_shards=100)) == \
            "/my/path/data/mnist-train.tfrecord-00012-of-00100"


def test_sharded_file_template_sharded_filepath_shard_x_of_y_more_digits() -> None:
    t = naming.ShardedFileTemplate(template="data/{DATASET}-{SPLIT}.{FILEFORMAT}-{SHARD_X_OF_Y}",
                                   data_dir=Path("/my/path"), dataset_name="mnist",
                                   filetype_suffix="tfrecord", split="train")
    assert os.fspath(t.sharded_filepath(shard_index=12, num_shards=1234567)) == \
        "/my/path/data/mnist-train.tfrecord-0000012-of-1234567"


def test_sharded_file_template_no_template() -> None:
    t = naming.ShardedFileTemplate(data_dir=Path("/my/path"), dataset_name="imagenet",
                                   filetype_suffix="riegeli", split="test")
    assert os.fspath(t.sharded_filepath(shard_index=12, num_shards=100)) == \
        "/my/path/imagenet-test.riegeli-00012-of-00100"


def test_sharded_file_template_no_template_incomplete() -> None:
    t = naming.ShardedFileTemplate(data_dir=Path("/my/path"), dataset_name="imagenet",
                                   filetype_suffix="riegeli")
    with pytest.raises(ValueError, match="Could not format template .+"):
        t.sharded_filepath(shard_index=12, num_shards=100)


def test_sharded_file_template_template_and_properties() -> None:
    t = naming.ShardedFileTemplate(template="data/mnist-{SPLIT}.{FILEFORMAT}-{SHARD_INDEX}",
                                   data_dir=Path("/my/path"), dataset_name="imagenet",
                                   filetype_suffix="riegeli", split="test")
    assert os.fspath(t.sharded_filepath(shard_index=12, num_shards=100)) == \
        "/my/path/data/mnist-test.riegeli-00012"


def test_filepath_prefix() -> None:
    t = naming.ShardedFileTemplate(template="data/mnist-train.tfrecord-{SHARD_INDEX}",
                                   data_dir=Path("/my/path"))
    assert os.fspath(t.filepath_prefix()) == "/my/path/data/mnist-train"


@pytest.mark.parametrize("filepath, expected", [
    ("/path/file-00001-of-01234", "/path/filerepl"),
    ("/path/file.tfrecord-00001-of-01234", "/path/file.tfrecordrepl"),
    ("/path/file42.tfrecord-00001-of-01234", "/path/file42.tfrecordrepl"),
    ("/path/file00001-of-01234", "/path/filerepl"),
    ("/path/file-00001", "/path/filerepl"),
    ("/path/i-look-like-a-shard-000001/file-00001-of-01234",  # a folder like a shard
     "/path/i-look-like-a-shard-000001/filerepl")])
def test_replace_shard_pattern(filepath: str, expected: str) -> None:
    assert _replace_shard_pattern(filepath=filepath, replacement="repl") == expected


def test_replace_shard_pattern_no_suffix_found() -> None:
    with pytest.raises(RuntimeError, match="Should do 1 shard suffix"):
        _replace_shard_pattern(filepath="/path/a/b", replacement="")


def test_filename_template_to_regex() -> None:
    assert _filename_template_to_regex("{DATASET}") == r"(?P<dataset_name>[a-zA-Z][\w]*)"
    assert _filename_template_to_regex(naming.DEFAULT_FILENAME_TEMPLATE) == (
        r"(?P<dataset_name>[a-zA-Z][\w]*)" r"-(?P<split>(\w|-)+)" r"\.(?P<filetype_suffix>\w+)"
        r"-(?P<shard_index>\d{5,})-of-(?P<num_shards>\d{5,})")


def test_filename_template_to_regex_unknown_variables() -> None:
    with pytest.raises(ValueError, match="Regex still contains variables.+"):
        _filename_template_to_regex("{XYZ}")


@pytest.mark.parametrize("name, result", [
    ("mnist-train.tfrecord-00000-of-00001", True), ("xyz-train.tfrecord-00000-of-00001", False),
    ("mnist-xyz.tfrecord-00000-of-00001", False), ("mnist-train.xyz-00000-of-00001", False),
    ("mnist-train.tfrecord-a-of-b", False)])
def test_sharded_file_template_is_valid_default_template(name: str, result: bool) -> None:
    assert MNIST_DEFAULT.is_valid(name) == result


@pytest.mark.parametrize("name, result", [
    ("train.1", False), ("train.00001", True), ("train-00001", False),
    ("train.tfrecord.00001", False), ("mnist-train.tfrecord-00000-of-00001", False)])
def test_sharded_file_template_is_valid_custom_template(name: str, result: bool) -> None:
    assert CUSTOM_FULL.is_valid(name) == result


@pytest.mark.parametrize("name, result", [
    ("mnist-train.tfrecord-00000-of-00001", Info("mnist", "train", "tfrecord", 0, 1, MNIST_DEFAULT)),
    ("mnist-train.tfrecord-00123-of-00456",
     Info("mnist", "train", "tfrecord", 123, 456, MNIST_DEFAULT)),
    ("train1", None)])
def test_sharded_file_template_parse_filename_info(name: str, result: Info | None) -> None:
    assert MNIST_DEFAULT.parse_filename_info(name) == result


@pytest.mark.parametrize("name, result", [
    ("train.00123", Info(None, "train", None, 123, None, CUSTOM_NO_EXTRA)),
    ("mnist-train.tfrecord-00000-of-00001", None), ("train1", None)])
def test_sharded_file_template_parse_filename_info_custom_template(name: str,
                                                                   result: Info | None) -> None:
    assert CUSTOM_NO_EXTRA.parse_filename_info(name) == result


@pytest.mark.parametrize("name, result", [
    ("train.00123", Info("mnist", "train", "tfrecord", 123, None, CUSTOM_FULL)),
    ("test.00042", Info("mnist", "test", "tfrecord", 42, None, CUSTOM_FULL)),
    ("mnist-train.tfrecord-00000-of-00001", None), ("train1", None)])
def test_sharded_file_template_parse_filename_info_custom_template_add_missing(
        name: str, result: Info | None) -> None:
    assert CUSTOM_FULL.parse_filename_info(name) == result


@pytest.mark.parametrize("tfds_name, namespace, split_mapping, data_dir, ds, version, config", [
    ("ds/config:1.2.3", None, None, None, "ds", "1.2.3", "config"),
    ("ds/config:1.2.3", None, None, "/a/b", "ds", "1.2.3", "config"),
    ("ds/config:1.2.3", None, {"x": "y"}, None, "ds", "1.2.3", "config"),
    ("ds:1.2.3", None, None, None, "ds", "1.2.3", None),
    ("ds/config", None, None, None, "ds", None, "config"),
    ("ds", None, None, None, "ds", None, None),
    ("ns:ds/config:1.2.3", "ns", None, "/a/b", "ds", "1.2.3", "config")])
def test_dataset_reference_from_tfds_name(tfds_name: str, namespace: str | None,
                                          split_mapping: dict | None, data_dir: str | None,
                                          ds: str, version: str | None,
                                          config: str | None) -> None:
    actual = Ref.from_tfds_name(tfds_name=tfds_name, split_mapping=split_mapping,
                                data_dir=data_dir)
    assert actual == Ref(dataset_name=ds, namespace=namespace, version=version, config=config,
                         split_mapping=split_mapping, data_dir=data_dir)


@pytest.mark.parametrize("dataset_dir, root, config", [
    ("/data/ds/config/1.2.3", "/data", "config"), ("/data/ds/1.2.3", "/data", None),
    ("/data/ds/config/1.2.3/", "/data", "config"), ("/data/ds/config/1.2.3", "/data/", "config"),
    ("/data/ds/config/1.2.3/", "/data/", "config")])
def test_dataset_reference_from_path(dataset_dir: str, root: str, config: str | None) -> None:
    assert Ref.from_path(dataset_dir=dataset_dir, root_data_dir=root) == Ref(
        dataset_name="ds", version="1.2.3", config=config, data_dir="/data")


@pytest.mark.parametrize("dataset_dir, root", [
    ("/data/ds/config/1.2.3", "/somewhere_else"),          # root is not a prefix
    ("/data/ds/config/another_folder/1.2.3", "/data"),     # too many nested folders
    ("/data/ds/", "/data")])                               # too few
def test_dataset_reference_from_path_invalid(dataset_dir: str, root: str) -> None:
    with pytest.raises(ValueError):
        Ref.from_path(dataset_dir=dataset_dir, root_data_dir=root)


@pytest.mark.parametrize("ds, namespace, version, config, tfds_name", [
    ("ds", "ns", "1.2.3", "config", "ns:ds/config:1.2.3"),
    ("ds", None, "1.2.3", "config", "ds/config:1.2.3"), ("ds", None, "1.2.3", None, "ds:1.2.3"),
    ("ds", None, None, None, "ds")])
def test_dataset_reference_tfds_name(ds: str, namespace: str | None, version: str | None,
                                     config: str | None, tfds_name: str) -> None:
    ref = Ref(dataset_name=ds, namespace=namespace, version=version, config=config)
    assert ref.tfds_name() == tfds_name


def test_dataset_reference_tfds_name_without_version() -> None:
    ref = Ref(dataset_name="ds", version="1.2.3", config="config")
    assert ref.tfds_name(include_version=False) == "ds/config"


@pytest.mark.parametrize("tfds_name, data_dir, dataset_dir", [
    ("ns:ds/config:1.2.3", "/a/b", "/a/b/ds/config/1.2.3"),
    ("ds/config:1.2.3", "/a/b", "/a/b/ds/config/1.2.3"), ("ds:1.2.3", "/a/b", "/a/b/ds/1.2.3")])
def test_dataset_reference_dataset_dir(tfds_name: str, data_dir: str, dataset_dir: str) -> None:
    assert os.fspath(Ref.from_tfds_name(tfds_name=tfds_name,
                                        data_dir=data_dir).dataset_dir()) == dataset_dir
    ref = Ref.from_tfds_name(tfds_name=tfds_name, data_dir="/something/else")
    assert os.fspath(ref.dataset_dir(data_dir=data_dir)) == dataset_dir


def test_dataset_reference_get_split() -> None:
    ref = Ref.from_tfds_name("ds/config:1.2.3", split_mapping={"x": "y"})
    assert (ref.get_split("x"), ref.get_split("y"), ref.get_split("z")) == ("y", "y", "z")


def test_references_for() -> None:
    assert naming.references_for({"one": "ds1/config:1.2.3", "two": "ds2:1.0.0"}) == {
        "one": Ref(dataset_name="ds1", version="1.2.3", config="config"),
        "two": Ref(dataset_name="ds2", version="1.0.0")}


def test_reference_for() -> None:
    assert naming.reference_for("ds/config:1.2.3") == Ref(dataset_name="ds", version="1.2.3",
                                                          config="config")
