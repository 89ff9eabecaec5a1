"""Elastic resume: N workers read part of an epoch, M workers finish it;
every example of the epoch is read exactly once, and the new loads differ by
at most one example."""

from __future__ import annotations

import dataclasses

import numpy as np
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


def _read_with_buffers(builder, n: int, steps: list[int], epoch: int, tail) -> tuple[list, list]:
    """Old workers each read ``steps[w]`` elements of ``tail(as_dataset(...))``
    in epoch ``epoch``; returns the ids they delivered and their states."""
    import json

    read, states = [], []
    for w in range(n):
        rc = dataclasses.replace(CONFIG, input_context=tfds.InputContext(n, w))
        ds = tail(builder.as_dataset("train", shuffle_files=True, read_config=rc))
        for _ in range(epoch):
            list(iter(ds))
        it = iter(ds)
        for _, x in zip(range(steps[w]), it):  # fewer when the worker's part ends
            x = x["tfds_id"]
            read += list(x) if isinstance(x, np.ndarray) else [x]
        states.append(json.loads(json.dumps(it.get_state())))
    return read, states


def _finish(builder, states, m: int, read: list) -> list[int]:
    rest = tfds.elastic_remainder(builder, "train", states=states, shuffle_files=True,
                                  read_config=CONFIG)
    loads = []
    for j in range(m):
        part = ids(builder.as_dataset(rest.split_for(m, j), read_config=CONFIG))
        loads.append(len(part))
        read += part
    assert max(loads) - min(loads) <= 1
    return read


def test_the_audit_case_2_workers_shuffle_8_after_6_reads_resumed_on_3(builder) -> None:
    # the old advice (consumed=[6, 6], counts of delivered examples) read 43 examples, 39 of them
    # unique: it took the first 6 of each stream as read and lost what the buffers held; the
    # states give the read positions and the buffers' contents are re-derived from them
    read, states = _read_with_buffers(builder, 2, [6, 6], 0, lambda ds: ds.shuffle(8, seed=5))
    read = _finish(builder, states, 3, read)
    assert sorted(read) == sorted(ids(builder.as_dataset("train", read_config=CONFIG)))
    assert len(set(read)) == len(read) == 43


TAILS = {
    "shuffle": lambda ds: ds.shuffle(8, seed=5),
    "map-shuffle-batch": lambda ds: ds.map(lambda ex: ex).shuffle(5, seed=2).batch(3),
    "two-shuffles-filter": lambda ds: ds.shuffle(4, seed=1).map(lambda ex: ex).shuffle(
        6, seed=9, reshuffle_each_iteration=False).filter(lambda ex: True),
    "unseeded": lambda ds: ds.shuffle(7),
    "shuffle-take": lambda ds: ds.shuffle(8, seed=5).take(4),
    "buffer-larger-than-the-part": lambda ds: ds.shuffle(100, seed=3),
}


@pytest.mark.parametrize("tail", sorted(TAILS))
@pytest.mark.parametrize("n, m, steps, epoch", [
    (2, 3, [6, 6], 0), (3, 2, [0, 3, 1], 1), (4, 1, [1, 4, 2, 0], 0), (1, 4, [9], 2),
    (2, 2, [3, 0], 1), (3, 5, [2, 2, 2], 0)])
def test_states_with_shuffle_buffers_cover_the_epoch_exactly_once(
        builder, tail: str, n: int, m: int, steps: list[int], epoch: int) -> None:
    read, states = _read_with_buffers(builder, n, steps, epoch, TAILS[tail])
    read = _finish(builder, states, m, read)
    assert sorted(read) == sorted(ids(builder.as_dataset("train", read_config=CONFIG)))
    assert len(set(read)) == len(read) == 43


def test_a_worker_that_finished_its_part_with_a_buffer(builder) -> None:
    read, states = _read_with_buffers(builder, 2, [10_000, 3], 0,
                                      lambda ds: ds.shuffle(8, seed=5))
    read = _finish(builder, states, 3, read)
    assert len(set(read)) == len(read) == 43


@pytest.mark.parametrize("tail, what", [
    (lambda ds: ds.filter(lambda ex: True).shuffle(4, seed=1), "filter"),
    (lambda ds: ds.batch(2).shuffle(4, seed=1), "BatchDataset"),
    (lambda ds: ds.shuffle(4, seed=1).group_by_window(lambda ex: 0, lambda k, w: w, 2),
     "group_by_window")])
def test_states_that_cannot_be_mapped_back_are_refused(builder, tail, what: str) -> None:
    ds = tail(builder.as_dataset("train", read_config=CONFIG))
    it = iter(ds)
    next(it)
    with pytest.raises(ValueError, match=what):
        tfds.elastic_remainder(builder, "train", states=[it.get_state()], read_config=CONFIG)


def test_states_of_unseeded_file_shuffles_carry_their_seeds(builder) -> None:
    # shuffle_seed=None: the file order is random, but the states hold the seeds they drew
    import json

    config = dataclasses.replace(CONFIG, shuffle_seed=None)
    read, states = [], []
    for w in range(2):
        rc = dataclasses.replace(config, input_context=tfds.InputContext(2, w))
        it = iter(builder.as_dataset("train", shuffle_files=True, read_config=rc).shuffle(6))
        read += [x["tfds_id"] for _, x in zip(range(5 + w), it)]
        states.append(json.loads(json.dumps(it.get_state())))
    rest = tfds.elastic_remainder(builder, "train", states=states, shuffle_files=True,
                                  read_config=config)
    for j in range(3):
        read += ids(builder.as_dataset(rest.split_for(3, j), read_config=config))
    assert len(set(read)) == len(read) == 43
    with pytest.raises(ValueError, match="shuffle_files=True, but shuffle_files=False"):
        tfds.elastic_remainder(builder, "train", states=states, read_config=config)
