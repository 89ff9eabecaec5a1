"""Exact resume of TFDS pipelines: the state JSON-round-tripped before every
element of file shuffle + interleave (uneven and empty shards) + shuffle
buffer + batch restores to the identical remaining stream, and the next
iteration (reshuffled) is identical too (DECISIONS.md 15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from minibatcher import tfds
from minibatcher.errors import CheckpointError
from minibatcher.tfds.testing import write_dataset

from ..tfdata.resume import assert_resumes_exactly

LENGTHS = {"train": [5, 0, 3, 9, 1, 4, 7, 2], "test": [4]}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_dataset(tmp_path_factory.mktemp("resume"), LENGTHS)


def pipeline(folder: Path, split: str = "train", batch: int | None = 4, buffer: int = 7):
    def make():
        rc = tfds.ReadConfig(shuffle_seed=5, interleave_cycle_length=3,
                             interleave_block_length=2, add_tfds_id=True)
        ds = tfds.builder_from_directory(folder).as_dataset(split, shuffle_files=True,
                                                            read_config=rc)
        ds = ds.shuffle(buffer, seed=3)
        return ds.batch(batch) if batch else ds
    return make


def test_every_element_of_shuffle_interleave_buffer_batch(folder: Path) -> None:
    assert assert_resumes_exactly(pipeline(folder)) == 8  # 31 examples in batches of 4


def test_every_element_unbatched_subsplit(folder: Path) -> None:
    assert assert_resumes_exactly(pipeline(folder, "train[10%:90%]+test", None)) == 29


def test_worker_pipelines_resume(folder: Path) -> None:
    def make():
        rc = tfds.ReadConfig(shuffle_seed=9, interleave_cycle_length=2,
                             input_context=tfds.InputContext(2, 1))
        return tfds.builder_from_directory(folder).as_dataset(
            "train", shuffle_files=True, read_config=rc).shuffle(3, seed=1)
    assert assert_resumes_exactly(make) > 10


def test_state_is_small_and_checked(folder: Path) -> None:
    import json

    it = iter(pipeline(folder)())
    for _ in range(3):
        next(it)
    state = it.get_state()
    assert len(json.dumps(state)) < 8000
    other = iter(pipeline(folder, buffer=8)())
    with pytest.raises(CheckpointError):
        other.set_state(state)
