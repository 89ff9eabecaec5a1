"""Elastic resume: a run interrupted with N input pipelines continues on M.

Within an epoch, TFDS's order is a pure function of the ReadConfig, the shard
lengths and the epoch, so the examples that old worker ``w`` has read are
known from the number it read (``consumed[w]``): they are a prefix
``[skip, skip + c)`` of each of its file instructions, found by replaying the
interleave cursor on instruction lengths (no data is read). The rest of the
epoch is:

* for each old worker in order, its instructions in its epoch order, each
  cut to the part not read yet (open slots' remainders, then the files it had
  not opened);
* that sequence of examples split into M contiguous parts of equal size
  (the first ``r`` parts one example more), as ``even_splits`` does;
* new worker j reads part j with the same cycle/block interleave and no file
  shuffle (the epoch's file order is already fixed).

``consumed`` can also be read from the old workers' iterator states (their
interleave cursors say which instructions were opened and how far each open
one was read, and the file shuffle's iteration gives the epoch).

So every example of the epoch is read exactly once over the old and the new
workers, and the new workers' loads differ by at most one example. Later
epochs use the normal M-worker plan (``InputContext(M, j)``).

Example:
    >>> from minibatcher.tfds.splits import FileInstruction as F
    >>> consumed_per_instruction([0, 1], [4, 4], cycle=2, block=2, count=5)
    {0: 3, 1: 2}
    >>> [f.as_tuple() for f in even_parts([F("a", 1, 4, 5), F("b", 0, 2, 2)], 2)[1]]
    [('a', 4, 1, 5), ('b', 0, 2, 2)]
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

from ..errors import CheckpointError, ConfigError
from .read_config import InputContext, ReadConfig
from .reader import instruction_order
from .splits import AbsoluteInstruction, AbstractSplit, FileInstruction


def consumed_per_instruction(order: Sequence[int], takes: Sequence[int], cycle: int, block: int,
                             count: int) -> dict[int, int]:
    """How many examples of each instruction the first ``count`` elements of
    an interleave (tf.data's cursor, spec §3.2) take; ``order`` is the input
    order of instruction numbers, ``takes`` their lengths."""
    slots: list[list[int] | None] = [None] * cycle
    ci = bi = nxt = 0
    done: dict[int, int] = {}
    while count > 0:
        slot = slots[ci]
        if slot is not None:
            inst, pos = slot
            if pos >= takes[inst]:
                slots[ci], bi, ci = None, 0, (ci + 1) % cycle
                continue
            n = min(block - bi, takes[inst] - pos, count)
            slot[1] = done[inst] = pos + n
            count -= n
            bi += n
            if bi == block:
                bi, ci = 0, (ci + 1) % cycle
        elif nxt < len(order):
            slots[ci] = [order[nxt], 0]
            done[order[nxt]] = 0
            nxt += 1
        elif any(s is not None for s in slots):
            bi, ci = 0, (ci + 1) % cycle
        else:
            raise ConfigError(f"consumed counts more examples than the worker's part of the "
                              f"split holds ({count} too many)")
    return done


def even_parts(pieces: Sequence[FileInstruction], n: int) -> list[list[FileInstruction]]:
    """``pieces`` (a sequence of examples) cut into ``n`` contiguous parts of
    equal size, the first ``total % n`` parts one example longer."""
    total = sum(p.take for p in pieces)
    k, r = divmod(total, n)
    bounds = [0]
    for i in range(n):
        bounds.append(bounds[-1] + k + (1 if i < r else 0))
    parts: list[list[FileInstruction]] = [[] for _ in range(n)]
    pos = 0
    for p in pieces:
        start, end = pos, pos + p.take
        for j in range(n):
            lo, hi = max(start, bounds[j]), min(end, bounds[j + 1])
            if lo < hi:
                parts[j].append(FileInstruction(p.filename, p.skip + lo - start, hi - lo,
                                                p.examples_in_shard))
        pos = end
    return parts


@dataclasses.dataclass(frozen=True)
class InstructionSplit(AbstractSplit):
    """A split given directly as file instructions (shard-relative names)."""

    instructions: tuple[FileInstruction, ...]

    def to_absolute(self, split_infos) -> list[AbsoluteInstruction]:  # type: ignore[override]
        raise TypeError("InstructionSplit holds file instructions, not ranges; pass it to "
                        "ReadOnlyBuilder.as_dataset")

    @property
    def num_examples(self) -> int:
        """Examples in this part."""
        return sum(f.take for f in self.instructions)


@dataclasses.dataclass(frozen=True)
class ElasticRemainder:
    """The examples of an epoch that N old workers had not read yet.

    ``split_for(m, j)`` is new worker j's part (of m); read it with
    ``builder.as_dataset(part, read_config=...)`` (no ``shuffle_files``).
    """

    pieces: tuple[FileInstruction, ...]

    @property
    def num_examples(self) -> int:
        """Examples left in the epoch."""
        return sum(p.take for p in self.pieces)

    def split_for(self, num_workers: int, index: int) -> InstructionSplit:
        """New worker ``index``'s part when ``num_workers`` continue."""
        InputContext(num_workers, index)  # validates
        return InstructionSplit(tuple(even_parts(self.pieces, num_workers)[index]))


def _interleave_cursor(state: Mapping[str, Any]) -> Mapping[str, Any]:
    """The cursor of as_dataset's interleave inside a tfdata iterator state
    (only 1:1, filter and batch steps may follow it)."""
    plan = state.get("plan") if isinstance(state, Mapping) else None
    if not isinstance(plan, list):
        raise CheckpointError("the state should be a tfdata iterator state (get_state()), but "
                              "it has no plan")
    hits = [i for i, (op, opt) in enumerate(plan) if op == "interleave"
            and str(opt.get("fn", "")).endswith("read_files.<locals>.open_instruction")]
    if len(hits) != 1:
        raise CheckpointError("the state should come from an iterator over one "
                              f"ReadOnlyBuilder.as_dataset(...), but it holds {len(hits)}")
    after = [op for op, _ in plan[hits[0] + 1:]]
    if any(op in ("shuffle", "interleave", "group_by_window", "zip") for op in after):
        raise CheckpointError(
            f"elastic restore needs the examples taken from as_dataset to be the ones delivered, "
            f"but the pipeline has {after} after it (a shuffle buffer holds examples read and not "
            f"yet delivered); pass consumed= counts of delivered examples instead")
    node = state["iterator"]
    for _ in after:
        node = node["in"]
    return node


def consumed_from_state(state: Mapping[str, Any], order: Sequence[int],
                        takes: Sequence[int]) -> dict[int, int]:
    """Examples read per instruction, from a worker's iterator state."""
    cursor = _interleave_cursor(state)
    done = {order[a]: takes[order[a]] for a in range(int(cursor["taken"]))}
    for slot in cursor["slots"]:
        if slot is not None:
            done[order[int(slot["address"])]] = int(slot["it"]["pos"])
    return done


def _epoch_of(state: Mapping[str, Any]) -> int:
    inner = _interleave_cursor(state).get("in", {})
    pins = inner.get("pins") if isinstance(inner, Mapping) else None
    return int(pins.get("k", 0)) if isinstance(pins, Mapping) else 0


def elastic_remainder(builder, split, *, consumed: Sequence[int] | None = None,
                      states: Sequence[Mapping[str, Any]] | None = None,
                      shuffle_files: bool = False, read_config: ReadConfig | None = None,
                      epoch: int = 0) -> ElasticRemainder:
    """What is left of an epoch after ``N`` workers (each with
    ``InputContext(N, w)`` and otherwise ``read_config``) read part of
    ``builder.as_dataset(split, ...)``: either ``consumed[w]`` examples each in
    epoch ``epoch``, or up to their iterator ``states[w]`` (``get_state()``,
    whose epoch they carry; as_dataset followed by map/filter/batch steps).

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher import tfds
        >>> from minibatcher.tfds.testing import write_dataset
        >>> folder = write_dataset(pathlib.Path(tempfile.mkdtemp()), {"train": [3, 3, 3]})
        >>> b = tfds.builder_from_directory(folder)
        >>> rest = elastic_remainder(b, "train", consumed=[2, 1])
        >>> rest.num_examples, [int(x["id"]) for x in b.as_dataset(rest.split_for(1, 0))]
        (6, [2, 6, 7, 8, 4, 5])
    """
    if (consumed is None) == (states is None):
        raise ConfigError("give either consumed= (examples read per worker) or states= (their "
                          "iterator states), not both or neither")
    base = read_config or ReadConfig()
    fis = builder._instructions(AbstractSplit.from_spec(split))
    if base.experimental_interleave_sort_fn is not None:
        fis = list(base.experimental_interleave_sort_fn(fis))
    cycle = base.cycle_length(builder.info.disable_shuffling) or 16
    takes = [f.take for f in fis]
    workers = len(consumed if consumed is not None else states)  # type: ignore[arg-type]
    pieces: list[FileInstruction] = []
    for w in range(workers):
        rc = dataclasses.replace(base, input_context=InputContext(workers, w))
        orders = instruction_order(len(fis), rc, shuffle_files)
        k = epoch if states is None else _epoch_of(states[w])
        order = [int(i) for i in orders]
        for _ in range(k):
            order = [int(i) for i in orders]
        done = (consumed_per_instruction(order, takes, cycle, base.block_length(),
                                         int(consumed[w])) if states is None  # type: ignore[index]
                else consumed_from_state(states[w], order, takes))
        for i in order:
            c = done.get(i, 0)
            if c < fis[i].take:
                f = fis[i]
                pieces.append(FileInstruction(f.filename, f.skip + c, f.take - c,
                                              f.examples_in_shard))
    return ElasticRemainder(tuple(pieces))
