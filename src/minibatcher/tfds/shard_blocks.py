"""``as_dataset``'s read (``tfds_read``) a block at a time: the cursor is advanced
natively (``_native.InterleaveOrder``, which moves exactly as the element
iterator does), instructions are opened when the cursor reaches them (as on
the element path), the records of every open shard's share of the block are
read by position and decoded together (:func:`~minibatcher.tfds.reader.read_runs`),
and the iterator's cursor and slots are then set where the element path would
have left them, so its state is the element path's (docs/tfrecord-tfds.md,
"Block decoding").

A read that fails (a damaged record, a bad image) leaves the cursor where it
was: the element path reads the block again and raises at the failing
example, with its usual message. Instructions drawn from the order for that
block wait in the iterator's ``ahead`` list, and its state names the order's
cursor before them, so a checkpoint is the element path's there too.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> from minibatcher.tfdata.sources import RangeSource
    >>> from minibatcher.tfds.shard_interleave import ShardInterleave
    >>> ds = ShardInterleave(Dataset.from_tensor_slices([0, 1]),
    ...                      [RangeSource(0, 3, 1), RangeSource(10, 12, 1)], 2, 2)
    >>> it = ds._make_iter(None); b = next_block(it, 4, None)
    >>> [int(x) for x in b.elements()], it.state()["ci"], it.state()["delivered"]
    ([0, 1, 10, 11], 0, 4)
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import _native
from ..tfdata.block import Block, ListBlock, merge_blocks
from ..tfdata.core import ViewIter
from ..tfdata.interleave_blocks import advance_order, sync_to_order
from ..tfdata.sources import SourceView
from .reader import ShardSource, read_runs


def _cursor(it: Any) -> Any:
    """A native order at the iterator's cursor (None: it cannot take it)."""
    order = _native.InterleaveOrder(it.cycle, it.block)
    slots = it.slots
    inputs = np.array([-1 if s is None else s.ordinal for s in slots], np.int64)
    pos = np.array([0 if s is None else s.it.pos for s in slots], np.int64)
    lengths = np.array([0 if s is None else len(s.it.view) for s in slots], np.int64)
    if not order.restore(it.ci, it.bi, it.taken, it.exhausted, inputs, pos, lengths):
        return None
    return order


def next_block(it: Any, count: int, element_path: Callable[[int], Block]) -> Block:
    """``it.next_block(count)`` of a ``tfds_read`` iterator: a block read
    (:func:`read_block`), as far as TFDS's ``assert_cardinality`` allows; the
    element path (``element_path(n)``) where a read failed or for the example
    beyond the asserted cardinality, and at the end the completeness check."""
    expected = it.node.cardinality_asserted
    limit = count if expected is None else min(count, expected - it.delivered)
    block = read_block(it, limit) if limit > 0 else None
    if block is None:
        return element_path(count)
    if len(block) == count or block.error is not None:
        return block
    if it.exhausted and not it.open:  # the end, as next() finds it
        try:
            it._check_complete()
        except Exception as e:  # noqa: BLE001 - raised after the block's elements
            return ListBlock(block.elements(), e)
        return block
    more = element_path(count - len(block))  # beyond the asserted cardinality
    if not len(more) and more.error is None:
        return block
    return ListBlock(block.elements() + more.elements(), more.error)


def read_block(it: Any, count: int) -> Block | None:
    """The next ``count`` examples of ``it`` (a ``tfds_read`` iterator) as one
    block, fewer only at the end or before an instruction that cannot be
    opened (the block's error); None when a read failed (the element path
    then reads them)."""
    order = _cursor(it)
    if order is None:
        return None
    opened = {s.ordinal: s for s in it.slots if s is not None}
    drawn: list[tuple[int | None, Any]] = []
    index_in, at, stopped = advance_order(order, count, opened,
                                          lambda known: _open_slot(it, known, drawn),
                                          lambda slot: len(slot.it.view))
    try:
        block = _read(opened, index_in, at)
    except Exception:  # noqa: BLE001 - the element path finds the failing example
        it._ahead[:0] = drawn  # the element path opens them next
        return None
    sync_to_order(it, order, opened)
    it.delivered += len(index_in)
    return block if stopped is None else ListBlock(block.elements(), stopped)


def _open_slot(it: Any, ordinal: int, drawn: list[tuple[int | None, Any]]) -> Any:
    """The next instruction's slot (None: none is left); what is drawn from the
    order is recorded in ``drawn`` with the order's cursor before it."""
    from .shard_interleave import _Slot  # (it imports this module)

    inst = it._draw(drawn)
    if inst is None:
        return None
    return _Slot(inst, ordinal, ViewIter(SourceView(it.node.sources[inst])))


def _read(opened: dict[int, Any], inputs: np.ndarray, positions: np.ndarray) -> Block:
    """The examples ``(input, position)``, in order: every input's run read in
    one go (decoded together when the inputs are shards of one read)."""
    n = len(inputs)
    if not n:
        return ListBlock([])
    order = np.argsort(inputs, kind="stable")
    groups = np.split(order, np.flatnonzero(np.diff(inputs[order])) + 1)
    runs = []
    for index in groups:
        view = opened[int(inputs[index[0]])].it.view
        first = int(positions[index[0]])
        runs.append((index, view, first, first + len(index)))
    sources = [view.source for _, view, _, _ in runs]
    if all(type(s) is ShardSource and s.decoding is sources[0].decoding and
           s.add_tfds_id == sources[0].add_tfds_id for s in sources):
        return read_runs([(index, s, a, b) for (index, _, a, b), s in zip(runs, sources)], n)
    return merge_blocks([(index, view.block(a, b)) for index, view, a, b in runs], n)

