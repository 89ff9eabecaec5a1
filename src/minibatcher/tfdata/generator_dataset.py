"""``Dataset.from_generator``: a leaf dataset without random access. Its
iterators call the generator and count what they read (state
``{"consumed"}``); a restore calls the generator again and skips that many
elements (docs/design/tfdata-state.md).

Example:
    >>> read = []
    >>> def gen():
    ...     for x in (10, 20, 30):
    ...         read.append(x); yield x
    >>> ds = GeneratorDataset(gen, None, (), None)
    >>> it = iter(ds); int(next(it)), it.get_state()["iterator"]
    (10, {'consumed': 1})
    >>> it2 = iter(ds); it2.set_state(it.get_state())  # re-reads 10 to skip it
    >>> [int(x) for x in it2], read
    ([20, 30], [10, 10, 20, 30])
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..state import Fields
from .core import Iter
from .dataset import Dataset
from .generator_signature import check_shapes, signature_of
from .structure import flatten, is_structure, pack_as, to_leaf


class _GeneratorIter(Iter):
    def __init__(self, dataset: "GeneratorDataset", state: Fields | None) -> None:
        self._convert = dataset._convert
        self._it = iter(dataset._generator(*dataset._args))
        self.consumed = 0
        if state is not None:
            self._skip_to(state)

    def _skip_to(self, state: Fields) -> None:
        """Re-reads the elements a checkpoint had read (a generator has no seek)."""
        consumed = state.only("consumed").int("consumed", 0)
        if consumed and self.skip(consumed) != consumed:
            raise state.bad("consumed", f"at most {self.consumed} (the elements the generator "
                            "gives; it must give the same elements on every call)")

    def __next__(self) -> Any:
        value = next(self._it)
        self.consumed += 1  # a value that fails the signature is consumed too (TF goes on)
        return self._convert(value)

    def skip(self, count: int) -> int:
        done = 0
        for _ in range(count):
            try:
                next(self._it)
            except StopIteration:
                break
            done += 1
        self.consumed += done
        return done

    def state(self) -> dict[str, Any]:
        return {"consumed": self.consumed}

    def at_start(self) -> bool | None:
        return self.consumed == 0


class GeneratorDataset(Dataset):
    """``Dataset.from_generator``: no random access; a restore re-reads and skips.

    Example:
        >>> ds = GeneratorDataset(lambda n: range(n), None, (3,), None)
        >>> it = iter(ds); _ = next(it); s = it.get_state()
        >>> it2 = iter(ds); it2.set_state(s); [int(x) for x in it2]
        [1, 2]
    """

    def __init__(self, generator: Callable[..., Any], output_types: Any, args: Any,
                 output_signature: Any, output_shapes: Any = None) -> None:
        if not callable(generator):
            raise TypeError(f"generator should be a callable returning an iterable, but got "
                            f"{type(generator).__name__}; pass a function, not a generator object")
        self._generator = generator
        self._args = tuple(args) if args is not None else ()
        # the element spec, when given (output_signature, or output_types with output_shapes)
        self._signature = signature_of(output_types, output_shapes, output_signature)
        types = output_types
        if types is None and output_signature is not None:
            leaves = [getattr(s, "dtype", None) for s in flatten(output_signature)]
            types = pack_as(output_signature, leaves)
        self._types = types

    def _convert(self, value: Any) -> Any:
        if self._types is None:
            leaves = [to_leaf(v) for v in flatten(value)]
        else:
            kinds = [None if t is None else np.dtype(getattr(t, "as_numpy_dtype", t))
                     for t in flatten(self._types)]
            leaves = [to_leaf(v) if k is None or k.kind == "O" else np.asarray(v, dtype=k)[()]
                      for v, k in zip(flatten(value), kinds)]
        check_shapes(self._signature, leaves)
        return pack_as(value, leaves) if is_structure(value) else leaves[0]

    def _spec(self) -> dict[str, Any]:
        return {"op": "from_generator", "generator": getattr(self._generator, "__qualname__", "?")}

    def _make_iter(self, state: Fields | None) -> Iter:
        return _GeneratorIter(self, state)
