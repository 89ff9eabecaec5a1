"""The cursor of a ``tfds_read`` (:class:`~minibatcher.tfds.shard_interleave.ShardInterleave`)
read back: :class:`ShardReadCursor` validates every field of such a state against the
read (the instructions the order delivered, the lengths of their ranges, the files of
the open slots), for the op's own restore and for :mod:`~minibatcher.tfds.elastic`.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> from minibatcher.tfdata.sources import RangeSource
    >>> from minibatcher.tfds.shard_interleave import ShardInterleave
    >>> ds = ShardInterleave(Dataset.from_tensor_slices([0]), [RangeSource(0, 2, 1)], 1, 1)
    >>> state = iter(ds).get_state()["iterator"]; state["delivered"] = 5
    >>> ShardReadCursor(ds, Fields(state, "iterator"))
    Traceback (most recent call last):
    ...
    minibatcher.errors.CheckpointError: checkpoint state field 'iterator.delivered' should be 0 (the examples of the instructions read and the open slots' positions), but got iterator.delivered=5; the state is damaged or was edited
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..state import Fields
from ..tfdata.core import Iter
from ..tfdata.iterator import _stateful, plan_of

if TYPE_CHECKING:
    from .shard_interleave import ShardInterleave

__all__ = ["ShardReadCursor"]


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
        >>> from minibatcher.tfds.shard_interleave import ShardInterleave
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
            >>> from minibatcher.tfds.shard_interleave import ShardInterleave
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
