"""``Dataset.interleave``: tf.data's cycle/block order, exactly.

The cursor (``InterleaveDatasetOp``; the parallel kernel with
``deterministic=True`` gives the same order)::

    slot ci open:  emit its next element (bi += 1; a full block moves ci on),
                   or, when it is exhausted, close it (bi = 0, ci moves on);
    slot ci empty: open the next input element's dataset there (ci stays),
                   or, when the input is exhausted, move ci on (bi = 0);
    end when the input is exhausted and no slot is open.

Slots are filled lazily in cursor order; a freed slot is refilled only when
the cursor comes back to it. The state records the cursor, each open slot's
input element (by address, or by its ordinal when the input has no
addresses) and its iterator's state.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> lengths = [5, 0, 3, 9, 1, 4, 7, 2]
    >>> ds = Dataset.from_tensor_slices(list(range(8))).interleave(
    ...     lambda s: Dataset.range(lengths[s]).map(lambda i: f"s{s}:{i}"),
    ...     cycle_length=3, block_length=2)
    >>> " ".join(list(ds)[:15])
    's0:0 s0:1 s2:0 s2:1 s0:2 s0:3 s3:0 s3:1 s2:2 s0:4 s3:2 s3:3 s4:0 s5:0 s5:1'
"""

from __future__ import annotations

import os
from typing import Any, Callable

from ..engine.state import require
from ..errors import CheckpointError, ConfigError
from .core import Iter, fetch_positions
from .dataset import AUTOTUNE, Dataset
from .structure import call


class _Slot:
    __slots__ = ("it", "ordinal", "address")

    def __init__(self, it: Iter, ordinal: int, address: int | None) -> None:
        self.it, self.ordinal, self.address = it, ordinal, address

    def state(self) -> dict[str, Any]:
        return {"ordinal": self.ordinal, "address": self.address, "it": self.it.state()}


class _InterleaveIter(Iter):
    def __init__(self, node: "InterleaveDataset", state: dict[str, Any] | None) -> None:
        self.node = node
        self.cycle, self.block = node._cycle, node._block
        if state is None:
            self.input = node._parent._make_iter(None)
            self.start_state = self.input.state()
            self.slots: list[_Slot | None] = [None] * self.cycle
            self.ci = self.bi = self.taken = self.open = 0
            self.exhausted = False
        else:
            self._restore(state)

    def _open(self, element: Any) -> Iter:
        dataset = call(self.node._fn, element)
        if not isinstance(dataset, Dataset):
            raise TypeError("the interleave function should return a Dataset, but returned "
                            f"{type(dataset).__name__}")
        return dataset

    def __next__(self) -> Any:
        slots = self.slots
        while True:
            slot = slots[self.ci]
            if slot is not None:
                try:
                    x = next(slot.it)
                except StopIteration:
                    slots[self.ci] = None
                    self.open -= 1
                    self.bi = 0
                    self.ci = (self.ci + 1) % self.cycle
                    continue
                self.bi += 1
                if self.bi == self.block:
                    self.bi = 0
                    self.ci = (self.ci + 1) % self.cycle
                return x
            if not self.exhausted:
                self._open_next()
            elif self.open == 0:
                raise StopIteration
            else:
                self.bi = 0
                self.ci = (self.ci + 1) % self.cycle

    def skip(self, count: int) -> int:
        """Moves the cursor as ``count`` reads would, skipping inside the slots
        (O(1) per block over views: no element is read)."""
        done, slots = 0, self.slots
        while done < count:
            slot = slots[self.ci]
            if slot is not None:
                want = min(self.block - self.bi, count - done)
                got = slot.it.skip(want)
                done += got
                self.bi += got
                if got < want:  # exhausted: as a failed read, close the slot and move on
                    slots[self.ci] = None
                    self.open -= 1
                    self.bi = 0
                    self.ci = (self.ci + 1) % self.cycle
                elif self.bi == self.block:
                    self.bi = 0
                    self.ci = (self.ci + 1) % self.cycle
            elif not self.exhausted:
                self._open_next()
            elif self.open == 0:
                break
            else:
                self.bi = 0
                self.ci = (self.ci + 1) % self.cycle
        return done

    def _open_next(self) -> None:
        try:
            element = next(self.input)
        except StopIteration:
            self.exhausted = True
            return
        address = self.input.address if self.input.addressable else None
        it = self._open(element)._make_iter(None)
        self.slots[self.ci] = _Slot(it, self.taken, address)
        self.taken += 1
        self.open += 1

    def state(self) -> dict[str, Any]:
        return {"in": self.input.state(), "in0": self.start_state, "taken": self.taken,
                "ci": self.ci, "bi": self.bi, "exhausted": self.exhausted,
                "slots": [None if s is None else s.state() for s in self.slots]}

    def _restore(self, state: dict[str, Any]) -> None:
        self.start_state = require(state, "in0")
        self.input = self.node._parent._make_iter(require(state, "in"))
        self.taken, self.ci, self.bi = (int(require(state, k)) for k in ("taken", "ci", "bi"))
        self.exhausted = bool(require(state, "exhausted"))
        saved = require(state, "slots")
        if not isinstance(saved, list) or len(saved) != self.cycle or \
                not 0 <= self.ci < self.cycle or not 0 <= self.bi < self.block:
            raise CheckpointError(f"the interleave checkpoint does not match cycle_length="
                                  f"{self.cycle}, block_length={self.block}")
        elements = self._elements([s for s in saved if s is not None])
        self.slots = [None if s is None else
                      _Slot(self._open(elements[int(s["ordinal"])])._make_iter(require(s, "it")),
                            int(s["ordinal"]), s.get("address")) for s in saved]
        self.open = sum(s is not None for s in self.slots)

    def _elements(self, saved: list[dict[str, Any]]) -> dict[int, Any]:
        """The input elements of the open slots: refetched by address, or read
        again from the start of the iteration when the input has no addresses."""
        if self.input.addressable and all(s.get("address") is not None for s in saved):
            return {int(s["ordinal"]): self.input.refetch(int(s["address"])) for s in saved}
        wanted = sorted({int(require(s, "ordinal")) for s in saved})
        replay = self.node._parent._make_iter(self.start_state)
        return fetch_positions(replay, wanted, "interleave")


class InterleaveDataset(Dataset):
    """``interleave(map_func, cycle_length, block_length)`` (order as with
    ``deterministic=True``; ``num_parallel_calls`` does not change it).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = InterleaveDataset(Dataset.range(2),
        ...                        lambda s: Dataset.range(s * 10, s * 10 + 3), 2, 2)
        >>> [int(x) for x in ds]
        [0, 1, 10, 11, 2, 12]
    """

    def __init__(self, parent: Dataset, fn: Callable[..., Dataset], cycle_length: int | None,
                 block_length: int | None) -> None:
        if not callable(fn):
            raise TypeError(f"map_func should be callable, but got {type(fn).__name__}")
        if cycle_length is None or cycle_length == AUTOTUNE:
            cycle_length = os.cpu_count() or 1
        block_length = 1 if block_length is None else block_length
        if int(cycle_length) < 1:
            raise ConfigError(f"cycle_length should be at least 1 (or None for the number of "
                              f"cores), but got cycle_length={cycle_length}")
        if int(block_length) < 1:
            raise ConfigError(f"block_length should be at least 1, but got "
                              f"block_length={block_length}")
        self._parent, self._fn = parent, fn
        self._cycle, self._block = int(cycle_length), int(block_length)

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self._parent,)

    def _spec(self) -> dict[str, Any]:
        return {"op": "interleave", "fn": getattr(self._fn, "__qualname__", "?"),
                "cycle_length": self._cycle, "block_length": self._block}

    def _make_iter(self, state: dict[str, Any] | None) -> Iter:
        return _InterleaveIter(self, state)
