"""Memory is bounded by the randomization window: chunks outside it are released."""

from __future__ import annotations

import pytest

from minibatcher import CTFDeserializer, MinibatchSource, StreamDef

from .fake import ArrayDeserializer


@pytest.mark.parametrize("window", [1, 2, 4])
def test_resident_chunks_stay_within_the_window_plus_prefetch(window):
    d = ArrayDeserializer([10] * 40)
    source = MinibatchSource(d, randomization_window_in_chunks=window, max_sweeps=2, num_threads=1,
                             prefetch_chunks=1)
    peak = 0
    for _ in source.minibatches(7):
        peak = max(peak, len(source._cache.loaded()))
    # the window of the current chunk, the chunk ahead, and one chunk of slack at window edges
    assert peak <= window + 2
    assert len(set(d.loads)) == 40


def test_every_chunk_is_parsed_once_per_sweep_when_reading_in_order():
    d = ArrayDeserializer([5] * 12)
    source = MinibatchSource(d, randomize=False, max_sweeps=3, num_threads=2)
    assert sum(mb["x"].num_samples for mb in source.minibatches(4)) == 180
    assert sorted(d.loads) == sorted(list(range(12)) * 3)


def test_keep_data_in_memory_parses_every_chunk_once(write):
    path = write("".join(f"|a {i}\n" for i in range(40)))
    d = CTFDeserializer(str(path), {"a": StreamDef()}, chunk_size_in_bytes=30, keep_data_in_memory=True)
    first = d.load_chunk(1)
    assert d.load_chunk(1) is first
    source = MinibatchSource(d, max_sweeps=3)
    assert sum(mb["a"].num_samples for mb in source.minibatches(6)) == 120


def test_the_end_of_an_epoch_releases_every_chunk_and_plans_no_further_sweep():
    # A plan holds per-sequence arrays: in frame mode over millions of frames, planning the
    # sweep after the last one read cost as much memory as the whole index, for nothing.
    d = ArrayDeserializer([10] * 8)
    source = MinibatchSource(d, randomization_window_in_chunks=2, max_sweeps=1)
    assert sum(mb["x"].num_samples for mb in source.minibatches(7)) == 80
    assert source._cache.loaded() == [] and sorted(source._enumerator._plans) == [0]
    source.start_epoch(0, 40)  # reading goes on from there as before
    assert sum(mb["x"].num_samples for mb in source.minibatches(7)) == 40 and source._cache.loaded() == []
