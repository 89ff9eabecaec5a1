"""Issue 15.6: ``elastic_remainder`` refuses states that are not one complete, consistent
set (each refusal names what differs); before, each of these silently lost and duplicated
examples."""

from __future__ import annotations

import dataclasses
import json

import pytest

from minibatcher import tfds
from minibatcher.errors import CheckpointError
from minibatcher.tfds.testing import write_dataset

CONFIG = tfds.ReadConfig(shuffle_seed=11, interleave_cycle_length=3, interleave_block_length=2,
                         add_tfds_id=True)


@pytest.fixture(scope="module")
def builder(tmp_path_factory: pytest.TempPathFactory) -> tfds.ReadOnlyBuilder:
    folder = write_dataset(tmp_path_factory.mktemp("el"), {"train": [5, 0, 3, 9, 1, 4, 7, 2, 6]})
    return tfds.builder_from_directory(folder)


def states_of(builder: tfds.ReadOnlyBuilder, n: int, steps: list[int], epochs: list[int] | None
              = None, config: tfds.ReadConfig = CONFIG) -> list[dict]:
    out = []
    for w in range(n):
        rc = dataclasses.replace(config, input_context=tfds.InputContext(n, w))
        ds = builder.as_dataset("train", shuffle_files=True, read_config=rc).shuffle(4, seed=2)
        for _ in range((epochs or [0] * n)[w]):
            list(ds)
        it = iter(ds)
        for _ in range(steps[w]):
            next(it)
        out.append(json.loads(json.dumps(it.get_state())))
    return out


def remainder(builder: tfds.ReadOnlyBuilder, states: list[dict], **kw: object) -> object:
    return tfds.elastic_remainder(builder, "train", states=states, shuffle_files=True,
                                  read_config=kw.pop("read_config", CONFIG), **kw)


def test_a_consistent_set_is_accepted(builder: tfds.ReadOnlyBuilder) -> None:
    assert remainder(builder, states_of(builder, 2, [5, 3])).num_examples == 37 - 8


def test_swapped_worker_order(builder: tfds.ReadOnlyBuilder) -> None:
    a, b = states_of(builder, 2, [5, 3])
    with pytest.raises(CheckpointError, match=r"states\[0\] is not worker 0's state of this "
                       r"read: it was taken with input_context=InputContext\(2, 1\), but this "
                       r"elastic restore \(2 states\) has input_context=InputContext\(2, 0\)"):
        remainder(builder, [b, a])


def test_another_shuffle_seed(builder: tfds.ReadOnlyBuilder) -> None:
    states = states_of(builder, 2, [5, 3])
    with pytest.raises(CheckpointError, match="file shuffle seeds=.*shuffle_seed"):
        remainder(builder, states, read_config=dataclasses.replace(CONFIG, shuffle_seed=12))


def test_states_of_three_workers_passed_as_two(builder: tfds.ReadOnlyBuilder) -> None:
    states = states_of(builder, 3, [2, 2, 2])
    with pytest.raises(CheckpointError, match=r"InputContext\(3, 0\), but this elastic restore "
                       r"\(2 states\) has input_context=InputContext\(2, 0\)"):
        remainder(builder, states[:2])


def test_the_same_state_twice(builder: tfds.ReadOnlyBuilder) -> None:
    a, _ = states_of(builder, 2, [5, 3])
    with pytest.raises(CheckpointError, match=r"states\[0\] and states\[1\] are the same state"):
        remainder(builder, [a, a])


def test_worker_0_state_given_for_both_after_different_steps(builder: tfds.ReadOnlyBuilder
                                                             ) -> None:
    a1, _ = states_of(builder, 2, [5, 3])
    a2, _ = states_of(builder, 2, [2, 3])
    with pytest.raises(CheckpointError, match=r"states\[1\] is not worker 1's state"):
        remainder(builder, [a1, a2])


def test_states_from_different_epochs(builder: tfds.ReadOnlyBuilder) -> None:
    states = states_of(builder, 2, [5, 3], epochs=[0, 1])
    with pytest.raises(CheckpointError, match=r"different epochs \(\[0, 1\]"):
        remainder(builder, states)


def test_another_split_or_interleave(builder: tfds.ReadOnlyBuilder) -> None:
    states = states_of(builder, 2, [5, 3])
    with pytest.raises(CheckpointError, match="block_length=2, but this elastic restore has "
                                              "block_length=3"):
        remainder(builder, states, read_config=dataclasses.replace(CONFIG,
                                                                   interleave_block_length=3))
    with pytest.raises(CheckpointError, match="is not worker 0's state"):
        tfds.elastic_remainder(builder, "train[1:]", states=states, shuffle_files=True,
                               read_config=CONFIG)


def test_a_tampered_read_cursor_names_the_field(builder: tfds.ReadOnlyBuilder) -> None:
    a, b = states_of(builder, 2, [0, 3])
    b = json.loads(json.dumps(b))
    b["iterator"]["in0"]["taken"] = 1  # the read's cursor at the start has opened nothing
    with pytest.raises(CheckpointError, match=r"'states\[1\]\.iterator\.in0\.order'"):
        remainder(builder, [a, b])
