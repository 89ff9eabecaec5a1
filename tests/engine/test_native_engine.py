"""The engine's native kernels (cpp/engine/select.cc; assemble: test_assemble.py)
against compact Python references of the loops they replace, on random inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minibatcher import _native
from minibatcher.engine.layout import SequenceLayout

INT64_MAX = 2**63 - 1


def walk_reference(lengths, sequences, start, owns, g_budget, l_budget, to_end, at_least_one,
                   stop_when_full):
    """The enumerators' former per-sequence loop (BlockEnumerator._describe / FileEnumerator._fill)."""
    g = l = 0
    selected, p = [], start
    while p < len(lengths):
        if stop_when_full and (g >= g_budget or l >= l_budget):
            break
        n, local = int(lengths[p]), owns(p)
        if not at_least_one and (g + n > g_budget or (local and l + n > l_budget)):
            break
        if g >= to_end:
            break
        if local:
            selected.append(int(sequences[p]))
            l += n
            at_least_one = False
        g += n
        p += 1
    return selected, p, g, l, at_least_one, p < len(lengths)


budgets = st.one_of(st.integers(-3, 40), st.just(INT64_MAX))


@settings(max_examples=300, deadline=None)
@given(lengths=st.lists(st.integers(0, 6), min_size=0, max_size=40), data=st.data(),
       workers=st.integers(1, 3), by_chunk=st.booleans(), g_budget=budgets, l_budget=budgets,
       to_end=budgets, at_least_one=st.booleans(), stop_when_full=st.booleans(),
       dtype=st.sampled_from([np.int8, np.uint16, np.int32, np.int64, np.uint64]))
def test_walk_matches_the_python_loop(lengths, data, workers, by_chunk, g_budget, l_budget, to_end,
                                      at_least_one, stop_when_full, dtype):
    n = len(lengths)
    start = data.draw(st.integers(0, n))
    rank = data.draw(st.integers(0, workers - 1))
    sequences = np.asarray(data.draw(st.permutations(range(n))), dtype=np.int32)
    chunks = np.asarray(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), np.int32)
    base = data.draw(st.integers(0, workers - 1))
    owns = ((lambda p: chunks[p] % workers == rank) if by_chunk
            else (lambda p: (base + p) % workers == rank))
    got = _native.engine_walk(np.asarray(lengths, dtype=dtype), sequences, start,
                              chunks if by_chunk else None, 0 if by_chunk else base, workers, rank,
                              g_budget, l_budget, to_end, at_least_one, stop_when_full)
    want = walk_reference(lengths, sequences, start, owns, g_budget, l_budget, to_end,
                          at_least_one, stop_when_full)
    assert (got[0].tolist(), *got[1:]) == want


def test_walk_rejects_bad_arguments_with_errors():
    ones = np.ones(3, np.int64)
    with pytest.raises(ValueError, match="non-negative"):
        _native.engine_walk(np.array([1, -1, 1]), np.arange(3, dtype=np.int32), 0, None, 0, 1, 0,
                            10, 10, 10, True, False)
    seqs, flags = np.arange(3, dtype=np.int32), (True, False)
    with pytest.raises(ValueError, match="start"):
        _native.engine_walk(ones, seqs, 4, None, 0, 1, 0, 1, 1, 1, *flags)
    with pytest.raises(ValueError, match="rank"):
        _native.engine_walk(ones, seqs, 0, None, 0, 2, 2, 1, 1, 1, *flags)
    with pytest.raises(ValueError, match="one entry per position"):
        _native.engine_walk(ones, seqs, 0, np.zeros(2, np.int32), 0, 1, 0, 1, 1, 1, *flags)
    with pytest.raises(TypeError):
        _native.engine_walk(ones, seqs.astype(np.int16), 0, None, 0, 1, 0, 1, 1, 1, *flags)


def first_fit_reference(lengths):
    """The former Python first fit: (rows used, row of each sequence, first column)."""
    width = max(lengths, default=0)
    used, rows, starts, open_from = [], [], [], 0
    for n in lengths:
        while open_from < len(used) and used[open_from] == width:
            open_from += 1
        row = next((r for r in range(open_from, len(used)) if used[r] + n <= width), len(used))
        if row == len(used):
            used.append(0)
        rows.append(row)
        starts.append(used[row])
        used[row] += n
    return len(used), rows, starts


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 9), max_size=60))
def test_first_fit_matches_the_python_loop(lengths):
    layout = SequenceLayout.first_fit(lengths)
    count, rows, starts = first_fit_reference(lengths)
    assert (layout.num_rows, layout.rows.tolist(), layout.starts.tolist()) == (count, rows, starts)
    assert layout.width == max(lengths, default=0)
    grid = np.full((layout.num_rows, layout.width), -1)
    offset = 0
    for row, start, n in zip(rows, starts, lengths):
        grid[row, start:start + n] = np.arange(offset, offset + n)
        offset += n
    assert np.array_equal(layout.grid(), grid)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=12), st.data())
def test_locate_and_chunk_uses_match_numpy(chunk_sizes, data):
    starts = np.concatenate([[0], np.cumsum(chunk_sizes)]).astype(np.int64)
    total = int(starts[-1])
    if total == 0:
        return
    seqs = np.asarray(data.draw(st.lists(st.integers(0, total - 1), max_size=30)), np.int64)
    chunks, source, within = _native.engine_locate(seqs, starts)
    chunk_of = np.searchsorted(starts, seqs, side="right") - 1
    assert chunks.tolist() == np.unique(chunk_of).tolist()
    assert chunks[source].tolist() == chunk_of.tolist()
    assert within.tolist() == (seqs - starts[chunk_of]).tolist()
    plan = np.asarray(data.draw(st.permutations(range(total))), np.int32)
    mask = np.asarray(data.draw(st.lists(st.booleans(), min_size=total, max_size=total)))
    got = _native.engine_chunk_uses(plan[mask], None, 0, 1, 0, starts)
    positions = np.flatnonzero(mask)
    order = np.searchsorted(starts, plan[positions], side="right") - 1
    ids, first = np.unique(order, return_index=True)
    last = len(order) - 1 - np.unique(order[::-1], return_index=True)[1]
    by_first = np.argsort(first, kind="stable")
    assert [a.tolist() for a in got] == [ids[by_first].tolist(), first[by_first].tolist(),
                                         last[by_first].tolist()]


def test_locate_rejects_sequences_outside_the_table():
    with pytest.raises(ValueError, match="no chunk"):
        _native.engine_locate(np.array([5], np.int64), np.array([0, 2, 5], np.int64))
    with pytest.raises(ValueError, match="no chunk"):
        _native.engine_locate(np.array([-1], np.int64), np.array([0, 2, 5], np.int64))


def test_dropped_chunks_are_unregistered_and_freed():
    import gc
    import weakref

    from minibatcher.engine.chunk_cache import ChunkCache

    from .fake import ArrayDeserializer

    cache = ChunkCache(ArrayDeserializer([4, 4, 4]), threads=2)
    chunks = cache.get_many([0, 2])
    refs = [weakref.ref(c) for c in chunks]
    assert 0 in cache.registry and 2 in cache.registry and 1 not in cache.registry
    del chunks
    cache.want([2, 1])
    assert 0 not in cache.registry and sorted(cache.loaded()) == [1, 2]
    cache.close()  # waits for the release thread
    gc.collect()
    assert [r() is None for r in refs] == [True, True] and len(cache.registry) == 0
