"""The shared tampering check for reader states (tfdata, nmt, TFDS, TFRecord and text
files, the engine and HTK through :class:`tests.engine.resume.Minibatches`): random
edits of real states give a CheckpointError naming a field, or a reader that reads
on as one restored from a genuine state would (never a hang, a crash, a
MemoryError/OverflowError, different data).

A reader is ``make()`` -> an iterable whose iterator has ``get_state()`` /
``set_state()``; ``key`` turns an element into something comparable with ``==``;
``roots`` are the top-level fields edited; ``positions`` the field names that say
where a cursor is (see POSITIONS)."""

from __future__ import annotations

import copy
import json
import re
import signal
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from hypothesis import strategies as st

from minibatcher.errors import CheckpointError

from .resume import snapshot

# a field's path, or (a source's fingerprint, state/fingerprint.py) the option or the
# deserializer of the data that differs
NAMES_A_FIELD = re.compile(r"field '[^']+'|fields '[^']+'|lacks the field '[^']+'|"
                           r"checkpoint state (format|version) should be|"
                           r"it was taken with \w+=|it was taken with \d+ deserializer|"
                           r"deserializer \d+ \([^)]*\) holds other data")


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fails (instead of hanging the test run) when the block spins."""
    def expired(*_: Any) -> None:
        raise AssertionError(f"still running after {seconds} s: the restored iterator spins")
    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def record(make: Callable[[], Any], limit: int,
           key: Callable[[Any], Any] = snapshot) -> tuple[list[dict], list[Any]]:
    """The state before every element of one iteration, and the elements."""
    return _read(iter(make()), limit, key)


def values() -> st.SearchStrategy[Any]:
    """What an edit writes: scalars of every JSON kind (small and huge ints), or small nests."""
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                        st.integers(-3, 40), st.floats(allow_nan=False), st.text(max_size=3))
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
        max_leaves=5)


def _paths(node: Any, prefix: tuple = ()) -> Iterator[tuple]:
    yield prefix
    items = node.items() if isinstance(node, dict) else enumerate(node) \
        if isinstance(node, list) else ()
    for key, value in items:
        yield from _paths(value, prefix + (key,))


def _lookup(node: Any, path: tuple) -> Any:
    for key in path:
        if isinstance(node, dict) and key in node or \
                isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            raise KeyError(path)
    return node


def _new_value(old: Any, path: tuple, others: list[dict], data: Any) -> Any:
    """A random value, the old one nudged (ints), or the same field of another state."""
    kind = data.draw(st.sampled_from(["random", "nudge", "borrow"]), label="kind")
    if kind == "nudge" and type(old) is int:
        return old + data.draw(st.sampled_from([-2, -1, 1, 2, 5]), label="by")
    if kind == "borrow":
        found = []
        for other in others:
            try:
                found.append(_lookup(other, path))
            except KeyError:
                pass
        found = [f for f in found if f != old]
        if found:
            return copy.deepcopy(data.draw(st.sampled_from(found), label="borrowed"))
    return data.draw(values(), label="value")


ITERATOR_FIELDS = ("iterator", "shuffles")  # a tfdata state's cursors and generators


def tamper(state: dict, data: Any, others: list[dict] = (),
           roots: tuple[str, ...] = ITERATOR_FIELDS) -> list[tuple[tuple, str, Any]]:
    """1 to 3 random edits of ``state``'s fields under ``roots`` (a new
    value: random, nudged or borrowed from ``others``; a deleted or renamed key);
    returns ``(path, action, value)`` of each."""
    edits: list[tuple[tuple, str, Any]] = []
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        paths = [p for p in _paths(state) if p and p[0] in roots]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths), label="path")
        parent = _lookup(state, path[:-1])
        action = data.draw(st.sampled_from(["set"] * 6 + ["delete", "rename"]), label="action")
        value = None
        if action != "set" and isinstance(parent, dict):
            value = parent.pop(path[-1])
            if action == "rename":
                parent[path[-1] + "_"] = value
        else:
            action, value = "set", _new_value(parent[path[-1]], path, others, data)
            parent[path[-1]] = value
        edits.append((path, action, value))
    return edits


# Fields that say *where* a cursor is (a position, a count of elements read, the
# repetition, which iteration of a random node: ``k`` and its generator's count
# ``started``, checked against each other, not against a repetition; which input
# element an interleave slot reads: its ``ordinal``): an edit within range is a
# cursor at another place, which cannot be told from a genuine one without reading
# the input again (and may make other edited fields consistent, such as a flag that
# the input ended); the iterator must then read on as one restored from that place
# would (exact resume along the edited trajectory). Edits of other fields only must
# be refused, or change nothing (the rest of the iteration from a genuine position).
POSITIONS = frozenset({"pos", "left", "consumed", "rep", "taken", "ci", "bi", "batch", "started",
                       "k", "ordinal"})
# Cursors of what an op has open (a repetition, an interleave slot, a group window
# being drained): None says it was read to its end, a cursor that it was not:
# another position.
CLOSABLE = frozenset({"in", "slots", "cur"})
# Element references that are range- and key-checked but, below a filter or in a
# group (which element of a key a group still holds), not pinned to one element.
REFERENCES = frozenset({"refs", "groups"})


def changes(old: Any, new: Any, path: tuple = ()) -> Iterator[tuple[tuple, bool, Any]]:
    """The leaf differences between two states: ``(path, same_shape, new value)``
    (``same_shape`` False for a deleted, added or renamed key, or another length;
    the keys two dicts share are compared one by one); an open cursor that
    replaces None, or None that replaces it, is one change."""
    if (old is None) != (new is None):
        yield path, True, None
    elif isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) ^ set(new), key=repr):
            yield path + (key,), False, new.get(key)
        for key in old:
            if key in new:
                yield from changes(old[key], new[key], path + (key,))
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            yield from changes(a, b, path + (i,))
    elif old != new or type(old) is not type(new):
        yield path, True, new


def is_position_change(change: tuple[tuple, bool, Any], weak: frozenset[str],
                       positions: frozenset[str] = POSITIONS) -> bool:
    """Whether a change moves a cursor rather than breaking it (see POSITIONS)."""
    path, same_shape, value = change
    names = [k for k in path if isinstance(k, str)]
    if not same_shape or not names:
        return False
    if any(n in REFERENCES | weak for n in names):
        return True
    return names[-1] in positions or (value is None and names[-1] in CLOSABLE)


def _read(it: Any, limit: int, key: Callable[[Any], Any] = snapshot) -> tuple[list[dict],
                                                                              list[Any]]:
    states, out = [], []
    while len(out) < limit:
        states.append(json.loads(json.dumps(it.get_state())))
        try:
            out.append(key(next(it)))
        except StopIteration:
            break
    return states, out


def check_tampered(make: Callable[[], Any], states: list[dict], elements: list[Any],
                   data: Any, weak: frozenset[str] = frozenset(), *,
                   key: Callable[[Any], Any] = snapshot,
                   roots: tuple[str, ...] = ITERATOR_FIELDS,
                   positions: frozenset[str] = POSITIONS) -> None:
    """Restores a tampered state: a CheckpointError naming a field; or, when
    accepted, the rest of the iteration from a genuine position (a suffix) or,
    for position edits, a reader that resumes exactly along its own stream."""
    k = data.draw(st.integers(0, len(states) - 1), label="step")
    state = copy.deepcopy(states[k])
    edits = tamper(state, data, states, roots)
    it = iter(make())
    with deadline(20):
        try:
            it.set_state(state)
        except CheckpointError as e:
            assert NAMES_A_FIELD.search(str(e)), f"edits {edits}: the error names no field: {e}"
            return
        trail, rest = _read(it, 2 * len(elements) + 10, key)
    if not any(is_position_change(c, weak, positions) for c in changes(states[k], state)):
        assert any(rest == elements[j:] for j in range(len(elements) + 1)), \
            f"edits {edits} of the state before element {k}: accepted, but the stream differs"
        return
    j = data.draw(st.integers(0, len(trail) - 1), label="resume at")
    again = iter(make())
    with deadline(20):
        again.set_state(trail[j])
        assert _read(again, len(rest) - j + 1, key)[1] == rest[j:], \
            f"edits {edits}: the state after {j} elements of the edited stream does not resume"
