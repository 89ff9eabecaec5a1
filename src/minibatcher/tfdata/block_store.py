"""The buffer of a block shuffle (``shuffle_blocks``): input elements by position,
kept in the blocks they were read in, handed out by ``gather(positions)``.

Two layouts behind one :class:`BlockStore`:

* records (every block so far a :class:`~minibatcher.tfdata.block.RecordsBlock`,
  what TFRecord and text sources read): one flat table of spans by position
  (buffer, start, end), so a gather is a few array operations whatever the
  number of blocks its positions come from, and a buffer is dropped when its
  last record is handed out;
* anything else: the list of blocks, a gather taking from each block its
  positions and merging them.

The first block that is not records turns the table into one block of the
list (its held spans), so the layouts never mix. Memory is the same either
way: a read buffer stays while one of its records is held.

Example:
    >>> s = BlockStore()
    >>> s.add(0, RecordsBlock.from_list([b"a", b"b"])); s.add(2, RecordsBlock.from_list([b"c"]))
    >>> s.gather(np.array([2, 0])).elements(), s.held
    ([b'c', b'a'], 1)
    >>> s.add(3, ListBlock([b"d"])); s.gather(np.array([3, 1])).elements()
    [b'd', b'b']
"""

from __future__ import annotations

import typing

import numpy as np

from .block import Block, ListBlock, RecordsBlock, concat_blocks, merge_blocks
from .column_merge import mergeable_columns


class _Spans:
    """Held records by position: position ``base + i`` is span i of the table
    (``buf``: an index into ``buffers``); ``live`` marks the held ones."""

    def __init__(self) -> None:
        self.base = self.n = self.held = 0
        self.buf, self.starts, self.ends = (np.zeros(256, np.int64) for _ in range(3))
        self.live = np.zeros(256, bool)
        self.buffers: list[np.ndarray | None] = []  # None: no record of it held any more
        self.left = np.zeros(0, np.int64)  # held records of each buffer
        # where each held buffer is in `buffers`: blocks read from one file chunk share its
        # buffer, which then takes one entry (a gather's block has a few buffers, not one
        # per block read)
        self.number: dict[int, int] = {}

    def add(self, start: int, block: RecordsBlock) -> None:
        if not self.held:
            self.base, self.n = start, 0
            self.buffers, self.left, self.number = [], np.zeros(0, np.int64), {}
        if start < self.base + self.n:
            raise IndexError("blocks should be added in order of position")
        self._make_room(start - self.base + len(block))
        at = start - self.base
        end = at + len(block)
        self.live[self.n:at] = False  # the gap: positions not held (a restore's)
        seg = block.seg if block.seg is not None else np.zeros(len(block), np.int64)
        counts = np.bincount(seg, minlength=len(block.buffers))
        mine = np.empty(len(block.buffers), np.int64)
        for g, buffer in enumerate(block.buffers):
            k = self.number.get(id(buffer))
            if k is None and counts[g]:
                k = self.number[id(buffer)] = len(self.buffers)
                self.buffers.append(buffer)
            mine[g] = -1 if k is None else k
        if len(self.left) < len(self.buffers):
            self.left = np.concatenate([self.left, np.zeros(len(self.buffers) - len(self.left),
                                                            np.int64)])
        np.add.at(self.left, mine[counts > 0], counts[counts > 0])
        self.buf[at:end] = mine[seg]
        self.starts[at:end], self.ends[at:end] = block.starts, block.ends
        self.live[at:end] = True
        self.n, self.held = end, self.held + len(block)

    def _make_room(self, need: int) -> None:
        """Drops the prefix of positions no longer held and the buffers no longer
        used; grows the table if it is still short."""
        if len(self.buffers) > 64 and len(self.buffers) > 4 * np.count_nonzero(self.left):
            self._renumber()
        if need <= len(self.live):
            return
        live = np.flatnonzero(self.live[:self.n])
        cut = int(live[0]) if len(live) else self.n
        if cut:
            for a in (self.buf, self.starts, self.ends, self.live):
                a[:self.n - cut] = a[cut:self.n].copy()
            self.base, self.n, need = self.base + cut, self.n - cut, need - cut
        if need > len(self.live):
            size = max(need, 2 * len(self.live))
            self.buf, self.starts, self.ends, self.live = (
                np.concatenate([a, np.zeros(size - len(a), a.dtype)])
                for a in (self.buf, self.starts, self.ends, self.live))

    def _renumber(self) -> None:
        """Forgets the buffers no longer used (positions not held point at buffer 0)."""
        keep = np.flatnonzero(self.left > 0)
        number = np.zeros(len(self.buffers), np.int64)
        number[keep] = np.arange(len(keep))
        live = self.live[:self.n]
        self.buf[:self.n] = np.where(live, number[np.where(live, self.buf[:self.n], 0)], 0)
        self.buffers = [self.buffers[g] for g in keep.tolist()]
        self.left = self.left[keep]
        self.number = {id(b): k for k, b in enumerate(self.buffers)}

    def gather(self, positions: np.ndarray) -> RecordsBlock:
        at = np.asarray(positions, np.int64) - self.base
        if len(at) and (at.min() < 0 or at.max() >= self.n or not self.live[at].all()):
            raise IndexError("a shuffle drew a position its buffer does not hold")
        seg = self.buf[at]
        self.live[at] = False
        self.held -= len(at)
        counts = np.bincount(seg, minlength=len(self.left))
        self.left -= counts
        used = np.flatnonzero(counts)  # the buffers drawn from, numbered in order
        number = np.zeros(len(counts), np.int64)
        number[used] = np.arange(len(used))
        local = number[seg]
        buffers = [self.buffers[g] for g in used.tolist()]
        for g in used[self.left[used] == 0].tolist():
            del self.number[id(self.buffers[g])]
            self.buffers[g] = None
        return RecordsBlock(buffers[0], self.starts[at], self.ends[at],  # type: ignore[arg-type]
                            local.astype(np.int64) if len(buffers) > 1 else None,
                            typing.cast(list, buffers))

    def as_block(self) -> tuple[int, Block, int]:
        """``(start, block, used)``: the table as one block of the list layout
        (positions not held point at an empty span of a held buffer)."""
        self._renumber()
        live = self.live[:self.n]
        starts, ends = np.where(live, self.starts[:self.n], 0), np.where(live, self.ends[:self.n], 0)
        buffers = typing.cast(list, self.buffers)
        return self.base, RecordsBlock(buffers[0], starts, ends, self.buf[:self.n].copy(),
                                       buffers), self.n - self.held


class BlockStore:
    """Input blocks by position (see the module docstring)."""

    def __init__(self) -> None:
        self.spans: _Spans | None = _Spans()
        self.starts: list[int] = []
        self.blocks: list[Block] = []
        self.used: list[int] = []  # elements emitted from each block

    @property
    def held(self) -> int:
        """Elements added and not gathered yet."""
        mine = sum(len(b) - u for b, u in zip(self.blocks, self.used))
        return mine + (self.spans.held if self.spans is not None else 0)

    def add(self, start: int, block: Block) -> None:
        """The elements of ``block`` at positions ``start ..`` (after every held one)."""
        if not len(block):
            return
        if self.spans is not None:
            if isinstance(block, RecordsBlock):
                self.spans.add(start, block)
                return
            spans, self.spans = self.spans, None
            if spans.held:
                first, table, used = spans.as_block()
                self._append(first, table, used)
        self._append(start, block, 0)

    def _append(self, start: int, block: Block, used: int) -> None:
        self.starts.append(start)
        self.blocks.append(block)
        self.used.append(used)
        while len(self.blocks) > 1 and self._fuse_last():
            pass

    def _fuse_last(self) -> bool:
        """Fuses the last two blocks when they are contiguous column blocks of one
        kind and the older is at most twice as long: blocks grow geometrically,
        so a gather touches O(log n) of them and each element is copied O(log n)
        times (a TFDS read's decoded blocks under a shuffle)."""
        a, b = self.blocks[-2], self.blocks[-1]
        if (self.starts[-2] + len(a) != self.starts[-1] or len(a) > 2 * len(b)
                or not mergeable_columns([a, b])):
            return False
        self.blocks[-2:] = [concat_blocks([a, b])]
        self.used[-2:] = [self.used[-2] + self.used[-1]]
        del self.starts[-1]
        return True

    def gather(self, positions: np.ndarray) -> Block:
        """The held elements at ``positions`` (each handed out once), in that order."""
        if not len(positions):
            return ListBlock([])
        if self.spans is not None:
            return self.spans.gather(positions)
        seg = np.searchsorted(np.asarray(self.starts), positions, side="right") - 1
        parts: list[tuple[np.ndarray, Block]] = []
        for s in np.unique(seg).tolist():
            at = np.flatnonzero(seg == s)
            parts.append((at, self.blocks[s].take(positions[at] - self.starts[s])))
            self.used[s] += len(at)
        out = merge_blocks(parts, len(positions))
        keep = [i for i, b in enumerate(self.blocks) if self.used[i] < len(b)]
        self.starts, self.blocks, self.used = ([x[i] for i in keep] for x in
                                               (self.starts, self.blocks, self.used))
        return out


__all__ = ["BlockStore"]
