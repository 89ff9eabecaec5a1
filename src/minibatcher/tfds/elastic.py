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
one was read, and the file shuffle's pins give the epoch). A state may have
shuffle buffers after as_dataset: the state holds each shuffle's emitted
count and seeds, not its buffer, so the stream positions it read and those
it holds are re-derived by simulating its draws on integers; the held
examples (read, not delivered) come first in the worker's remainder, as
one-record instructions (runs of consecutive records merged).

So every example of the epoch is read exactly once over the old and the new
workers, and the new workers' loads differ by at most one example. Later
epochs use the normal M-worker plan (``InputContext(M, j)``).

Example:
    >>> from minibatcher.tfds.splits import FileInstruction as F
    >>> consumed_per_instruction([0, 1], [4, 4], cycle=2, block=2, count=5)
    {0: 3, 1: 2}
    >>> [(f.filename, f.skip, f.take) for f in even_parts([F("a", 1, 4, 5), F("b", 0, 2, 2)], 2)[1]]
    [('a', 4, 1), ('b', 0, 2)]
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping, Sequence

from ..errors import CheckpointError, ConfigError
from ..state import as_fields
from ..tfdata.philox import iteration_seeds
from ..tfdata.shuffle import shuffle_order
from .read_config import InputContext, ReadConfig
from .read_order import instruction_order
from .reader import ShardCache, ShardSource
from .shard_utils import FileInstruction
from .splits import AbsoluteInstruction, AbstractSplit


def interleave_runs(order: Sequence[int], takes: Sequence[int], cycle: int, block: int,
                    count: int) -> list[tuple[int, int, int]]:
    """The first ``count`` elements of an interleave (tf.data's cursor, spec
    §3.2) as runs ``(instruction, first offset, length)`` in stream order;
    ``order`` is the input order of instruction numbers, ``takes`` their
    lengths. No data is read.

    Example:
        >>> interleave_runs([0, 1], [4, 4], cycle=2, block=2, count=5)
        [(0, 0, 2), (1, 0, 2), (0, 2, 1)]
    """
    slots: list[list[int] | None] = [None] * cycle
    ci = bi = nxt = 0
    runs: list[tuple[int, int, int]] = []
    while count > 0:
        slot = slots[ci]
        if slot is not None:
            inst, pos = slot
            if pos >= takes[inst]:
                slots[ci], bi, ci = None, 0, (ci + 1) % cycle
                continue
            n = min(block - bi, takes[inst] - pos, count)
            runs.append((inst, pos, n))
            slot[1], count, bi = pos + n, count - n, bi + n
            if bi == block:
                bi, ci = 0, (ci + 1) % cycle
        elif nxt < len(order):
            slots[ci], nxt = [order[nxt], 0], nxt + 1
        elif any(s is not None for s in slots):
            bi, ci = 0, (ci + 1) % cycle
        else:
            raise ConfigError(f"consumed counts more examples than the worker's part of the "
                              f"split holds ({count} too many)")
    return runs


def consumed_per_instruction(order: Sequence[int], takes: Sequence[int], cycle: int, block: int,
                             count: int) -> dict[int, int]:
    """How many examples of each instruction the first ``count`` elements of
    an interleave take (see :func:`interleave_runs`)."""
    done: dict[int, int] = {}
    for inst, first, n in interleave_runs(order, takes, cycle, block, count):
        done[inst] = first + n
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
    """A split given directly as file instructions (what
    :meth:`ElasticRemainder.split_for` returns); ``ReadOnlyBuilder.as_dataset``
    reads them in this order, with the read_config's cycle/block interleave.

    Example:
        >>> from minibatcher.tfds.splits import FileInstruction as F
        >>> part = InstructionSplit((F("/d/a", 2, 3, 5), F("/d/b", 0, 1, 1)))
        >>> part.num_examples
        4
    """

    instructions: tuple[FileInstruction, ...]

    def to_absolute(self, split_infos) -> list[AbsoluteInstruction]:  # type: ignore[override]
        """Not available: the instructions are file ranges, not ranges of a
        named split (the builder reads them directly).

        Example:
            >>> InstructionSplit(()).to_absolute({})
            Traceback (most recent call last):
            ...
            TypeError: InstructionSplit holds file instructions, not ranges; pass it to ...
        """
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

    Example:
        >>> from minibatcher.tfds.splits import FileInstruction as F
        >>> rest = ElasticRemainder((F("a", 1, 4, 5), F("b", 0, 3, 3)))
        >>> rest.num_examples, [(f.filename, f.skip, f.take) for f in rest.split_for(3, 1).instructions]
        (7, [('a', 4, 1), ('b', 0, 1)])
    """

    pieces: tuple[FileInstruction, ...]

    @property
    def num_examples(self) -> int:
        """Examples left in the epoch."""
        return sum(p.take for p in self.pieces)

    def split_for(self, num_workers: int, index: int) -> InstructionSplit:
        """New worker ``index``'s part when ``num_workers`` continue: a
        contiguous piece of the remainder, the first ``total % num_workers``
        parts one example longer.

        Example:
            >>> from minibatcher.tfds.splits import FileInstruction as F
            >>> rest = ElasticRemainder((F("a", 0, 5, 5),))
            >>> [rest.split_for(2, j).num_examples for j in range(2)]
            [3, 2]
        """
        InputContext(num_workers, index)  # validates
        return InstructionSplit(tuple(even_parts(self.pieces, num_workers)[index]))


# -- what an old worker's iterator state says it read --------------------------------------------

_ONE_TO_ONE = frozenset({"map", "prefetch"})  # stream positions pass through unchanged
_DELIVERING = _ONE_TO_ONE | {"filter", "take", "BatchDataset", "PaddedBatchDataset"}


@dataclasses.dataclass(frozen=True)
class _Walk:
    """One old worker's state, taken apart: the plan before the interleave
    (``before``), the interleave's options and cursor (its current state, or
    its state at the start of the iteration when a shuffle buffer read
    ahead), and the shuffles after it, outermost first, with their states."""

    before: list[str]
    interleave: Mapping[str, Any]
    cursor: Mapping[str, Any]
    shuffles: list[tuple[Mapping[str, Any], Mapping[str, Any]]]


def _walk(state: Mapping[str, Any]) -> _Walk:
    """Finds as_dataset's interleave in ``state`` and the shuffle buffers after
    it; refuses steps whose held elements cannot be mapped back to examples."""
    plan = state.get("plan") if isinstance(state, Mapping) else None
    if not isinstance(plan, list):
        raise CheckpointError("the state should be a tfdata iterator state (get_state()), but "
                              "it has no plan")
    hits = [i for i, (op, opt) in enumerate(plan) if op == "interleave"
            and str(opt.get("fn", "")).endswith("read_files.<locals>.open_instruction")]
    if len(hits) != 1:
        raise CheckpointError("the state should come from an iterator over one "
                              f"ReadOnlyBuilder.as_dataset(...), but it holds {len(hits)}")
    node, shuffles = state["iterator"], []
    for op, opts in reversed(plan[hits[0] + 1:]):
        allowed = _ONE_TO_ONE | {"shuffle"} if shuffles else _DELIVERING | {"shuffle"}
        if op not in allowed:
            where = "between as_dataset and a shuffle" if shuffles else "after as_dataset"
            raise CheckpointError(
                f"elastic restore maps what each old worker read back to examples through "
                f"{sorted(allowed)} steps {where}, but the pipeline has {op} there")
        if op == "shuffle":
            shuffles.append((opts, node))
            node = node["in0"]  # the input's state at the start: re-derived by simulation
        else:
            node = node["in"]
    return _Walk([op for op, _ in plan[:hits[0]]], plan[hits[0]][1], node, shuffles)


def _buffered(shuffles: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]],
              length: int) -> tuple[int | None, list[int]]:
    """For shuffles over a stream of ``length`` elements (outermost first):
    how many stream elements they read, and the stream positions read but
    not delivered (what their buffers hold), re-derived from the emitted
    counts and the seeds (the buffers are not in the state)."""
    read: int | None = None
    held: list[int] = []
    for opts, st in shuffles:
        seeds = st["seeds"] if opts["seeds"] == "unseeded" else opts["seeds"]
        k = int(st["k"])
        order = shuffle_order(iteration_seeds(int(seeds[0]), int(seeds[1]), k,
                                              bool(opts["reshuffle_each_iteration"])),
                              int(opts["buffer_size"]), length)
        t = int(st["emitted"]) if read is None else read  # an inner one: as its reader read
        emitted = order.advance(t)
        if order.emitted != t or (read is None and order.end != int(st["end"])):
            raise CheckpointError(f"the shuffle state (emitted {t}, read {st.get('end')}) does "
                                  f"not fit the worker's {length} examples; it was taken with "
                                  "other data or another split/read_config")
        held = [int(emitted[o]) for o in held] + [int(p) for p in order.held()]
        read = int(order.end)
    return read, held


# -- the remainder ---------------------------------------------------------------------------

class _Ranges:
    """The split's file instructions in as_dataset's input order, and the
    records each one's stream holds: all of ``[skip, skip + take)``, or only
    the good ones when corrupted records are skipped (``max_errors``; then
    the instructions' ranges are verified once, as the readers do)."""

    def __init__(self, fis: Sequence[FileInstruction], rc: ReadConfig) -> None:
        self.fis = list(fis)
        cache = ShardCache(rc)
        self.good = ([ShardSource(f, "", cache, None, False).positions() for f in self.fis]
                     if cache.skipping else None)
        self.takes = [f.take for f in self.fis] if self.good is None else \
            [len(g) for g in self.good]

    def position(self, i: int, offset: int) -> int:
        """The shard position of element ``offset`` of instruction ``i``'s stream."""
        return self.fis[i].skip + offset if self.good is None else int(self.good[i][offset])

    def rest(self, i: int, offset: int) -> FileInstruction:
        """Instruction ``i`` from element ``offset`` of its stream on."""
        f = self.fis[i]
        at = self.position(i, offset)
        return FileInstruction(f.filename, at, f.skip + f.take - at, f.examples_in_shard)


def _held_pieces(ranges: _Ranges, runs: Sequence[tuple[int, int, int]],
                 held: Sequence[int]) -> list[FileInstruction]:
    """The examples at stream positions ``held`` (of the stream ``runs``
    describe) as file instructions, one per run of consecutive records."""
    out: list[FileInstruction] = []
    r = start = 0  # run r covers stream positions [start, start + its length)
    for p in sorted(held):
        while p >= start + runs[r][2]:
            start += runs[r][2]
            r += 1
        inst, first, _ = runs[r]
        f, skip = ranges.fis[inst], ranges.position(inst, first + p - start)
        last = out[-1] if out else None
        if last is not None and last.filename == f.filename and last.skip + last.take == skip:
            out[-1] = FileInstruction(f.filename, last.skip, last.take + 1, f.examples_in_shard)
        else:
            out.append(FileInstruction(f.filename, skip, 1, f.examples_in_shard))
    return out


def _unread_pieces(ranges: _Ranges, order: Sequence[int],
                   done: Mapping[int, int]) -> list[FileInstruction]:
    """Each instruction of ``order`` cut to the part not read yet."""
    return [ranges.rest(i, done.get(i, 0)) for i in order if done.get(i, 0) < ranges.takes[i]]


def _order_of(count: int, rc: ReadConfig, shuffle_files: bool,
              walk: _Walk) -> list[int]:
    """The worker's instruction order in the state's iteration (the file
    shuffle's pins give the epoch, and the seeds of an unseeded shuffle)."""
    if ("shuffle" in walk.before) != bool(shuffle_files):
        raise ConfigError(f"the states were taken with shuffle_files={not shuffle_files}, but "
                          f"shuffle_files={shuffle_files} was given")
    pins = as_fields(walk.cursor["in"]["pins"], "interleave.in.pins")
    view = instruction_order(count, rc, shuffle_files)._make_view(pins)
    return [int(i) for i in view.read(0, len(view))]


def _pieces_from_state(ranges: _Ranges, rc: ReadConfig, shuffle_files: bool,
                       state: Mapping[str, Any]) -> list[FileInstruction]:
    """What one old worker has not delivered: the examples its shuffle
    buffers hold, then the unread rest of its instructions."""
    walk = _walk(state)
    order = _order_of(len(ranges.fis), rc, shuffle_files, walk)
    takes = ranges.takes
    read, held = _buffered(walk.shuffles, sum(takes[i] for i in order))
    if read is None:  # no buffer: the interleave's cursor is current
        return _unread_pieces(ranges, order, consumed_from_state(walk.cursor, order, takes))
    runs = interleave_runs(order, takes, int(walk.interleave["cycle_length"]),
                           int(walk.interleave["block_length"]), read)
    done = {inst: first + n for inst, first, n in runs}
    return _held_pieces(ranges, runs, held) + _unread_pieces(ranges, order, done)


def consumed_from_state(cursor: Mapping[str, Any], order: Sequence[int],
                        takes: Sequence[int]) -> dict[int, int]:
    """Examples read per instruction, from as_dataset's interleave cursor."""
    done = {order[a]: takes[order[a]] for a in range(int(cursor["taken"]))}
    for slot in cursor["slots"]:
        if slot is not None:
            done[order[int(slot["address"])]] = int(slot["it"]["pos"])
    return done


def _pieces_from_count(ranges: _Ranges, rc: ReadConfig, shuffle_files: bool,
                       count: int, epoch: int, cycle: int) -> list[FileInstruction]:
    """What one old worker has not read after taking ``count`` examples from
    as_dataset in ``epoch``."""
    orders = instruction_order(len(ranges.fis), rc, shuffle_files)
    for _ in range(epoch + 1):  # each iteration of the dataset is the next epoch's order
        order = [int(i) for i in orders]
    done = consumed_per_instruction(order, ranges.takes, cycle, rc.block_length(), int(count))
    return _unread_pieces(ranges, order, done)


def _sorted_instructions(builder, split, rc: ReadConfig) -> list[FileInstruction]:
    """The split's file instructions in as_dataset's input order."""
    fis = builder._instructions(AbstractSplit.from_spec(split))
    if rc.experimental_interleave_sort_fn is not None:
        fis = list(rc.experimental_interleave_sort_fn(fis))
    return fis


def elastic_remainder(builder, split, *, consumed: Sequence[int] | None = None,
                      states: Sequence[Mapping[str, Any]] | None = None,
                      shuffle_files: bool = False, read_config: ReadConfig | None = None,
                      epoch: int = 0) -> ElasticRemainder:
    """What is left of an epoch after ``N`` workers (each with ``InputContext(N, w)``
    and otherwise ``read_config``) read part of ``builder.as_dataset(split, ...)``:
    up to their iterator ``states[w]`` (``get_state()``, whose epoch they carry;
    as_dataset then map/filter/batch/take and ``shuffle`` steps, buffers included),
    or after taking ``consumed[w]`` examples each from as_dataset itself in epoch
    ``epoch`` (with a shuffle buffer after it, the examples taken are not the
    ones delivered: pass ``states``).

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
    ranges = _Ranges(_sorted_instructions(builder, split, base), base)
    marks = list(consumed if consumed is not None else states)  # type: ignore[arg-type]
    cycle = base.cycle_length(builder.info.disable_shuffling) or os.cpu_count() or 1
    pieces: list[FileInstruction] = []
    for w, mark in enumerate(marks):
        rc = dataclasses.replace(base, input_context=InputContext(len(marks), w))
        pieces += (_pieces_from_state(ranges, rc, shuffle_files, mark) if states is not None
                   else _pieces_from_count(ranges, rc, shuffle_files, mark, epoch, cycle))
    return ElasticRemainder(tuple(pieces))
