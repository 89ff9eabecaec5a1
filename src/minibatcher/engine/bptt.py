"""Truncated back-propagation through time: ``slots x truncation_length`` minibatches.

Each of ``max(1, size // truncation_length)`` slots (split among workers)
carries whole sequences one after another; a minibatch takes the next
``truncation_length`` samples of every slot, so a sequence continues in the
same slot (row) of the next minibatch. Slots pull one sequence at a time
while they hold at most ``truncation_length`` samples (CNTK's
``TruncatedBPTTPacker``). Unlike CNTK, the slots are part of the checkpoint,
so a restore continues every slot exactly (DECISIONS.md 10).

Example:
    >>> slot = Slot()
    >>> slot.push(7, 5, False); slot.push(8, 2, True)
    >>> slot.take(4), slot.available
    ([(7, 0, 4, 0)], 3)
    >>> slot.take(4)[0][:3], slot.popped_end_of_sweep
    ((7, 4, 1), True)
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from ..errors import ConfigError, FormatError
from .enumerator import UNLIMITED
from .layout import SequenceLayout
from .minibatch import Minibatch, MinibatchData
from .packers import Packer, PackerInput


class Slot:
    """A queue of ``[sequence, length, end_of_sweep]`` and the samples of its
    front already delivered."""

    def __init__(self) -> None:
        self.items: deque[list[Any]] = deque()
        self.cursor = 0
        self.popped_end_of_sweep = False

    @property
    def available(self) -> int:
        """Samples not yet delivered."""
        return sum(item[1] for item in self.items) - self.cursor

    def push(self, sequence: int, length: int, end_of_sweep: bool) -> None:
        """Appends a whole sequence."""
        self.items.append([sequence, length, end_of_sweep])

    def take(self, count: int) -> list[tuple[int, int, int, int]]:
        """Delivers up to ``count`` samples as segments
        ``(sequence, first sample in it, samples, column)``."""
        segments, column = [], 0
        self.popped_end_of_sweep = False
        while column < count and self.items:
            sequence, length, end_of_sweep = self.items[0]
            n = min(count - column, length - self.cursor)
            segments.append((sequence, self.cursor, n, column))
            column += n
            self.cursor += n
            if self.cursor >= length:
                self.items.popleft()
                self.cursor = 0
                self.popped_end_of_sweep |= end_of_sweep
        return segments


class TruncatedBpttPacker(Packer):
    """Packs ``truncation_length`` samples of every slot per minibatch."""

    skips_by_reading = True

    def __init__(self, reader: PackerInput, truncation_length: int) -> None:
        super().__init__(reader)
        sweep = int(np.sum(reader.table.lengths, dtype=np.int64))
        if truncation_length > sweep:  # a slot would hold the corpus repeated, sweep after sweep
            raise ConfigError(
                f"option truncation_length should be at most the samples of one sweep ({sweep}), "
                f"but got truncation_length={truncation_length}; every minibatch would repeat the "
                "whole corpus in each slot (use a shorter truncation_length, or none to read "
                "whole sequences)")
        self.truncation_length = truncation_length
        self.slots: list[Slot] = []

    def _configure(self, size: int) -> None:
        cfg = self.reader.enumerator.config
        total = max(1, size // self.truncation_length)
        if cfg.num_workers > total:
            raise ConfigError(
                f"truncated BPTT needs at least one slot per worker, but minibatch size {size} // "
                f"truncation_length {self.truncation_length} gives {total} slot(s) for "
                f"{cfg.num_workers} workers; increase the minibatch size or use fewer workers")
        count = total // cfg.num_workers + (1 if cfg.worker_rank < total % cfg.num_workers else 0)
        if not self.slots:
            self.slots = [Slot() for _ in range(count)]
        elif count != len(self.slots):
            raise ConfigError(
                f"minibatch size {size} gives {count} BPTT slot(s), but this epoch reads with "
                f"{len(self.slots)}; keep minibatch_size // truncation_length constant within an "
                "epoch (start_epoch or restore_from_checkpoint may change it)")

    def _fill(self, slot: Slot) -> None:
        enumerator = self.reader.enumerator
        while self.truncation_length >= slot.available:
            selection = enumerator.next_sequences(UNLIMITED, 1)
            for sequence in selection.sequences:
                length = self._length(sequence)
                if length:
                    slot.push(sequence, length, selection.end_of_sweep)
                elif selection.end_of_sweep and slot.items:  # skipped by the deserializer
                    slot.items[-1][2] = True
            if selection.end_of_epoch:
                return

    def _length(self, sequence: int) -> int:
        got = self.reader.assemble(np.array([sequence], np.int64), gather=False)
        if got.kept is not None and not len(got.kept):
            return 0
        lengths = [int(got.lengths(k)[0]) for k in range(len(got))]
        if len(set(lengths)) > 1:
            key = int(self.reader.table.keys[sequence])
            detail = ", ".join(f"{n} in {s.name!r}" for n, s in zip(lengths, self.reader.streams))
            raise FormatError(f"truncated BPTT needs every stream of a sequence to have the same "
                              f"number of samples, but sequence (key {key}) has {detail}")
        return lengths[0]

    def read(self, size: int, local_timeline: bool) -> tuple[Minibatch | None, bool]:
        self._configure(size)
        for slot in self.slots:
            self._fill(slot)
        if all(slot.available == 0 for slot in self.slots):
            return None, True
        segments: list[tuple[int, int, int, int, int]] = []
        end_of_sweep = False
        for row, slot in enumerate(self.slots):
            taken = slot.take(self.truncation_length)
            end_of_sweep |= slot.popped_end_of_sweep
            segments += [(seq, first, n, row, column) for seq, first, n, column in taken]
        minibatch = self._pack(segments, end_of_sweep)
        return minibatch, all(slot.available == 0 for slot in self.slots)

    def _pack(self, segments: list[tuple[int, int, int, int, int]], end_of_sweep: bool) -> Minibatch:
        seqs, firsts, counts, rows, columns = (np.asarray(v, dtype=np.int64) for v in zip(*segments))
        got = self.reader.assemble(seqs, segments=(firsts, counts))
        layout = SequenceLayout(len(self.slots), self.truncation_length, rows, columns, counts)
        keys = self.reader.table.keys[seqs]
        result = Minibatch()
        for k, info in enumerate(self.reader.streams):
            values = got.values(k)
            result[info.name] = MinibatchData(info, values, counts, keys, end_of_sweep, layout,
                                              padded_layout=layout, segment_starts=firsts)
        return result

    def get_state(self) -> dict[str, Any]:
        return {"slots": [[slot.cursor, [list(item) for item in slot.items]] for slot in self.slots]}

    def set_state(self, state: dict[str, Any]) -> None:
        self.slots = []
        for cursor, items in state.get("slots", []):
            slot = Slot()
            slot.cursor = int(cursor)
            for sequence, length, end_of_sweep in items:
                slot.push(int(sequence), int(length), bool(end_of_sweep))
            self.slots.append(slot)

    def reset(self) -> None:
        self.slots = []

    def pinned_chunks(self) -> list[int]:
        queued = [item[0] for slot in self.slots for item in slot.items]
        return np.unique(self.reader.table.chunk_of(np.asarray(queued, dtype=np.int64))).tolist() \
            if queued else []
