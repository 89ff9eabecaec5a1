"""TFDS 4.9.10's ``core/utils/shard_utils_test.py``, ported with its literal expected values."""

from __future__ import annotations

import pytest

from minibatcher.tfds.core.utils import shard_utils

FI = shard_utils.FileInstruction


@pytest.mark.parametrize("total_size, num_examples, precise, expected", [
    (137 << 30, 1281167, True, 1024),       # imagenet train, 137 GiB
    (6300 * (1 << 20), 50000, True, 64),    # imagenet evaluation, 6.3 GiB
    (52 << 30, 512, True, 512),             # very large, but few examples, 52 GiB
    (10 << 40, 10**9, True, 11264),         # xxl, 10 TiB
    (10 << 50, 10**11, True, 10487808),     # xxl, 10 PiB, 100B examples
    (10 << 20, 100 * 10**3, True, 1),       # xs, 100 MiB, 100K records
    (400 << 20, 200 * 10**3, True, 4),      # m, 499 MiB, 200K examples
])
def test_get_number_shards_default_config(total_size: int, num_examples: int, precise: bool,
                                          expected: int) -> None:
    assert shard_utils.ShardConfig().get_number_shards(
        total_size=total_size, num_examples=num_examples, uses_precise_sharding=precise) == expected


def test_get_number_shards_if_specified() -> None:
    assert shard_utils.ShardConfig(num_shards=42).get_number_shards(
        total_size=100, num_examples=1, uses_precise_sharding=True) == 42


def test_get_shard_boundaries_no_examples() -> None:
    with pytest.raises(AssertionError, match="No examples were yielded."):
        shard_utils.get_shard_boundaries(num_examples=0, number_of_shards=3)


def test_get_shard_boundaries_not_enough_examples() -> None:
    with pytest.raises(AssertionError, match=r"num_examples \(2\) < number_of_shards \(3\)"):
        shard_utils.get_shard_boundaries(num_examples=2, number_of_shards=3)


@pytest.mark.parametrize("num_examples, number_of_shards, expected", [
    (3, 3, [1, 2, 3]), (4, 3, [1, 3, 4]), (5, 3, [2, 3, 5]), (6, 3, [2, 4, 6])])
def test_shard_boundaries(num_examples: int, number_of_shards: int, expected: list[int]) -> None:
    assert shard_utils.get_shard_boundaries(num_examples, number_of_shards) == expected


def test_read_all_even_sharding() -> None:
    res = shard_utils.get_file_instructions(0, 12, ["f1", "f2", "f3"], [4, 4, 4])
    assert res == [FI("f1", 0, -1, 4), FI("f2", 0, -1, 4), FI("f3", 0, -1, 4)]


def test_read_all_empty_shard() -> None:
    res = shard_utils.get_file_instructions(0, 12, ["f1", "f2", "f3", "f4"], [4, 4, 0, 4])
    assert res == [FI("f1", 0, -1, 4), FI("f2", 0, -1, 4), FI("f4", 0, -1, 4)]


def test_from1_to10() -> None:
    res = shard_utils.get_file_instructions(1, 10, ["f1", "f2", "f3", "f4"], [4, 4, 0, 4])
    assert res == [FI("f1", 1, 3, 4), FI("f2", 0, 4, 4), FI("f4", 0, 2, 4)]


def test_nothing_to_read() -> None:
    for from_, to in [(0, 0), (4, 4), (5, 5)]:
        assert shard_utils.get_file_instructions(from_, to, ["f1", "f2", "f3", "f4"],
                                                 [0, 3, 0, 2]) == []


def test_get_file_instructions_with_subset_and_skip() -> None:
    res = shard_utils.get_file_instructions(from_=156, to=412, filenames=["shard_0.tfrecord"],
                                            shard_lengths=[412], examples_in_shards=[449])
    assert res == [FI("shard_0.tfrecord", skip=156, take=412 - 156, examples_in_shard=449)]


def test_split_file_instruction() -> None:
    fi = FI("data.tfrecord", skip=0, take=-1, examples_in_shard=10)
    assert shard_utils.split_file_instruction(file_instruction=fi, num_splits=3) == [
        FI("data.tfrecord", 0, 4, 10), FI("data.tfrecord", 4, 4, 10), FI("data.tfrecord", 8, 2, 10)]


def test_split_file_instruction_one_example_many_splits() -> None:
    fi = FI("data.tfrecord", skip=0, take=-1, examples_in_shard=1)
    assert shard_utils.split_file_instruction(file_instruction=fi, num_splits=9999) == [
        FI("data.tfrecord", 0, 1, 1)]


@pytest.mark.parametrize("filename, expected", [
    ("/a/b", "/a"), ("a", ""), ("", ""), ("/a/b/c/d", "/a/b/c")])
def test_file_instruction_dirname(filename: str, expected: str) -> None:
    assert FI(filename, 0, -1, 1).dirname() == expected


@pytest.mark.parametrize("filename, expected", [
    ("/a/b", "b"), ("a", "a"), ("", ""), ("/a/b/c/d", "d")])
def test_file_instruction_basename(filename: str, expected: str) -> None:
    assert FI(filename, 0, -1, 1).basename() == expected


@pytest.mark.parametrize("args, expected", [
    (("a", 0, 1, 1), FI("a", 0, 1, 1)), (("a", 0, 1, 2), FI("a", 0, 1, 2)),
    (("a", 0, -1, 1), FI("a", 0, 1, 1)), (("a", 1, -1, 10), FI("a", 1, 9, 10))])
def test_init(args: tuple, expected: shard_utils.FileInstruction) -> None:
    assert FI(*args) == expected


@pytest.mark.parametrize("args, msg", [
    (("a", 0, 1, -42), "examples_in_shard should be >= 0!.+"),
    (("a", -42, 1, 2), "skip should be between 0 and.+"),
    (("a", 0, 2, 1), "skip .+take .+should be <= examples_in_shard.+")])
def test_incorrect_values(args: tuple, msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        FI(*args)
