"""``take_while`` and ``unique``: elements kept by what came before them.

``take_while(predicate)`` ends the stream at the first element for which the
predicate is false (and stays ended); its state is the input's and a flag.

``unique()`` keeps the first occurrence of each element (scalars or arrays of
int32, int64 or strings, as TF). Which elements were seen is not stored in the
checkpoint (it grows with the epoch): a restore reads the input again from
the start of the iteration up to the checkpoint's position, rebuilding the set
(a bounded replay, docs/design/tfdata-state.md).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> [int(x) for x in Dataset.from_tensor_slices([3, 1, 3, 2, 1]).unique()]
    [3, 1, 2]
    >>> [int(x) for x in Dataset.range(9).take_while(lambda x: x * x < 10)]
    [0, 1, 2, 3]
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

import numpy as np

from ..state import Fields
from .core import UNKNOWN, Iter
from .dataset import Dataset
from .errors import InvalidArgumentError
from .scan import _guarded
from .structure import call, is_structure
from .transforms import _PassIter, _Unary


def _predicate_value(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    arr = np.asarray(value)
    if arr.shape == () and arr.dtype == np.bool_:
        return bool(arr)
    kind = "string" if arr.dtype == object else arr.dtype.name
    raise ValueError("Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, "
                     f"but it returned a {kind} value of shape {list(arr.shape)}")


class _TakeWhileIter(_PassIter):
    def __init__(self, parent: Iter, predicate: Callable[..., Any], done: bool) -> None:
        super().__init__(parent)
        self.predicate, self.done = predicate, done

    def __next__(self) -> Any:
        if self.done:
            raise StopIteration
        x = next(self.parent)
        if not _predicate_value(_guarded(call, self.predicate, x, what="predicate")):
            self.done = True
            raise StopIteration
        return x

    def state(self) -> dict[str, Any]:
        return {"in": self.parent.state(), "done": self.done}


class TakeWhileDataset(_Unary):
    """``take_while(predicate)`` (tuple elements unpacked into the arguments).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = TakeWhileDataset(Dataset.zip(Dataset.range(5), Dataset.range(5, 0, -1)),
        ...                       lambda a, b: a < b)
        >>> [(int(a), int(b)) for a, b in ds]
        [(0, 5), (1, 4), (2, 3)]
    """

    def __init__(self, parent: Dataset, predicate: Callable[..., Any]) -> None:
        super().__init__(parent)
        if not callable(predicate):
            raise TypeError(f"predicate should be callable, but got {type(predicate).__name__}")
        self._predicate = predicate

    def _has_view(self) -> bool:
        return False

    def _spec(self) -> dict[str, Any]:
        return {"op": "take_while", "fn": getattr(self._predicate, "__qualname__", "?")}

    def _make_iter(self, state: Fields | None) -> Iter:
        if state is None:
            return _TakeWhileIter(self._parent._make_iter(None), self._predicate, False)
        state.only("in", "done")
        return _TakeWhileIter(self._parent._make_iter(state.child("in")), self._predicate,
                              state.bool("done"))

    def _cardinality(self) -> int:
        return UNKNOWN  # TF: unknown, even over an infinite input


_UNIQUE_KINDS = {"int32", "int64", "string"}


def unique_key(element: Any) -> Hashable:
    """The identity of an element for ``unique`` (TF's dtype rule checked).

    Example:
        >>> unique_key(np.int64(3)) == unique_key(np.int64(3)), unique_key(b"a")
        (True, b'a')
        >>> unique_key(np.float32(1))
        Traceback (most recent call last):
        ...
        TypeError: `Dataset.unique` does not support type float32 -- only `int32`, `int64`, and ...
    """
    if isinstance(element, bytes):
        return element
    if is_structure(element):
        raise InvalidArgumentError("UniqueDataset only supports inputs with a single component.")
    arr = np.asarray(element)
    kind = "string" if arr.dtype == object else arr.dtype.name
    if kind not in _UNIQUE_KINDS:
        raise TypeError(f"`Dataset.unique` does not support type {kind} -- only `int32`, "
                        "`int64`, and `string` are supported.")
    if kind == "string":
        return ("s", arr.shape, tuple(bytes(v) for v in arr.reshape(-1)))
    return (kind, arr.shape, arr.tobytes())


class _UniqueIter(Iter):
    def __init__(self, parent: Iter, start_state: Any) -> None:
        self.parent, self.start_state = parent, start_state
        self.seen: set[Hashable] = set()
        self.read = 0

    def __next__(self) -> Any:
        while True:
            x = next(self.parent)
            self.read += 1
            key = unique_key(x)
            if key not in self.seen:
                self.seen.add(key)
                return x

    def state(self) -> dict[str, Any]:
        return {"in0": self.start_state, "read": self.read, "emitted": len(self.seen)}


class UniqueDataset(_Unary):
    """``unique()``: first occurrences, in stream order.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = UniqueDataset(Dataset.from_tensor_slices([[1, 2], [1, 2], [2, 1]]))
        >>> [x.tolist() for x in ds]
        [[1, 2], [2, 1]]
    """

    def __init__(self, parent: Dataset) -> None:
        super().__init__(parent)
        from .element_spec import static_spec
        from .specs import TensorSpec
        spec = static_spec(parent)
        if is_structure(spec):
            raise InvalidArgumentError("UniqueDataset only supports inputs with a single "
                                       "component.")
        if isinstance(spec, TensorSpec) and spec.dtype.name not in _UNIQUE_KINDS:
            raise TypeError(f"`Dataset.unique` does not support type {spec.dtype.name} -- only "
                            "`int32`, `int64`, and `string` are supported.")

    def _has_view(self) -> bool:
        return False

    def _spec(self) -> dict[str, Any]:
        return {"op": "unique"}

    def _make_iter(self, state: Fields | None) -> Iter:
        if state is None:
            parent = self._parent._make_iter(None)
            return _UniqueIter(parent, parent.state())
        state.only("in0", "read", "emitted")
        read, emitted = state.int("read", 0), state.int("emitted", 0)
        it = _UniqueIter(self._parent._make_iter(state.child("in0")), state.child("in0").raw)
        while it.read < read:  # rebuild the set of seen elements (bounded by the position)
            try:
                next(it)
            except StopIteration:
                raise state.bad("read", f"at most {it.read} (the input ended there)",
                                "the data changed") from None
        if it.read != read or len(it.seen) != emitted:
            raise state.bad("emitted", f"{len(it.seen)} (the distinct elements among the first "
                            f"{read} input elements)")
        return it

    def _cardinality(self) -> int:
        return UNKNOWN  # TF: unknown, even over an infinite input
