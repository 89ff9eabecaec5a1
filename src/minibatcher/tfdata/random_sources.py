"""Infinite sources: ``Dataset.random`` and ``Dataset.counter``.

``Dataset.random(seed, rerandomize_each_iteration)`` gives TF's values exactly:
element ``i`` of an iteration is draw ``i`` of the uint32 stream of
``PhiloxRandom(seed, seed2)`` (TF's single-sample adapter) as an int64; the
seeds come from TF's rules (:mod:`.seeds`), and with
``rerandomize_each_iteration=True`` iteration ``k`` uses the seeds of TF's
RandomSeedGenerator, as a reshuffling shuffle does. Any draw is reachable in
O(1), so skips and restores seek.

``Dataset.counter(start, step, dtype)`` counts with the dtype's wrap-around, as
TF's scan-based counter does (floating dtypes add ``step`` one element at a
time, and their checkpoints carry the current value).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> [int(x) for x in Dataset.random(seed=42).take(3)]
    [2985944072, 4132877644, 929418493]
    >>> [int(x) for x in Dataset.counter(5, 3).take(3)]
    [5, 8, 11]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import FormatError
from ..state import Fields
from .codec import from_text, to_text
from .core import INFINITE, Iter
from .dataset import Dataset
from .philox import Draws
from .shuffle import SeedGenerator

_MAX_POS = 2**63 - 1


class _RandomIter(Iter):
    addressable = True

    def __init__(self, node: "RandomDataset", k: int, pos: int) -> None:
        self.node, self.k, self.pos = node, k, pos
        self.seeds = node._seeds_of(k)
        self.draws = Draws(*self.seeds, start=pos)

    def __next__(self) -> Any:
        self.pos += 1
        return np.int64(self.draws.next())

    def skip(self, count: int) -> int:
        self.pos += count
        self.draws = Draws(*self.seeds, start=self.pos)
        return count

    def state(self) -> dict[str, Any]:
        return {**self.node._pins_of(self.k), "pos": self.pos}

    @property
    def address(self) -> int:
        return self.pos - 1

    def refetch(self, address: int) -> Any:
        return np.int64(Draws(*self.seeds, start=address).next())


class RandomDataset(SeedGenerator, Dataset):
    """``Dataset.random(seed, rerandomize_each_iteration)``: infinite int64 values
    in ``[0, 2**32)``.

    Example:
        >>> ds = RandomDataset(42, True)
        >>> first, second = [int(x) for x in ds.take(2)], [int(x) for x in ds.take(2)]
        >>> first != second, first == [int(x) for x in RandomDataset(42, True).take(2)]
        (True, True)
    """

    def __init__(self, seed: int | None, rerandomize_each_iteration: bool | None) -> None:
        SeedGenerator.__init__(self, seed, bool(rerandomize_each_iteration))

    def _spec(self) -> dict[str, Any]:
        return {"op": "random", "seeds": self._seed_spec(),
                "rerandomize_each_iteration": self._reshuffle}

    def _make_iter(self, state: Fields | None) -> Iter:
        if state is None:
            return _RandomIter(self, self._take_iteration(None), 0)
        state.only("k", "seeds", "pos")
        k = self._take_iteration(state)
        return _RandomIter(self, k, state.int("pos", 0, _MAX_POS))

    def _cardinality(self) -> int:
        return INFINITE


class _IntCounterIter(Iter):
    addressable = True

    def __init__(self, node: "CounterDataset", pos: int) -> None:
        self.node, self.pos = node, pos

    def __next__(self) -> Any:
        self.pos += 1
        return self.node._value(self.pos - 1)

    def skip(self, count: int) -> int:
        self.pos += count
        return count

    def state(self) -> dict[str, Any]:
        return {"pos": self.pos}

    @property
    def address(self) -> int:
        return self.pos - 1

    def refetch(self, address: int) -> Any:
        return self.node._value(address)


class _FloatCounterIter(Iter):
    def __init__(self, node: "CounterDataset", pos: int, value: Any) -> None:
        self.node, self.pos, self.value = node, pos, value

    def __next__(self) -> Any:
        out = self.value
        self.value = self.node._dtype.type(self.value + self.node._step)
        self.pos += 1
        return out

    def state(self) -> dict[str, Any]:
        return {"pos": self.pos, "value": to_text(self.value)}


def _counter_dtype(dtype: Any) -> np.dtype:
    out = np.dtype(getattr(dtype, "as_numpy_dtype", dtype))
    if out.kind not in "iuf":
        raise TypeError(f"dtype should be an integer or floating dtype, but got dtype={dtype!r}")
    return out


class CounterDataset(Dataset):
    """``Dataset.counter(start, step, dtype)``: ``start, start+step, ...`` forever.

    Example:
        >>> [int(x) for x in CounterDataset(2**63 - 2, 1, np.int64).take(3)]
        [9223372036854775806, 9223372036854775807, -9223372036854775808]
    """

    def __init__(self, start: Any, step: Any, dtype: Any) -> None:
        self._dtype = _counter_dtype(dtype)
        for what, value in (("start", start), ("step", step)):
            if self._dtype.kind in "iu" and np.asarray(value).dtype.kind not in "iub":
                raise TypeError(f"{what} should be an integer for dtype {self._dtype.name}, but "
                                f"got {what}={value!r}")
        self._start, self._step = self._dtype.type(start), self._dtype.type(step)

    def _value(self, k: int) -> Any:
        bits = 8 * self._dtype.itemsize
        raw = (int(self._start) + k * int(self._step)) % (1 << bits)
        if self._dtype.kind == "i" and raw >= 1 << (bits - 1):
            raw -= 1 << bits
        return self._dtype.type(raw)

    def _spec(self) -> dict[str, Any]:
        return {"op": "counter", "start": repr(self._start.item()), "step": repr(self._step.item()),
                "dtype": self._dtype.name}

    def _make_iter(self, state: Fields | None) -> Iter:
        floating = self._dtype.kind == "f"
        if state is None:
            return _FloatCounterIter(self, 0, self._start) if floating else _IntCounterIter(self, 0)
        if not floating:
            state.only("pos")
            return _IntCounterIter(self, state.int("pos", 0, _MAX_POS))
        state.only("pos", "value")
        try:
            value = from_text(state.str("value"))
        except FormatError as e:
            raise state.bad("value", f"an encoded {self._dtype.name} scalar", str(e)) from None
        if not isinstance(value, np.generic) or value.dtype != self._dtype:
            raise state.bad("value", f"an encoded {self._dtype.name} scalar")
        return _FloatCounterIter(self, state.int("pos", 0, _MAX_POS), value)

    def _cardinality(self) -> int:
        return INFINITE
