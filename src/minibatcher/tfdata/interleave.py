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

from ..errors import ConfigError
from ..state import Fields
from .arguments import MAX_CYCLE, tf_int, tf_opt_int
from .block import Block, ListBlock, blocks_enabled
from .core import INFINITE, UNKNOWN, Iter, fetch_positions
from .dataset import AUTOTUNE, Dataset
from .interleave_blocks import interleave_block
from .options import pipeline_options
from .parallel import Workers, parallelism
from .restore import InputRefs, check_moved, distinct, start_of
from .seeds import capture_function_seed, function_seed_scope
from .structure import call


class _Slot:
    __slots__ = ("it", "ordinal", "address")

    def __init__(self, it: Iter, ordinal: int, address: int | None) -> None:
        self.it, self.ordinal, self.address = it, ordinal, address

    def state(self) -> dict[str, Any]:
        return {"ordinal": self.ordinal, "address": self.address, "it": self.it.state()}


class _InterleaveIter(Iter):
    def __init__(self, node: "InterleaveDataset", state: Fields | None) -> None:
        self.node = node
        self.cycle, self.block = node._cycle, node._block
        self._blocks = blocks_enabled()
        self._ahead: list[_Slot] = []  # inputs the block path opened for the element path
        if state is None:
            self.input = node._parent._make_iter(None)
            self.start_state = self.input.state()
            self.slots: list[_Slot | None] = [None] * self.cycle
            self.ci = self.bi = self.taken = self.open = 0
            self.exhausted = False
        else:
            self._restore(state)

    def _open(self, element: Any) -> Dataset:
        with function_seed_scope(self.node._fn_seed):  # TF traces map_func once
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
            slot = self._take_input(self.taken)
        except Exception:
            self.taken += 1  # a failing input or map_func still counts: TF goes on with the next
            raise
        if slot is None:
            self.exhausted = True
            return
        self.slots[self.ci] = slot
        self.taken += 1
        self.open += 1

    def _take_input(self, ordinal: int) -> _Slot | None:
        """The next input element's slot (None: the input is exhausted); the
        block path may have opened it already (``_ahead``)."""
        if self._ahead:
            return self._ahead.pop(0)
        try:
            element = next(self.input)
        except StopIteration:
            return None
        address = self.input.address if self.input.addressable else None
        return _Slot(self._open(element)._make_iter(None), ordinal, address)

    def next_block(self, count: int) -> Block:
        if not self._blocks:
            return super().next_block(count)
        block = interleave_block(self, count)
        if block is None:
            return super().next_block(count)
        if len(block) == count or block.error is not None or (self.exhausted and not self.open):
            return block
        more = super().next_block(count - len(block))  # a slot that is not a view: one by one
        return ListBlock(block.elements() + more.elements(), more.error)

    def at_start(self) -> bool | None:
        return self.taken == 0 and not self.exhausted

    def state(self) -> dict[str, Any]:
        return {"in": self.input.state(), "in0": self.start_state, "taken": self.taken,
                "ci": self.ci, "bi": self.bi, "exhausted": self.exhausted,
                "slots": [None if s is None else s.state() for s in self.slots]}

    def _restore(self, state: Fields) -> None:
        state.only("in", "in0", "taken", "ci", "bi", "exhausted", "slots")
        self.start_state = state.child("in0").raw
        self.input = self.node._parent._make_iter(state.child("in"))
        self.taken = state.int("taken", 0)
        self.ci = state.int("ci", 0, self.cycle - 1, within=f"cycle_length={self.cycle}")
        self.bi = state.int("bi", 0, self.block - 1, within=f"block_length={self.block}")
        self.exhausted = state.bool("exhausted")
        saved = state.opt_items("slots", self.cycle)
        refs = InputRefs(self.input, self.taken)
        refs.check_taken(state, "taken")
        check_moved(state, "taken", self.taken > 0, self.input)
        start = start_of(self.node._parent, state)
        open_slots = {i: s for i, s in enumerate(saved) if s is not None}
        elements = self._elements(open_slots, refs, start)
        refs.check_exhausted(state, "exhausted", self.exhausted)
        self.slots = [None] * self.cycle
        for i, slot in open_slots.items():
            ordinal, address, element = elements[i]
            it = self._open(element)._make_iter(slot.child("it"))
            self.slots[i] = _Slot(it, ordinal, address)
        self.open = len(open_slots)

    def _elements(self, slots: dict[int, Fields], refs: InputRefs,
                  start: Iter) -> dict[int, tuple[int, int | None, Any]]:
        """``(ordinal, address, input element)`` of each open slot: refetched by
        address, or read again from the start of the iteration when the input
        has no addresses (or the state none)."""
        if not slots:
            return {}
        for slot in slots.values():
            slot.only("ordinal", "address", "it")
        ordinals = [s.int("ordinal", 0, self.taken - 1, f"the {self.taken} input elements taken")
                    for s in slots.values()]
        distinct(ordinals, [(s, "ordinal") for s in slots.values()], "ordinal")
        addresses = [None if s.value("address") is None else refs.address(s, "address", o)
                     for s, o in zip(slots.values(), ordinals)]
        if any(a is not None for a in addresses) and not self.input.addressable:
            raise next(s for s, a in zip(slots.values(), addresses) if a is not None).bad(
                "address", "None (this pipeline's input has no addresses)")
        _check_order(list(slots.values()), ordinals, addresses)
        if self.input.addressable and all(a is not None for a in addresses):
            found = [refs.fetch(s, "address") for s in slots.values()]
        else:
            got = fetch_positions(start, sorted(set(ordinals)), "checkpoint state field "
                                  f"{next(iter(slots.values())).path!r} (ordinal)")
            found = [got[o] for o in ordinals]
        return {i: (o, a, x) for i, o, a, x in zip(slots, ordinals, addresses, found)}


def _check_order(slots: list[Fields], ordinals: list[int], addresses: list[int | None]) -> None:
    """Addresses grow with ordinals (the input is read in order)."""
    pairs = sorted((o, a, s) for o, a, s in zip(ordinals, addresses, slots) if a is not None)
    for (_, a, _), (o, b, s) in zip(pairs, pairs[1:]):
        if b <= a:
            raise s.bad("address", f"an address after {a} (the address of an earlier input "
                        f"element than {o})")


def schedulable_cores() -> int:
    """The CPU cores this process may run on (its CPU affinity), TF's
    ``port::MaxParallelism()``.

    Example:
        >>> schedulable_cores() >= 1
        True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity API (macOS, Windows)
        return os.cpu_count() or 1


def resolve_cycle_length(cycle_length: int, num_parallel_calls: int | None, cores: int) -> int:
    """TF 2.21's ``cycle_length`` when it is ``AUTOTUNE`` (``None``): the number of
    ``cores`` without ``num_parallel_calls``; ``min(num_parallel_calls, cores)``
    with a fixed ``num_parallel_calls``; ``ceil(cores / 3)`` with ``AUTOTUNE``
    (TF keeps two future elements per slot, three threads each). A fixed
    ``cycle_length`` is kept.

    Example:
        >>> [resolve_cycle_length(-1, npc, 8) for npc in (None, 2, 16, -1)]
        [8, 2, 8, 3]
        >>> resolve_cycle_length(4, -1, 8)
        4
    """
    if cycle_length != AUTOTUNE:
        return cycle_length
    if num_parallel_calls is None:
        return cores
    if num_parallel_calls == AUTOTUNE:
        return -(-cores // 3)
    return min(num_parallel_calls, cores)


def _checked_lengths(cycle_length: Any, block_length: Any, num_parallel_calls: Any
                     ) -> tuple[int, int, int | None]:
    """The interleave's arguments with TF's defaults, refused where TF refuses them
    when the dataset is built."""
    cycle = tf_int("cycle_length", AUTOTUNE if cycle_length is None else cycle_length,
                   AUTOTUNE, MAX_CYCLE)
    block = tf_int("block_length", 1 if block_length is None else block_length, lo=1)
    npc = tf_opt_int("num_parallel_calls", num_parallel_calls, AUTOTUNE)
    if cycle == 0:
        raise ConfigError("option cycle_length should be an integer in [1, 1048576] (or None for "
                          "TF's rule), but got cycle_length=0")
    if npc == 0:
        raise ConfigError("option num_parallel_calls should be a positive integer or AUTOTUNE, "
                          "but got num_parallel_calls=0")
    if npc is not None and npc != AUTOTUNE and cycle != AUTOTUNE and npc > cycle:
        raise ConfigError(f"num_parallel_calls should be at most cycle_length={cycle} (or "
                          f"AUTOTUNE) when cycle_length is fixed, but got num_parallel_calls={npc}")
    return cycle, block, npc


class InterleaveDataset(Dataset):
    """``interleave(map_func, cycle_length, block_length, num_parallel_calls)``
    (order as with ``deterministic=True``; ``num_parallel_calls`` changes it only
    through TF's ``cycle_length=None`` rule, :func:`resolve_cycle_length`).

    ``cycle_length=None`` depends on the machine's schedulable cores, as in TF;
    ``Options().autotune.cpu_budget = n`` makes the rule use ``n`` instead (the
    same order on every machine). The resolved value is part of the plan.
    With ``num_parallel_calls`` > 1 the slots of a block are read
    concurrently (on threads).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = InterleaveDataset(Dataset.range(2),
        ...                        lambda s: Dataset.range(s * 10, s * 10 + 3), 2, 2)
        >>> [int(x) for x in ds]
        [0, 1, 10, 11, 2, 12]
    """

    def __init__(self, parent: Dataset, fn: Callable[..., Dataset], cycle_length: int | None,
                 block_length: int | None, num_parallel_calls: int | None = None) -> None:
        if not callable(fn):
            raise TypeError(f"map_func should be callable, but got {type(fn).__name__}")
        self._parent, self._fn = parent, fn
        self._cycle_arg, self._block, self._npc = _checked_lengths(cycle_length, block_length,
                                                                   num_parallel_calls)
        self._fn_seed = capture_function_seed()
        parallel = parallelism(self._npc)
        self._workers = Workers(parallel) if parallel > 1 else None

    @property
    def _cycle(self) -> int:
        """The cycle length (TF's rule for None, with the pipeline's cpu_budget option)."""
        budget = pipeline_options().autotune.cpu_budget
        cores = schedulable_cores() if budget is None else int(budget)
        return resolve_cycle_length(self._cycle_arg, self._npc, cores)

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self._parent,)

    def _spec(self) -> dict[str, Any]:
        return {"op": "interleave", "fn": getattr(self._fn, "__qualname__", "?"),
                "cycle_length": self._cycle, "block_length": self._block}

    def _make_iter(self, state: Fields | None) -> Iter:
        return _InterleaveIter(self, state)

    def _cardinality(self) -> int:
        parallel_infinite = self._npc is not None and self._parent._cardinality() == INFINITE
        return INFINITE if parallel_infinite else UNKNOWN
