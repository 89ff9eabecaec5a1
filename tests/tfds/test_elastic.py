"""Elastic resume: N workers read part of an epoch, M workers finish it;
every example of the epoch is read exactly once, and the new loads differ by
at most one example."""

from __future__ import annotations

import dataclasses

import pytest

from minibatcher import tfds
from minibatcher.tfds.elastic import consumed_per_instruction
from minibatcher.tfds.testing import write_dataset

LENGTHS = {"train": [5, 0, 3, 9, 1, 4, 7, 2, 6, 6]}


@pytest.fixture(scope="module")
def builder(tmp_path_factory: pytest.TempPathFactory) -> tfds.ReadOnlyBuilder:
    return tfds.builder_from_directory(write_dataset(tmp_path_factory.mktemp("el"), LENGTHS))


def ids(ds, limit=None) -> list[bytes]:
    out = []
    for ex in ds:
        if limit is not None and len(out) >= limit:
            break
        out.append(ex["tfds_id"])
    return out


CONFIG = tfds.ReadConfig(shuffle_seed=11, interleave_cycle_length=3, interleave_block_length=2,
                         add_tfds_id=True)


@pytest.mark.parametrize("n, m, consumed, epoch", [
    (2, 3, [7, 4], 0), (3, 2, [0, 9, 5], 1), (4, 4, [1, 2, 3, 4], 0), (1, 5, [20], 2),
    (3, 1, [8, 13, 10], 0)])  # worker 0 finished its part
def test_epoch_covered_exactly_once(builder, n: int, m: int, consumed: list[int],
                                    epoch: int) -> None:
    read = []
    for w in range(n):
        rc = dataclasses.replace(CONFIG, input_context=tfds.InputContext(n, w))
        ds = builder.as_dataset("train", shuffle_files=True, read_config=rc)
        for _ in range(epoch):
            ids(ds, 0)  # advance to the epoch: each iteration reshuffles the files
        got = ids(ds)
        read += got[:consumed[w]]
    rest = tfds.elastic_remainder(builder, "train", consumed=consumed, shuffle_files=True,
                                  read_config=CONFIG, epoch=epoch)
    loads = []
    for j in range(m):
        part = ids(builder.as_dataset(rest.split_for(m, j), read_config=CONFIG))
        loads.append(len(part))
        read += part
    assert sorted(read) == sorted(ids(builder.as_dataset("train", read_config=CONFIG)))
    assert len(set(read)) == len(read) == 43
    assert max(loads) - min(loads) <= 1


def test_cursor_replay_matches_the_interleave(builder) -> None:
    # the consumed prefix of each instruction equals what the real pipeline read
    takes = [5, 3, 9, 1, 4, 7, 2, 6, 6]
    for count in range(0, 44, 5):
        got = {}
        for tid in ids(builder.as_dataset("train", read_config=CONFIG), count):
            name, index = tid.decode().rsplit("__", 1)
            got[name] = max(got.get(name, 0), int(index) + 1)
        done = consumed_per_instruction(list(range(9)), takes, 3, 2, count)
        names = [f"toy-train.tfrecord-{i:05d}-of-00010" for i in (0, 2, 3, 4, 5, 6, 7, 8, 9)]
        assert {names[i]: c for i, c in done.items() if c} == got


def test_too_many_consumed(builder) -> None:
    with pytest.raises(ValueError, match="more examples than"):
        tfds.elastic_remainder(builder, "train", consumed=[100])


@pytest.mark.parametrize("n, m, steps, epoch", [(2, 3, [2, 1], 0), (3, 2, [0, 3, 1], 1),
                                                (4, 1, [1, 1, 2, 0], 0), (1, 4, [5], 2)])
def test_restore_from_states_on_another_worker_count(builder, n: int, m: int, steps: list[int],
                                                     epoch: int) -> None:
    import json

    read, states = [], []
    for w in range(n):
        rc = dataclasses.replace(CONFIG, input_context=tfds.InputContext(n, w))
        ds = builder.as_dataset("train", shuffle_files=True, read_config=rc).batch(3)
        for _ in range(epoch):
            list(iter(ds))
        it = iter(ds)
        for _ in range(steps[w]):
            read += list(next(it)["tfds_id"])
        states.append(json.loads(json.dumps(it.get_state())))
    rest = tfds.elastic_remainder(builder, "train", states=states, shuffle_files=True,
                                  read_config=CONFIG)
    for j in range(m):
        read += ids(builder.as_dataset(rest.split_for(m, j), read_config=CONFIG))
    assert sorted(read) == sorted(ids(builder.as_dataset("train", read_config=CONFIG)))
    assert len(set(read)) == len(read) == 43


def test_states_with_a_shuffle_buffer_are_refused(builder) -> None:
    ds = builder.as_dataset("train", read_config=CONFIG).shuffle(4, seed=1)
    it = iter(ds)
    next(it)
    with pytest.raises(ValueError, match="a shuffle buffer holds examples"):
        tfds.elastic_remainder(builder, "train", states=[it.get_state()], read_config=CONFIG)
