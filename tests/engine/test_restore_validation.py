"""Every field of a restored state is validated: a damaged or edited state is a
CheckpointError naming the field, never a raw TypeError, a shifted stream or a
next_minibatch that spins forever."""

from __future__ import annotations

import copy
import json
import signal
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minibatcher import CheckpointError, MinibatchSource

from ..tfdata.tamper import check_tampered, record
from .fake import ArrayDeserializer
from .resume import Minibatches, hashable

LENGTHS = [1, 3, 2, 5, 1, 4, 2, 2, 6, 1, 3, 1, 2, 4, 1, 1, 2, 3]
CHUNKS = [3, 2, 4, 1, 3, 5]
MODES = {
    "randomized": dict(randomization_window_in_chunks=2, max_sweeps=3),
    "file order, 2 workers": dict(randomize=False, num_workers=2, worker_rank=1, max_sweeps=3),
    "bptt": dict(randomization_window_in_chunks=2, truncation_length=2, max_sweeps=2),
}


def make(mode: str) -> MinibatchSource:
    return MinibatchSource(ArrayDeserializer(CHUNKS, lengths=LENGTHS), **MODES[mode])


def state_after(mode: str, minibatches: int, size: int = 4) -> dict:
    source = make(mode)
    for _ in range(minibatches):
        source.next_minibatch(size)
    return json.loads(json.dumps(source.get_checkpoint_state()))


@contextmanager
def deadline(seconds: int):
    """Fails (instead of hanging the test run) when the block spins."""
    def expired(*_):
        raise AssertionError(f"still running after {seconds} s: the restored source spins")
    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("mode", ["randomized", "file order, 2 workers"])
def test_a_position_inside_a_sequence_is_refused(mode):
    """Before: 50 of 132 positions made next_minibatch spin at 100% CPU, others shifted the stream."""
    state = state_after(mode, 3)
    position = state["enumerator"]["position"]
    for bad in (position + 1, position - 1):
        tampered = copy.deepcopy(state)
        tampered["enumerator"]["position"] = bad
        with pytest.raises(CheckpointError, match=r"field 'enumerator\.position' should be the "
                                                  r"start of a sequence"):
            make(mode).restore_from_checkpoint(tampered)


@pytest.mark.parametrize("bad", [-1, -100, 10**9, 2**64])
def test_a_position_outside_the_epoch_is_refused(bad):
    state = state_after("randomized", 3)
    state["enumerator"]["position"] = bad
    with pytest.raises(CheckpointError, match=r"field 'enumerator\.position' should be an int in "
                                              r"\[0, \d+\]"):
        make("randomized").restore_from_checkpoint(state)


def _set(path: str, value):
    def tamper(state: dict) -> None:
        *parents, last = path.split("/")
        node = state
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if value is KeyError:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return tamper


MALFORMED = {
    "version as a string": (_set("version", "1"), "version"),
    "options not a dict": (_set("options", 5), "'options'"),
    "options missing": (_set("options", KeyError), "'options'"),
    "data not a list": (_set("data", "fake"), "'data'"),
    "data entry not a pair": (_set("data/0", ["fake"]), "'data'"),
    "epoch not a list": (_set("epoch", "0"), "'epoch'"),
    "epoch size a string": (_set("epoch/1", "40"), "'epoch'"),
    "epoch size 0": (_set("epoch/1", 0), "'epoch'"),
    "epoch explicit an int": (_set("epoch/2", 1), "'epoch'"),
    "epoch index without explicit": (_set("epoch/0", 3), "'epoch'"),
    "enumerator a list": (_set("enumerator", [5]), "'enumerator'"),
    "enumerator extra field": (_set("enumerator/extra", 1), "'enumerator'"),
    "enumerator without position": (_set("enumerator/position", KeyError), "'enumerator'"),
    "position a float": (_set("enumerator/position", 12.0), "'enumerator.position'"),
    "position a string": (_set("enumerator/position", "12"), "'enumerator.position'"),
    "position a bool": (_set("enumerator/position", True), "'enumerator.position'"),
    "packer not a dict": (_set("packer", None), "'packer'"),
    "packer with slots outside BPTT": (_set("packer/slots", []), "'packer'"),
}


@pytest.mark.parametrize("tamper, field", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_fields_are_checkpoint_errors_naming_the_field(tamper, field):
    state = state_after("randomized", 3)
    tamper(state)
    with pytest.raises(CheckpointError, match=field):
        make("randomized").restore_from_checkpoint(state)


FILE_ORDER = {
    "counter_sweep negative": (_set("enumerator/counter_sweep", -1), "'enumerator.counter_sweep'"),
    "counter_sweep ahead": (_set("enumerator/counter_sweep", 50), "'enumerator.counter_sweep'"),
    "counter_sweep a string": (_set("enumerator/counter_sweep", "0"), "'enumerator.counter_sweep'"),
}


@pytest.mark.parametrize("tamper, field", FILE_ORDER.values(), ids=FILE_ORDER.keys())
def test_file_order_fields(tamper, field):
    state = state_after("file order, 2 workers", 3)
    tamper(state)
    with pytest.raises(CheckpointError, match=field):
        make("file order, 2 workers").restore_from_checkpoint(state)


BPTT = {
    "slots not a list": (_set("packer/slots", {}), "'packer.slots'"),
    "slot not a pair": (_set("packer/slots/0", [0]), r"'packer.slots\[0\]'"),
    "sequence out of range": (_set("packer/slots/0/1/0/0", 99), r"item 0 sequence"),
    "sequence negative": (_set("packer/slots/0/1/0/0", -1), r"item 0 sequence"),
    "length changed": (_set("packer/slots/0/1/0/1", 99), r"item 0 length"),
    "end_of_sweep an int": (_set("packer/slots/0/1/0/2", 0), r"item 0'"),
    "cursor past the front sequence": (_set("packer/slots/0/0", 99), r"slots\[0\] cursor"),
    "cursor a float": (_set("packer/slots/0/0", 0.5), r"slots\[0\] cursor"),
    # accepted before (the queued sequences dropped; a minibatch marked as ending a sweep)
    "slots emptied mid-epoch": (_set("packer/slots", []), r"'packer\.slots' should be the slots "
                                r"of the epoch's reads \(they are made at its first read"),
    "end_of_sweep on a sequence that ended none": (
        _set("packer/slots/0/1/0/2", True), r"'packer\.slots\[0\] item 0' should be an item whose "
        r"end_of_sweep is False \(sequence 6 is not the last sequence this worker read"),
}


@pytest.mark.parametrize("tamper, field", BPTT.values(), ids=BPTT.keys())
def test_bptt_slot_fields(tamper, field):
    state = state_after("bptt", 3)
    assert state["packer"]["slots"][0][1], "the scenario should leave a queued sequence"
    tamper(state)
    with pytest.raises(CheckpointError, match=field):
        make("bptt").restore_from_checkpoint(state)


def test_a_refused_state_leaves_the_source_as_it_was():
    source, reference = make("randomized"), make("randomized")
    for s in (source, reference):
        s.next_minibatch(4)
    bad = state_after("randomized", 2)
    bad["enumerator"]["position"] += 1
    with pytest.raises(CheckpointError):
        source.restore_from_checkpoint(bad)
    assert source.next_minibatch(4)["x"].keys.tolist() == reference.next_minibatch(4)["x"].keys.tolist()


# where an engine cursor is: a sequence start on the timeline, the file-order worker
# counter's sweep (see tamper.POSITIONS); and which sequence of the right length waits in
# a BPTT slot, the packer's history, not checked (engine/bptt_state.py): read on from it
ENGINE_POSITIONS = frozenset({"position", "counter_sweep"})
WEAK = {"bptt": frozenset({"slots"})}
RECORDED = {mode: record(lambda mode=mode: Minibatches(make(mode), 4), 200, hashable)
            for mode in MODES}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(sorted(MODES)), data=st.data())
def test_any_tampered_state_is_refused_or_reads_on_exactly(mode, data):
    """A random edit of random fields (anywhere in the state): a CheckpointError
    naming the field, or the exact rest of the stream (a position edit: a source
    that resumes exactly along its own stream)."""
    states, minibatches = RECORDED[mode]
    check_tampered(lambda: Minibatches(make(mode), 4), states, minibatches, data,
                   WEAK.get(mode, frozenset()), key=hashable, roots=tuple(states[0]),
                   positions=ENGINE_POSITIONS)
