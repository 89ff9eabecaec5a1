"""Exact resume: every pipeline is checkpointed before every element, the state is
JSON-round-tripped into a fresh pipeline, and the rest (and the next epoch) must match."""

from __future__ import annotations

import json

import numpy as np
import pytest

from minibatcher.errors import CheckpointError
from minibatcher.tfdata import Dataset, TextLineDataset, random_seed_scope

from .resume import assert_resumes_exactly


def files_interleaved(lengths: list[int], shuffle_files: bool) -> Dataset:
    """A TFDS-like read: file instructions, file shuffle, interleave, decode, buffer, batch."""
    files = Dataset.from_tensor_slices(list(range(len(lengths))))
    if shuffle_files:
        files = files.shuffle(len(lengths), seed=32)
    records = files.interleave(
        lambda f: Dataset.range(int(f) * 100, int(f) * 100 + lengths[int(f)]).skip(1),
        cycle_length=3, block_length=2)
    return records.map(lambda x: {"id": x, "len": x % 7})


PIPELINES = {
    "shuffle+interleave+shuffle+batch": lambda: files_interleaved([6, 0, 9, 4, 1, 7], True)
        .shuffle(5, seed=9).batch(3),
    "interleave+padded_batch": lambda: files_interleaved([5, 8, 2, 6], False)
        .map(lambda e: np.arange(e["len"])).padded_batch(4),
    "shuffle over filter (replay)": lambda: Dataset.range(60).filter(lambda x: x % 4 != 1)
        .shuffle(7, seed=2).batch(4),
    "group_by_window by address": lambda: Dataset.range(80).shuffle(30, seed=4)
        .map(lambda x: np.arange(x % 9)).filter(lambda s: len(s) > 0)
        .group_by_window(lambda s: len(s) // 3, lambda k, w: w.padded_batch(2), window_size=4),
    "group_by_window by ordinal": lambda: Dataset.from_generator(lambda: iter(range(40)))
        .group_by_window(lambda x: x % 3, lambda k, w: w.batch(2), window_size=3),
    "bucket_by_sequence_length": lambda: Dataset.range(1, 70).shuffle(16, seed=8)
        .map(lambda n: np.arange(n % 11)).bucket_by_sequence_length(len, [3, 6], [3, 2, 4]),
    "repeat of a shuffle": lambda: Dataset.range(7).shuffle(4, seed=6).repeat(3).batch(2),
    "interleave over a generator": lambda: Dataset.from_generator(lambda: iter(range(6)))
        .interleave(lambda n: Dataset.range(n).shuffle(3, seed=1), cycle_length=2,
                    block_length=2),
    "zip shard skip take enumerate": lambda: Dataset.zip(
        (Dataset.range(50).shuffle(9, seed=3), Dataset.range(50).filter(lambda x: x % 2 == 0)))
        .shard(3, 1).skip(2).take(6).enumerate(),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_resumes_exactly_at_every_element(name: str) -> None:
    with random_seed_scope(None):
        assert assert_resumes_exactly(PIPELINES[name]) > 2


def test_text_pipeline_resumes(write) -> None:
    path = str(write(b"".join(b"line %d\n" % i for i in range(40)), "t.txt"))
    assert assert_resumes_exactly(lambda: TextLineDataset(path).shuffle(16, seed=5)
                                  .map(lambda s: s.upper()).batch(3)) > 2


def test_state_is_small_json() -> None:
    ds = Dataset.range(10**6).shuffle(10**5, seed=1).batch(128)
    it = iter(ds)
    for _ in range(3):
        next(it)
    text = json.dumps(it.get_state())
    assert len(text) < 600  # the 100k-element buffer is re-derived, not stored


def test_restore_then_iterate_again_continues_the_epochs() -> None:
    ds = Dataset.range(20).shuffle(20, seed=7)
    it = iter(ds)
    next(it)
    state = it.get_state()
    epoch1 = [int(x) for x in ds]
    fresh = Dataset.range(20).shuffle(20, seed=7)
    restored = iter(fresh)
    restored.set_state(state)
    list(restored)
    assert [int(x) for x in fresh] == epoch1


def test_other_pipeline_or_data_is_refused_naming_the_difference() -> None:
    state = iter(Dataset.range(10).shuffle(5, seed=1)).get_state()
    with pytest.raises(CheckpointError, match=r"step 1 was shuffle\(buffer_size=5.*buffer_size=6"):
        iter(Dataset.range(10).shuffle(6, seed=1)).set_state(state)
    with pytest.raises(CheckpointError, match="pipeline of 2 steps, but this one has 3"):
        iter(Dataset.range(10).shuffle(5, seed=1).batch(2)).set_state(state)
    with pytest.raises(CheckpointError, match="format"):
        iter(Dataset.range(3)).set_state({"version": 9})
    bad = dict(state, iterator={"pos": 99, "pins": {"k": 0, "in": None}})
    with pytest.raises(CheckpointError, match="outside"):
        iter(Dataset.range(10).shuffle(5, seed=1)).set_state(bad)
    with pytest.raises(CheckpointError, match="lacks the field"):
        iter(Dataset.range(10).shuffle(5, seed=1)).set_state(dict(state, iterator={}))


def test_changed_file_is_refused(write) -> None:
    path = write(b"a\nb\nc\n", "t.txt")
    it = iter(TextLineDataset(str(path)))
    next(it)
    state = it.get_state()
    path.write_bytes(b"a\nB\nc\n")
    with pytest.raises(CheckpointError, match="step 0 was source"):
        iter(TextLineDataset(str(path))).set_state(state)


class CountingSource:
    """Records ``shard * 1000 + i``; counts the records read."""

    reads = 0

    def __init__(self, shard: int, n: int) -> None:
        self.shard, self.n = shard, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        CountingSource.reads += 1
        return self.shard * 1000 + i

    def fingerprint(self) -> list[int]:
        return [self.shard, self.n]


def tfds_like(lengths: list[int]) -> Dataset:
    from minibatcher.tfdata import SourceDataset
    files = Dataset.from_tensor_slices(list(range(len(lengths)))).shuffle(len(lengths), seed=1)
    return files.interleave(lambda f: SourceDataset(CountingSource(int(f), lengths[int(f)]))
                            .skip(2), cycle_length=3, block_length=2).shuffle(8, seed=2)


def test_restore_after_interleave_seeks_instead_of_replaying() -> None:
    lengths = [90, 0, 75, 120, 60, 33]
    it = iter(tfds_like(lengths))
    head = [int(next(it)) for _ in range(200)]
    state = it.get_state()
    rest = [int(x) for x in it]
    CountingSource.reads = 0
    fresh = iter(tfds_like(lengths))
    fresh.set_state(state)
    restore_reads = CountingSource.reads
    assert [int(x) for x in fresh] == rest and len(head + rest) == sum(lengths) - 2 * 5
    assert restore_reads <= 8  # the buffer's 8 elements: no replay of the 200 before them


@pytest.mark.parametrize("seed", range(8))
def test_interleave_skip_equals_reading(seed: int) -> None:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 9, int(rng.integers(1, 7))).tolist()
    cycle, block = int(rng.integers(1, 5)), int(rng.integers(1, 4))

    def make() -> Dataset:
        return Dataset.range(len(lengths)).interleave(
            lambda s: Dataset.range(lengths[int(s)]).map(lambda i: s * 100 + i),
            cycle_length=cycle, block_length=block)
    whole = [int(x) for x in make()]
    for n in range(len(whole) + 2):
        it = iter(make())
        assert it._it.skip(n) == min(n, len(whole))
        assert [int(x) for x in it] == whole[n:]


def test_enumerate_over_a_shuffle_resumes() -> None:
    """Before: the view's pins ([counter, shuffle]) reached the shuffle whole: 'lacks the field k'."""
    assert assert_resumes_exactly(lambda: Dataset.range(9).shuffle(4, seed=3).enumerate()) == 9
