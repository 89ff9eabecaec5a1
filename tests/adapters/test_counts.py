"""Per-partition minibatch counts from the plan, the skip hook, and the equal-work policy."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minibatcher import MinibatchSource
from minibatcher.adapters.balance import Segment, check_quota, dropped, rank_segments
from minibatcher.adapters.counts import fast_partition_counts, greedy_count
from minibatcher.adapters.reader import as_reader
from minibatcher.errors import ConfigError

from ..engine.fake import ArrayDeserializer, sequence_values
from ..engine.resume import snapshot


def skipped_counts(source: MinibatchSource, epoch: int, size: int, world: int) -> list[int]:
    """Counts by skipping through every partition with the source's own rules."""
    counts = []
    for rank in range(world):
        source.start_epoch(epoch, num_data_partitions=world, partition_index=rank)
        n = 0
        while source.skip_minibatch(size, world, rank):
            n += 1
        counts.append(n)
    return counts


def read_counts(source: MinibatchSource, epoch: int, size: int, world: int) -> list[int]:
    """Counts by reading every partition (the ground truth)."""
    counts = []
    for rank in range(world):
        source.start_epoch(epoch, num_data_partitions=world, partition_index=rank)
        counts.append(sum(1 for _ in iter(lambda: source.next_minibatch(size, None, None, world,
                                                                         rank), {})))
    return counts


tables = st.tuples(st.lists(st.integers(1, 6), min_size=1, max_size=12),
                   st.lists(st.integers(1, 9), min_size=1, max_size=60))


@settings(max_examples=150, deadline=None)
@given(tables, st.integers(1, 5), st.integers(1, 30), st.sampled_from([0, 2, 5]),
       st.booleans(), st.integers(0, 3), st.booleans())
def test_counts_from_the_plan_match_reading(table, world, size, window, frame_like, epoch, sampled):
    chunks, lengths = table
    n = sum(chunks)
    lengths = [1] * n if frame_like else (lengths * n)[:n]
    window_opts = ({"randomization_window_in_samples": window * 3} if sampled
                   else {"randomization_window_in_chunks": window})
    source = MinibatchSource(ArrayDeserializer(chunks, lengths=lengths), randomize=window > 0,
                             randomization_seed=epoch * 7, **(window_opts if window else {}))
    fast = fast_partition_counts(source, epoch, size, world)
    assert fast == read_counts(source, epoch, size, world)
    assert fast == skipped_counts(source, epoch, size, world)


def test_shortcut_declines_what_it_cannot_count_and_the_reader_falls_back():
    zero = MinibatchSource(ArrayDeserializer([3, 3], lengths=[1, 0, 2, 1, 1, 0]), randomize=False)
    assert fast_partition_counts(zero, 0, 2, 2) is None
    assert as_reader(zero).partition_counts(0, 2, 2) == read_counts(zero, 0, 2, 2)
    legacy = MinibatchSource(ArrayDeserializer([4, 5, 3], lengths=[1, 2, 3] * 4), local_timeline=False)
    assert fast_partition_counts(legacy, 1, 4, 3) is None
    assert as_reader(legacy).partition_counts(1, 4, 3) == read_counts(legacy, 1, 4, 3)
    bptt = MinibatchSource(ArrayDeserializer([4, 4], lengths=3), truncation_length=2)
    assert as_reader(bptt).partition_counts(0, 4, 2) == read_counts(bptt, 0, 4, 2)


@pytest.mark.parametrize("options", [{"randomize": False}, {"randomization_window_in_chunks": 3},
                                     {"frame_mode": True, "randomize": False},
                                     {"truncation_length": 2, "randomize": False}])
def test_skip_moves_exactly_like_reading(options):
    lengths = 1 if options.get("frame_mode") else [1, 2, 3, 1, 2]

    def make() -> MinibatchSource:
        return MinibatchSource(ArrayDeserializer([4, 2, 5, 3], lengths=lengths if lengths == 1 else (lengths * 3)[:14]),
                               num_workers=2, worker_rank=1, max_sweeps=2, **options)

    reference = [snapshot(mb) for mb in make().minibatches(4)]
    for skip in range(len(reference) + 1):
        source = make()
        assert all(source.skip_minibatch(4) for _ in range(skip))
        rest = [snapshot(mb) for mb in source.minibatches(4)]
        assert rest == reference[skip:], f"after skipping {skip}"
    assert not source.skip_minibatch(4)


def test_skip_loads_no_chunk():
    deserializer = ArrayDeserializer([4, 4, 4], lengths=1)
    source = MinibatchSource(deserializer, randomize=False, max_sweeps=1, prefetch_chunks=1)
    while source.skip_minibatch(3):
        pass
    source.close()
    assert set(deserializer.loads) <= {0}  # the epoch start prefetches one chunk; skips load none


def test_start_epoch_sets_the_partition():
    source = MinibatchSource(ArrayDeserializer([5, 5], lengths=1), randomize=False)
    source.start_epoch(1, num_data_partitions=3, partition_index=2)
    assert sequence_values(source.next_minibatch(30)) == [2, 5, 8]
    with pytest.raises(ConfigError, match="worker_rank should be in"):
        source.start_epoch(0, num_data_partitions=2, partition_index=2)


def test_greedy_count_examples():
    assert greedy_count(np.array([5, 1, 1]), 3) == 2       # a long sequence alone, then [1, 1]
    assert greedy_count(np.array([2, 2, 2]), 3) == 3
    assert greedy_count(np.array([4, 4]), 3) == 2           # uniform and longer than the budget


@given(st.lists(st.integers(0, 40), min_size=1, max_size=8))
def test_policy_delivers_every_minibatch_once_except_fewer_than_the_ranks(counts):
    world = len(counts)
    if sum(counts) < world:
        with pytest.raises(ConfigError, match="equal_batches=True gives each"):
            check_quota(counts, 4, 0)
        return
    quota = check_quota(counts, 4, 0)
    delivered: Counter = Counter()
    for rank in range(world):
        segments = rank_segments(counts, rank)
        assert sum(s.count for s in segments) == quota
        assert segments[0].partition == rank or counts[rank] == 0  # a rank starts with its own
        for s in segments:
            delivered.update((s.partition, i) for i in range(s.first, s.first + s.count))
    assert max(delivered.values()) == 1
    everything = {(p, i) for p, n in enumerate(counts) for i in range(n)}
    lost = everything - set(delivered)
    assert sorted(lost) == dropped(counts) and len(lost) == sum(counts) - world * quota < world


def test_policy_example_from_the_design_note():
    # CNTK's split gave 124 and 103 minibatches: rank 1 reads rank 0's last 10, one is dropped
    assert rank_segments([124, 103], 0) == [Segment(0, 0, 113)]
    assert rank_segments([124, 103], 1) == [Segment(1, 0, 103), Segment(0, 113, 10)]
    assert dropped([124, 103]) == [(0, 123)]
