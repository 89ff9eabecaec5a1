"""What the iterator states of N old workers say they read (for
:func:`~minibatcher.tfds.elastic_remainder`), and the checks that they form one
complete, consistent set.

A worker's state holds the plan of its pipeline: ``as_dataset``'s read is the step
``tfds_read`` (:class:`~minibatcher.tfds.shard_interleave.ShardInterleave`), after the
steps of its instruction order (``shard`` for the input context, the file ``shuffle``). The
read that worker ``w`` of ``N`` should have made is rebuilt from the split and the
read_config, and every one of those steps must be the state's: another worker index or count
(states swapped, duplicated, or taken with another N), another file shuffle seed, split or
cycle/block is refused, naming the difference. The states must also be in one epoch.
After the read, one-to-one steps and ``shuffle`` s are followed down to the read's cursor
(the shuffles' cursors are documented in docs/design/tfdata-state.md); a shuffle's buffer
is re-derived by simulating its draws (the state holds no elements).

Example:
    >>> _step_problems(["shard", {"num_shards": 3, "index": 1}],
    ...                ["shard", {"num_shards": 2, "index": 1}])
    ['it was taken with input_context=InputContext(3, 1), but this elastic restore (2 states) has input_context=InputContext(2, 1)']
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from ..errors import CheckpointError
from ..state import TFDATA, Fields, check_stamp, taken_with
from ..tfdata.iterator import _stateful, plan_of
from ..tfdata.philox import iteration_seeds
from ..tfdata.restore import check_iterations
from ..tfdata.shuffle import _counts, shuffle_order
from .shard_interleave import ShardInterleave, ShardReadCursor

_ONE_TO_ONE = frozenset({"map", "prefetch", "with_options"})  # stream positions pass through unchanged
_DELIVERING = _ONE_TO_ONE | {"filter", "take", "BatchDataset", "PaddedBatchDataset"}
_THING = "elastic restore"


@dataclasses.dataclass(frozen=True)
class WorkerState:
    """One old worker's state taken apart: its plan up to the read, the read's
    cursor (current, or at the start of the iteration when a shuffle buffer
    read ahead), and the shuffles after the read, outermost first, as
    ``(options, cursor)``.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher import tfds
        >>> from minibatcher.tfds.testing import write_dataset
        >>> b = tfds.builder_from_directory(write_dataset(pathlib.Path(tempfile.mkdtemp()),
        ...                                               {"train": [3, 2]}))
        >>> it = iter(b.as_dataset("train").shuffle(2, seed=1)); _ = next(it)
        >>> w = WorkerState.parse(it.get_state(), 0)
        >>> [step[0] for step in w.plan], w.read.path, len(w.shuffles)
        (['source', 'tfds_read'], 'states[0].iterator.in0', 1)
    """

    plan: list[Any]
    read: Fields
    shuffles: list[tuple[Fields, Fields]]
    generators: list[Fields]  # ``shuffles[i]`` of the state: every shuffle step's, inputs first

    @classmethod
    def parse(cls, state: Any, w: int) -> "WorkerState":
        """Finds the read in ``state`` (worker ``w``'s) and the shuffles after it;
        refuses steps whose held elements cannot be mapped back to examples, and
        fields a restore of the state would refuse (the stamp, the fields, each
        shuffle's iteration started: ``shuffles[i].started``)."""
        top = Fields(state, f"states[{w}]")
        plan = top.value("plan") if top.has("plan") else None
        if not isinstance(plan, list):
            raise CheckpointError(f"states[{w}] should be a tfdata iterator state "
                                  "(get_state()), but it has no plan")
        check_stamp(state, TFDATA)
        top.only("format", "version", "plan", "iterator", "shuffles")
        hits = [i for i, step in enumerate(plan) if _op(step) == "tfds_read"]
        if len(hits) != 1:
            raise CheckpointError(f"states[{w}] should come from an iterator over one "
                                  f"ReadOnlyBuilder.as_dataset(...), but it holds {len(hits)}")
        node, shuffles = top.child("iterator"), []
        for op, opts in reversed(plan[hits[0] + 1:]):
            node = _down(op, opts, node, shuffles, top)
        generators = _check_started(top, [_op(step) for step in plan], shuffles)
        return cls(plan[:hits[0] + 1], node, shuffles, generators)

    def read_cursor(self, read: ShardInterleave) -> ShardReadCursor:
        """The read's cursor, checked as a restore checks it, its file shuffle's
        iterations against the state's ``shuffles`` records included."""
        nodes = [n for n in _stateful(read) if hasattr(n, "iterations_started")]
        saved = [n._generator_state() for n in nodes]
        for n in nodes:
            n._restored = {}
        try:
            cursor = ShardReadCursor(read, self.read)
            mine = self.generators[:len(nodes)]  # the steps before the read come first
            for n, generator in zip(nodes, mine):
                n._restore_generator(generator)
            check_iterations(nodes, mine)
        finally:
            for n, state in zip(nodes, saved):
                n._restored = None
                n._restore_generator(Fields(state))
        return cursor


def _check_started(top: Fields, ops: list[Any], shuffles: list[tuple[Fields, Fields]]
                   ) -> list[Fields]:
    """One generator record per shuffle step (inputs first); the iteration each
    shuffle after the read is in was started (``k`` below ``started``), with the
    seeds its cursor holds (an unseeded shuffle's)."""
    generators = top.items("shuffles", length=ops.count("shuffle"))
    started = [g.only("started", "seeds").int("started", 0) for g in generators]
    for j, (_, cursor) in enumerate(shuffles):  # outermost first: the last generators
        g = len(generators) - 1 - j
        k = cursor.int("k", 0)
        if k >= started[g]:
            raise generators[g].bad("started", f"at least {k + 1} ({cursor.path_of('k')}={k} "
                                    "is an iteration it started)")
        if generators[g].has("seeds") and generators[g].value("seeds") != \
                (cursor.value("seeds") if cursor.has("seeds") else None):
            raise generators[g].bad("seeds", f"the seeds of its cursor {cursor.path}")
    return generators


def _op(step: Any) -> Any:
    return step[0] if isinstance(step, list) and step else None


def _down(op: str, opts: Any, node: Fields, shuffles: list, top: Fields) -> Fields:
    """The cursor of the step below ``op``'s cursor ``node``."""
    allowed = _ONE_TO_ONE | {"shuffle"} if shuffles else _DELIVERING | {"shuffle"}
    if op not in allowed:
        where = "between as_dataset and a shuffle" if shuffles else "after as_dataset"
        raise CheckpointError(
            f"elastic restore maps what each old worker read back to examples through "
            f"{sorted(allowed)} steps {where}, but the pipeline has {op} there")
    if op == "shuffle":
        shuffles.append((Fields(opts, f"{top.path}.plan"), node))
        return node.child("in0")  # the input's cursor at the start: re-derived by simulation
    return node if op == "with_options" else node.child("in")  # with_options: its input's


def _step_problems(theirs: Any, ours: list[Any]) -> list[str]:
    """How one step of a worker's read differs from the step expected."""
    if _op(theirs) != ours[0]:
        return [f"it has a step {_op(theirs)!r} where this {_THING} expects {ours[0]!r}"]
    t, o = theirs[1], ours[1]
    if ours[0] == "shard" and t != o:
        return [taken_with("input_context", _Ctx(t), _Ctx(o),
                           f"{_THING} ({o['num_shards']} states)")]
    if ours[0] == "shuffle" and t.get("seeds") != o["seeds"]:
        return [taken_with("file shuffle seeds", t.get("seeds"), o["seeds"], _THING) +
                " (from ReadConfig.shuffle_seed)"]
    return [taken_with(k, t.get(k), v, _THING) for k, v in o.items() if t.get(k) != v]


class _Ctx:
    def __init__(self, shard: Any) -> None:
        self.n, self.i = shard.get("num_shards"), shard.get("index")

    def __repr__(self) -> str:
        return f"InputContext({self.n}, {self.i})"


def check_read(worker: WorkerState, read: ShardInterleave, w: int, shuffle_files: bool) -> None:
    """Refuses a worker state whose read is not the read worker ``w`` makes
    (see :func:`_step_problems` in the module's example)."""
    ours = plan_of(read)
    ops = [_op(s) for s in worker.plan]
    if ("shuffle" in ops) != bool(shuffle_files):
        raise CheckpointError(f"the states were taken with shuffle_files={not shuffle_files}, "
                              f"but shuffle_files={shuffle_files} was given")
    if len(worker.plan) != len(ours):
        problems = [f"its read has the steps {ops}, but this {_THING} expects "
                    f"{[s[0] for s in ours]} (another input context or read_config)"]
    else:
        problems = [p for t, o in zip(worker.plan, ours) for p in _step_problems(t, o)]
    if problems:
        raise CheckpointError(f"states[{w}] is not worker {w}'s state of this read: " +
                              "; ".join(problems) + "; pass the states of all old workers, in "
                              "worker order, with the split and read_config they read")


def check_distinct(states: Sequence[Any]) -> None:
    """No state given twice.

    Example:
        >>> check_distinct([{"a": 1}, {"a": 1}])
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: states[0] and states[1] are the same state; pass one state per old worker, in worker order
    """
    for a in range(len(states)):
        for b in range(a + 1, len(states)):
            if states[a] == states[b]:
                raise CheckpointError(f"states[{a}] and states[{b}] are the same state; pass "
                                      "one state per old worker, in worker order")


def check_epochs(cursors: Sequence[ShardReadCursor], reads: Sequence[Fields]) -> None:
    """All states in one epoch (``reads``: the read cursors' fields, to name them)."""
    epochs = [c.epoch for c in cursors]
    for epoch, read in zip(epochs, reads):
        if epoch != epochs[0]:
            raise read.bad("epoch", f"{epochs[0]}, the epoch of states[0] (the states are from "
                           f"different epochs ({epochs}, worker by worker): take them at one "
                           "point of one epoch)")


def buffered(shuffles: Sequence[tuple[Fields, Fields]], length: int
             ) -> tuple[int | None, list[int]]:
    """For shuffles over a stream of ``length`` elements (outermost first): how
    many stream elements they read, and the stream positions read but not
    delivered (what their buffers hold), re-derived from the emitted counts
    and the seeds (the buffers are not in the state); ``(None, [])`` without
    shuffles.

    Example:
        >>> buffered([], 10)
        (None, [])
    """
    read: int | None = None
    held: list[int] = []
    for opts, st in shuffles:
        st.only("k", "seeds", "emitted", "end", "done", "in0")
        _counts(st, int(opts.raw["buffer_size"]), length)  # as a restore checks them
        order = _simulated(opts, st, length)
        t = st.int("emitted", 0) if read is None else read  # an inner one: as its reader read
        emitted = order.advance(t)
        if order.emitted != t or (read is None and order.end != st.int("end", 0)):
            raise st.bad("emitted", f"a count that fits the worker's {length} examples",
                         "it was taken with other data or another split/read_config")
        held = [int(emitted[o]) for o in held] + [int(p) for p in order.held()]
        read = int(order.end)
    return read, held


def _simulated(opts: Fields, st: Fields, length: int) -> Any:
    """A shuffle's draws over ``length`` positions, from its options and cursor."""
    spec = opts.raw
    seeds = st.ints("seeds", length=2) if spec.get("seeds") == "unseeded" else spec["seeds"]
    k = st.int("k", 0)
    return shuffle_order(iteration_seeds(int(seeds[0]), int(seeds[1]), k,
                                         bool(spec["reshuffle_each_iteration"])),
                         int(spec["buffer_size"]), length)
