"""The public iterator: ``next``, ``get_state()`` and ``set_state()`` (Grain's names).

A state is a small, versioned JSON-able dict::

    {"version": 1, "format": "minibatcher.tfdata",
     "plan": [[op, options], ...],      # every node of the pipeline, inputs first
     "iterator": {...},                 # the nested cursors of the nodes
     "shuffles": [{"started": k}, ...]} # iterations each shuffle has started (its RNG counter)

It is valid between any two elements; ``set_state`` on a fresh iterator of
an equal pipeline continues exactly there. The plan is compared node by node
and each difference is named. See docs/design/tfdata-state.md.

Several threads may share one iterator: each ``next``, ``get_state`` and
``set_state`` runs alone (the iterator's :class:`~minibatcher.gate.Gate`; over
a view, ``next`` takes an element of the current block without it, a list
iterator's ``next`` being atomic under the GIL), so every element is
delivered exactly once.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> ds = Dataset.range(8).shuffle(4, seed=1).batch(3)
    >>> it = iter(ds); first = next(it); state = it.get_state()
    >>> rest = [b.tolist() for b in it]
    >>> again = iter(ds); again.set_state(state)
    >>> [b.tolist() for b in again] == rest
    True
"""

from __future__ import annotations

import json
import sys
from typing import Any, Iterator, Mapping

from .. import exit_guard
from ..gate import Gate
from ..errors import CheckpointError, MinibatcherError
from ..state import TFDATA, Fields, check_stamp, refuse, stamp
from .dataset import Dataset
from .options import ACTIVE, Options
from .restore import check_iterations

STATE_FORMAT = TFDATA
# Whether a list iterator's next is atomic (the GIL): the block root's lock-free next needs it.
_ATOMIC_LIST_NEXT = getattr(sys, "_is_gil_enabled", lambda: True)()


def plan_of(dataset: Dataset) -> list[list[Any]]:
    """Every node of ``dataset``'s plan as ``[op, options]``, inputs first.

    Example:
        >>> plan_of(Dataset.range(3).take(2))[1]
        ['take', {'count': 2}]
    """
    out: list[list[Any]] = []
    for node in _nodes(dataset):
        spec = dict(node._spec())
        op = spec.pop("op", type(node).__name__)
        out.append([op, json.loads(json.dumps(spec, default=repr))])
    return out


def _nodes(dataset: Dataset) -> list[Dataset]:
    """The nodes of ``dataset``'s plan, inputs first. Walked with a stack, not a
    recursive closure: a closure that calls itself is a reference cycle, which kept
    the datasets (and their files' descriptors) alive until the cyclic collector ran."""
    out: list[Dataset] = []
    stack: list[tuple[Dataset, bool]] = [(dataset, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            out.append(node)
            continue
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(list(node._inputs())))
    return out


def _shuffles(dataset: Dataset) -> list[Any]:
    return [n for n in _nodes(dataset) if hasattr(n, "iterations_started")]


def _stateful(dataset: Dataset) -> list[Any]:
    """Nodes with state of their own that checkpoints carry (``_generator_state``):
    the seed generators of shuffles and random sources, memory caches."""
    return [n for n in _nodes(dataset) if hasattr(n, "_generator_state")]


def _plan_differences(saved: Any, mine: list[list[Any]]) -> list[str]:
    if not isinstance(saved, list) or len(saved) != len(mine):
        count = len(saved) if isinstance(saved, list) else "?"
        return [f"it was taken from a pipeline of {count} steps, but this one has {len(mine)}"]
    problems = []
    for i, (theirs, ours) in enumerate(zip(saved, mine)):
        if list(theirs) != ours:
            problems.append(f"step {i} was {theirs[0]}({_fmt(theirs[1])}) there, but is "
                            f"{ours[0]}({_fmt(ours[1])}) here")
    return problems


def _fmt(options: Any) -> str:
    if not isinstance(options, Mapping):
        return repr(options)
    return ", ".join(f"{k}={v!r}" for k, v in options.items())


class DatasetIterator(Iterator[Any]):
    """An iteration of a dataset with exact checkpoints.

    Example:
        >>> it = iter(Dataset.range(3))
        >>> next(it), it.get_state()["iterator"]
        (np.int64(0), {'pos': 1, 'pins': None})
    """

    def __init__(self, dataset: Dataset) -> None:
        exit_guard.install()  # daemon threads reading at exit wait instead of crashing
        exit_guard.check()
        self._gate = Gate("this tfdata iterator")  # one next/get_state/set_state at a time
        self._dataset = dataset
        options = dataset.options()
        # the pipeline's options, seen by every node while it builds or advances (None: defaults)
        self._options: Options | None = None if options == Options() else options
        token = ACTIVE.set(self._options)
        try:
            self._install(dataset._make_iter(None))
        finally:
            ACTIVE.reset(token)

    def _install(self, it: Any) -> None:
        """Makes ``it`` the root iterator; over a view, ``next`` takes elements
        straight from the current block (:class:`_BlockRootIterator`)."""
        self._it = it
        if hasattr(it, "_refill") and _ATOMIC_LIST_NEXT:
            self._cur = it._cur
            self.__class__ = _BlockRootIterator
        else:
            self.__class__ = DatasetIterator

    def __iter__(self) -> "DatasetIterator":
        return self

    def __next__(self) -> Any:
        if exit_guard.exiting:
            exit_guard.check()
        gate = self._gate
        free = gate.free
        try:
            free.pop()  # the gate's uncontended entry, inline: this runs once per element
        except IndexError:
            gate.wait()
        try:  # self._next(), inline
            if ACTIVE.get() is self._options:
                return next(self._it)
            token = ACTIVE.set(self._options)
            try:
                return next(self._it)
            finally:
                ACTIVE.reset(token)
        finally:
            free.append(True)  # gate.leave(), inline
            if gate.waiting:
                gate.wake()

    def _next(self) -> Any:
        """The root's next element, the pipeline's options active (inside the gate)."""
        if ACTIVE.get() is self._options:
            return next(self._it)
        token = ACTIVE.set(self._options)
        try:
            return next(self._it)
        finally:
            ACTIVE.reset(token)

    def _skip(self, count: int) -> int:
        """Skips up to ``count`` elements (O(1) over views; a map does not call its
        function); how many. For readers that split one stream among workers."""
        with self._gate:
            token = ACTIVE.set(self._options)
            try:
                done = self._it.skip(count) if count > 0 else 0
            finally:
                ACTIVE.reset(token)
            self._install(self._it)
            return done

    def get_next(self) -> Any:
        """``next(self)`` (tf.data's iterator method name).

        Example:
            >>> iter(Dataset.range(2)).get_next()
            np.int64(0)
        """
        return next(self)

    def get_state(self) -> dict[str, Any]:
        """The position after the last element returned (JSON-able).

        Example:
            >>> sorted(iter(Dataset.range(1)).get_state())
            ['format', 'iterator', 'plan', 'shuffles', 'version']
        """
        token = ACTIVE.set(self._options)  # a plan may depend on options (interleave's cycle)
        try:
            plan = plan_of(self._dataset)
        finally:
            ACTIVE.reset(token)
        with self._gate:
            return {**stamp(TFDATA), "plan": plan,
                    "iterator": self._it.state(),
                    "shuffles": [s._generator_state() for s in _stateful(self._dataset)]}

    def _state_taker(self) -> Any:
        """``get_state`` for a reader that takes the state after every element
        (a ``PipelineReader`` worker): the plan and the stateful nodes are
        found once, here, instead of at every call (two thirds of its cost).

        Example:
            >>> it = iter(Dataset.range(3)); take = it._state_taker(); _ = next(it)
            >>> take() == it.get_state()
            True
        """
        token = ACTIVE.set(self._options)
        try:
            plan = plan_of(self._dataset)
        finally:
            ACTIVE.reset(token)
        stateful, gate = _stateful(self._dataset), self._gate

        def take() -> dict[str, Any]:
            with gate:
                return {**stamp(TFDATA), "plan": plan, "iterator": self._it.state(),
                        "shuffles": [s._generator_state() for s in stateful]}

        return take

    def set_state(self, state: Mapping[str, Any]) -> None:
        """Continues exactly where ``state`` was taken; refuses a state of another
        pipeline or other data, naming the difference.

        Example:
            >>> it = iter(Dataset.range(5))
            >>> it.set_state(iter(Dataset.range(4)).get_state())
            Traceback (most recent call last):
            ...
            minibatcher.errors.CheckpointError: cannot restore this checkpoint: step 0 was ...
        """
        with self._gate:
            self._restore(state)

    def _restore(self, state: Mapping[str, Any]) -> None:
        check_stamp(state, TFDATA)
        fields = Fields(state)
        token = ACTIVE.set(self._options)
        try:
            plan = plan_of(self._dataset)
        finally:
            ACTIVE.reset(token)
        refuse(_plan_differences(fields.value("plan"), plan),
               "build the pipeline with the same data and options as the one that wrote the "
               "checkpoint")
        shuffles = _stateful(self._dataset)
        before = [node._generator_state() for node in shuffles]
        token = ACTIVE.set(self._options)
        try:
            for node in shuffles:
                node._restored = {}
            it = self._dataset._make_iter(fields.child("iterator"))
            saved = fields.items("shuffles", len(shuffles))
            for node, generator in zip(shuffles, saved):
                node._restore_generator(generator)
            check_iterations(shuffles, saved)
        except BaseException as e:
            for node, saved in zip(shuffles, before):  # a refused state changes nothing
                node._restored = None
                node._restore_generator(Fields(saved))
            if isinstance(e, (KeyError, TypeError, ValueError, IndexError)) and \
                    not isinstance(e, MinibatcherError):
                raise CheckpointError(f"the checkpoint's iterator state is malformed: "
                                      f"{type(e).__name__}: {e}") from e
            raise
        finally:
            ACTIVE.reset(token)
            for node in shuffles:
                node._restored = None
        self._install(it)


class _BlockRootIterator(DatasetIterator):
    """A :class:`DatasetIterator` whose root reads a view a block at a time:
    ``next`` takes the next element of the current block without a call into
    the root iterator (which shares the block's list iterator, so its
    position stays exact).

    Example:
        >>> type(iter(Dataset.range(3))).__name__, list(iter(Dataset.range(3)))
        ('_BlockRootIterator', [np.int64(0), np.int64(1), np.int64(2)])
    """

    _cur: Any

    def __next__(self) -> Any:
        try:
            return next(self._cur)  # atomic: each element of the block goes to one thread
        except StopIteration:
            with self._gate:  # one thread reads the next block (the others wait, then take it)
                x = self._next()  # the next element: of a block another thread read, or a new one
                self._cur = self._it._cur
                return x
