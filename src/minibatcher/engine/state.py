"""The engine's checkpoint state: the timeline position (plus what packers buffer).

The state is ``{"format", "version", "data", "options", "epoch",
"enumerator", "packer"}`` (:mod:`minibatcher.state` stamps it and holds the
:class:`~minibatcher.state.Fingerprint` checked on restore). Every field is
read through :class:`~minibatcher.state.Fields` and validated before
anything is restored (``check_*`` add the engine's own rules): a damaged or
edited state is a :class:`CheckpointError` naming the field, never a raw
``TypeError``, a silently shifted stream or a reader that spins. See
docs/design/state-format.md.

Example:
    >>> check_epoch(Fields({"epoch": [0, 100, False]}), 2**63 - 1)
    (0, 100, False)
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..state import Fields, damaged, int_value


def check_epoch(state: Fields, max_size: int) -> tuple[int, int, bool] | None:
    """The state's ``epoch``: ``None`` (not started) or ``[index, size, explicit]``;
    the single epoch of the Python API (``explicit`` false) has index 0.

    Example:
        >>> check_epoch(Fields({"epoch": None}), 100) is None
        True
        >>> check_epoch(Fields({"epoch": [2, 100, "yes"]}), 2**63 - 1)
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'epoch' should be None or [index, size, explicit] (ints index >= 0 and 1 <= size <= 9223372036854775807, explicit a bool; index 0 unless explicit), but got epoch=[2, 100, 'yes']; the state is damaged or was edited
    """
    value = state.value("epoch")
    if value is None:
        return None
    expected = (f"None or [index, size, explicit] (ints index >= 0 and 1 <= size <= {max_size}, "
                "explicit a bool; index 0 unless explicit)")
    if not isinstance(value, (list, tuple)) or len(value) != 3:
        raise state.bad("epoch", expected)
    index, size, explicit = value
    if (type(index) is not int or type(size) is not int or type(explicit) is not bool
            or index < 0 or not 1 <= size <= max_size or (index and not explicit)):
        raise state.bad("epoch", expected)
    return index, size, explicit


def check_position(enumerator: Fields, epoch: tuple[int, int, bool],
                   aligned: Callable[[int], int]) -> int:
    """The enumerator's ``position``: a sequence start on the timeline, from the
    epoch's first sequence start to the first one at or after its end (or the
    end itself: a worker without chunks waits there). ``aligned(x)`` is the
    first sequence start at or after sample ``x``. A position inside a
    sequence would shift every later minibatch; outside the epoch it could
    never have been written.

    Example:
        >>> two = lambda x: -(-x // 2) * 2   # sequences of 2 samples
        >>> check_position(Fields({"position": 4}, "enumerator"), (0, 10, False), two)
        4
        >>> check_position(Fields({"position": 5}, "enumerator"), (0, 10, False), two)
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'enumerator.position' should be the start of a sequence (the next one starts at 6), but got enumerator.position=5; the state is damaged or was edited
    """
    index, size, _ = epoch
    start, end = index * size, index * size + size
    low, high = aligned(start), aligned(end)
    position = enumerator.int("position", low, max(high, end))
    if position != end and aligned(position) != position:
        raise enumerator.bad("position",
                             f"the start of a sequence (the next one starts at {aligned(position)})")
    return position


def check_slots(packer: Fields, lengths: np.ndarray) -> list[Any]:
    """The packer's truncated-BPTT ``slots``: ``[[cursor, [[sequence, length,
    end_of_sweep], ...]], ...]`` with existing sequences, their lengths, and a
    cursor inside the front one.

    Example:
        >>> check_slots(Fields({"slots": [[1, [[0, 3, False]]]]}, "packer"), np.array([3]))
        [[1, [[0, 3, False]]]]
        >>> check_slots(Fields({"slots": [[3, [[0, 3, False]]]]}, "packer"), np.array([3]))
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'packer.slots[0] cursor' should be an int in [0, 2], but got packer.slots[0] cursor=3, outside that range; the state is damaged or was edited
    """
    value = packer.value("slots")
    if not isinstance(value, list):
        raise packer.bad("slots", "a list of [cursor, items] slots")
    for i, slot in enumerate(value):
        field = f"{packer.path_of('slots')}[{i}]"
        if not isinstance(slot, list) or len(slot) != 2 or not isinstance(slot[1], list):
            raise damaged(field, slot, "[cursor, [[sequence, length, end_of_sweep], ...]]")
        for j, item in enumerate(slot[1]):
            if not isinstance(item, list) or len(item) != 3 or type(item[2]) is not bool:
                raise damaged(f"{field} item {j}", item, "[sequence, length, end_of_sweep]")
            sequence = int_value(f"{field} item {j} sequence", item[0], 0, len(lengths) - 1)
            length = int(lengths[sequence])
            int_value(f"{field} item {j} length", item[1], length, length)
        front = slot[1][0][1] - 1 if slot[1] else 0
        int_value(f"{field} cursor", slot[0], 0, front)
    return value
