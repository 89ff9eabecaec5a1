"""as_dataset's read as a tfdata op (issue 18.5): its own plan step and cursor, exact
resume (with files repeated too), validated restores (random tampering: a CheckpointError
naming the field, or exactly the remaining stream), TFDS's assert_cardinality."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from minibatcher import tfds
from minibatcher.errors import CheckpointError
from minibatcher.tfdata import errors
from minibatcher.tfdata.iterator import plan_of
from minibatcher.tfds.testing import write_dataset

from ..tfdata.resume import assert_resumes_exactly, snapshot

LENGTHS = {"train": [5, 0, 3, 9, 1, 4, 7, 2], "test": [4]}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_dataset(tmp_path_factory.mktemp("read"), LENGTHS)


def read(folder: Path, split: str = "train", **kw: Any):
    rc = tfds.ReadConfig(**{"shuffle_seed": 5, "interleave_cycle_length": 3,
                            "interleave_block_length": 2, "add_tfds_id": True, **kw})
    return tfds.builder_from_directory(folder).as_dataset(split, shuffle_files=True,
                                                          read_config=rc)


def test_the_read_is_one_plan_step(folder: Path) -> None:
    assert [op for op, _ in plan_of(read(folder))] == ["source", "shuffle",
                                                       "tfds_read"]
    options = dict(plan_of(read(folder))[-1][1])
    assert (options["instructions"], options["cycle_length"], options["block_length"],
            options["cardinality"]) == (7, 3, 2, 31)


def test_cardinality_as_tfds(folder: Path) -> None:
    assert read(folder).cardinality() == 31
    assert read(folder, "train[2:9]").map(lambda x: x).cardinality() == 7
    assert read(folder, assert_cardinality=False).cardinality() == -2  # UNKNOWN
    ctx = tfds.InputContext(2, 0)
    assert read(folder, input_context=ctx).cardinality() == -2  # TFDS asserts without contexts


def test_repeated_files_end_as_tfds_asserts(folder: Path) -> None:
    it = iter(read(folder, "test", repeat_filenames=True))
    assert len([next(it) for _ in range(4)]) == 4
    with pytest.raises(errors.FailedPreconditionError, match=r"^Input dataset was expected to "
                       r"contain 4 elements but contained at least 5 elements\.$"):
        next(it)
    endless = read(folder, "test", repeat_filenames=True, assert_cardinality=False)
    assert len(list(endless.take(10))) == 10


def test_a_backwards_slice_reads_as_tfds(folder: Path) -> None:
    # train[4:2]: TFDS cuts shard 0 at skip=4, take=2-4=-2 (kept: only -1 means "to the end"),
    # asserts a cardinality of -2 and so fails at the first example (seen with TFDS 4.9.10)
    b = tfds.builder_from_directory(folder)
    assert [(f.skip, f.take) for f in b.info.splits["train[4:2]"].file_instructions] == [(4, -2)]
    with pytest.raises(errors.FailedPreconditionError, match=r"expected to contain -2 elements "
                       r"but contained at least 1 element\.$"):
        list(b.as_dataset("train[4:2]"))
    rc = tfds.ReadConfig(assert_cardinality=False, add_tfds_id=True)
    assert [x["tfds_id"] for x in b.as_dataset("train[4:2]", read_config=rc)] == [
        b"toy-train.tfrecord-00000-of-00008__4"]  # TF's take(-2) reads to the end


@pytest.mark.parametrize("kw", [{}, {"repeat_filenames": True, "assert_cardinality": False},
                                {"input_context": tfds.InputContext(3, 2)},
                                {"interleave_cycle_length": 1, "interleave_block_length": 40}])
def test_resumes_exactly(folder: Path, kw: dict) -> None:
    assert assert_resumes_exactly(lambda: read(folder, **kw).take(40), max_steps=45) > 5


def _leaves(state: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(state, dict):
        return [p for k, v in state.items() for p in _leaves(v, path + (k,))]
    if isinstance(state, list):
        return [p for i, v in enumerate(state) for p in _leaves(v, path + (i,))]
    return [path]


def _set(state: Any, path: tuple, value: Any) -> None:
    for k in path[:-1]:
        state = state[k]
    state[path[-1]] = value


def test_tampered_read_states_are_refused_or_exact(folder: Path) -> None:
    """Any edit of the read's cursor is refused naming the field, or reads on exactly;
    moving ``ci`` to another open slot is a cursor at another place (then the restored
    iterator must resume exactly along its own stream)."""
    rng = random.Random(7)
    ds = read(folder, "train[3:]")
    it = iter(ds)
    for _ in range(11):
        next(it)
    state = json.loads(json.dumps(it.get_state()))
    truth = [snapshot(x) for x in it]
    paths = [p for p in _leaves(state["iterator"]) if p]
    for trial in range(120):
        path = rng.choice(paths)
        bad = copy.deepcopy(state)
        _set(bad["iterator"], path, rng.choice([-1, 0, 1, 2, 3, 10**18, "x", None, True, 1.5]))
        fresh = iter(read(folder, "train[3:]"))
        try:
            fresh.set_state(bad)
        except CheckpointError as e:
            assert "field 'iterator." in str(e) or "field 'state" in str(e), (path, e)
            continue
        if path == ("ci",):
            assert_resumes_along(folder, bad)
        else:
            assert [snapshot(x) for x in fresh] == truth, (trial, path, bad)


def assert_resumes_along(folder: Path, state: dict) -> None:
    it = iter(read(folder, "train[3:]"))
    it.set_state(state)
    states, rest = [], []
    for x in it:
        states.append(json.loads(json.dumps(it.get_state())))
        rest.append(snapshot(x))
    for j in range(0, len(states), 3):
        again = iter(read(folder, "train[3:]"))
        again.set_state(states[j])
        assert [snapshot(x) for x in again] == rest[j + 1:]
