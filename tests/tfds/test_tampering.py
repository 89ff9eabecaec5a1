"""Tampered TFDS states (issue 15, 'Done when' 2): as_dataset read states (a
CheckpointError naming the field, or exactly the rest of the stream: the shared check of
tests/tfdata/tamper.py), and elastic states (refused naming what is wrong, or a
remainder that is exactly what the workers' states have left to read)."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minibatcher import tfds
from minibatcher.errors import CheckpointError
from minibatcher.tfds.testing import write_dataset

from ..tfdata.tamper import NAMES_A_FIELD, check_tampered, deadline, record, tamper

LENGTHS = {"train": [5, 0, 3, 9, 1, 4, 7, 2, 6]}
CONFIG = tfds.ReadConfig(shuffle_seed=11, interleave_cycle_length=3, interleave_block_length=2,
                         add_tfds_id=True)


@pytest.fixture(scope="module")
def builder(tmp_path_factory: pytest.TempPathFactory) -> tfds.ReadOnlyBuilder:
    return tfds.builder_from_directory(write_dataset(tmp_path_factory.mktemp("t"), LENGTHS))


READS = {
    "file shuffle, interleave": dict(split="train[3:]"),
    "file shuffle, interleave, shuffle": dict(split="train", tail=True),
    "one file at a time, repeated files": dict(
        split="train", interleave_cycle_length=1, interleave_block_length=40,
        repeat_filenames=True, assert_cardinality=False, take=60),
    "input context 1 of 2, shuffle": dict(split="train", input_context=tfds.InputContext(2, 1),
                                          tail=True),
}


def _read(builder: tfds.ReadOnlyBuilder, split: str, tail: bool = False, take: int = 0,
          **options: Any):
    rc = dataclasses.replace(CONFIG, **options)
    ds = builder.as_dataset(split, shuffle_files=True, read_config=rc)
    ds = ds.shuffle(4, seed=2) if tail else ds
    return ds.take(take) if take else ds


@pytest.fixture(scope="module")
def recorded(builder):
    return {name: record(lambda kw=kw: _read(builder, **kw), 200) for name, kw in READS.items()}


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(READS)), data=st.data())
def test_a_tampered_read_state_is_refused_or_reads_on_exactly(builder, recorded, name,
                                                              data) -> None:
    states, elements = recorded[name]
    assert 5 < len(elements) < 200
    check_tampered(lambda: _read(builder, **READS[name]), states, elements, data)


def _worker(builder: tfds.ReadOnlyBuilder, n: int, w: int):
    rc = dataclasses.replace(CONFIG, input_context=tfds.InputContext(n, w))
    return builder.as_dataset("train", shuffle_files=True, read_config=rc).shuffle(4, seed=2)


def _left(builder: tfds.ReadOnlyBuilder, n: int, w: int, state: dict) -> list[bytes]:
    """What worker ``w`` of ``n`` still reads after ``state`` (a restore it must accept)."""
    it = iter(_worker(builder, n, w))
    it.set_state(state)
    return [x["tfds_id"] for x in it]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 3), data=st.data())
def test_tampered_elastic_states_are_refused_or_give_what_is_left(builder, n, data) -> None:
    """One worker's state edited at random: elastic_remainder refuses the set naming
    what is wrong, or its remainder is exactly what the states have left to read."""
    states = []
    for w in range(n):
        it = iter(_worker(builder, n, w))
        for _ in range(data.draw(st.integers(0, 14), label=f"steps of worker {w}")):
            next(it, None)
        states.append(json.loads(json.dumps(it.get_state())))
    w = data.draw(st.integers(0, n - 1), label="edited worker")
    edited = copy.deepcopy(states)
    edits = tamper(edited[w], data, states)
    with deadline(20):
        try:
            rest = tfds.elastic_remainder(builder, "train", states=edited, shuffle_files=True,
                                          read_config=CONFIG)
        except CheckpointError as e:
            assert NAMES_A_FIELD.search(str(e)) or "states[" in str(e), \
                f"edits {edits}: the error names no field: {e}"
            return
        left = [x for v in range(n) for x in _left(builder, n, v, edited[v])]
        got = [x["tfds_id"] for x in builder.as_dataset(rest.split_for(1, 0), read_config=CONFIG)]
    assert Counter(got) == Counter(left), f"edits {edits}: the remainder is not what is left"


def _states(builder: tfds.ReadOnlyBuilder, steps: list[int]) -> list[dict]:
    out = []
    for w, k in enumerate(steps):
        it = iter(_worker(builder, len(steps), w))
        for _ in range(k):
            next(it)
        out.append(json.loads(json.dumps(it.get_state())))
    return out


def _refused(builder: tfds.ReadOnlyBuilder, states: list[dict], field: str) -> None:
    with pytest.raises(CheckpointError, match=field):
        tfds.elastic_remainder(builder, "train", states=states, shuffle_files=True,
                               read_config=CONFIG)


def test_elastic_refuses_what_a_restore_refuses(builder) -> None:
    """Accepted before: elastic_remainder read fewer fields than a restore checks."""
    states = _states(builder, [3, 5])
    bad = copy.deepcopy(states)
    bad[0]["iterator"]["done"] = True  # a shuffle whose input has examples left
    _refused(builder, bad, r"'states\[0\]\.iterator\.(end|done)'")
    bad = copy.deepcopy(states)
    bad[1]["iterator"]["done"] = []
    _refused(builder, bad, r"'states\[1\]\.iterator\.done' should be a bool")
    bad = copy.deepcopy(states)
    bad[0]["shuffles"][0]["started"] = 0  # the file shuffle's iteration 0 was started
    _refused(builder, bad, r"'states\[0\]\.shuffles\[0\]\.started' should be at least 1")
    bad = copy.deepcopy(states)
    del bad[1]["shuffles"]
    _refused(builder, bad, r"lacks the field 'states\[1\]\.shuffles'")
    bad = copy.deepcopy(states)
    bad[0]["iterator"]["in0"]["order"]["pos"] = False  # a bool, equal to 0 in Python
    _refused(builder, bad, r"'states\[0\]\.iterator\.in0\.order'")


def test_elastic_names_the_epoch_that_differs(builder) -> None:
    states = _states(builder, [3, 5])
    states[1]["iterator"]["in0"]["epoch"] = 1
    _refused(builder, states, r"'states\[1\]\.iterator\.in0\.epoch' should be 0, the epoch of "
                              r"states\[0\] \(the states are from different epochs")


def test_a_repeated_file_order_restores_into_a_dataset_iterated_before(builder) -> None:
    """A genuine state of a read that repeats its shuffled files was refused when
    restored into a dataset object iterated before (the replay of the file order
    drew that object's next iterations instead of the state's)."""
    def make():
        return _read(builder, **READS["one file at a time, repeated files"])

    it = iter(make())
    for _ in range(40):
        next(it)
    state, rest = json.loads(json.dumps(it.get_state())), [x["tfds_id"] for x in it]
    dataset = make()
    for _ in range(3):
        list(dataset.take(2))
    again = iter(dataset)
    again.set_state(state)
    assert [x["tfds_id"] for x in again] == rest
    state["shuffles"][0]["started"] += 1  # the next repetition would draw another iteration
    with pytest.raises(CheckpointError, match=r"'shuffles\[0\]\.started' should be \d+ \(the "
                       r"iteration the next repetition of iterator\.in\.order takes"):
        iter(make()).set_state(state)
