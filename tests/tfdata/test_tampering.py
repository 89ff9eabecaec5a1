"""Every field of every tfdata op's cursor is validated (issue 15.7): the reported
cases, then random tamperings of real states from many pipelines."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minibatcher.errors import CheckpointError
from minibatcher.tfdata import Dataset

from .tamper import check_tampered, record


def _odd(x):
    return x % 2 == 1


def _third(x):
    return x % 3 != 0


def _shard_of(s):
    return Dataset.range(10 * s, 10 * s + 4)


def _key(x):
    return x % 3


def _window(key, window):
    return window.batch(3)


def _sequence(n):
    return np.ones(n % 4 + 1, np.int8)


def _gen():
    return iter(range(7))


# addresses below a filter: range-, order- and filter-checked only (see tamper.REFERENCES)
BELOW_A_FILTER = frozenset({"address"})
PIPELINES = {
    "shuffle over a view": lambda: Dataset.range(20).shuffle(5, seed=1).batch(3),
    "unseeded shuffle, filter": lambda: Dataset.range(16).shuffle(4).filter(_third),
    "filter, shuffle": lambda: Dataset.range(30).filter(_odd).shuffle(4, seed=2),
    "shuffle, repeat": lambda: Dataset.range(6).shuffle(3, seed=3).repeat(2),
    "shuffle, map, repeat, filter, shuffle": lambda: Dataset.range(8).shuffle(3, seed=4)
    .map(_key).repeat(3).filter(_odd).shuffle(5, seed=6),
    "interleave over a view": lambda: Dataset.range(5).interleave(_shard_of, cycle_length=2,
                                                                  block_length=2),
    "filter, interleave": lambda: Dataset.range(9).filter(_third).interleave(
        _shard_of, cycle_length=3, block_length=1),
    "group_by_window": lambda: Dataset.range(20).group_by_window(_key, _window, window_size=3),
    "filter, group_by_window": lambda: Dataset.range(25).filter(_odd).group_by_window(
        _key, _window, window_size=3),
    "bucket_by_sequence_length": lambda: Dataset.range(30).map(_sequence)
    .bucket_by_sequence_length(len, [2, 4], [3, 2, 2]),
    "filter, skip, take, shard": lambda: Dataset.range(40).filter(_odd).skip(2).take(12)
    .shard(2, 1),
    "zip, concatenate": lambda: Dataset.zip((Dataset.range(9).filter(_odd),
                                             Dataset.range(5))).concatenate(
        Dataset.zip((Dataset.range(3), Dataset.range(3)))),
    "enumerate, repeat": lambda: Dataset.range(7).filter(_third).enumerate(3).repeat(2),
    "from_generator, batch": lambda: Dataset.from_generator(_gen, output_types=np.int64)
    .batch(2).repeat(2),
}


@pytest.fixture(scope="module")
def recorded():
    return {name: record(make, 60) for name, make in PIPELINES.items()}


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(PIPELINES)), data=st.data())
def test_a_tampered_state_is_refused_or_reads_on_exactly(recorded, name, data) -> None:
    states, elements = recorded[name]
    weak = BELOW_A_FILTER if name.startswith("filter") else frozenset()
    check_tampered(PIPELINES[name], states, elements, data, weak)


def _edit(path: str, value):
    """An edit of one field (``a/b/0``; ``RENAME:x`` renames the last key to ``x``)."""
    def apply(state: dict) -> None:
        *parents, last = path.split("/")
        node = state
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(value, str) and value.startswith("RENAME:"):
            node[value[7:]] = node.pop(last)
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return apply


def _bump(path: str, by: int):
    def apply(state: dict) -> None:
        *parents, last = path.split("/")
        node = state
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[int(last) if isinstance(node, list) else last] += by
    return apply


# (pipeline, step, edit, the field the error names): the cases of issue 15.7 first
CASES = {
    "interleave slot address -1 (gave element 53 for 3)": (
        "interleave over a view", 3, _edit("iterator/slots/0/address", -1),
        r"'iterator\.slots\[0\]\.address'"),
    "a bucket's held element -1 (substituted another element)": (
        "bucket_by_sequence_length", 7, _edit("iterator/groups/0/1/0", -1),
        r"'iterator\.groups\[0\]\[1\]\[0\]'"),
    "filter, shuffle: done=-1 (restored 8 wrong batches)": (
        "filter, shuffle", 7, _edit("iterator/done", -1), r"'iterator\.done'"),
    "pins.k=-1 (OverflowError)": (
        "shuffle over a view", 7, _edit("iterator/pins/k", -1), r"'iterator\.pins\.k'"),
    "emitted=10**18 (MemoryError: std::bad_alloc)": (
        "filter, shuffle", 7, _edit("iterator/emitted", 10**18), r"'iterator\.emitted'"),
    "a renamed pos inside an interleave slot (was accepted)": (
        "interleave over a view", 3, _edit("iterator/slots/1/it/pos", "RENAME:position"),
        r"unknown field 'iterator\.slots\[1\]\.it\.position'"),
    # and more of every op
    "an address that is not its ordinal's": (
        "interleave over a view", 3, _edit("iterator/slots/0/address", 1),
        r"'iterator\.slots\[0\]\.address' should be 0"),
    "an ordinal not taken yet": (
        "interleave over a view", 3, _edit("iterator/slots/1/ordinal", 7),
        r"'iterator\.slots\[1\]\.ordinal'"),
    "two slots holding one element": (
        "filter, interleave", 5, _edit("iterator/slots/1/ordinal", 0),
        r"'iterator\.slots\[1\]\.ordinal'"),
    "an address the filter rejects": (
        "filter, interleave", 5, _edit("iterator/slots/2/address", 3),
        r"'iterator\.slots\[2\]\.address'.*does not pass the filter"),
    "taken not what the input delivered": (
        "interleave over a view", 3, _bump("iterator/taken", 1), r"'iterator\.taken'"),
    "a slot cursor past its dataset": (
        "interleave over a view", 3, _edit("iterator/slots/0/it/pos", 5),
        r"'iterator\.slots\[0\]\.it\.pos'"),
    "a held element of another group": (
        "group_by_window", 4, _edit("iterator/groups/0/1/0", 8),
        r"'iterator\.groups\[0\]\[1\]\[0\]' should be a reference to an element of group 1"),
    "groups out of key order": (
        "group_by_window", 4, _edit("iterator/groups", [[2, [11, 14]], [1, [10, 13]]]),
        r"'iterator\.groups\[1\]\[0\]'"),
    "a full window still held": (
        "group_by_window", 4, _edit("iterator/groups/0/1", [4, 7, 10]),
        r"'iterator\.groups\[0\]\[1\]' should be 1 to 2 references"),
    "references by ordinal over an addressable input": (
        "group_by_window", 4, _edit("iterator/by", "ordinal"), r"'iterator\.by'"),
    "consumed not what the input delivered": (
        "group_by_window", 4, _bump("iterator/consumed", 2), r"'iterator\.consumed'"),
    "emitted out of step with end": (
        "filter, shuffle", 7, _bump("iterator/emitted", 1), r"'iterator\.emitted'"),
    "an input that ended early": (
        "filter, shuffle", 7, _edit("iterator/done", True), r"'iterator\.(emitted|end|done)'"),
    "in0 not at the start of the iteration": (
        "filter, shuffle", 7, _edit("iterator/in0/in/pos", 3), r"'iterator\.in0'"),
    "an iteration the generator count does not know": (
        "shuffle over a view", 7, _edit("iterator/pins/k", 1), r"'shuffles\[0\]\.started'"),
    "pins of another pipeline": (
        "shuffle over a view", 7, _edit("iterator/pins/in", {"k": 0}), r"'iterator\.pins'"),
    "seeds of an unseeded shuffle that differ": (
        "unseeded shuffle, filter", 3, _bump("iterator/in/pins/seeds/0", 1),
        r"'(iterator\.in\.pins|shuffles\[0\])\.seeds'"),
    "a repeat count that is not the plan's": (
        "shuffle, repeat", 3, _edit("iterator/count", 3), r"'iterator\.count'"),
    "a repetition past the count": (
        "shuffle, repeat", 3, _edit("iterator/rep", 2), r"'iterator\.rep'"),
    "concatenate: which input, and none open": (
        "zip, concatenate", 3, _edit("iterator/in", None), r"'iterator\.in'"),
    "take: more left than its count": (
        "filter, skip, take, shard", 3, _edit("iterator/in/left", 13), r"'iterator\.in\.left'"),
    "skip: a skip not done although the input moved": (
        "filter, skip, take, shard", 3, _edit("iterator/in/in/left", 2),
        r"'iterator\.in\.in\.left'"),
    "zip: a cursor missing": (
        "zip, concatenate", 3, _edit("iterator/in/in", [{"pos": 0, "pins": None}]),
        r"'iterator\.in\.in'"),
    "from_generator: more read than it gives": (
        "from_generator, batch", 1, _edit("iterator/in/in/consumed", 99),
        r"'iterator\.in\.in\.consumed'"),
}


@pytest.mark.parametrize("name, step, tamper, field", CASES.values(), ids=CASES.keys())
def test_a_bad_field_is_a_checkpoint_error_naming_it(recorded, name, step, tamper, field) -> None:
    state = copy.deepcopy(recorded[name][0][step])
    tamper(state)
    with pytest.raises(CheckpointError, match=field):
        iter(PIPELINES[name]()).set_state(state)


def test_a_refused_state_leaves_the_iterator_and_its_generators_as_they_were(recorded) -> None:
    make = PIPELINES["shuffle, repeat"]
    states, elements = recorded["shuffle, repeat"]
    dataset = make()
    it = iter(dataset)
    first = [next(it) for _ in range(4)]
    bad = copy.deepcopy(states[9])
    bad["iterator"]["count"] = 5
    with pytest.raises(CheckpointError):
        it.set_state(bad)
    from .resume import snapshot
    assert [snapshot(x) for x in first + list(it)] == elements
    reference = make()
    list(reference)
    assert [snapshot(x) for x in dataset] == [snapshot(x) for x in reference]
