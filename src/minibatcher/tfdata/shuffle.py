"""``Dataset.shuffle``: tf.data's buffer shuffle, bit for bit, and resumable.

The algorithm (``shuffle_dataset_op.cc``): fill the buffer up to
``buffer_size`` elements, draw ``r`` from the iterator's Philox stream, emit
the element at ``start + r % (end - start)``, move the element at ``start``
into its slot, ``start += 1``. Iteration ``k`` of a shuffle uses the seeds
:func:`~minibatcher.tfdata.philox.iteration_seeds` gives (per-iteration
draws of a RandomSeedGenerator, or fixed seeds without reshuffling).

Resuming: which upstream *positions* the buffer holds after ``t`` emissions
depends only on ``(seeds, buffer_size, t)`` and the upstream length, so it is
simulated on integers (no data read). Over an input with a view the shuffle
itself is a view (position -> upstream position); otherwise a restore reads
the input again from the start of the iteration, keeping only what the
buffer held (docs/design/tfdata-state.md).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> [int(x) for x in Dataset.range(5).shuffle(2, seed=7)] == ShuffleOrder(
    ...     iteration_seeds(87654321, 7, 0, True), 2, 5).advance(5)
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import CheckpointError, ConfigError
from ..state import Fields
from .arguments import tf_int
from .block import Block, blocks_enabled
from .core import UNKNOWN, Iter, View, fetch_positions
from .restore import exhausted_probe, start_of
from .dataset import Dataset
from .philox import Draws, iteration_seeds  # noqa: F401 (the examples use iteration_seeds)
# the seed generator is re-exported: the random nodes and prefetch import it from here
from .seed_generator import SEED_LEDGER, SeedGenerator  # noqa: F401

_NO_END = 2**62
_WHOLE_INPUT = 2**62  # buffer_size=UNKNOWN_CARDINALITY (-2): TF buffers the whole input


class ShuffleOrder:
    """The positions a shuffle emits over an input of ``length`` elements
    (``None``: not known to end), computed incrementally in pure Python (the
    reference of the native ``_native.ShuffleOrder``; see :func:`shuffle_order`).

    Example:
        >>> o = ShuffleOrder((1, 2), 3, 6)
        >>> first = o.advance(2); rest = o.advance(10)
        >>> sorted(first + rest), o.emitted
        ([0, 1, 2, 3, 4, 5], 6)
    """

    def __init__(self, seeds: tuple[int, int], buffer_size: int, length: int | None) -> None:
        self.draws = Draws(*seeds)
        self.buffer_size = buffer_size
        self.length = _NO_END if length is None else length
        self.buf: list[int] = []
        self.head = 0
        self.end = 0
        self.emitted = 0

    def _fill(self) -> None:
        want = min(self.length, self.end + self.buffer_size - (len(self.buf) - self.head))
        if want > self.end:
            self.buf.extend(range(self.end, want))
            self.end = want

    def advance(self, count: int) -> list[int]:
        """The next ``count`` positions (fewer at the end)."""
        out: list[int] = []
        buf, draws = self.buf, self.draws
        for _ in range(count):
            self._fill()
            h = self.head
            size = len(buf) - h
            if size == 0:
                break
            j = h + draws.next() % size
            out.append(buf[j])
            buf[j] = buf[h]
            self.head = h + 1
            if self.head > 4096 and self.head * 2 > len(buf):
                del buf[:self.head]
                self.head = 0
        self.emitted += len(out)
        return out

    def held(self) -> list[int]:
        """Positions in the buffer now, in buffer order."""
        return self.buf[self.head:]


def shuffle_order(seeds: tuple[int, int], buffer_size: int, length: int | None) -> Any:
    """The native :class:`ShuffleOrder` (same interface; ``advance`` returns an
    int64 array).

    Example:
        >>> shuffle_order((1, 2), 3, 6).advance(6).tolist() == ShuffleOrder((1, 2), 3, 6).advance(6)
        True
    """
    from .. import _native
    return _native.ShuffleOrder(seeds[0] & (2**64 - 1), seeds[1] & (2**64 - 1), buffer_size,
                                -1 if length is None else length)


class _ShuffleView(View):
    """A shuffle over an input view: emitted position -> input position."""

    def __init__(self, parent: View, seeds: tuple[int, int], buffer_size: int,
                 pins: dict[str, Any]) -> None:
        self.parent = parent
        self.order = shuffle_order(seeds, buffer_size, len(parent))
        self.positions = np.zeros(0, np.int64)  # emitted positions computed so far (doubling)
        self._known = 0
        self._pins = pins
        self._length = len(parent)
        self.block_limit = parent.block_limit

    def __len__(self) -> int:
        return self._length

    def _ensure(self, stop: int) -> None:
        missing = stop - self._known
        if missing > 0:
            more = self.order.advance(min(max(missing, 4096), self._length - self._known))
            if self._known + len(more) > len(self.positions):
                grown = np.zeros(max(2 * len(self.positions), self._known + len(more)), np.int64)
                grown[:self._known] = self.positions[:self._known]
                self.positions = grown
            self.positions[self._known:self._known + len(more)] = more
            self._known += len(more)

    def __getitem__(self, index: int) -> Any:
        self._ensure(index + 1)
        return self.parent[int(self.positions[index])]

    def read(self, start: int, stop: int) -> list[Any]:
        self._ensure(stop)
        parent = self.parent
        return [parent[p] for p in self.positions[start:stop].tolist()]

    def block(self, start: int, stop: int) -> Block:
        self._ensure(stop)
        return self.parent.gather(self.positions[start:stop])

    def gather(self, positions: np.ndarray) -> Block:
        positions = np.asarray(positions, np.int64)
        if len(positions):
            self._ensure(int(positions.max()) + 1)
        return self.parent.gather(self.positions[positions])

    def pins(self) -> Any:
        return self._pins


class _ShuffleIter(Iter):
    """A shuffle of real elements (input without a view)."""

    def __init__(self, node: "ShuffleDataset", k: int, state: Fields | None,
                 epoch: "FusedEpoch | None" = None) -> None:
        self.node, self.k = node, k
        self.seeds = node._seeds_of(k)
        self.buffer_size = node._buffer_size
        if state is None:  # ``epoch``: an input iteration already started (a fused repeat's)
            if epoch is None or epoch.cursor is None:
                self.parent = node._parent._make_iter(None)
                self.start_state = self.parent.state()
            else:
                self.parent, self.start_state = epoch.input, epoch.cursor
            self.buf: list[Any] = []
            self.head = self.end = self.emitted = 0
            self.done = False
            self.draws = Draws(*self.seeds)
        else:
            self._restore(state)

    def _restore(self, state: Fields) -> None:
        order, self.parent, t, done = restore_order(self.node, state, self.seeds)
        self.start_state = state.child("in0").raw
        held = order.held().tolist()
        what = f"checkpoint state field {state.path_of('end')!r}"
        found = fetch_positions(self.parent, sorted(held), what)
        rest = order.end - (max(held) + 1 if held else 0)
        if self.parent.skip(rest) != rest:
            raise input_ended(state, order.end)
        if done:
            exhausted_probe(self.parent, state, "done")
        self.buf = [found[pos] for pos in held]
        self.head, self.end, self.emitted, self.done = 0, order.end, t, bool(done)
        self.draws = Draws(*self.seeds, start=t)

    def __next__(self) -> Any:
        buf = self.buf
        while not self.done and len(buf) - self.head < self.buffer_size:
            try:
                buf.append(next(self.parent))
                self.end += 1
            except StopIteration:
                self.done = True
        h = self.head
        size = len(buf) - h
        if size == 0:
            raise StopIteration
        j = h + self.draws.next() % size
        out = buf[j]
        buf[j] = buf[h]
        buf[h] = None
        self.head = h + 1
        if self.head > 4096 and self.head * 2 > len(buf):
            del buf[:self.head]
            self.head = 0
        self.emitted += 1
        return out

    def at_start(self) -> bool | None:
        return self.end == 0 and not self.done

    def state(self) -> dict[str, Any]:
        return {**self.node._pins_of(self.k), "emitted": self.emitted, "end": self.end,
                "done": self.done, "in0": self.start_state}


class FusedEpoch:
    """One epoch of a fused shuffle-and-repeat (:mod:`~minibatcher.tfdata.shuffle_repeat`):
    the input iteration TF's buffer already started (its fresh cursor, or None; and
    its iterator, where the input has no view: the elements it read come first), and
    what the shuffle made of it (the epoch's length over random access, or its
    iterator).

    Example:
        >>> FusedEpoch(None).input_pins() is None
        True
    """

    def __init__(self, cursor: Any, started: Iter | None = None) -> None:
        self.cursor, self.input = cursor, started  # the started input's fresh cursor, iterator
        self.length: int | None = None
        self.iter: Any = None

    def input_pins(self) -> Fields | None:
        """The started input's view pins (to make the input's view)."""
        pins = None if self.cursor is None else self.cursor.get("pins")
        return None if pins is None else Fields(pins, "ahead.pins")
def restore_order(node: "ShuffleDataset", state: Fields, seeds: tuple[int, int]
                  ) -> tuple[Any, Iter, int, bool]:
    """A shuffle cursor without a view, checked (``_counts``): its order advanced
    to ``emitted`` (an integer simulation), the input's iterator at ``in0`` (to
    read again), ``emitted`` and ``done``. Shared by the element and block paths."""
    state.only("k", "seeds", "emitted", "end", "done", "in0")
    t, end, done = _counts(state, node._buffer_size, node._parent._cardinality())
    order = shuffle_order(seeds, node._buffer_size, end if done else None)
    order.advance(t)
    if order.emitted != t or order.end != end:
        raise state.bad("end", f"{order.end} (what the shuffle reads to emit {t} elements)")
    return order, start_of(node._parent, state), t, done


def input_ended(state: Fields, end: int) -> CheckpointError:
    """The error for a shuffle's input that has fewer than ``end`` elements now."""
    return CheckpointError(f"checkpoint state field {state.path_of('end')!r}: the shuffle's "
                           f"input ended before the {end} elements the checkpoint had read; "
                           "the data changed or the state was edited")


def _counts(state: Fields, size: int, length: int) -> tuple[int, int, bool]:
    """``(emitted, end, done)`` of a shuffle cursor over an input of ``length``
    elements (< 0: unknown or infinite). The buffer is refilled to ``size``
    before each emission, so until the input ends it holds ``size - 1``
    elements between reads; after, fewer."""
    done = state.bool("done")
    end = state.int("end", 0, length if length >= 0 else None,
                    f"the input's {length} elements" if length >= 0 else None)
    if length >= 0 and done and end != length:
        raise state.bad("end", f"{length} (the input's length, which it read to its end)")
    if not done and end:
        t = state.int("emitted", end - size + 1, end - size + 1,
                      f"a buffer of {size} filled before each emission (end={end})")
    else:
        low = 0 if end == 0 else max(end - max(size - 2, 0), 1)
        t = state.int("emitted", low, end, f"what a buffer of {size} holds (end={end})")
    return t, end, done


class ShuffleDataset(SeedGenerator, Dataset):
    """``shuffle(buffer_size, seed, reshuffle_each_iteration)``.

    The node counts the iterations started (TF's seed generator resource):
    iterating the dataset again, or a ``repeat`` around it, starts the next
    one; a restore sets the count to the restored iteration + 1.

    Example:
        >>> ds = ShuffleDataset(Dataset.range(4), 4, 1, None)
        >>> first = [int(x) for x in ds]
        >>> sorted(first), ds.iterations_started
        ([0, 1, 2, 3], 1)
    """

    _epoch: "FusedEpoch | None" = None  # set by a fused repeat while it makes an epoch

    def __init__(self, parent: Dataset, buffer_size: int, seed: int | None,
                 reshuffle: bool | None) -> None:
        if not isinstance(parent, Dataset):
            raise TypeError(f"expected a Dataset, but got {type(parent).__name__}")
        buffer_size = tf_int("buffer_size", buffer_size)
        if buffer_size < 1 and buffer_size != UNKNOWN:
            raise ConfigError(f"option buffer_size should be a positive integer (or "
                              f"UNKNOWN_CARDINALITY, -2, for the whole input), but got "
                              f"buffer_size={buffer_size}")
        SeedGenerator.__init__(self, seed, reshuffle)
        self._parent = parent
        self._requested_buffer = buffer_size
        self._buffer_size = _WHOLE_INPUT if buffer_size == UNKNOWN else buffer_size

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self._parent,)

    def _spec(self) -> dict[str, Any]:
        return {"op": "shuffle", "buffer_size": self._requested_buffer, "seeds": self._seed_spec(),
                "reshuffle_each_iteration": self._reshuffle}

    def _has_view(self) -> bool:
        return self._parent._has_view()

    def _make_view(self, pins: Fields | None) -> View:
        if pins is not None:
            pins.only("k", "seeds", "in")
        k = self._take_iteration(pins)
        epoch = self._epoch
        if pins is not None:
            inner = pins.opt_nested("in")
        else:
            inner = None if epoch is None else epoch.input_pins()
        parent = self._parent._make_view(inner)
        if epoch is not None:
            epoch.length = len(parent)
        return _ShuffleView(parent, self._seeds_of(k), self._buffer_size,
                            {**self._pins_of(k), "in": parent.pins()})

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._has_view():
            return super()._make_iter(state)
        epoch = self._epoch
        k = self._take_iteration(state)
        if blocks_enabled():  # the same elements and states, read and emitted in blocks
            from .shuffle_blocks import ShuffleBlocks
            it: Iter = ShuffleBlocks(self, k, state, epoch)
        else:
            it = _ShuffleIter(self, k, state, epoch)
        if epoch is not None:
            epoch.iter = it
        return it

    def _iterate_unread(self) -> None:
        self._take_iteration(None)  # TF's shuffle makes its input's iterator when first read

    def _cardinality(self) -> int:
        return self._parent._cardinality()
