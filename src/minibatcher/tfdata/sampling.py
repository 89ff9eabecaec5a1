"""``sample_from_datasets`` and ``choose_from_datasets``: TF's directed interleave.

A *selector* stream of int64 indices says which input gives the next element;
an exhausted input's indices are skipped (or, with ``stop_on_empty_dataset``,
end the stream), and the stream ends when every input is exhausted or the
selector ends. ``choose_from_datasets`` takes the selector from the user;
``sample_from_datasets`` builds TF's, bit for bit: ``Dataset.random(seed)``
read in pairs, each pair the seed of one ``stateless_multinomial`` draw over
``log(weights)`` (Philox key and counter from TF's ``GenerateKey``, one
``SimplePhilox.RandDouble``, the upper bound in the unnormalized cumulative
``exp(logit - max)``). Zero (or negative) weights drop their datasets first,
as TF does; a single remaining dataset is returned as it is.

The state is the selector's cursor and every input's, so a restore seeks.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> ds = [Dataset.range(i * 100, i * 100 + 10) for i in range(3)]
    >>> [int(x) for x in Dataset.sample_from_datasets(ds, seed=42).take(8)]
    [200, 201, 100, 202, 101, 203, 0, 1]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..state import Fields
from .core import INFINITE, UNKNOWN, Iter
from .dataset import Dataset
from .errors import InvalidArgumentError
from .philox import Draws
from .restore import exhausted_probe
from .shuffle import SeedGenerator
from .stateless_multinomial import multinomial_cdf, select, select_one

_BLOCK = 1024


class _SelectorIter(Iter):
    addressable = True

    def __init__(self, node: "SelectorDataset", k: int, pos: int) -> None:
        self.node, self.k, self.pos = node, k, pos
        self.seeds = node._seeds_of(k)
        self._block: np.ndarray | None = None
        self._base = -1

    def _choice(self, i: int) -> np.int64:
        if self._block is None or not self._base <= i < self._base + _BLOCK:
            self._base = i - i % _BLOCK
            draws = np.array(Draws(*self.seeds, start=2 * self._base).take(2 * _BLOCK), np.uint64)
            self._block = select(self.node._cdf, draws[0::2], draws[1::2])
        return np.int64(self._block[i - self._base])

    def __next__(self) -> Any:
        self.pos += 1
        return self._choice(self.pos - 1)

    def skip(self, count: int) -> int:
        self.pos += count
        return count

    def state(self) -> dict[str, Any]:
        return {**self.node._pins_of(self.k), "pos": self.pos}

    @property
    def address(self) -> int:
        return self.pos - 1

    def refetch(self, address: int) -> Any:
        return self._choice(address)


class SelectorDataset(SeedGenerator, Dataset):
    """``sample_from_datasets``' selector for fixed weights: which input gives
    element ``i`` (TF's ``Dataset.random(seed).batch(2).map(stateless_multinomial)``).

    Example:
        >>> [int(x) for x in SelectorDataset(np.zeros(3, np.float32), 42, None).take(6)]
        [2, 2, 1, 2, 1, 2]
    """

    def __init__(self, logits: np.ndarray, seed: int | None, rerandomize: bool | None) -> None:
        SeedGenerator.__init__(self, seed, bool(rerandomize))
        self._logits = logits
        self._cdf = multinomial_cdf(logits)

    def _spec(self) -> dict[str, Any]:
        return {"op": "sample_selector", "seeds": self._seed_spec(),
                "logits": [float(v) for v in self._logits],
                "rerandomize_each_iteration": self._reshuffle}

    def _make_iter(self, state: Fields | None) -> Iter:
        if state is None:
            return _SelectorIter(self, self._take_iteration(None), 0)
        state.only("k", "seeds", "pos")
        k = self._take_iteration(state)
        return _SelectorIter(self, k, state.int("pos", 0, 2**62))

    def _cardinality(self) -> int:
        return INFINITE


def _index(value: Any, count: int) -> int:
    arr = np.asarray(value)
    if arr.shape != () or arr.dtype != np.int64:
        raise TypeError("Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar "
                        f"`tf.int64` tensors but are of dtype {arr.dtype} and shape "
                        f"{list(arr.shape)}.")
    index = int(arr)
    if not 0 <= index < count:
        raise InvalidArgumentError(f"Selector index out of range: {index} >= {count}")
    return index


class _DirectedIter(Iter):
    """The selector's cursor, every input's cursor (kept once it ended: ``done``),
    and whether the whole op ended."""

    def __init__(self, node: "DirectedInterleaveDataset", selector: Iter, inputs: list[Iter],
                 done: list[bool], ended: bool) -> None:
        self.node, self.selector, self.inputs, self.done = node, selector, inputs, done
        self.ended = ended

    def __next__(self) -> Any:
        inputs, done = self.inputs, self.done
        while not self.ended:
            try:
                index = _index(next(self.selector), len(inputs))
            except StopIteration:
                self.ended = True
                break
            if done[index]:
                continue  # an exhausted input: its turn is skipped
            try:
                return next(inputs[index])
            except StopIteration:
                done[index] = True
                if self.node._stop_on_empty or all(done):
                    self.ended = True
        raise StopIteration

    def state(self) -> dict[str, Any]:
        return {"sel": self.selector.state(), "ended": self.ended,
                "inputs": [i.state() for i in self.inputs], "done": list(self.done)}


class DirectedInterleaveDataset(Dataset):
    """Elements of ``datasets`` in the order the ``selector`` names them.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> sel = Dataset.from_tensor_slices(np.array([1, 0, 1, 1], np.int64))
        >>> [int(x) for x in DirectedInterleaveDataset(sel, [Dataset.range(2),
        ...                                                  Dataset.range(10, 12)], False)]
        [10, 0, 11]
    """

    def __init__(self, selector: Dataset, datasets: Sequence[Dataset], stop_on_empty: bool) -> None:
        self._selector, self._datasets = selector, list(datasets)
        self._stop_on_empty = bool(stop_on_empty)

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self._selector, *self._datasets)

    def _spec(self) -> dict[str, Any]:
        return {"op": "directed_interleave", "n": len(self._datasets),
                "stop_on_empty_dataset": self._stop_on_empty}

    def _make_iter(self, state: Fields | None) -> Iter:
        n = len(self._datasets)
        if state is None:
            selector = self._selector._make_iter(None)
            return _DirectedIter(self, selector, [d._make_iter(None) for d in self._datasets],
                                 [False] * n, False)
        state.only("sel", "ended", "inputs", "done")
        selector = self._selector._make_iter(state.child("sel"))
        saved = state.items("inputs", length=n)
        inputs = [d._make_iter(s) for d, s in zip(self._datasets, saved, strict=True)]
        flags = state.list("done", length=n)
        done = [flags.bool(i) for i in range(n)]
        for i, flag in enumerate(done):  # an input said to have ended has no element left
            if flag:
                exhausted_probe(inputs[i], flags, i)
        ended = state.bool("ended")
        if not ended and (all(done) or (self._stop_on_empty and any(done))):
            raise state.bad("ended", "True (its inputs ended)")
        if ended and not all(done) and not (self._stop_on_empty and any(done)):
            exhausted_probe(selector, state, "ended")  # else only the selector ends it
        return _DirectedIter(self, selector, inputs, done, ended)

    def _cardinality(self) -> int:
        # TF's rule: infinite as soon as one input is, whatever the selector
        if any(d._cardinality() == INFINITE for d in self._datasets):
            return INFINITE
        return UNKNOWN


def _weights_array(weights: Sequence[Any]) -> np.ndarray:
    """TF's conversion of a weights list: Python floats -> float32, NumPy values keep theirs."""
    values = list(weights)
    if values and all(isinstance(w, (np.generic, np.ndarray)) for w in values):
        out = np.asarray(values)
    else:
        out = np.asarray(values)
        if out.dtype == np.float64:
            out = out.astype(np.float32)
        elif out.dtype.kind in "iu":
            out = out.astype(np.int32)
    if out.dtype not in (np.float32, np.float64):
        raise TypeError("Invalid `weights`. `weights` type must be either `tf.float32` or "
                        f"`tf.float64` but is {out.dtype}.")
    return out


def _log_weights(weights: Any) -> np.ndarray:
    with np.errstate(divide="ignore"):  # a zero weight is log(0) = -inf, as TF's, silently
        return np.log(np.asarray(weights))


def _varying_selector(weights: Dataset, seed: int | None, rerandomize: bool | None) -> Dataset:
    from .random_sources import RandomDataset

    def sample_with_weights(logits: Any, seeds: Any) -> np.int64:
        cdf = multinomial_cdf(np.asarray(logits).reshape(-1))
        return np.int64(select_one(cdf, int(seeds[0]), int(seeds[1])))

    logits = weights.map(lambda *p: _log_weights(p))  # a lambda: plans name it so
    seeds = RandomDataset(seed, rerandomize).batch(2)
    return Dataset.zip((logits, seeds)).map(sample_with_weights)


def sample_from_datasets(datasets: Sequence[Dataset], weights: Any = None,
                         seed: int | None = None, stop_on_empty_dataset: bool = False,
                         rerandomize_each_iteration: bool | None = None) -> Dataset:
    """``Dataset.sample_from_datasets`` (see the module docstring).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = [Dataset.range(i * 100, i * 100 + 10) for i in range(3)]
        >>> [int(x) for x in sample_from_datasets(ds, [0.5, 0.3, 0.2], seed=7).take(6)]
        [100, 0, 200, 1, 2, 101]
    """
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    _check_compatible(datasets)
    if isinstance(weights, Dataset):
        selector = _varying_selector(weights, seed, rerandomize_each_iteration)
        return DirectedInterleaveDataset(selector, datasets, stop_on_empty_dataset)
    if weights is None:
        logits = np.ones(len(datasets), np.float32)
    else:
        weights = list(weights)
        if len(weights) != len(datasets):
            raise ValueError("Invalid `weights`. `weights` should have the same length as "
                             f"`datasets` but got `len(weights)={len(weights)}` vs. "
                             f"`len(datasets)={len(datasets)}`.")
        kept = [(d, w) for d, w in zip(datasets, weights, strict=True) if w > 0]
        datasets, weights = ([d for d, _ in kept], [w for _, w in kept]) if kept else \
            ([datasets[0].take(0)], [1.0])
        logits = np.log(_weights_array(weights))
    if len(datasets) == 1:
        return datasets[0]
    selector = SelectorDataset(logits, seed, rerandomize_each_iteration)
    return DirectedInterleaveDataset(selector, datasets, stop_on_empty_dataset)


def _compatible(a: Any, b: Any) -> bool:
    """Whether two (partly known) element specs have a common supertype (TF's rule:
    same structure and kinds, same dtypes; shapes always have one)."""
    from .specs import TensorSpec
    from .structure import is_structure
    if a is None or b is None:
        return True
    if is_structure(a) or is_structure(b):
        if type(a) is not type(b) or len(a) != len(b):
            return False
        if isinstance(a, dict):
            return sorted(a) == sorted(b) and all(_compatible(a[k], b[k]) for k in a)
        return all(_compatible(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
        return a.dtype == b.dtype
    return type(a) is type(b)


def _check_compatible(datasets: list[Dataset]) -> None:
    """TF's build-time check: the inputs' element specs must have a common supertype."""
    from .element_spec import static_spec
    specs = [static_spec(d) for d in datasets]
    for i, spec in enumerate(specs[1:], 1):
        if not _compatible(specs[0], spec):
            raise TypeError(f"Invalid `datasets`. `datasets` must have compatible element specs.\n"
                            f" Dataset 0 element_spec={specs[0]}.\n"
                            f"Dataset {i} element_spec={spec}.")


def _check_choice(choice_dataset: Dataset) -> None:
    from .element_spec import static_spec
    from .specs import TensorSpec
    spec = static_spec(choice_dataset)
    if spec is None:
        return
    if not isinstance(spec, TensorSpec) or spec.dtype.name != "int64" or spec.shape.dims != ():
        raise TypeError("Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar "
                        f"`tf.int64` tensors but are {spec}.")


def choose_from_datasets(datasets: Sequence[Dataset], choice_dataset: Dataset,
                         stop_on_empty_dataset: bool = True) -> Dataset:
    """``Dataset.choose_from_datasets``: element ``i`` from ``datasets[choice[i]]``.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> choice = Dataset.from_tensor_slices(np.array([0, 1, 1, 0], np.int64))
        >>> [int(x) for x in choose_from_datasets([Dataset.range(3), Dataset.range(5, 8)], choice)]
        [0, 5, 6, 1]
    """
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if not isinstance(choice_dataset, Dataset):
        raise TypeError("Invalid `choice_dataset`. `choice_dataset` should be a `tf.data.Dataset` "
                        f"but is {type(choice_dataset).__name__}.")
    _check_choice(choice_dataset)
    _check_compatible(datasets)
    return DirectedInterleaveDataset(choice_dataset, datasets, stop_on_empty_dataset)
