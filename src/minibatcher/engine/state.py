"""Checkpoint state: a small, versioned, JSON-able dict with a fingerprint.

The state holds the timeline position (plus what packers buffer); the
fingerprint (a digest per deserializer plus the options that shape the
order) is checked on restore and every difference is named. Every field is
validated before anything is restored (``check_*``): a damaged or edited
state is a :class:`CheckpointError` naming the field, never a raw
``TypeError``, a silently shifted stream or a reader that spins. See
docs/design/state-format.md.

Example:
    >>> fp = Fingerprint(data=[["d.ctf", "ab12"]], options={"randomization_seed": 0})
    >>> state = {"version": STATE_VERSION, **fp.as_dict()}
    >>> fp.check(state)
    >>> Fingerprint(data=[["d.ctf", "ab12"]], options={"randomization_seed": 1}).check(state)
    Traceback (most recent call last):
    ...
    minibatcher.errors.CheckpointError: cannot restore this checkpoint: it was taken with randomization_seed=0, but this source has randomization_seed=1; create the source with the same data and options as the one that wrote the checkpoint
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from ..errors import CheckpointError

STATE_VERSION = 1


def digest(obj: Any) -> str:
    """Short stable digest of a JSON-able object.

    Example:
        >>> len(digest({"a": 1}))
        16
    """
    return hashlib.blake2b(json.dumps(obj, sort_keys=True).encode(), digest_size=8).hexdigest()


@dataclass(frozen=True)
class Fingerprint:
    """Identity of a source: ``data`` = ``[[name, digest], ...]`` per
    deserializer, ``options`` = everything that changes which samples come in
    which order."""

    data: list[list[str]]
    options: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        """The fingerprint fields of a state."""
        return {"data": [list(d) for d in self.data], "options": dict(self.options)}

    def check(self, state: Mapping[str, Any]) -> None:
        """Raises :class:`CheckpointError` naming every difference."""
        if not isinstance(state, Mapping):
            raise CheckpointError(f"a checkpoint state should be a dict, but got {type(state).__name__}")
        version = state.get("version")
        if type(version) is not int or version != STATE_VERSION:
            raise CheckpointError(f"checkpoint state version should be {STATE_VERSION}, but got "
                                  f"version={version!r}; it was written by another minibatcher "
                                  "release or is not a minibatcher checkpoint")
        options, data = require(state, "options"), require(state, "data")
        if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
            raise _bad("options", options, "a dict of option names to values")
        if not isinstance(data, list) or not all(
                isinstance(d, list) and len(d) == 2 and all(isinstance(x, str) for x in d)
                for d in data):
            raise _bad("data", data, "a list of [name, digest] pairs of strings")
        problems = self._option_differences(options)
        problems += self._data_differences(data)
        if problems:
            raise CheckpointError("cannot restore this checkpoint: " + "; ".join(problems) +
                                  "; create the source with the same data and options as the one "
                                  "that wrote the checkpoint")

    def _option_differences(self, saved: Mapping[str, Any]) -> list[str]:
        keys = sorted(set(saved) | set(self.options))
        return [f"it was taken with {k}={saved.get(k)!r}, but this source has "
                f"{k}={self.options.get(k)!r}" for k in keys if saved.get(k) != self.options.get(k)]

    def _data_differences(self, saved: list[list[str]]) -> list[str]:
        if len(saved) != len(self.data):
            return [f"it was taken with {len(saved)} deserializer(s), but this source has "
                    f"{len(self.data)}"]
        return [f"deserializer {i} ({mine[0]}) holds other data or other stream definitions than "
                f"when the checkpoint was taken ({theirs[0]})"
                for i, (theirs, mine) in enumerate(zip(saved, self.data)) if theirs[1] != mine[1]]


def require(state: Mapping[str, Any], key: str) -> Any:
    """A field of a state, or a clear error.

    Example:
        >>> require({}, "position")
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state lacks the field 'position'
    """
    if key not in state:
        raise CheckpointError(f"checkpoint state lacks the field {key!r}")
    return state[key]


def _bad(field: str, value: Any, expected: str) -> CheckpointError:
    shown = repr(value)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return CheckpointError(f"checkpoint state field {field!r} should be {expected}, but got "
                           f"{field}={shown}; the state is damaged or was edited")


def check_int(field: str, value: Any, low: int, high: int) -> int:
    """An int field in ``[low, high]`` (not a bool, float or string).

    Example:
        >>> check_int("position", 7, 0, 10)
        7
        >>> check_int("position", 7.0, 0, 10)
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'position' should be an int in [0, 10], but got position=7.0; the state is damaged or was edited
    """
    if type(value) is not int or not low <= value <= high:
        raise _bad(field, value, f"an int in [{low}, {high}]")
    return value


def check_fields(field: str, value: Any, keys: set[str]) -> Mapping[str, Any]:
    """A dict with exactly ``keys``.

    Example:
        >>> check_fields("packer", {"slots": []}, set())
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'packer' should be a dict with the fields [], but got packer={'slots': []}; the state is damaged or was edited
    """
    if not isinstance(value, Mapping) or set(value) != keys:
        raise _bad(field, value, f"a dict with the fields {sorted(keys)}")
    return value


def check_epoch(value: Any, max_size: int) -> tuple[int, int, bool] | None:
    """``None`` (not started) or ``[index, size, explicit]``; the single epoch
    of the Python API (``explicit`` false) has index 0.

    Example:
        >>> check_epoch([0, 100, False], 2**63 - 1)
        (0, 100, False)
        >>> check_epoch([2, 100, "yes"], 2**63 - 1)
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'epoch' should be None or [index, size, explicit] (ints index >= 0 and 1 <= size <= 9223372036854775807, explicit a bool; index 0 unless explicit), but got epoch=[2, 100, 'yes']; the state is damaged or was edited
    """
    if value is None:
        return None
    expected = (f"None or [index, size, explicit] (ints index >= 0 and 1 <= size <= {max_size}, "
                "explicit a bool; index 0 unless explicit)")
    if not isinstance(value, (list, tuple)) or len(value) != 3:
        raise _bad("epoch", value, expected)
    index, size, explicit = value
    if (type(index) is not int or type(size) is not int or type(explicit) is not bool
            or index < 0 or not 1 <= size <= max_size or (index and not explicit)):
        raise _bad("epoch", value, expected)
    return index, size, explicit


def check_position(value: Any, epoch: tuple[int, int, bool], aligned: Callable[[int], int]) -> int:
    """The enumerator's position: a sequence start on the timeline, from the
    epoch's first sequence start to the first one at or after its end (or the
    end itself: a worker without chunks waits there). ``aligned(x)`` is the
    first sequence start at or after sample ``x``. A position inside a
    sequence would shift every later minibatch; outside the epoch it could
    never have been written.

    Example:
        >>> check_position(4, (0, 10, False), lambda x: -(-x // 2) * 2)  # sequences of 2 samples
        4
        >>> check_position(5, (0, 10, False), lambda x: -(-x // 2) * 2)
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'enumerator.position' should be the start of a sequence (the next one starts at 6), but got enumerator.position=5; the state is damaged or was edited
    """
    index, size, _ = epoch
    start, end = index * size, index * size + size
    low, high = aligned(start), aligned(end)
    position = check_int("enumerator.position", value, low, max(high, end))
    if position != end and aligned(position) != position:
        raise _bad("enumerator.position", position,
                   f"the start of a sequence (the next one starts at {aligned(position)})")
    return position


def check_slots(value: Any, lengths: np.ndarray) -> list[Any]:
    """Truncated-BPTT slots: ``[[cursor, [[sequence, length, end_of_sweep], ...]], ...]``
    with existing sequences, their lengths, and a cursor inside the front one.

    Example:
        >>> check_slots([[1, [[0, 3, False]]]], np.array([3]))
        [[1, [[0, 3, False]]]]
        >>> check_slots([[3, [[0, 3, False]]]], np.array([3]))
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'packer.slots[0] cursor' should be an int in [0, 2], but got packer.slots[0] cursor=3; the state is damaged or was edited
    """
    if not isinstance(value, list):
        raise _bad("packer.slots", value, "a list of [cursor, items] slots")
    for i, slot in enumerate(value):
        field = f"packer.slots[{i}]"
        if not isinstance(slot, list) or len(slot) != 2 or not isinstance(slot[1], list):
            raise _bad(field, slot, "[cursor, [[sequence, length, end_of_sweep], ...]]")
        for j, item in enumerate(slot[1]):
            if not isinstance(item, list) or len(item) != 3 or type(item[2]) is not bool:
                raise _bad(f"{field} item {j}", item, "[sequence, length, end_of_sweep]")
            sequence = check_int(f"{field} item {j} sequence", item[0], 0, len(lengths) - 1)
            length = int(lengths[sequence])
            check_int(f"{field} item {j} length", item[1], length, length)
        front = slot[1][0][1] - 1 if slot[1] else 0
        check_int(f"{field} cursor", slot[0], 0, front)
    return value
