"""``as_dataset``'s read as one tfdata op: the cycle/block interleave of the file
instructions in TFDS's order (:class:`ShardInterleave`, plan step ``tfds_read``).

The cursor follows tf.data's interleave exactly (``tfdata.interleave``'s rules); its state
names what a TFDS read is made of, so restores and elastic resume need no replay of data::

    {"epoch": iterations of the read before this one,
     "order": <the instruction order's cursor>, "order0": <its cursor at the start>,
     "taken": instructions opened, "ci": slot, "bi": position in the block,
     "exhausted": no instruction left, "delivered": examples delivered,
     "slots": [null | {"ordinal": k, "instruction": i, "pos": p, "file": fingerprint}]}

:class:`ShardReadCursor` reads such a state, validating every field against the read
(the instructions the order delivered, the lengths of their ranges), for the op's own
restore and for :mod:`~minibatcher.tfds.elastic`. With ``ReadConfig.assert_cardinality``
(and no input context) the op is also TFDS's ``assert_cardinality``: its cardinality is
the read's size, and an example beyond it raises as TF does.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> from minibatcher.tfdata.sources import RangeSource
    >>> order = Dataset.from_tensor_slices([0, 1])
    >>> ds = ShardInterleave(order, [RangeSource(0, 3, 1), RangeSource(10, 12, 1)], 2, 2)
    >>> [int(x) for x in ds]
    [0, 1, 10, 11, 2]
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from ..state import Fields, digest
from ..tfdata.block import Block, blocks_enabled
from ..tfdata.core import UNKNOWN, Iter, ViewIter
from ..tfdata.dataset import AUTOTUNE, Dataset
from ..tfdata.errors import FailedPreconditionError
from ..tfdata.interleave import resolve_cycle_length, schedulable_cores
from ..tfdata.iterator import _stateful, plan_of
from ..tfdata.options import pipeline_options
from ..tfdata.sources import SourceView
from .shard_blocks import next_block

__all__ = ["ShardInterleave", "ShardReadCursor"]


def _elements(n: int) -> str:
    return f"{n} element" if n == 1 else f"{n} elements"


class _Slot:
    __slots__ = ("instruction", "ordinal", "it")

    def __init__(self, instruction: int, ordinal: int, it: ViewIter) -> None:
        self.instruction, self.ordinal, self.it = instruction, ordinal, it


class ShardReadCursor:
    """A ``tfds_read`` state, validated against the read (typed accessors).

    ``order`` is the instruction numbers the order delivered in this iteration
    before the cursor (``taken`` of them, replayed from ``order0``, which must
    end where the saved ``order`` cursor is); ``slots`` the open slots as
    ``(slot, ordinal, instruction, pos)``; :meth:`read_per_instruction` how
    many examples of each instruction were read.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> from minibatcher.tfdata.sources import RangeSource
        >>> ds = ShardInterleave(Dataset.from_tensor_slices([1, 0]),
        ...                      [RangeSource(0, 3, 1), RangeSource(0, 2, 1)], 2, 1)
        >>> it = iter(ds); _ = [next(it) for _ in range(3)]
        >>> c = ShardReadCursor(ds, Fields(it.get_state()["iterator"]))
        >>> c.order, c.slots, c.read_per_instruction()
        ([1, 0], [(0, 0, 1, 2), (1, 1, 0, 1)], {1: 2, 0: 1})
    """

    KEYS = ("epoch", "order", "order0", "taken", "ci", "bi", "exhausted", "delivered", "slots")

    def __init__(self, node: "ShardInterleave", state: Fields) -> None:
        state.only(*self.KEYS)
        self.node, self.state = node, state
        n, cycle, block = len(node.sources), node.cycle, node.block
        self.epoch = state.int("epoch", 0)
        self.delivered = state.int("delivered", 0)
        self.taken = state.int("taken", 0, (self.delivered + 1) * max(n, 1) + cycle,
                               within="the instructions a read of this many examples opens")
        self.ci = state.int("ci", 0, cycle - 1, within=f"cycle_length={cycle}")
        self.bi = state.int("bi", 0, block - 1, within=f"block_length={block}")
        self.exhausted = state.bool("exhausted")
        self.order = self._replay_order()
        self.slots = self._read_slots()
        self._check_delivered()
        self._check_block()

    def _replay_order(self) -> list[int]:
        """The first ``taken`` instructions of the order, from its start cursor;
        the replayed cursor must be the saved one. The replay takes the iterations
        after order0's, as the iterator that wrote the state did (each repetition of a
        repeated file order the next one), whatever this pipeline's file shuffle has
        counted since; so a repeated order's next repetition takes the iteration after
        the replay's, and a restore requires the state's ``started`` to say so."""
        nodes = [n for n in _stateful(self.node.order) if hasattr(n, "iterations_started")]
        counts = [n.iterations_started for n in nodes]
        for n in nodes:
            n.iterations_started = 0  # order0's pins set it to the iteration after theirs
        try:
            order = self._replayed()
            if any(op == "repeat" for op, _ in plan_of(self.node.order)):
                for n in nodes:
                    if getattr(n, "_restored", None) is not None:
                        n._restored["next"] = (n.iterations_started, self.state.path_of("order"))
        finally:
            for n, count in zip(nodes, counts):
                n.iterations_started = count
        return order

    def _replayed(self) -> list[int]:
        it = self.node.order._make_iter(self.state.child("order0"))
        order = []
        for _ in range(self.taken):
            try:
                order.append(int(next(it)))
            except StopIteration:
                raise self.state.bad("taken", f"at most {len(order)} (the instructions of "
                                     "this read)") from None
        if self.exhausted and _has_more(it):
            raise self.state.bad("exhausted", "False (instructions are left to open)")
        if _exact(it.state()) != _exact(self.state.value("order")):  # (False is not 0 here)
            raise self.state.bad("order", "the order's cursor after the instructions taken",
                                 "it does not follow from order0 and taken")
        return order

    def _read_slots(self) -> list[tuple[int, int, int, int]]:
        out, seen = [], set()
        for i, slot in enumerate(self.state.opt_items("slots", self.node.cycle)):
            if slot is None:
                continue
            slot.only("ordinal", "instruction", "pos", "file")
            k = slot.int("ordinal", 0, self.taken - 1, f"the {self.taken} instructions taken")
            if k in seen:
                raise slot.bad("ordinal", "an instruction no other slot holds")
            seen.add(k)
            inst = slot.int("instruction", self.order[k], self.order[k],
                            f"the instruction the order delivered {k}th")
            source = self.node.sources[inst]
            if slot.value("file") != _jsonable(_file_of(source)):
                raise slot.bad("file", repr(_file_of(source)), "the file changed")
            out.append((i, k, inst, slot.int("pos", 0, len(source),
                                             f"the {len(source)} examples it reads")))
        return out

    def _check_delivered(self) -> None:
        """The examples delivered are those of the instructions closed and the
        open slots' positions (not checked where corrupted records are skipped:
        the ranges' lengths would need reading; the count is unused there)."""
        shards = self.node.shards
        if shards is not None and getattr(shards, "skipping", False):
            return
        open_ = {k: pos for _, k, _, pos in self.slots}
        count = sum(open_[k] if k in open_ else len(self.node.sources[inst])
                    for k, inst in enumerate(self.order))
        if count != self.delivered:
            raise self.state.bad("delivered", f"{count} (the examples of the instructions "
                                 "read and the open slots' positions)")

    def _check_block(self) -> None:
        """Every visit of a slot reads whole blocks from its start, so the
        position in the block is the current slot's position modulo the block
        length (0 at an empty slot)."""
        at = [pos for i, _, _, pos in self.slots if i == self.ci]
        expected = at[0] % self.node.block if at else 0
        if self.bi != expected:
            raise self.state.bad("bi", f"{expected} (the position in the block of slot "
                                 f"{self.ci})")

    def full_order(self) -> list[int]:
        """Every instruction of this iteration in the order's order (from
        ``order0``; a read that repeats its files has no end: refused).

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> from minibatcher.tfdata.sources import RangeSource
            >>> ds = ShardInterleave(Dataset.from_tensor_slices([1, 0]),
            ...                      [RangeSource(0, 1, 1)] * 2, 1, 1)
            >>> ShardReadCursor(ds, Fields(iter(ds).get_state()["iterator"])).full_order()
            [1, 0]
        """
        it, out = self.node.order._make_iter(self.state.child("order0")), []
        for x in it:
            out.append(int(x))
            if len(out) > len(self.node.sources):
                raise self.state.bad("order0", "the start of a finite order", "this read "
                                     "repeats its files (repeat_filenames): it has no end")
        return out

    def read_per_instruction(self) -> dict[int, int]:
        """Examples read of each instruction opened in this iteration (a closed
        one: all of its range; for repeated instructions, the last opening)."""
        done = {inst: len(self.node.sources[inst]) for inst in self.order}
        for _, _, inst, pos in self.slots:
            done[inst] = pos
        return done


def _has_more(it: Iter) -> bool:
    try:
        next(it)
    except StopIteration:
        return False
    return True


def _file_of(source: Any) -> Any:
    """The identity of an open slot's file (size and content digest; a source
    without files: its fingerprint)."""
    return getattr(source, "file_fingerprint", source.fingerprint)()


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=repr))


def _exact(value: Any) -> str:
    """``value`` as canonical JSON text: equal only if equal as JSON (``0`` is not ``false``)."""
    return json.dumps(value, default=repr, sort_keys=True)


class _ShardReadIter(Iter):
    def __init__(self, node: "ShardInterleave", state: Fields | None) -> None:
        self.node, self.cycle, self.block = node, node.cycle, node.block
        self.slots: list[_Slot | None] = [None] * self.cycle
        self._blocks = blocks_enabled()
        # instructions a failed block read drew from the order (None: its end) with the order's
        # cursor before each; the element path opens them next
        self._ahead: list[tuple[int | None, Any]] = []
        if state is None:
            self.epoch = node.epochs_started
            node.epochs_started += 1
            self.order = node.order._make_iter(None)
            self.order0 = self.order.state()
            self.taken = self.ci = self.bi = self.delivered = 0
            self.exhausted = False
        else:
            self._restore(ShardReadCursor(node, state))
        self.open = sum(s is not None for s in self.slots)

    def _restore(self, c: ShardReadCursor) -> None:
        self.epoch = c.epoch
        self.node.epochs_started = c.epoch + 1  # the next iteration is the next epoch
        self.order0 = c.state.value("order0")
        self.order = self.node.order._make_iter(c.state.child("order"))
        self.taken, self.ci, self.bi = c.taken, c.ci, c.bi
        self.exhausted, self.delivered = c.exhausted, c.delivered
        for i, k, inst, pos in c.slots:
            self.slots[i] = _Slot(inst, k, ViewIter(SourceView(self.node.sources[inst]), pos))

    def _slot(self) -> _Slot | None:
        """The slot the cursor is at, opening and closing slots by tf.data's
        interleave rules; None at the end."""
        while True:
            slot = self.slots[self.ci]
            if slot is not None:
                if slot.it.pos < len(slot.it.view):
                    return slot
                self.slots[self.ci] = None  # exhausted: close it and move on
                self.open -= 1
                self._next_slot()
            elif not self.exhausted:
                self._open_next()
            elif self.open == 0:
                return None
            else:
                self._next_slot()

    def _next_slot(self) -> None:
        self.bi, self.ci = 0, (self.ci + 1) % self.cycle

    def _open_next(self) -> None:
        inst = self._draw()
        if inst is None:
            self.exhausted = True
            return
        view = SourceView(self.node.sources[inst])
        self.slots[self.ci] = _Slot(inst, self.taken, ViewIter(view))
        self.taken += 1
        self.open += 1

    def _draw(self, drawn: list[tuple[int | None, Any]] | None = None) -> int | None:
        """The next instruction of the order (None: none is left). A block read
        passes ``drawn``: what it draws is recorded there with the order's
        cursor before it (:mod:`~minibatcher.tfds.shard_blocks`)."""
        if self._ahead:
            item = self._ahead.pop(0)
        else:
            before = None if drawn is None else self.order.state()
            try:
                item = (int(next(self.order)), before)
            except StopIteration:
                item = (None, before)
        if drawn is not None:
            drawn.append(item)
        return item[0]

    def next_block(self, count: int) -> Block:
        if not self._blocks or count <= 0:
            return super().next_block(count)
        return next_block(self, count, super().next_block)

    def _advance(self, count: int) -> None:
        self.bi += count
        if self.bi == self.block:
            self._next_slot()
        self.delivered += count
        expected = self.node.cardinality_asserted
        if expected is not None and self.delivered > expected:
            seen = max(expected + 1, 1)  # TF counts one element at a time
            raise FailedPreconditionError(
                f"Input dataset was expected to contain {_elements(expected)} but contained "
                f"at least {_elements(seen)}.")

    def __next__(self) -> Any:
        slot = self._slot()
        if slot is None:
            self._check_complete()
            raise StopIteration
        x = next(slot.it)
        self._advance(1)
        return x

    def skip(self, count: int) -> int:
        """Moves the cursor as ``count`` reads would, without reading records."""
        done = 0
        while done < count:
            slot = self._slot()
            if slot is None:
                self._check_complete()
                break
            got = slot.it.skip(min(self.block - self.bi, count - done))
            done += got
            self._advance(got)
        return done

    def _check_complete(self) -> None:
        expected = self.node.cardinality_asserted
        if expected is not None and self.delivered < expected:
            raise FailedPreconditionError(
                f"Input dataset was expected to contain {_elements(expected)} but contained "
                f"only {_elements(self.delivered)}.")

    def state(self) -> dict[str, Any]:
        order = self._ahead[0][1] if self._ahead else self.order.state()
        return {"epoch": self.epoch, "order": order, "order0": self.order0,
                "taken": self.taken,
                "ci": self.ci, "bi": self.bi, "exhausted": self.exhausted,
                "delivered": self.delivered,
                "slots": [None if s is None else {
                    "ordinal": s.ordinal, "instruction": s.instruction, "pos": s.it.pos,
                    "file": _jsonable(_file_of(self.node.sources[s.instruction]))}
                    for s in self.slots]}


class ShardInterleave(Dataset):
    """The examples of ``sources`` (record sources, one per file instruction),
    interleaved with ``cycle_length``/``block_length`` in the order the
    ``order`` dataset gives (instruction numbers). ``cardinality``: TFDS's
    ``assert_cardinality`` (None: not asserted); ``shards``: the read's
    :class:`~minibatcher.tfds.reader.ShardCache` (skipped-record counts).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> from minibatcher.tfdata.sources import RangeSource
        >>> ds = ShardInterleave(Dataset.from_tensor_slices([0, 0]), [RangeSource(0, 2, 1)], 1, 1,
        ...                      cardinality=2)
        >>> ds.cardinality(), [int(x) for x in ds.take(2)]
        (2, [0, 1])
        >>> list(ds)
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.FailedPreconditionError: Input dataset was expected to contain 2 elements but contained at least 3 elements.
    """

    def __init__(self, order: Dataset, sources: Sequence[Any], cycle_length: int | None,
                 block_length: int, shards: Any = None, cardinality: int | None = None,
                 num_parallel_calls: int | None = None, repeats: bool = False,
                 options: Any = None) -> None:
        self.order, self.sources = order, list(sources)
        self.cycle_arg = AUTOTUNE if cycle_length is None else int(cycle_length)
        self.block, self.npc, self.repeats = int(block_length), num_parallel_calls, repeats
        self.shards, self.cardinality_asserted = shards, cardinality
        self.read_options = options  # the read's own tfdata.Options (ReadConfig.options)
        self.epochs_started = 0  # the epoch of the next fresh iteration

    @property
    def cycle(self) -> int:
        """The cycle length: tf.data's rule for AUTOTUNE (the pipeline's
        ``cpu_budget`` option, else the schedulable cores); at most the number
        of instructions unless they repeat (a longer cycle reads in the same
        order: its extra slots stay empty)."""
        budget = pipeline_options().autotune.cpu_budget
        if budget is None and self.read_options is not None:
            budget = self.read_options.autotune.cpu_budget
        cores = schedulable_cores() if budget is None else int(budget)
        cycle = resolve_cycle_length(self.cycle_arg, self.npc, cores)
        return cycle if self.repeats else max(1, min(cycle, len(self.sources)))

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self.order,)

    def _spec(self) -> dict[str, Any]:
        return {"op": "tfds_read", "instructions": len(self.sources),
                "fingerprint": digest([s.fingerprint() for s in self.sources]),
                "cycle_length": self.cycle, "block_length": self.block,
                "cardinality": self.cardinality_asserted}

    def _make_iter(self, state: Fields | None) -> Iter:
        return _ShardReadIter(self, state)

    def _cardinality(self) -> int:
        return UNKNOWN if self.cardinality_asserted is None else self.cardinality_asserted
