"""``shuffle`` over an input without a view, a block at a time.

The element iterator (:class:`~minibatcher.tfdata.shuffle._ShuffleIter`)
fills its buffer one element per draw. This one reads the same input
elements in blocks (exactly as many as the element path has read after the
same emissions: states and side effects are the same), keeps them in the
blocks they came in, and emits the positions the native ``ShuffleOrder``
draws by gathering from those blocks: no Python object per buffered element.
Its state is the element iterator's (``k``, ``emitted``, ``end``, ``done``,
``in0``) and either restores the other.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> from minibatcher.tfdata.block import block_execution
    >>> def make(): return Dataset.range(10).filter(lambda x: x % 3 != 0).shuffle(4, seed=1)
    >>> ds = make(); it = ShuffleBlocks(ds, ds._take_iteration(None), None)
    >>> with block_execution(False):
    ...     element_path = [int(x) for x in make()]
    >>> [int(x) for x in it.next_block(6).elements()] == element_path[:6], it.state()["end"]
    (True, 6)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..state import Fields
from .block import Block, ListBlock
from .block_store import BlockStore
from .core import Iter
from .restore import exhausted_probe
from .shuffle import input_ended, restore_order, shuffle_order


class ShuffleBlocks(Iter):
    """The block iterator of a shuffle over an input without a view (see the
    module docstring); ``next`` hands out one element of a one-element block."""

    def __init__(self, node: Any, k: int, state: Fields | None, epoch: Any = None) -> None:
        self.node, self.k = node, k
        self.seeds = node._seeds_of(k)
        self.buffer_size = node._buffer_size
        self.store = BlockStore()
        if state is None:  # ``epoch``: an input iteration already started (a fused repeat's)
            if epoch is None or epoch.cursor is None:
                self.parent = node._parent._make_iter(None)
                self.start_state = self.parent.state()
            else:
                self.parent, self.start_state = epoch.input, epoch.cursor
            self.end = self.emitted = 0
            self.done = False
            self.order = shuffle_order(self.seeds, self.buffer_size, None)
        else:
            self._restore(state)

    def _restore(self, state: Fields) -> None:
        order, self.parent, t, done = restore_order(self.node, state, self.seeds)
        self.start_state = state.child("in0").raw
        self._refetch(np.sort(order.held()), order.end, state)
        if done:
            exhausted_probe(self.parent, state, "done")
        self.order, self.end, self.emitted, self.done = order, order.end, t, done

    def _refetch(self, held: np.ndarray, end: int, state: Fields) -> None:
        """Reads the held positions (runs of them in one block each, the gaps
        skipped) and leaves the input after ``end`` elements."""
        cuts = np.flatnonzero(np.diff(held) != 1) + 1
        at = 0
        for run in (np.split(held, cuts) if len(held) else []):
            first = int(run[0])
            block = self.parent.next_block(len(run)) if self.parent.skip(first - at) == \
                first - at else None
            if block is None or len(block) != len(run) or block.error is not None:
                break
            self.store.add(first, block)
            at = first + len(run)
        else:
            if self.parent.skip(end - at) == end - at:
                return
        raise input_ended(state, end)

    def __next__(self) -> Any:
        block = self.next_block(1)
        if len(block):
            return block.elements()[0]
        if block.error is not None:
            raise block.error
        raise StopIteration

    def next_block(self, count: int) -> Block:
        error = self._fill(self.emitted + count - 1 + self.buffer_size)
        if error is not None:  # emission e completes when its fill reached e + buffer_size
            count = max(0, min(count, self.end - self.buffer_size + 1 - self.emitted))
        positions = self.order.advance(count)
        self.emitted += len(positions)
        block = self.store.gather(positions)
        return block if error is None else ListBlock(block.elements(), error)

    def _fill(self, want_end: int) -> BaseException | None:
        """Reads the input up to ``want_end`` elements (as the element path's fills
        would); returns the input's error, if any."""
        need = want_end - self.end
        if self.done or need <= 0:
            return None
        block = self.parent.next_block(need)
        self.store.add(self.end, block)
        self.end += len(block)
        if block.error is not None:
            return block.error
        if len(block) < need:  # the input ended: draws now know its length
            self.done = True
            self.order = shuffle_order(self.seeds, self.buffer_size, self.end)
            self.order.advance(self.emitted)
        return None

    def state(self) -> dict[str, Any]:
        return {**self.node._pins_of(self.k), "emitted": self.emitted, "end": self.end,
                "done": self.done, "in0": self.start_state}
