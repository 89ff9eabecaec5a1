"""The block shuffle's buffer (``tfdata.block_store``): whatever the layout (a flat
table of record spans, or the list of blocks after a block of another kind),
gathering gives the elements added at those positions, and a read buffer is
let go when its last record is handed out."""

from __future__ import annotations

import gc
import random
import weakref

import numpy as np
import pytest

from minibatcher.tfdata.block import ListBlock, RecordsBlock, merge_blocks
from minibatcher.tfdata.block_store import BlockStore


class Buffer(np.ndarray):
    """An ndarray that can be weakly referenced (to see it freed)."""


def records_block(rng: random.Random, first: int, count: int) -> RecordsBlock:
    """Records ``b"<position>"`` in one to three buffers, not back to back, some buffers
    holding nothing the block uses."""
    parts, step = [], rng.randint(1, 3)
    for k in range(step):
        part = [b"%d" % p for p in range(first + k, first + count, step)]
        if part:
            parts.append((np.arange(k, count, step), RecordsBlock.from_list(part)))
    merged = merge_blocks(parts, count)
    if rng.random() < 0.3:
        unused = RecordsBlock.from_list([b"unused"]).buffers[0]
        return RecordsBlock(merged.buffers[0], merged.starts, merged.ends,
                            np.zeros(count, np.int64) if merged.seg is None else merged.seg,
                            merged.buffers + [unused])
    return merged


@pytest.mark.parametrize("seed", range(40))
def test_gathers_give_the_elements_at_their_positions(seed: int) -> None:
    rng = random.Random(seed)
    store, held, end = BlockStore(), set(), 0
    switch = rng.choice([None, rng.randint(0, 30)])  # when a block of another kind comes
    for step in range(60):
        if rng.random() < 0.5:
            end += rng.randint(0, 20) if rng.random() < 0.2 else 0  # a restore's gap
            count = rng.randint(1, 40)
            if step == switch:
                store.add(end, ListBlock([b"%d" % p for p in range(end, end + count)]))
            else:
                store.add(end, records_block(rng, end, count))
            held.update(range(end, end + count))
            end += count
        elif held:
            drawn = rng.sample(sorted(held), rng.randint(1, min(len(held), 50)))
            held.difference_update(drawn)
            got = store.gather(np.array(drawn, np.int64)).elements()
            assert got == [b"%d" % p for p in drawn]
        assert store.held == len(held)


def test_a_position_not_held_is_refused() -> None:
    store = BlockStore()
    store.add(0, RecordsBlock.from_list([b"a", b"b"]))
    store.gather(np.array([1]))
    with pytest.raises(IndexError):
        store.gather(np.array([1]))


def test_a_buffer_is_let_go_with_its_last_record() -> None:
    store = BlockStore()
    first = np.frombuffer(b"abcd", np.uint8).view(Buffer)
    gone = weakref.ref(first)
    store.add(0, RecordsBlock(first, np.array([0, 2]), np.array([2, 4])))
    store.add(2, RecordsBlock.from_list([b"e"]))
    del first
    store.gather(np.array([1, 2]))
    gc.collect()
    assert gone() is not None
    block = store.gather(np.array([0]))
    assert block.elements() == [b"ab"]
    del block
    gc.collect()
    assert gone() is None


def test_blocks_read_from_one_buffer_share_its_entry() -> None:
    # a file's chunk serves many block reads (an interleave's slot reads a few records at
    # a time): a gather's block holds the chunk once, not once per block read
    data = np.frombuffer(b"".join(b"%03d" % i for i in range(40)), np.uint8)
    store = BlockStore()
    for start in range(0, 40, 4):
        starts = np.arange(start, start + 4, dtype=np.int64) * 3
        store.add(start, RecordsBlock(data, starts, starts + 3))
    out = store.gather(np.array([37, 2, 18, 5, 30]))
    assert out.elements() == [b"037", b"002", b"018", b"005", b"030"]
    assert len(out.buffers) == 1
    assert store.gather(np.arange(40)[np.isin(np.arange(40), [37, 2, 18, 5, 30],
                                              invert=True)]).elements() == \
        [b"%03d" % i for i in range(40) if i not in (37, 2, 18, 5, 30)]
