"""The ops of issue 13.10 refuse tampered states too (issue 15.7): random tamperings of
real states (the shared check of tamper.py), then the cases an audit found accepted."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minibatcher.errors import CheckpointError
from minibatcher.tfdata import Dataset

from .resume import snapshot
from .tamper import check_tampered, record


def _sequence(n):
    return np.arange(n % 4 + 1, dtype=np.int16)


def _batched_windows(window):
    return window.batch(3)


def _running_sum(total, x):
    return total + x, total * 10 + x


def _mod7(x):
    return x % 7


def _below_20(x):
    return x < 20


def _odd(x):
    return x % 2 == 1


def _plus_one(x):
    return x + 1


def _parity(x):
    return x % 2


# positions inside an input element: which row of it comes next (see test_rebatch_off below);
# scan's state is the user's (see test_a_scan_state_holds_the_user_s_state)
ROWS = frozenset({"off"})
WEAK = {"scan": frozenset({"state"})}
PIPELINES = {
    "padded_batch": lambda: Dataset.range(20).map(_sequence).padded_batch(3),
    "unbatch": lambda: Dataset.range(19).batch(4).unbatch(),
    "rebatch": lambda: Dataset.range(23).batch(4).rebatch(3),
    "rebatch by a list, shuffled": lambda: Dataset.range(23).batch(4).shuffle(3, seed=1)
    .rebatch([2, 0, 3]),
    "window, flat_map": lambda: Dataset.range(20).window(3, shift=2).flat_map(_batched_windows),
    "scan": lambda: Dataset.range(15).scan(np.int64(0), _running_sum),
    "unique": lambda: Dataset.range(30).map(_mod7).unique(),
    "take_while, repeat": lambda: Dataset.range(30).take_while(_below_20).repeat(2),
    "shuffle, cache, repeat": lambda: Dataset.range(10).shuffle(5, seed=1).cache().repeat(3),
    "filter, cache, repeat": lambda: Dataset.range(14).filter(_odd).cache().repeat(3),
    "map, prefetch": lambda: Dataset.range(25).map(_plus_one).prefetch(3),
    "parallel map, batch": lambda: Dataset.range(25).map(_plus_one, num_parallel_calls=3)
    .batch(2),
    "sample_from_datasets": lambda: Dataset.sample_from_datasets(
        [Dataset.range(10), Dataset.range(100, 112)], weights=[0.3, 0.7], seed=4),
    "choose_from_datasets": lambda: Dataset.choose_from_datasets(
        [Dataset.range(8), Dataset.range(100, 108)], Dataset.range(14).map(_parity)),
    "random, repeat": lambda: Dataset.random(seed=3, rerandomize_each_iteration=True).take(6)
    .repeat(3),
    "counter, take": lambda: Dataset.counter(5, 3).take(12),
}


@pytest.fixture(scope="module")
def recorded():
    return {name: record(make, 60) for name, make in PIPELINES.items()}


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(PIPELINES)), data=st.data())
def test_a_tampered_state_is_refused_or_reads_on_exactly(recorded, name, data) -> None:
    states, elements = recorded[name]
    check_tampered(PIPELINES[name], states, elements, data, WEAK.get(name, ROWS))


def test_rebatch_off_is_a_row_of_the_input_element(recorded) -> None:
    """``off`` says which row of the input element comes next; every row in it is a
    place the cursor can be (the batch boundaries of rebatch depend on the rows of
    every earlier input element, which a restore does not read), so an edit within
    the element reads on from that row, and resumes exactly from there on."""
    states, _ = recorded["rebatch"]
    state = copy.deepcopy(states[1])
    assert state["iterator"]["off"] == 3
    state["iterator"]["off"] = 1
    it = iter(PIPELINES["rebatch"]())
    it.set_state(state)
    assert [b.tolist() for b in it][:2] == [[1, 2, 3], [4, 5, 6]]
    state["iterator"]["off"] = 5
    with pytest.raises(CheckpointError, match=r"'iterator\.off' should be an int in \[0, 4\]"):
        iter(PIPELINES["rebatch"]()).set_state(state)


def test_a_cached_iteration_that_is_not_one_is_refused_at_set_state() -> None:
    """Before: a tampered ``shuffles[1].cached`` was accepted by set_state and
    refused at the first next() (here: the state after the last repetition, where
    no cursor reads the cache; see the next test for one that does)."""
    make = PIPELINES["shuffle, cache, repeat"]
    it = iter(make())
    list(it)
    ended = it.get_state()
    assert ended["iterator"]["in"] is None and ended["shuffles"][1]["cached"] is not None
    for edit, field in [({"pos": 3, "pins": {"k": 0, "in": None}},
                         r"'shuffles\[1\]\.cached' should be the input's cursor when the "
                         r"cached iteration began"),
                        ({"pos": 0, "pins": {"k": -1, "in": None}},
                         r"'shuffles\[1\]\.cached\.pins\.k'")]:
        state = copy.deepcopy(ended)
        state["shuffles"][1]["cached"] = edit
        with pytest.raises(CheckpointError, match=field):
            iter(make()).set_state(state)


def test_a_cursor_that_reads_the_cache_needs_that_cache(recorded) -> None:
    """A reading cursor (``mode: read``) at the first repetition, or with no cache
    recorded, was accepted: the cache was rebuilt for it and dropped after it."""
    states, _ = recorded["shuffle, cache, repeat"]
    reading = states[15]["iterator"]["in"]
    assert reading["mode"] == "read"
    state = copy.deepcopy(states[0])
    state["iterator"]["in"] = reading
    with pytest.raises(CheckpointError, match=r"'shuffles\[1\]\.cached' should be "
                       r"iterator\.in\.in0=.* \(the iteration a reading cursor reads"):
        iter(PIPELINES["shuffle, cache, repeat"]()).set_state(state)


def test_a_finite_repeat_has_its_repetition_open(recorded) -> None:
    """``in: None`` at repetition 0 was accepted: the restore opened another shuffle
    iteration than the state's (its next state was then refused)."""
    states, _ = recorded["shuffle, cache, repeat"]
    state = copy.deepcopy(states[0])
    state["iterator"]["in"] = None
    with pytest.raises(CheckpointError, match=r"'iterator\.in' should be the cursor of "
                       r"repetition 0 \(it is open\)"):
        iter(PIPELINES["shuffle, cache, repeat"]()).set_state(state)


def test_a_scan_state_holds_the_user_s_state(recorded) -> None:
    """Scan's state is the user function's state (any value of its structure): its
    values cannot be validated, an edited value reads on from it; one of another
    structure or dtype is refused."""
    states, elements = recorded["scan"]
    state = copy.deepcopy(states[3])
    state["iterator"]["state"] = states[5]["iterator"]["state"]  # the running sum of 0..4
    it = iter(PIPELINES["scan"]())
    it.set_state(state)
    assert [int(x) for x in it][:2] == [10 * 10 + 3, 13 * 10 + 4]  # (0+..+4)*10+3, ...
    other = iter(Dataset.range(15).scan(np.int32(0), _running_sum)).get_state()
    state["iterator"]["state"] = other["iterator"]["state"]  # an int32 state
    with pytest.raises(CheckpointError, match=r"'iterator\.state'"):
        iter(PIPELINES["scan"]()).set_state(state)
