"""``interleave`` a block at a time: the cursor is advanced natively
(``_native.InterleaveOrder``, which moves exactly as the element iterator
does), inputs are opened when the cursor reaches them (as on the element
path), and each slot's elements of the block are read from its view in one
block read (concurrently on ``num_parallel_calls`` workers). The iterator's
cursor and slots are then set where the element path would have left them,
so its state is the element path's (docs/design/tfdata-blocks.md).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> ds = Dataset.range(3).interleave(lambda n: Dataset.range(n * 10, n * 10 + n + 1),
    ...                                  cycle_length=2)
    >>> it = ds._make_iter(None); b = interleave_block(it, 4)
    >>> [int(x) for x in b.elements()], it.state()["ci"], it.state()["taken"]
    ([0, 10, 11, 20], 1, 3)
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import _native
from .block import Block, ListBlock, merge_blocks
from .core import ViewIter
from .parallel import first_failure


def _measured(slot_it: ViewIter, count: int) -> int:
    """The length the order is given for an input read from ``slot_it.pos`` on, for
    one block of ``count`` elements: its length, or ``pos + count`` when it holds
    that many more (no slot gives more than ``count`` elements to one block, so
    the order cannot take that bound for the input's end). A file is then framed
    only as far as it is read."""
    pos = slot_it.pos
    return slot_it.view.available(pos + count)


def _cursor(it: Any, count: int) -> Any:
    """A native order at the iterator's cursor (None: a slot is not a view)."""
    order = _native.InterleaveOrder(it.cycle, it.block)
    slots = it.slots
    if any(s is not None and not isinstance(s.it, ViewIter) for s in slots):
        return None
    inputs = np.array([-1 if s is None else s.ordinal for s in slots], np.int64)
    pos = np.array([0 if s is None else s.it.pos for s in slots], np.int64)
    lengths = np.array([0 if s is None else _measured(s.it, count) for s in slots], np.int64)
    if not order.restore(it.ci, it.bi, it.taken, it.exhausted, inputs, pos, lengths):
        return None
    return order


def advance_order(order: Any, count: int, opened: dict[int, Any],
                  take: Callable[[int], Any], size_of: Callable[[Any], int | None]
                  ) -> tuple[np.ndarray, np.ndarray, Any]:
    """Advances the native interleave ``order`` by up to ``count`` elements, opening
    inputs as it needs them (``take(known_inputs)``: a slot, None when there are no
    more) into ``opened``; ``size_of(slot)`` is an input's length, None for one that
    is not a view. Returns the input and position of every element, and what stopped
    the block early: None, the exception of an input that could not be opened, or the
    slot that is not a view (also the TFDS shard interleave's, tfds/shard_blocks.py)."""
    inputs, positions, stopped = [], [], None
    while True:
        j, p = order.advance(count - sum(len(x) for x in inputs))
        inputs.append(j)
        positions.append(p)
        if order.done or not order.needs_input:
            break
        try:
            slot = take(order.known_inputs)
        except Exception as e:  # noqa: BLE001 - the block's error, after its elements
            stopped = e
            break
        if slot is None:
            order.end_inputs()
            continue
        size = size_of(slot)
        if size is None:
            stopped = slot
            break
        opened[slot.ordinal] = slot
        order.add_input(size)
    return np.concatenate(inputs), np.concatenate(positions), stopped


def interleave_block(it: Any, count: int) -> Block | None:
    """The next ``count`` elements of ``it`` (an interleave iterator) as one
    block, or None when a slot is not a view (the element path then runs)."""
    order = _cursor(it, count)
    if order is None:
        return None
    opened = {s.ordinal: s for s in it.slots if s is not None}
    inputs_all, positions_all, stopped = advance_order(
        order, count, opened, it._take_input,
        lambda slot: _measured(slot.it, count) if isinstance(slot.it, ViewIter) else None)
    try:
        block = _read(opened, inputs_all, positions_all, it.node._workers)
    except Exception:  # noqa: BLE001 - a read failed: let the element path find where
        it._ahead.extend(s for j, s in sorted(opened.items()) if j >= it.taken)
        if stopped is not None and not isinstance(stopped, BaseException):
            it._ahead.append(stopped)
        return None
    sync_to_order(it, order, opened)
    if isinstance(stopped, BaseException):
        it.taken += 1  # the failing input counts, as on the element path
        return ListBlock(block.elements(), stopped)
    if stopped is not None:  # an input that is not a view: placed as the element path does
        it.slots[it.ci] = stopped
        it.taken += 1
        it.open += 1
    return block


def _read(opened: dict[int, Any], inputs: np.ndarray, positions: np.ndarray,
          workers: Any) -> Block:
    """The elements ``(input, position)`` in order: one block read per input."""
    if not len(inputs):
        return ListBlock([])
    order = np.argsort(inputs, kind="stable")
    cuts = np.flatnonzero(np.diff(inputs[order])) + 1
    groups = np.split(order, cuts)

    def read(index: np.ndarray) -> tuple[np.ndarray, Block]:
        view = opened[int(inputs[index[0]])].it.view
        first = int(positions[index[0]])
        block = view.block(first, first + len(index))
        if block.error is not None:  # an element failed: the element path finds where
            raise block.error
        return index, block

    if workers is not None and len(groups) > 1:
        parts = workers.map(read, [(g,) for g in groups])
        k = first_failure(parts)
        if k < len(parts):
            raise parts[k].error
    else:
        parts = [read(g) for g in groups]
    return merge_blocks(parts, len(inputs))


def sync_to_order(it: Any, order: Any, opened: dict[int, Any]) -> None:
    """Sets an interleave iterator's cursor and slots to the native order's (also the
    TFDS shard interleave's, tfds/shard_blocks.py)."""
    it.ci, it.bi, it.taken, it.exhausted = order.ci, order.bi, order.taken, order.exhausted
    slots = []
    for j, p in zip(order.slot_inputs.tolist(), order.slot_positions.tolist()):
        if j < 0:
            slots.append(None)
            continue
        slot = opened[j]
        slot.it.seek(p)
        slots.append(slot)
    it.slots = slots
    it.open = sum(s is not None for s in slots)
