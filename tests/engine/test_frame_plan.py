"""Windowed frame-mode plans (engine/frame_plan.py, issue 17) against the full
per-frame plan they replace (BlockRandomOrder / FileOrder over the frame table,
kept as the reference): identical frames in identical order, identical
minibatch selections for any budgets and worker split, chunk schedules that
cover every exact use, and the same worker shares."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minibatcher import _native
from minibatcher.deserializer import SequenceTable
from minibatcher.engine.enumerator import EpochConfig, make_enumerator
from minibatcher.engine.frame_plan import FrameOrder, FramePlan
from minibatcher.engine.frames import FrameTable
from minibatcher.engine.order import BlockRandomOrder, FileOrder
from minibatcher.engine.schedule import ChunkSchedule
from minibatcher.engine.worker_shares import shares_of

chunk_sizes = st.lists(st.integers(1, 25), min_size=1, max_size=9)
orders = st.one_of(
    st.just(FileOrder()),
    st.builds(BlockRandomOrder, st.integers(1, 12), st.just(False)),
    st.builds(BlockRandomOrder, st.integers(1, 120), st.just(True)),
    st.just(BlockRandomOrder(2**64 - 1, True)))


def frame_table(sizes: list[int]) -> SequenceTable:
    n = sum(sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return SequenceTable(np.arange(n, dtype=np.uint64), np.ones(n, np.int64), starts)


@settings(max_examples=150, deadline=None)
@given(sizes=chunk_sizes, order=orders, seed=st.integers(0, 2**64 - 1), sweep=st.integers(0, 3),
       data=st.data())
def test_pieces_read_in_any_order_give_the_full_plan(sizes, order, seed, sweep, data):
    table = frame_table(sizes)
    full = order.plan(table, seed, sweep)
    plan = FrameOrder(order).plan(table, seed, sweep)
    n = table.num_sequences
    positions = data.draw(st.lists(st.integers(0, n - 1), max_size=12))
    for p in positions + list(range(n)):  # random access first (replays), then in order
        begin, sequences, source = plan.piece(p)
        assert sequences.tolist() == full.sequences[begin:begin + len(sequences)].tolist()
        assert source.tolist() == full.source_chunk[begin:begin + len(source)].tolist()
    assert plan.sequences_at(0, n).tolist() == full.sequences.tolist()


@settings(max_examples=120, deadline=None)
@given(sizes=chunk_sizes, order=orders, seed=st.integers(0, 2**32), workers=st.integers(1, 3),
       data=st.data(), cross=st.booleans())
def test_enumerators_select_the_same_frames(sizes, order, seed, workers, data, cross):
    table = frame_table(sizes)
    rank = data.draw(st.integers(0, workers - 1))
    size = data.draw(st.integers(1, 3 * table.num_samples))
    index = data.draw(st.integers(0, 2))
    ours, full = make_enumerator(table, FrameOrder(order), seed), make_enumerator(table, order, seed)
    for e in (ours, full):
        e.start_epoch(EpochConfig(size, index, workers, rank, cross))
    for _ in range(data.draw(st.integers(1, 12))):
        g = data.draw(st.integers(1, 40))
        l = data.draw(st.one_of(st.just(g), st.integers(1, 40)))
        got, want = ours.next_sequences(g, l), full.next_sequences(g, l)
        assert got.sequences == want.sequences
        assert (got.end_of_sweep, got.end_of_epoch, got.global_samples, got.local_samples) == (
            want.end_of_sweep, want.end_of_epoch, want.global_samples, want.local_samples)
        assert ours.get_state() == full.get_state()
        assert ours.owned_lengths(index).tolist() == full.owned_lengths(index).tolist()
    position = data.draw(st.integers(0, 4 * table.num_samples))
    ours.set_position(position)
    full.set_position(position)
    assert ours.get_state() == full.get_state()


@settings(max_examples=100, deadline=None)
@given(sizes=chunk_sizes, order=orders, seed=st.integers(0, 2**32), workers=st.integers(1, 3),
       data=st.data())
def test_schedules_cover_every_use_and_shares_agree(sizes, order, seed, workers, data):
    table = frame_table(sizes)
    rank, base = data.draw(st.integers(0, workers - 1)), data.draw(st.integers(0, workers - 1))
    full = order.plan(table, seed, 0)
    plan = FrameOrder(order).plan(table, seed, 0)
    by_chunk = order.randomized
    source = full.source_chunk if by_chunk else None
    exact = ChunkSchedule(table, full, (source, base, workers, rank))
    ours = ChunkSchedule(table, plan, (plan if by_chunk else None, base, workers, rank))
    assert sorted(ours.chunks.tolist()) == sorted(exact.chunks.tolist())
    where = {c: (f, l) for c, f, l in zip(ours.chunks.tolist(), ours.first.tolist(),
                                          ours.last.tolist())}
    for c, f, l in zip(exact.chunks.tolist(), exact.first.tolist(), exact.last.tolist()):
        assert where[c][0] <= f and l <= where[c][1]
    assert plan.shares(by_chunk, base, workers).tolist() == shares_of(
        source, full.lengths, base, workers).tolist()


def test_memory_is_per_chunk_not_per_frame():
    sizes = [2000] * 50
    plan = FrameOrder(BlockRandomOrder(4, False)).plan(frame_table(sizes), seed=3, sweep=0)
    for p in range(0, 100_000, 2000):
        plan.piece(p)
    assert plan.nbytes < 12 * 2000 * 10 + 4 * 2 * 8 * 2000 + 50 * 64  # window + kept pieces


def test_frame_table_keys_and_lengths_need_no_per_frame_arrays():
    table = FrameTable.of(np.array([5, 8], np.uint64), np.array([0, 3, 10**10]), np.array([0, 10**10]))
    assert table.num_samples == 10**10 and table.lengths.strides == (0,)
    assert table.keys[np.array([0, 2, 3, 10**10 - 1])].tolist() == [5, 5, 8, 8]


def test_the_windowed_randomizer_refuses_bad_arguments():
    with pytest.raises(ValueError, match="at least one sequence"):
        _native.WindowedRandomizer(np.array([2, 0]), np.array([2, 0]), 4, False, 0)
    r = _native.WindowedRandomizer(np.array([2, 3]), np.array([2, 3]), 4, False, 0)
    with pytest.raises(ValueError, match="chunk should be in"):
        r.chunk(2)
    assert isinstance(FrameOrder(FileOrder()).plan(frame_table([3]), 0, 0), FramePlan)


def test_chunks_computed_ahead_are_the_chunks_asked_for():
    counts = np.full(12, 500, np.int64)
    ahead = _native.WindowedRandomizer(counts, counts, 3, False, 5)
    plain = _native.WindowedRandomizer(counts, counts, 3, False, 5)
    for k in [0, 1, 2, 5, 6, 3, 11, 0]:  # in order, skipping, backwards (a replay)
        got, want = ahead.chunk(k, True), plain.chunk(k)
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_randomizer_forked_while_its_helper_runs_stays_exact():
    counts = np.full(6, 400_000, np.int64)  # the helper computing chunk 1 takes ~50 ms
    want = _native.WindowedRandomizer(counts, counts, 2, False, 3).chunk(1)[0]
    r = _native.WindowedRandomizer(counts, counts, 2, False, 3)
    r.chunk(0, True)
    time.sleep(0.005)  # the helper is inside its steps, holding the randomizer's mutex
    pid = os.fork()  # it must not be running in the child (nor its mutex held there)
    if pid == 0:
        os._exit(0 if np.array_equal(r.chunk(1)[0], want) else 1)
    deadline = time.monotonic() + 30
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    if done[0] == 0:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    assert done[0] == pid and os.WEXITSTATUS(done[1]) == 0
    assert np.array_equal(r.chunk(1)[0], want)
