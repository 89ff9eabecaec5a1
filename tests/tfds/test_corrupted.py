"""Corrupted records in a TFDS folder (DECISIONS.md 14): CRCs are verified by
default; ``ReadConfig(verify_crc=False)`` reads without the data CRC check,
and ``ReadConfig(max_errors=N)`` skips and counts up to N corrupted records
over the whole read, as if they were not in the shards (the other records
keep their positions and ``tfds_id``s). These two fields are ours, not
TFDS's."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from minibatcher import tfds
from minibatcher.errors import ConfigError, ErrorBudgetExceeded, FormatError
from minibatcher.formats.tfrecord import TFRecordFile
from minibatcher.tfds.testing import write_dataset

from ..tfdata.resume import assert_resumes_exactly

LENGTHS = [5, 0, 3, 9]
BAD = {0: [2], 3: [4, 8]}  # shard -> corrupted records (their stored data CRC is flipped)
RC = tfds.ReadConfig(interleave_cycle_length=3, interleave_block_length=2, add_tfds_id=True)


def shard(folder: Path, i: int) -> Path:
    return folder / f"toy-train.tfrecord-{i:05d}-of-{len(LENGTHS):05d}"


def corrupt(path: Path, records: list[int]) -> None:
    """Flips a byte of each record's data CRC (the data itself stays intact)."""
    frames = TFRecordFile(path).frames.tolist()
    data = bytearray(path.read_bytes())
    for r in records:
        end = frames[r + 1] if r + 1 < len(frames) else len(data)
        data[end - 2] ^= 0x5A
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = write_dataset(tmp_path_factory.mktemp("bad"), {"train": LENGTHS})
    for i, records in BAD.items():
        corrupt(shard(d, i), records)
    return d


@pytest.fixture(scope="module")
def without_bad(tmp_path_factory: pytest.TempPathFactory) -> list[int]:
    """The ``id``s TFDS reads from the same shards written without the bad records."""
    keep, k = [], 0
    for i, n in enumerate(LENGTHS):
        keep += [k + j for j in range(n) if j not in BAD.get(i, [])]
        k += n
    lengths = [n - len(BAD.get(i, [])) for i, n in enumerate(LENGTHS)]
    d = write_dataset(tmp_path_factory.mktemp("clean"), {"train": lengths},
                      example=lambda split, g: {"id": [keep[g]], "label": [keep[g] % 10]})
    return [int(x["id"]) for x in tfds.builder_from_directory(d).as_dataset("train",
                                                                             read_config=RC)]


def test_crcs_are_verified_by_default(folder: Path) -> None:
    ds = tfds.builder_from_directory(folder).as_dataset("train", read_config=RC)
    with pytest.raises(FormatError, match=r"toy-train.tfrecord-00000-of-00004: corrupted "
                                          r"record 2 at byte \d+: its data CRC"):
        list(ds)


def test_verify_crc_off_reads_every_record(folder: Path) -> None:
    b = tfds.builder_from_directory(folder)
    rc = dataclasses.replace(RC, verify_crc=False)
    got = [int(x["id"]) for x in b.as_dataset("train", read_config=rc)]
    clean = write_dataset(folder.parent.parent / "clean-all", {"train": LENGTHS})
    expected = [int(x["id"]) for x in tfds.builder_from_directory(clean).as_dataset(
        "train", read_config=RC)]
    assert got == expected and len(got) == 17
    assert tfds.skipped_records(b.as_dataset("train", read_config=rc)) == 0


def test_max_errors_skips_and_counts_as_if_the_records_were_absent(
        folder: Path, without_bad: list[int]) -> None:
    b = tfds.builder_from_directory(folder)
    ds = b.as_dataset("train", read_config=dataclasses.replace(RC, max_errors=3))
    assert tfds.skipped_records(ds) == 0
    first = list(ds.map(lambda x: x).batch(4))  # the count is found through later steps
    got = [int(i) for batch in first for i in batch["id"]]
    assert got == without_bad
    assert tfds.skipped_records(ds.batch(2)) == 3
    ids = [x["tfds_id"] for x in ds]  # the next epoch: each record is counted once
    assert tfds.skipped_records(ds) == 3
    assert b"toy-train.tfrecord-00003-of-00004__4" not in ids
    assert b"toy-train.tfrecord-00003-of-00004__5" in ids  # positions do not shift


def test_the_budget_covers_the_whole_read(folder: Path) -> None:
    ds = tfds.builder_from_directory(folder).as_dataset(
        "train", read_config=dataclasses.replace(RC, max_errors=2))
    with pytest.raises(ErrorBudgetExceeded, match=r"max_errors=2.*toy-train.tfrecord-00003"):
        list(ds)


def test_a_subsplit_counts_only_what_it_reads(folder: Path) -> None:
    ds = tfds.builder_from_directory(folder).as_dataset(
        "train[:4]+train[8:11]", read_config=dataclasses.replace(RC, max_errors=1))
    assert sorted(int(x["id"]) for x in ds) == [0, 1, 3, 8, 9, 10]
    assert tfds.skipped_records(ds) == 1  # shard 3's bad records lie outside the ranges


def test_resume_with_skipped_records(folder: Path) -> None:
    def make():
        rc = dataclasses.replace(RC, max_errors=3, shuffle_seed=4)
        ds = tfds.builder_from_directory(folder).as_dataset("train", shuffle_files=True,
                                                            read_config=rc)
        return ds.shuffle(5, seed=1).batch(3)
    assert assert_resumes_exactly(make) == 5  # 14 examples


@pytest.mark.parametrize("n, m", [(2, 3), (1, 2), (3, 1)])
def test_elastic_resume_with_skipped_records(folder: Path, n: int, m: int) -> None:
    b = tfds.builder_from_directory(folder)
    rc = dataclasses.replace(RC, max_errors=3, shuffle_seed=4)
    read, states = [], []
    for w in range(n):
        wrc = dataclasses.replace(rc, input_context=tfds.InputContext(n, w))
        it = iter(b.as_dataset("train", shuffle_files=True, read_config=wrc).shuffle(3, seed=2))
        read += [x["tfds_id"] for _, x in zip(range(2 + w), it)]
        states.append(json.loads(json.dumps(it.get_state())))
    rest = tfds.elastic_remainder(b, "train", states=states, shuffle_files=True, read_config=rc)
    for j in range(m):
        read += [x["tfds_id"] for x in b.as_dataset(rest.split_for(m, j), read_config=rc)]
    assert len(read) == len(set(read)) == 14


@pytest.mark.parametrize("field, value, message", [
    ("max_errors", -1, "max_errors should be a non-negative int"),
    ("verify_crc", "yes", "option verify_crc should be True or False, but got verify_crc=.yes.")])
def test_bad_values(field: str, value: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        tfds.ReadConfig(**{field: value}).validate()
