"""Frame mode at scale: 300,000 one-frame sequences, as HTK's frame mode gives the engine.

Planning and reading such data must stay cheap (benchmarks/engine.py prints the
planning time); these tests check that what is planned and read is right:
permutations that keep every frame within its chunk window, every frame
delivered once per sweep in plan order, workers splitting by randomized
chunk, resume in the middle of a sweep.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from minibatcher import MinibatchSource, _native
from minibatcher.engine.enumerator import EpochConfig, make_enumerator
from minibatcher.engine.order import BlockRandomOrder, FileOrder

from .fake import ArrayDeserializer

CHUNKS, PER_CHUNK = 100, 3_000
FRAMES = CHUNKS * PER_CHUNK
MB = 256


@pytest.fixture(scope="module")
def frames() -> ArrayDeserializer:
    return ArrayDeserializer([PER_CHUNK] * CHUNKS)


def read_values(source: MinibatchSource) -> tuple[np.ndarray, list[int]]:
    """Every frame's value (its sequence index) in delivery order, and the minibatch sizes."""
    values, sizes = [], []
    for mb in source.minibatches(MB):
        data = mb["x"]
        assert data.layout.num_rows == data.num_samples == data.num_sequences
        assert data.layout.width == 1
        assert np.array_equal(data.keys, data.values.ravel().astype(np.uint64))
        values.append(data.values.ravel())
        sizes.append(data.num_samples)
    return np.concatenate(values).astype(np.int64), sizes


@pytest.mark.parametrize("window", [128, 4])
def test_block_random_plans_are_permutations_laid_out_chunk_by_chunk(frames, window):
    table = frames.table()
    plans = [BlockRandomOrder(window, sample_based=False).plan(table, seed=3, sweep=s)
             for s in (0, 1)]
    for sweep, plan in enumerate(plans):
        assert plan.num_sequences == plan.num_samples == FRAMES
        assert np.array_equal(np.sort(plan.sequences), np.arange(FRAMES))
        # source_chunk is the randomized position of each frame's own chunk
        raw = _native.block_randomize(table.chunk_sequences().astype(np.int64),
                                      table.chunk_samples().astype(np.int64), window, False,
                                      3 + sweep)
        assert np.array_equal(raw["chunk_order"][plan.source_chunk], plan.sequences // PER_CHUNK)
        assert np.bincount(plan.source_chunk).tolist() == [PER_CHUNK] * CHUNKS
        # every frame sits within the window of the randomized chunk whose positions hold it
        slot = np.arange(FRAMES) // PER_CHUNK
        k = plan.source_chunk
        assert np.all((raw["window_begin"][slot] <= k) & (k < raw["window_end"][slot]))
    assert not np.array_equal(plans[0].sequences, plans[1].sequences)


def test_enumerating_a_sweep_takes_every_frame_once(frames):
    table = frames.table()
    e = make_enumerator(table, BlockRandomOrder(128, False), seed=0)
    e.start_epoch(EpochConfig(epoch_size=FRAMES))
    taken, ends = [], 0
    while True:
        selection = e.next_sequences(MB, MB)
        if not selection.sequences:
            break
        assert selection.local_samples == selection.global_samples == len(selection.sequences)
        taken.append(selection.indices())
        ends += selection.end_of_sweep
    assert np.array_equal(np.concatenate(taken), e.plan(0).sequences)
    assert [len(t) for t in taken] == [MB] * (FRAMES // MB) + [FRAMES % MB]
    assert ends == 1 and selection.end_of_epoch


@pytest.mark.parametrize("randomize", [True, False])
def test_frame_mode_delivers_every_frame_once_in_plan_order(frames, randomize):
    source = MinibatchSource(frames, frame_mode=True, randomize=randomize, max_sweeps=1)
    values, sizes = read_values(source)
    order = BlockRandomOrder(128, False) if randomize else FileOrder()
    assert np.array_equal(values, order.plan(frames.table(), 0, 0).sequences)
    assert sizes == [MB] * (FRAMES // MB) + [FRAMES % MB]


def test_frame_mode_workers_split_the_sweep_by_randomized_chunk(frames):
    plan = BlockRandomOrder(128, False).plan(frames.table(), 0, 0)
    seen = []
    for rank in range(2):
        source = MinibatchSource(frames, frame_mode=True, max_sweeps=1, num_workers=2,
                                 worker_rank=rank)
        values, _ = read_values(source)
        assert np.array_equal(values, plan.sequences[plan.source_chunk % 2 == rank])
        seen.append(values)
    assert np.array_equal(np.sort(np.concatenate(seen)), np.arange(FRAMES))


def test_frame_mode_resumes_in_the_middle_of_a_sweep(frames):
    def make() -> MinibatchSource:
        return MinibatchSource(frames, frame_mode=True, max_sweeps=2)

    source = make()
    for _ in range(700):  # into the second half of the first sweep
        source.next_minibatch(MB)
    state = json.loads(json.dumps(source.get_checkpoint_state()))
    rest, _ = read_values(source)
    fresh = make()
    fresh.restore_from_checkpoint(state)
    again, _ = read_values(fresh)
    assert np.array_equal(again, rest)
    assert len(rest) == 2 * FRAMES - 700 * MB
