"""The global seed (``tf.random.set_seed``) and TensorFlow's op-seed derivation.

TensorFlow derives an op's two seeds from the global seed and the op seed
(``random_seed.get_seed``):

* global ``G`` and op seed ``s``: ``(G % (2**31-1), s % (2**31-1))``;
* global ``G`` only: the op seed is the next ``random.Random(G).randint(0, 2**31-1)``
  of the eager context's op-seed stream, which ``set_seed`` restarts;
* op seed only: ``(87654321, s % (2**31-1))``;
* inside a dataset function (traced once by TF, when the dataset is built):
  the global seed of that moment, and op seeds ``0, 1, 2, ...`` counted in
  the function (:func:`function_seed_scope`);
* neither: no seeds; the kernel then draws random ones (not reproducible);
* a derived ``(0, 0)`` becomes ``(0, 2**31-1)``.

Scope (no process-wide mutable configuration): the global seed and its
op-seed stream live in a :class:`contextvars.ContextVar`, so each thread and
each asyncio task has its own, and :func:`random_seed_scope` sets one for a
``with`` block only. Seeds are read once, when a shuffle is *created* (as in
TF), and stored in the dataset: iterating never looks at the global seed.

Example:
    >>> with random_seed_scope(None):
    ...     get_seed(7)
    (87654321, 7)
    >>> with random_seed_scope(1):
    ...     get_seed(None) == (1, random.Random(1).randint(0, 2**31 - 1))
    True
"""

from __future__ import annotations

import contextlib
import contextvars
import random
import secrets
from dataclasses import dataclass, field
from typing import Iterator

from ..args import bad_option, is_int

DEFAULT_GRAPH_SEED = 87654321
MAXINT32 = 2**31 - 1


@dataclass
class _GlobalSeed:
    """The eager context's global seed: op seeds from ``random.Random(seed)``."""

    seed: int
    op_seeds: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.op_seeds = random.Random(self.seed)

    def next_op_seed(self) -> int:
        return self.op_seeds.randint(0, MAXINT32)


@dataclass
class _TracedSeed:
    """A traced function's graph (TF traces dataset functions once, when the
    dataset is built): the global seed of that moment, op seeds 0, 1, 2, ... in
    the order the function creates random ops (TF's per-graph counter)."""

    seed: int
    next_op: int = 0

    def next_op_seed(self) -> int:
        self.next_op += 1
        return self.next_op - 1


_GLOBAL: contextvars.ContextVar[_GlobalSeed | _TracedSeed | None] = contextvars.ContextVar(
    "minibatcher_tfdata_global_seed", default=None)


def _as_seed(seed: object, name: str) -> int:
    """A seed: a Python or NumPy integer (TF: a string or a float is a TypeError)."""
    if not is_int(seed):
        raise bad_option(name, seed, "an integer or None", TypeError)
    return int(seed)  # type: ignore[call-overload]


def set_random_seed(seed: int | None) -> None:
    """Sets the global seed of the current context (``tf.random.set_seed``).

    It restarts the op-seed stream, so datasets built after it get the same
    seeds as TF gives in eager mode. ``None`` clears it.

    Example:
        >>> import contextvars
        >>> def build():
        ...     set_random_seed(3)
        ...     return get_seed(None)
        >>> contextvars.copy_context().run(build) == contextvars.copy_context().run(build)
        True
    """
    _GLOBAL.set(None if seed is None else _GlobalSeed(_as_seed(seed, "seed")))


@contextlib.contextmanager
def random_seed_scope(seed: int | None) -> Iterator[None]:
    """``set_random_seed(seed)`` for the body of a ``with`` block only.

    Example:
        >>> with random_seed_scope(5):
        ...     global_seed()
        5
        >>> with random_seed_scope(None):
        ...     global_seed() is None
        True
    """
    token = _GLOBAL.set(None if seed is None else _GlobalSeed(_as_seed(seed, "seed")))
    try:
        yield
    finally:
        _GLOBAL.reset(token)


def global_seed() -> int | None:
    """The global seed of the current context, or None.

    Example:
        >>> with random_seed_scope(11):
        ...     global_seed()
        11
    """
    state = _GLOBAL.get()
    return None if state is None else state.seed


def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """``tf.random.get_seed``: the two seeds of an op (eager mode rules).

    Example:
        >>> with random_seed_scope(0):
        ...     get_seed(0)
        (0, 2147483647)
        >>> with random_seed_scope(None):
        ...     get_seed(None)
        (None, None)
    """
    state = _GLOBAL.get()
    if state is not None:
        if op_seed is None:
            op_seed = state.next_op_seed()
        seeds: tuple[int | None, int | None] = (state.seed % MAXINT32,
                                                _as_seed(op_seed, "seed") % MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, _as_seed(op_seed, "seed") % MAXINT32)
    else:
        seeds = (None, None)
    if seeds == (0, 0):
        return 0, MAXINT32
    return seeds


def capture_function_seed() -> int | None:
    """The global seed a dataset function sees: the one set when the dataset that
    calls it is built (TF traces the function then). Pass it to
    :func:`function_seed_scope` around every call.

    Example:
        >>> with random_seed_scope(4):
        ...     captured = capture_function_seed()
        >>> captured, capture_function_seed() is None
        (4, True)
    """
    return global_seed()


@contextlib.contextmanager
def function_seed_scope(captured: int | None) -> Iterator[None]:
    """The seed context of one call of a dataset function (``interleave``'s
    ``map_func``, ``group_by_window``'s ``reduce_func``, ...), as TF's traced
    function has it: the global seed ``captured`` when the dataset was built, and
    op seeds counted from 0 in the function (so a shuffle without an op seed
    gets ``(G, 0)`` in every call and every epoch, as in TF); no global seed:
    unseeded ops draw random seeds.

    Example:
        >>> with function_seed_scope(7):
        ...     get_seed(None), get_seed(None), get_seed(3)
        ((7, 0), (7, 1), (7, 3))
        >>> with function_seed_scope(7):
        ...     get_seed(None)
        (7, 0)
    """
    token = _GLOBAL.set(None if captured is None else _TracedSeed(captured))
    try:
        yield
    finally:
        _GLOBAL.reset(token)


def shuffle_seeds(op_seed: int | None) -> tuple[int, int, bool]:
    """The ``(seed, seed2)`` a shuffle dataset gets and whether they were given.

    With neither a global nor an op seed, TF's kernel draws random seeds; so
    do we (from the OS), and the dataset reports ``seeded=False``: its
    checkpoints carry the seeds so that a restore continues the same order.

    Example:
        >>> with random_seed_scope(None):
        ...     shuffle_seeds(42)
        (87654321, 42, True)
        >>> with random_seed_scope(None):
        ...     shuffle_seeds(None)[2]
        False
    """
    seed, seed2 = get_seed(op_seed)
    if seed is None or seed2 is None:
        return secrets.randbits(63) | 1, secrets.randbits(63), False
    return seed, seed2, True
