"""The subsplit grammar and arithmetic, hand-computed (spec §2), with TFDS's
exception types and messages."""

from __future__ import annotations

import pytest

from minibatcher import tfds
from minibatcher.tfds.naming import ShardedFileTemplate
from minibatcher.tfds.split_info import SplitDict, SplitInfo
from minibatcher.tfds.splits import AbstractSplit


def split_dict(**lengths: list[int]) -> SplitDict:
    template = ShardedFileTemplate("/d", template="{SPLIT}-{SHARD_INDEX}")
    return SplitDict([SplitInfo(name, ls, 0, template) for name, ls in lengths.items()])


def imagenet() -> SplitDict:
    n, s = 1281167, 1024
    bounds = [0] + [round(n * i / s) for i in range(1, s + 1)]  # TFDS's shard boundaries
    lengths = [b - a for a, b in zip(bounds, bounds[1:])]
    template = ShardedFileTemplate("/d", dataset_name="imagenet2012", filetype_suffix="tfrecord")
    return SplitDict([SplitInfo("train", lengths, 0, template)])


def absolute(splits: SplitDict, spec: str | AbstractSplit) -> list[tuple[str, int, int]]:
    """(split, from, to) with TFDS's open ends (None) resolved to numbers."""
    return [(a.splitname, a.from_ or 0, splits[a.splitname].num_examples if a.to is None
             else a.to) for a in AbstractSplit.from_spec(spec).to_absolute(splits)]


def fi(f: tfds.FileInstruction) -> tuple[str, int, int, int]:
    return (f.basename(), f.skip, f.take, f.examples_in_shard)


@pytest.mark.parametrize("spec, expected", [
    ("train[:25%]", 2), ("train[:35%]", 4), ("train[:15%]", 2),  # round half to even
    ("train[:5]", 5), ("train[-3:]", 3), ("train[5%:3%]", 0), ("train", 10),
    ("train[:-10%]", 9), ("train[12.5%:]", 9),  # 1.25 -> 1
])
def test_closest_rounding_on_ten_examples(spec: str, expected: int) -> None:
    assert split_dict(train=[10])[spec].num_examples == expected


def test_imagenet_percent_slices_both_roundings() -> None:
    splits = imagenet()
    assert splits["train"].shard_lengths[450:455] == [1251, 1251, 1251, 1251, 1252]
    assert absolute(splits, "train[44%:45%]") == [("train", 563713, 576525)]
    pct1 = tfds.ReadInstruction("train", from_=44, to=45, unit="%", rounding="pct1_dropremainder")
    assert absolute(splits, pct1) == [("train", 563684, 576495)]
    assert absolute(splits, "train[-1%:]")[0][1] == 1268355
    last = tfds.ReadInstruction("train", from_=-1, unit="%", rounding="pct1_dropremainder")
    assert absolute(splits, last)[0][1] == 1268356
    fis = splits["train[44%:45%]"].file_instructions
    assert fi(fis[0]) == ("imagenet2012-train.tfrecord-00450-of-01024", 700, 551, 1251)
    assert [f.filename[-14:-9] for f in fis] == [f"{i:05d}" for i in range(450, 461)]
    assert all(f.skip == 0 and f.take == f.examples_in_shard for f in fis[1:-1])
    assert fi(fis[-1])[1:] == (0, 1001, 1251)
    assert splits["train[44%:45%]"].num_examples == 576525 - 563713


def test_shard_units_and_negative_bounds() -> None:
    s = split_dict(train=[3, 0, 4, 5])
    assert absolute(s, "train[2shard]") == [("train", 3, 7)]
    assert absolute(s, "train[:2shard]") == [("train", 0, 3)]
    assert absolute(s, "train[-2shard:]") == [("train", 3, 12)]
    assert absolute(s, "train[1shard:-1shard]") == [("train", 3, 7)]
    assert [fi(f) for f in s["train[2:-3]"].file_instructions] == [
        ("train-00000", 2, 1, 3), ("train-00002", 0, 4, 4), ("train-00003", 0, 2, 5)]


def test_composite_specs_concatenate_in_order() -> None:
    s = split_dict(train=[5, 5], test=[4])
    fis = s["train[10%:20%]+test"].file_instructions
    assert [fi(f) for f in fis] == [("train-00000", 1, 1, 5), ("test-00000", 0, 4, 4)]
    assert s["train[:50%] + train[:25%]"].num_examples == 5 + 2  # overlaps are not rejected
    assert [a[0] for a in absolute(s, "all")] == ["train", "test"]
    assert s["train"].num_examples == 10 and s.total_num_examples == 14


@pytest.mark.parametrize("spec, error, message", [
    ("train[10]", ValueError, "Absolute or percent only support slice syntax."),
    ("train[10%]", ValueError, "Absolute or percent only support slice syntax."),
    ("train[:101%]", ValueError, "When unit=%, percent slice boundaries should be in [-100, 100]"),
    ("all[:5]", NotImplementedError, "'all' does not support slice."),
    ("train[[1]", ValueError, "Unrecognized split format: 'train[[1]'"),
    ("train[1:2:3]", ValueError, "Unrecognized split format: 'train[1:2:3]'"),
    ("train[:]", ValueError, "Unrecognized split format"),
])
def test_parse_errors(spec: str, error: type, message: str) -> None:
    with pytest.raises(error) as e:
        AbstractSplit.from_spec(spec)
    assert message in str(e.value)
    assert str(e.value).startswith(f"Error parsing split {spec!r}. See format at:")


def test_resolution_errors() -> None:
    s = split_dict(train=[10], test=[5])
    unknown = r"Unknown split 'valid'. Should be one of \['train', 'test'\]."
    with pytest.raises(ValueError, match=unknown):
        s["valid"]
    with pytest.raises(ValueError, match=r"Requested slice \[:11\] incompatible with 10 examples."):
        s["train[:11]"]
    with pytest.raises(ValueError, match="less than 100 elements is forbidden"):
        absolute(s, tfds.ReadInstruction("train", to=50, unit="%", rounding="pct1_dropremainder"))
    with pytest.raises(ValueError, match=r"Unit should be one of \['%', 'abs', 'shard'\]. Got 'x'"):
        tfds.ReadInstruction("train", unit="x")
    with pytest.raises(ValueError, match="Rounding should be one of"):
        tfds.ReadInstruction("train", rounding="up")
    with pytest.raises(TypeError, match="Adding split"):
        tfds.ReadInstruction("train") + 3
    # TFDS: a split without examples gives no file instructions (as_dataset then
    # raises "Instruction [] corresponds to no data!")
    assert split_dict(train=[0, 0])["train[:0]"].file_instructions == []


def test_read_instruction_sum_and_repr() -> None:
    ri = tfds.ReadInstruction("test", from_=-2, unit="abs") + "train[1shard:]"
    assert repr(ri) == "ReadInstruction('test[-2:]')+ReadInstruction('train[1shard:]')"
    s = split_dict(train=[3, 4], test=[5])
    assert absolute(s, ri) == [("test", 3, 5), ("train", 3, 7)]


def test_even_splits() -> None:
    s = split_dict(train=[10], validation=[1001, 99], small10=[10])
    parts = tfds.even_splits("train", 3)
    assert [absolute(s, p) for p in parts] == [[("train", 0, 4)], [("train", 4, 7)],
                                               [("train", 7, 10)]]
    parts = tfds.even_splits("train", 3, drop_remainder=True)
    assert [absolute(s, p)[0][1:] for p in parts] == [(0, 3), (3, 6), (6, 9)]
    parts = tfds.even_splits("validation[:1001]+small10", 4)  # part by part
    assert absolute(s, parts[1]) == [("validation", 251, 501), ("small10", 3, 6)]
    assert absolute(s, parts[3]) == [("validation", 751, 1001), ("small10", 8, 10)]
    sub = tfds.even_splits("train[2:]", 2)
    assert [absolute(s, p)[0][1:] for p in sub] == [(2, 6), (6, 10)]
    assert sum(s[p].num_examples for p in tfds.even_splits("train", 4)) == 10


def test_split_for_jax_process_uses_the_process_index(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    fake = types.SimpleNamespace(process_count=lambda: 3, process_index=lambda: 2)
    monkeypatch.setitem(sys.modules, "jax", types.ModuleType("jax"))
    monkeypatch.setattr(sys.modules["jax"], "process_count", fake.process_count, raising=False)
    monkeypatch.setattr(sys.modules["jax"], "process_index", fake.process_index, raising=False)
    s = split_dict(train=[10])
    assert absolute(s, tfds.split_for_jax_process("train")) == [("train", 7, 10)]
    assert absolute(s, tfds.split_for_jax_process("train", drop_remainder=True)) == [
        ("train", 6, 9)]


def test_file_instruction_validation() -> None:
    with pytest.raises(ValueError, match=r"skip \(3\) \+ take \(2\) should be <= examples_in_shard"):
        tfds.FileInstruction("f", 3, 2, 4)
    with pytest.raises(ValueError, match="skip should be between 0 and 4"):
        tfds.FileInstruction("f", -1, 1, 4)
