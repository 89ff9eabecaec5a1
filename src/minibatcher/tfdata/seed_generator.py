"""TF's seed-generator resource of a random dataset node (:class:`SeedGenerator`: a
shuffle's, ``Dataset.random``'s, ``sample_from_datasets``' selector's): its seeds,
the iterations it has started (iteration ``k`` uses ``iteration_seeds(seed, seed2, k,
reshuffle)``), how checkpoints save and restore them, and the ledger a thread
reading ahead counts on (``SEED_LEDGER``).

Example:
    >>> g = SeedGenerator(7, False)
    >>> g._take_iteration(None), g._seeds_of(0) == g._seeds_of(5), g._generator_state()
    (0, True, {'started': 1})
"""

from __future__ import annotations

import contextvars
from typing import Any

from ..state import Fields
from .philox import iteration_seeds
from .seeds import shuffle_seeds

__all__ = ["MAX_ITERATION", "SEED_LEDGER", "SeedGenerator"]

MAX_ITERATION = 2**62  # iterations a seed generator can have started (a checkpoint's bound)

# Iterations started by nodes on behalf of a thread that reads ahead (prefetch):
# node id -> count, seen only in that thread's context (None: the nodes' own counts).
SEED_LEDGER: contextvars.ContextVar[dict[int, int] | None] = contextvars.ContextVar(
    "minibatcher_tfdata_seed_ledger", default=None)


class SeedGenerator:
    """TF's seed-generator resource of a random dataset node: the node's seeds
    and the count of iterations it has started (iteration ``k`` uses
    ``iteration_seeds(seed, seed2, k, reshuffle)``). A restore sets the count
    to the restored iteration + 1; checkpoints save it (``_generator_state``).
    A thread reading ahead counts on its own ledger (``SEED_LEDGER``) instead,
    so the count reflects the elements handed out.

    Example:
        >>> g = SeedGenerator(7, True)
        >>> g._take_iteration(None), g._take_iteration(None), g._seeds_of(0) == g._seeds_of(0)
        (0, 1, True)
    """

    _random = True

    def __init__(self, seed: int | None, reshuffle: bool | None) -> None:
        self._seed, self._seed2, self._seeded = shuffle_seeds(seed)
        self._reshuffle = True if reshuffle is None else bool(reshuffle)
        self._started = 0
        # while a checkpoint is restored: the iterations its cursors read (k -> field) and
        # the seeds they carry ("seeds" -> (seeds, field))
        self._restored: dict[Any, Any] | None = None

    @property
    def iterations_started(self) -> int:
        """Iterations started (on this thread's ledger when it has one for the node)."""
        ledger = SEED_LEDGER.get()
        if ledger is not None and id(self) in ledger:
            return ledger[id(self)]
        return self._started

    @iterations_started.setter
    def iterations_started(self, value: int) -> None:
        ledger = SEED_LEDGER.get()
        if ledger is not None and id(self) in ledger:
            ledger[id(self)] = value
        else:
            self._started = value

    def _seeds_of(self, k: int) -> tuple[int, int]:
        return iteration_seeds(self._seed, self._seed2, k, self._reshuffle)

    def _seed_spec(self) -> Any:
        return [self._seed, self._seed2] if self._seeded else "unseeded"

    def _pins_of(self, k: int) -> dict[str, Any]:
        """The fields of a cursor or view pins that recreate iteration ``k``."""
        pins: dict[str, Any] = {"k": k}
        if not self._seeded:
            pins["seeds"] = [self._seed, self._seed2]
        return pins

    def _take_iteration(self, pins: Fields | None) -> int:
        """The iteration a new iterator reads: the next one, or the one ``pins`` say."""
        if pins is None:
            k = self.iterations_started
        else:
            k = pins.int("k", 0, MAX_ITERATION)
            self._read_seeds(pins)
            if self._restored is not None:
                self._restored.setdefault(k, pins.path_of("k"))
        # an iteration started earlier may be built later (a fused repeat's read-ahead):
        # never count backwards (a restore sets the count from the state afterwards)
        self.iterations_started = max(self.iterations_started, k + 1)
        return k

    def _iterate_unread(self) -> None:
        """An iterator made and never read takes an iteration (TF draws seeds when
        the iterator is created) and creates its inputs' iterators."""
        self._take_iteration(None)
        for node in getattr(self, "_inputs", lambda: ())():
            node._iterate_unread()

    def _read_seeds(self, fields: Fields) -> None:
        """An unseeded generator takes the seeds a checkpoint drew (a seeded one has none)."""
        if not self._seeded:  # its cursors and its generator state all carry them
            seeds = fields.ints("seeds", 0, 2**64 - 1, length=2)
            if self._restored is not None:
                first = self._restored.setdefault("seeds", (seeds, fields.path_of("seeds")))
                if first[0] != seeds:
                    raise fields.bad("seeds", f"{first[0]} (as {first[1]}: one shuffle, one "
                                     "pair of seeds)")
            self._seed, self._seed2 = seeds
        elif self._seeded and fields.has("seeds"):
            raise fields.bad("seeds", "absent (this shuffle has fixed seeds)")

    def _generator_state(self) -> dict[str, Any]:
        """The seed generator: iterations started (and the seeds when unseeded)."""
        out: dict[str, Any] = {"started": self.iterations_started}
        if not self._seeded:
            out["seeds"] = [self._seed, self._seed2]
        return out

    def _restore_generator(self, saved: Fields) -> None:
        """Sets the generator to a checkpoint's (:meth:`_generator_state`)."""
        saved.only("started", "seeds")
        started = saved.int("started", 0, MAX_ITERATION + 1)
        self._read_seeds(saved)
        self.iterations_started = started
