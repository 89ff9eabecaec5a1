"""``scan`` and ``reduce``: a state carried from element to element, with TF's rules.

``scan_func(state, element)`` returns ``(new_state, output)``; ``reduce_func(state,
element)`` returns the new state (a tuple element is passed whole, not unpacked,
as TF does for these two). Python values in states become TF's dtypes (``0`` is
int32, ``""`` is a string); the new state must keep the initial state's
structure and dtypes (``TypeError`` otherwise, as TF raises when it traces the
function); its shapes may change.

Checkpoints carry the scan state itself (encoded, :mod:`.codec`), so a restore
seeks the input and continues without replaying it.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> [int(x) for x in Dataset.range(5).scan(0, lambda s, x: (s + 1, s * 10))]
    [0, 10, 20, 30, 40]
    >>> int(Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x))
    10
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable

import numpy as np

from ..errors import FormatError
from ..state import Fields
from .codec import from_text, to_text
from .core import Iter
from .dataset import Dataset
from .structure import flatten, is_structure, pack_as, to_leaf


def as_state(value: Any) -> Any:
    """A state value with TF's conversions (Python ints -> int32, str -> bytes, ...).

    Example:
        >>> as_state((0, {"s": "a"}))
        (np.int32(0), {'s': b'a'})
    """
    leaves = [to_leaf(v) for v in flatten(value)]
    return pack_as(value, leaves) if is_structure(value) else leaves[0]


def _skeleton(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _skeleton(value[k]) for k in sorted(value)}
    if isinstance(value, tuple):
        return (type(value).__name__ if hasattr(value, "_fields") else "tuple",
                [_skeleton(v) for v in value])
    return None


def _dtype_name(leaf: Any) -> str:
    return "string" if isinstance(leaf, bytes) or np.asarray(leaf).dtype == object \
        else np.asarray(leaf).dtype.name


def check_new_state(initial: Any, new: Any, what: str) -> Any:
    """``new`` converted like the initial state, or TF's ``TypeError`` when its
    structure or dtypes differ from ``initial``'s.

    Example:
        >>> check_new_state(np.int32(0), np.int64(1), "scan_func")
        Traceback (most recent call last):
        ...
        TypeError: Invalid `scan_func`. The element types for the new state must ... got ['int64'].
    """
    new = as_state(new)
    if _skeleton(new) != _skeleton(initial):
        raise TypeError(f"Invalid `{what}`. The element classes for the new state must match "
                        f"the initial state. Expected {_skeleton(initial)!r} (the structure of "
                        f"{initial!r}), got {_skeleton(new)!r}.")
    old_types = [_dtype_name(v) for v in flatten(initial)]
    new_types = [_dtype_name(v) for v in flatten(new)]
    if old_types != new_types:
        raise TypeError(f"Invalid `{what}`. The element types for the new state must match the "
                        f"initial state. Expected {old_types}, got {new_types}.")
    return new


def _pair(result: Any) -> tuple[Any, Any]:
    if isinstance(result, Sequence) and not isinstance(result, (str, bytes)) and \
            len(result) == 2:
        return result[0], result[1]
    raise TypeError("Invalid `scan_func`. `scan_func` should return a pair consisting of new "
                    f"state and the output value but its return type is {type(result).__name__}"
                    f" ({result!r}).")


def _guarded(fn: Callable[..., Any], *args: Any, what: str = "") -> Any:
    """``fn(*args)``; a StopIteration inside it is an error, not the end of the data (TF's
    rule: a function cannot end its dataset)."""
    try:
        return fn(*args)
    except StopIteration as e:
        from .errors import InvalidArgumentError
        raise InvalidArgumentError(f"{what or 'a function'} raised StopIteration; a function "
                                   "passed to a dataset cannot end it") from e


class _ScanIter(Iter):
    def __init__(self, node: "ScanDataset", parent: Iter, state: Any) -> None:
        self.node, self.parent, self.carry = node, parent, state

    def __next__(self) -> Any:
        element = next(self.parent)
        new_state, output = _pair(_guarded(self.node._fn, self.carry, element, what="scan_func"))
        self.carry = check_new_state(self.node._initial, new_state, "scan_func")
        return as_state(output)

    def state(self) -> dict[str, Any]:
        return {"in": self.parent.state(), "state": to_text(self.carry)}


class ScanDataset(Dataset):
    """``scan(initial_state, scan_func)``: outputs of a function carrying a state.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> letters = Dataset.from_tensor_slices(["a", "b"])
        >>> ds = ScanDataset(letters, "", lambda s, x: (s + x, s + x))
        >>> list(ds)
        [b'a', b'ab']
    """

    def __init__(self, parent: Dataset, initial_state: Any,
                 scan_func: Callable[[Any, Any], Any]) -> None:
        if not isinstance(parent, Dataset):
            raise TypeError(f"expected a Dataset, but got {type(parent).__name__}")
        if not callable(scan_func):
            raise TypeError(f"scan_func should be callable, but got {type(scan_func).__name__}")
        self._parent, self._fn = parent, scan_func
        self._initial = as_state(initial_state)

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self._parent,)

    def _spec(self) -> dict[str, Any]:
        return {"op": "scan", "fn": getattr(self._fn, "__qualname__", "?"),
                "initial_state": to_text(self._initial)}

    def _make_iter(self, state: Fields | None) -> Iter:
        if state is None:
            return _ScanIter(self, self._parent._make_iter(None), self._initial)
        state.only("in", "state")
        carry = self._restored_state(state)
        return _ScanIter(self, self._parent._make_iter(state.child("in")), carry)

    def _restored_state(self, state: Fields) -> Any:
        text = state.str("state")
        try:
            carry = from_text(text)
            return check_new_state(self._initial, carry, "scan_func")
        except (FormatError, TypeError) as e:
            raise state.bad("state", "the encoded scan state (of the initial state's structure "
                            "and dtypes)", str(e)) from None

    def _cardinality(self) -> int:
        return self._parent._cardinality()


def reduce_dataset(dataset: Dataset, initial_state: Any,
                   reduce_func: Callable[[Any, Any], Any]) -> Any:
    """``Dataset.reduce``: ``reduce_func`` folded over one iteration of ``dataset``.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> reduce_dataset(Dataset.range(0), np.int64(7), lambda s, x: s + x)
        np.int64(7)
    """
    if not callable(reduce_func):
        raise TypeError(f"reduce_func should be callable, but got {type(reduce_func).__name__}")
    initial = as_state(initial_state)
    carry = initial
    for element in dataset:
        carry = check_new_state(initial, _guarded(reduce_func, carry, element, what="reduce_func"),
                                "reduce_func")
    return carry

