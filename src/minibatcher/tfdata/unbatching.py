"""``unbatch`` and ``rebatch``: elements cut along their first dimension.

``unbatch()`` yields the rows of each element (every component must have the
same first dimension). ``rebatch(batch_size, drop_remainder)`` re-cuts the
rows into batches of ``batch_size`` (or of the sizes of a list, in turn; a size
of 0 gives an empty batch) by slicing and concatenating the input's arrays,
as ``unbatch().batch(n)`` would, without going through single rows; with
``drop_remainder`` a final short batch is dropped.

A cursor inside an input element is the input's state *before* that element
plus the offset: a restore reads that one element again and seeks in it.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> [int(x) for x in Dataset.range(5).batch(2).unbatch()]
    [0, 1, 2, 3, 4]
    >>> [b.tolist() for b in Dataset.range(10).batch(4).rebatch(3)]
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NotSupportedError
from ..state import Fields
from .core import INFINITE, UNKNOWN, Iter
from .dataset import Dataset
from .errors import InvalidArgumentError
from .ragged_tensor import RaggedTensor, concat
from .structure import flatten, is_structure, pack_as
from .transforms import _Unary

_SCALAR = {"unbatch": "Cannot unbatch an input with scalar components.",
           "rebatch": "Invalid `batch_sizes`. Expected dataset with rank of >= 1 but found a "
                      "dataset with scalar elements. Fix the issue by adding the `batch` "
                      "transformation to the dataset."}


def _leaves(element: Any, op: str) -> list[Any]:
    leaves = flatten(element)
    for leaf in leaves:
        if isinstance(leaf, bytes) or (not isinstance(leaf, RaggedTensor) and np.ndim(leaf) == 0):
            raise ValueError(_SCALAR[op])
        if not isinstance(leaf, (np.ndarray, RaggedTensor)):
            raise NotSupportedError(f"unbatch/rebatch of {type(leaf).__name__} components is not "
                                    "supported; components should be arrays or RaggedTensors")
    sizes = {len(leaf) for leaf in leaves}
    if len(sizes) > 1:
        raise InvalidArgumentError("`unbatch()` is only supported for datasets of elements whose "
                                   "components have a matching leading dimension. Encountered "
                                   f"both {' and '.join(str(s) for s in sorted(sizes))}.")
    return leaves


class _Cursor:
    """The input element being cut (its leaves) and the offset in it."""

    def __init__(self, parent: Iter, op: str) -> None:
        self.parent, self.op = parent, op
        self.before: Any = None  # the input's state before the current element
        self.element: Any = None
        self.template: Any = None  # the structure of the last element read
        self.leaves: list[Any] = []
        self.rows = self.off = 0

    def load(self) -> bool:
        """Reads the next input element; False at the end of the input."""
        before = self.parent.state()
        try:
            element = next(self.parent)
        except StopIteration:
            self.element, self.rows, self.off = None, 0, 0
            return False
        self.before, self.element, self.template = before, element, element
        self.leaves = _leaves(element, self.op)
        self.rows, self.off = len(self.leaves[0]), 0
        return True

    def state(self) -> dict[str, Any]:
        if self.element is None:
            return {"in": self.parent.state(), "cur": False, "off": 0}
        return {"in": self.before, "cur": True, "off": self.off}

    @classmethod
    def restore(cls, node: Dataset, state: Fields, op: str) -> "_Cursor":
        cursor = cls(node._make_iter(state.child("in")), op)
        if state.bool("cur"):
            if not cursor.load():
                raise state.bad("in", "the state before an input element",
                                "the input has no element there; the data changed")
            cursor.off = state.int("off", 0, cursor.rows,
                                   within=f"the {cursor.rows} rows of the input element")
        else:
            state.int("off", 0, 0)
        return cursor


class _UnbatchIter(Iter):
    def __init__(self, cursor: _Cursor) -> None:
        self.cursor = cursor

    def __next__(self) -> Any:
        c = self.cursor
        while c.off >= c.rows:
            if not c.load():
                raise StopIteration
        i = c.off
        c.off += 1
        if not is_structure(c.element):
            return c.leaves[0][i]
        return pack_as(c.element, [leaf[i] for leaf in c.leaves])

    def state(self) -> dict[str, Any]:
        return self.cursor.state()


def _static_rows(parent: Dataset, op: str) -> int | None:
    """Checks what is statically known of the input (TF raises when the dataset is
    built) and returns the common leading dimension when known."""
    from .element_spec import static_spec
    from .specs import TensorSpec
    spec = static_spec(parent)
    leaves = [] if spec is None else flatten(spec)
    dims = [leaf.shape.dims for leaf in leaves if isinstance(leaf, TensorSpec)]
    if any(d == () for d in dims):
        raise ValueError(_SCALAR[op])
    known = {d[0] for d in dims if d is not None and d[0] is not None}
    if len(known) > 1 and op == "unbatch":
        raise ValueError("`unbatch()` is only supported for datasets of elements whose "
                         "components have a matching leading dimension. Encountered both "
                         f"{' and '.join(str(k) for k in sorted(known))}.")
    all_known = leaves and len(dims) == len(leaves) and all(d and d[0] is not None for d in dims)
    return known.pop() if all_known and len(known) == 1 else None


class UnbatchDataset(_Unary):
    """``unbatch()``.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = Dataset.from_tensors((np.arange(3), np.array([b"a", b"b", b"c"], dtype=object)))
        >>> [(int(a), b) for a, b in UnbatchDataset(ds)]
        [(0, b'a'), (1, b'b'), (2, b'c')]
    """

    def __init__(self, parent: Dataset) -> None:
        super().__init__(parent)
        self._rows = _static_rows(parent, "unbatch")

    def _has_view(self) -> bool:
        return False

    def _spec(self) -> dict[str, Any]:
        return {"op": "unbatch"}

    def _make_iter(self, state: Fields | None) -> Iter:
        if state is None:
            return _UnbatchIter(_Cursor(self._parent._make_iter(None), "unbatch"))
        state.only("in", "cur", "off")
        return _UnbatchIter(_Cursor.restore(self._parent, state, "unbatch"))

    def _cardinality(self) -> int:
        n = self._parent._cardinality()
        if n == INFINITE or (n >= 0 and self._rows):
            return n if n == INFINITE else n * self._rows  # TF: from static batch dimensions > 0
        return UNKNOWN


def rows(leaf: Any, lo: int, hi: int) -> Any:
    """Rows ``lo .. hi-1`` of an array or a RaggedTensor.

    Example:
        >>> rt = RaggedTensor.from_row_lengths(np.arange(6), [1, 2, 3])
        >>> rows(rt, 1, 3).to_list(), rows(np.arange(4), 1, 3).tolist()
        ([[1, 2], [3, 4, 5]], [1, 2])
    """
    if not isinstance(leaf, RaggedTensor):
        return leaf[lo:hi]
    splits = leaf.row_splits[lo:hi + 1]
    return RaggedTensor(rows(leaf.values, int(splits[0]), int(splits[-1])), splits - splits[0],
                        leaf.uniform_row_length, validate=False)


def _batch_sizes(batch_size: Any) -> list[int]:
    sizes = np.asarray(batch_size)
    if sizes.ndim > 1:
        raise ValueError("Invalid `batch_sizes`. Expected `batch_sizes` to be a scalar or a "
                         f"vector. Received `batch_sizes` of rank {sizes.ndim}.")
    if sizes.size == 0:
        raise ValueError("batch_size should be an integer or a non-empty list of integers, but "
                         "got an empty list")
    if sizes.dtype.kind not in "iu":
        raise TypeError(f"batch_size should be an integer or a list of integers, but got "
                        f"batch_size={batch_size!r}")
    out = [int(s) for s in sizes.reshape(-1)]
    if min(out) < 0:
        raise ValueError(f"batch_size should be non-negative, but got batch_size={batch_size!r} "
                         "(TF loops forever on a negative size)")
    return out


class _RebatchIter(Iter):
    def __init__(self, node: "RebatchDataset", cursor: _Cursor, k: int) -> None:
        self.node, self.cursor, self.k = node, cursor, k

    def __next__(self) -> Any:
        sizes, c = self.node._sizes, self.cursor
        size = sizes[self.k]
        parts = self._empty(c) if size == 0 else self._rows(c, size)
        self.k = (self.k + 1) % len(sizes)
        leaves = [concat(column) if len(column) > 1 else column[0]
                  for column in zip(*parts, strict=True)]
        return pack_as(c.template, leaves) if is_structure(c.template) else leaves[0]

    @staticmethod
    def _empty(c: _Cursor) -> list[list[Any]]:
        """An empty batch, shaped like the current input element (TF knows it statically)."""
        if c.element is None and not c.load():
            raise StopIteration
        return [[rows(leaf, c.off, c.off) for leaf in c.leaves]]

    def _rows(self, c: _Cursor, size: int) -> list[list[Any]]:
        parts: list[list[Any]] = []
        got = 0
        while got < size:
            if c.off >= c.rows:
                if not c.load():
                    break
                continue
            take = min(size - got, c.rows - c.off)
            parts.append([rows(leaf, c.off, c.off + take) for leaf in c.leaves])
            c.off += take
            got += take
        if got == 0 or (got < size and self.node._drop):
            raise StopIteration
        return parts

    def state(self) -> dict[str, Any]:
        return {**self.cursor.state(), "k": self.k}


class RebatchDataset(_Unary):
    """``rebatch(batch_size, drop_remainder)``.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> [b.tolist() for b in RebatchDataset(Dataset.range(5).batch(2), [0, 3], False)]
        [[], [0, 1, 2], [], [3, 4]]
    """

    def __init__(self, parent: Dataset, batch_size: Any, drop_remainder: bool) -> None:
        super().__init__(parent)
        self._sizes = _batch_sizes(batch_size)
        _static_rows(parent, "rebatch")
        self._drop = bool(drop_remainder)

    def _has_view(self) -> bool:
        return False

    def _spec(self) -> dict[str, Any]:
        return {"op": "rebatch", "batch_sizes": self._sizes, "drop_remainder": self._drop}

    def _make_iter(self, state: Fields | None) -> Iter:
        if state is None:
            return _RebatchIter(self, _Cursor(self._parent._make_iter(None), "rebatch"), 0)
        state.only("in", "cur", "off", "k")
        k = state.int("k", 0, len(self._sizes) - 1, within=f"the {len(self._sizes)} batch sizes")
        return _RebatchIter(self, _Cursor.restore(self._parent, state, "rebatch"), k)

    def _cardinality(self) -> int:
        return UNKNOWN  # TF: unknown, even over an infinite input
