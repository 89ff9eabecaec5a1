"""``as_dataset``'s read as one tfdata op: the cycle/block interleave of the file
instructions in TFDS's order (:class:`ShardInterleave`, plan step ``tfds_read``).

The cursor follows tf.data's interleave exactly (``tfdata.interleave``'s rules); its state
names what a TFDS read is made of, so restores and elastic resume need no replay of data::

    {"epoch": iterations of the read before this one,
     "order": <the instruction order's cursor>, "order0": <its cursor at the start>,
     "taken": instructions opened, "ci": slot, "bi": position in the block,
     "exhausted": no instruction left, "delivered": examples delivered,
     "slots": [null | {"ordinal": k, "instruction": i, "pos": p, "file": fingerprint}]}

:class:`ShardReadCursor` (:mod:`.shard_cursor`) reads such a state, validating every field
against the read (the instructions the order delivered, the lengths of their ranges), for
the op's own restore and for :mod:`~minibatcher.tfds.elastic`. With
``ReadConfig.assert_cardinality`` (and no input context) the op is also TFDS's
``assert_cardinality``: its cardinality is the read's size, and an example beyond it
raises as TF does.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> from minibatcher.tfdata.sources import RangeSource
    >>> order = Dataset.from_tensor_slices([0, 1])
    >>> ds = ShardInterleave(order, [RangeSource(0, 3, 1), RangeSource(10, 12, 1)], 2, 2)
    >>> [int(x) for x in ds]
    [0, 1, 10, 11, 2]
"""

from __future__ import annotations

from typing import Any, Sequence

from ..state import Fields, digest
from ..tfdata.block import Block, blocks_enabled
from ..tfdata.core import UNKNOWN, Iter, ViewIter
from ..tfdata.dataset import AUTOTUNE, Dataset
from ..tfdata.errors import FailedPreconditionError
from ..tfdata.interleave import resolve_cycle_length, schedulable_cores
from ..tfdata.options import pipeline_options
from ..tfdata.sources import SourceView
from .shard_blocks import next_block
from .shard_cursor import ShardReadCursor, _file_of, _jsonable

__all__ = ["ShardInterleave", "ShardReadCursor"]


def _elements(n: int) -> str:
    return f"{n} element" if n == 1 else f"{n} elements"


class _Slot:
    __slots__ = ("instruction", "ordinal", "it")

    def __init__(self, instruction: int, ordinal: int, it: ViewIter) -> None:
        self.instruction, self.ordinal, self.it = instruction, ordinal, it


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
