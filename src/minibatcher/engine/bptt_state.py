"""Truncated-BPTT slots checked against the timeline on restore (issue 15, 'Done when' 2).

:func:`~minibatcher.engine.state.check_slots` checks each slot's shape, sequences,
lengths and cursor. What the timeline also tells, without replaying the epoch:

* slots are made at the epoch's first read, so a state without slots is one at the
  epoch's first position, and sequences are queued only once the timeline moved;
* an item flagged ``end_of_sweep`` is the last sequence this worker read in a sweep
  that ended before the position (the latest :data:`SWEEPS_CHECKED` sweeps are
  looked at; over file order, whose round-robin counter runs across sweeps, it is not
  checked).

Which sequence (of the right length) waits in which slot is the packer's history and
is not checked: that would need the epoch replayed (docs/design/state-format.md).

Example:
    >>> check_queued([], position=0, first=0, sweep_size=10, ended_sweep=None)
    >>> check_queued([], position=4, first=0, sweep_size=10, ended_sweep=None)
    Traceback (most recent call last):
    ...
    minibatcher.errors.CheckpointError: checkpoint state field 'packer.slots' should be the slots of the epoch's reads (they are made at its first read, and the position 4 is past its first position 0), but got packer.slots=[]; the state is damaged or was edited
"""

from __future__ import annotations

from typing import Any, Callable

from ..deserializer import SequenceTable
from ..state import damaged
from .enumerator import EpochConfig, make_enumerator
from .order import Order

SWEEPS_CHECKED = 4

# ended_sweep(sweep, sequence): whether ``sequence`` is the last this worker read in
# ``sweep`` (None: the caller cannot tell)
EndedSweep = Callable[[int, int], bool]


def check_queued(slots: list[Any], position: int, first: int, sweep_size: int,
                 ended_sweep: EndedSweep | None) -> None:
    """Refuses slots the timeline contradicts (see the module docstring)."""
    queued = any(items for _, items in slots)
    if not slots and position != first:
        raise damaged("packer.slots", slots, f"the slots of the epoch's reads (they are made at "
                      f"its first read, and the position {position} is past its first position "
                      f"{first})")
    if queued and position == first:
        raise damaged("packer.slots", slots, "slots without queued sequences (the position is "
                      "the epoch's first: nothing was read)")
    if ended_sweep is None:
        return
    last = position // sweep_size - 1  # the last sweep that ended at or before the position
    for i, (_, items) in enumerate(slots):
        for j, (sequence, _, end_of_sweep) in enumerate(items):
            if end_of_sweep and not _ended_one(sequence, last, ended_sweep):
                raise damaged(f"packer.slots[{i}] item {j}", items[j],
                              f"an item whose end_of_sweep is False (sequence {sequence} is not "
                              "the last sequence this worker read in a sweep that ended)")


def _ended_one(sequence: int, last: int, ended_sweep: EndedSweep) -> bool:
    """Whether ``sequence`` ended one of the latest sweeps (True when unsure: more
    sweeps ended than are looked at)."""
    for sweep in range(last, max(-1, last - SWEEPS_CHECKED), -1):
        if ended_sweep(sweep, sequence):
            return True
    return last >= SWEEPS_CHECKED  # older sweeps were not looked at


def block_sweep_ends(table: SequenceTable, order: Order, seed: int, workers: tuple[int, int],
                     delivered_length: Callable[[int], int]) -> EndedSweep:
    """:data:`EndedSweep` for a block-randomized timeline: the sweep's sequences of
    this worker, read in one walk; the last one with samples delivered ended it.

    Example:
        >>> import numpy as np
        >>> from minibatcher.engine.order import BlockRandomOrder
        >>> t = SequenceTable(np.arange(4, dtype=np.uint64), np.ones(4, np.int64),
        ...                   np.array([0, 2, 4]))
        >>> ended = block_sweep_ends(t, BlockRandomOrder(2, True), 0, (1, 0), lambda s: 1)
        >>> [s for s in range(4) if ended(0, s)]  # sweep 0 reads 0, 1, 2, 3
        [3]
    """
    def ended(sweep: int, sequence: int) -> bool:
        enumerator = make_enumerator(table, order, seed)
        size = enumerator.sweep_size
        enumerator.start_epoch(EpochConfig(size, sweep, workers[0], workers[1], False))
        read = enumerator.next_sequences(size, 2**62).sequences
        for candidate in reversed(read):  # the last one delivered (empty ones are skipped)
            if candidate == sequence:
                return True
            if delivered_length(candidate):
                return False
        return False
    return ended
