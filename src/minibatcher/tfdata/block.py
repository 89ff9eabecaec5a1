"""Blocks: many consecutive (or gathered) elements of a view at once, in columns
where the data allows (docs/design/tfdata-blocks.md).

A view's ``block(start, stop)`` and ``gather(positions)`` return a
:class:`Block`; ``block.elements()`` gives exactly the elements the element
path (``view.read``, ``view[i]``) gives. Three kinds:

* :class:`ListBlock`: ready Python elements (the default adapter of every view);
* :class:`RecordsBlock`: serialized records back to back in one buffer (what
  record sources read in one native call);
* :class:`ColumnBlock`: elements of one structure whose leaves are columns
  (one array per leaf with a leading element dimension, or tfdata.io's parsed
  columns), so that ``batch`` slices columns instead of stacking elements.

Block execution is on by default; :func:`block_execution` switches it off for
the current thread or task (tests compare both paths).

Example:
    >>> import numpy as np
    >>> b = ColumnBlock(("x", "y"), [ArrayColumn(np.arange(3)), ArrayColumn(np.ones((3, 2)))])
    >>> len(b), b.elements()[1][0], b.batch(0, 2)[1].shape
    (3, np.int64(1), (2, 2))
    >>> RecordsBlock.from_list([b"ab", b"c"]).elements()
    [b'ab', b'c']
"""

from __future__ import annotations

import abc
import contextlib
import contextvars
import typing
from typing import Any, Iterator, Sequence

import numpy as np

from .structure import is_structure, pack_as, stack, stack_leaves

_BLOCKS: contextvars.ContextVar[bool] = contextvars.ContextVar("minibatcher_tfdata_blocks",
                                                               default=True)


def blocks_enabled() -> bool:
    """Whether iterators made now execute views a block at a time.

    Example:
        >>> blocks_enabled()
        True
    """
    return _BLOCKS.get()


@contextlib.contextmanager
def block_execution(enabled: bool) -> Iterator[None]:
    """Block execution on or off for iterators made inside the ``with`` block
    (this thread or task only). Elements, order and states are the same
    either way; the switch exists to test that.

    Example:
        >>> with block_execution(False):
        ...     blocks_enabled()
        False
    """
    token = _BLOCKS.set(bool(enabled))
    try:
        yield
    finally:
        _BLOCKS.reset(token)


class Block(abc.ABC):
    """Elements ``0 .. len-1`` of a read; ``error`` (an iterator's block only) is
    raised after them: the element that followed failed."""

    error: BaseException | None = None

    @abc.abstractmethod
    def __len__(self) -> int:
        """Number of elements."""

    @abc.abstractmethod
    def elements(self) -> list[Any]:
        """The elements, exactly as the element path gives them."""

    def batch(self, lo: int, hi: int) -> Any:
        """Elements ``lo .. hi-1`` as one batch (``Dataset.batch``'s value)."""
        return stack(self.elements()[lo:hi])

    def take(self, order: np.ndarray) -> "Block":
        """The elements at ``order`` (indices into this block)."""
        items = self.elements()
        return ListBlock([items[i] for i in np.asarray(order).tolist()])


class ListBlock(Block):
    """Ready elements.

    Example:
        >>> ListBlock([1, 2]).elements()
        [1, 2]
    """

    __slots__ = ("items", "error")

    def __init__(self, items: list[Any], error: BaseException | None = None) -> None:
        self.items, self.error = items, error

    def __len__(self) -> int:
        return len(self.items)

    def elements(self) -> list[Any]:
        return self.items

    def batch(self, lo: int, hi: int) -> Any:
        return stack_elements(self.items[lo:hi])


def stack_elements(items: list[Any]) -> Any:
    """``structure.stack(items)`` with a fast path for flat tuples and dicts
    (the same leaves stacked in the same order, the same errors).

    Example:
        >>> b = stack_elements([(np.int64(1), b"x"), (np.int64(2), b"y")])
        >>> b[0].tolist(), b[1].tolist()
        ([1, 2], [b'x', b'y'])
    """
    first = items[0] if items else None
    kind = type(first)
    if kind is tuple and all(type(x) is tuple and len(x) == len(first) for x in items) and \
            not any(is_structure(v) for v in first):
        return tuple(stack_leaves(list(c), i) for i, c in enumerate(zip(*items)))
    if kind is dict and not any(is_structure(v) for v in first.values()):
        keys = sorted(first)
        if all(type(x) is dict and sorted(x) == keys for x in items):
            return {k: stack_leaves([x[k] for x in items], i) for i, k in enumerate(keys)}
    return stack(items)


_NO_SEG = np.zeros(0, np.int64)


class RecordsBlock(Block):
    """Serialized records in place in one or more buffers: record i is
    ``buffers[seg[i]][starts[i]:ends[i]]`` (``seg`` None: all in ``buffers[0]``);
    elements are ``bytes``.

    Example:
        >>> b = RecordsBlock(np.frombuffer(b"xabc", np.uint8), np.array([1, 3]), np.array([3, 4]))
        >>> b.elements(), b.batch(0, 2).tolist()
        ([b'ab', b'c'], [b'ab', b'c'])
    """

    __slots__ = ("buffers", "seg", "starts", "ends")

    def __init__(self, data: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                 seg: np.ndarray | None = None, buffers: list[np.ndarray] | None = None) -> None:
        self.buffers = buffers if buffers is not None else [data]
        self.seg, self.starts, self.ends = seg, starts, ends

    @classmethod
    def from_ends(cls, data: np.ndarray, ends: np.ndarray) -> "RecordsBlock":
        """Records ending at ``ends`` (the first starts at 0), as a RecordBatch has them."""
        ends = np.asarray(ends, np.int64)
        starts = np.concatenate([np.zeros(1, np.int64), ends[:-1]]) if len(ends) else ends
        return cls(np.asarray(data, np.uint8), starts, ends)

    @classmethod
    def from_list(cls, records: Sequence[bytes]) -> "RecordsBlock":
        """Records given as ``bytes`` (copied into one buffer)."""
        ends = np.cumsum([len(r) for r in records], dtype=np.int64)
        return cls.from_ends(np.frombuffer(b"".join(records), np.uint8), ends)

    def __len__(self) -> int:
        return len(self.ends)

    def elements(self) -> list[bytes]:
        from .. import _native

        return _native.spans_to_bytes(self.buffers, _NO_SEG if self.seg is None else self.seg,
                                      self.starts, self.ends)

    def batch(self, lo: int, hi: int) -> np.ndarray:
        from .. import _native

        part = self.take(np.arange(lo, hi)) if (lo, hi) != (0, len(self)) else self
        return _native.spans_to_object_array(part.buffers, _NO_SEG if part.seg is None else
                                             part.seg, part.starts, part.ends)

    def take(self, order: np.ndarray) -> "RecordsBlock":
        """The records in ``order`` (indices into this block); no bytes are copied."""
        seg = None if self.seg is None else self.seg[order]
        return RecordsBlock(self.buffers[0], self.starts[order], self.ends[order], seg,
                            self.buffers)

    def contiguous(self) -> tuple[np.ndarray, np.ndarray]:
        """``(data, offsets)``: the records back to back, record i at
        ``data[offsets[i]:offsets[i+1]]`` (no copy when they already are)."""
        if self.seg is None and len(self.ends) and np.array_equal(self.starts[1:], self.ends[:-1]):
            start = int(self.starts[0])
            return self.buffers[0][start:int(self.ends[-1])], \
                np.concatenate([self.starts[:1], self.ends]) - start
        from .. import _native

        return _native.spans_concat(self.buffers, _NO_SEG if self.seg is None else self.seg,
                                    self.starts, self.ends)


class ArrayColumn:
    """One leaf of a :class:`ColumnBlock` as one array ``[n, *shape]``: row i is
    ``values[i]`` (a NumPy scalar, or ``bytes`` for strings, when the rows are
    scalars); a batch is a slice.

    Example:
        >>> c = ArrayColumn(np.array([[1, 2], [3, 4]])); c.row(1).tolist(), c.batch(0, 1).shape
        ([3, 4], (1, 2))
    """

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    def __len__(self) -> int:
        return len(self.values)

    def row(self, i: int) -> Any:
        return self.values[i]

    def rows(self) -> list[Any]:
        """Every row (what ``row(i)`` gives, for all i)."""
        return list(self.values)

    def batch(self, lo: int, hi: int) -> np.ndarray:
        return self.values[lo:hi]


def _has_values(column: Any) -> bool:
    """Whether row i of ``column`` is ``values[i]`` (ours, or tfdata.io's DenseColumn)."""
    return isinstance(column, ArrayColumn) or (type(column).__name__ == "DenseColumn" and
                                               isinstance(getattr(column, "values", None),
                                                          np.ndarray))


def _rows(column: Any) -> list[Any]:
    rows = getattr(column, "rows", None)
    if rows is not None:
        return rows()
    values = getattr(column, "values", None)
    if type(column).__name__ == "DenseColumn" and isinstance(values, np.ndarray):
        return list(values)  # tfdata.io's DenseColumn: row(i) is values[i] (scalars unwrapped)
    return [column.row(i) for i in range(len(column))]


class ColumnBlock(Block):
    """Elements of the structure ``template`` (its leaves are ignored) whose
    leaves are ``columns``, in ``flatten`` order; a column has ``len``,
    ``row(i)`` and ``batch(lo, hi)`` (tfdata.io's parsed columns have them).
    Elements' dicts keep ``template``'s key order (``keep_order``: a function's
    result), or are built with sorted keys as ``pack_as`` builds them; a
    batch's dicts have sorted keys either way, as ``Dataset.batch``'s.

    Example:
        >>> b = ColumnBlock({"a": 0}, [ArrayColumn(np.array([5, 6]))])
        >>> b.elements(), b.batch(0, 2)["a"].tolist()
        ([{'a': np.int64(5)}, {'a': np.int64(6)}], [5, 6])
    """

    __slots__ = ("template", "columns", "_n", "_pack")

    def __init__(self, template: Any, columns: list[Any], keep_order: bool = True) -> None:
        self.template, self.columns = template, columns
        self._n = len(columns[0]) if columns else 0
        self._pack = pack_like if keep_order else pack_as

    def __len__(self) -> int:
        return self._n

    def elements(self) -> list[Any]:
        rows = [_rows(c) for c in self.columns]
        template = self.template
        if not is_structure(template):
            return rows[0]
        if type(template) is tuple and not any(is_structure(t) for t in template):
            return list(zip(*rows))
        if type(template) is dict and not any(is_structure(t) for t in template.values()):
            keys = sorted(template)
            if keys == list(template) or self._pack is pack_as:
                return [dict(zip(keys, parts)) for parts in zip(*rows)]
        return [self._pack(template, list(parts)) for parts in zip(*rows)]

    def take(self, order: np.ndarray) -> Block:
        if all(_has_values(c) for c in self.columns):
            return self.like([ArrayColumn(c.values[order]) for c in self.columns])
        return super().take(order)

    def like(self, columns: list[Any]) -> "ColumnBlock":
        """A block of this kind and structure over other ``columns`` (a subclass
        keeps its own ``elements``/``batch``)."""
        block = object.__new__(type(self))
        block.template, block.columns, block._pack = self.template, columns, self._pack
        block._n = len(columns[0]) if columns else 0
        return block

    def batch(self, lo: int, hi: int) -> Any:
        # a batch's dicts have sorted keys whatever the elements' order, as Dataset.batch
        # stacks them (TF's rule: dict components are ordered by sorted key)
        leaves = [_batch(c, lo, hi) for c in self.columns]
        return pack_as(self.template, leaves) if is_structure(self.template) else leaves[0]


def pack_like(template: Any, leaves: Sequence[Any]) -> Any:
    """``pack_as`` keeping the key order of ``template``'s dicts (leaves are
    in ``flatten`` order: keys sorted), as the element a function returned.

    Example:
        >>> pack_like({"b": 0, "a": (0, 0)}, [1, 2, 3])
        {'b': 3, 'a': (1, 2)}
    """
    packed = pack_as(template, list(leaves))
    return _reorder(template, packed)


def _reorder(template: Any, packed: Any) -> Any:
    if isinstance(template, dict):
        return {k: _reorder(template[k], packed[k]) for k in template}
    if isinstance(template, tuple) and any(is_structure(t) for t in template):
        parts = [_reorder(t, p) for t, p in zip(template, packed)]
        return type(template)(*parts) if hasattr(template, "_fields") else tuple(parts)
    return packed


def _batch(column: Any, lo: int, hi: int) -> Any:
    """A column's batch; tfdata.io's sequence columns pad in ``batch`` (as
    ``parse_example`` does) where ``Dataset.batch`` stacks rows, so stack them."""
    if type(column).__name__ == "SequenceColumn":
        return stack([column.row(i) for i in range(lo, hi)])
    return column.batch(lo, hi)


def merge_blocks(parts: list[tuple[np.ndarray, Block]], n: int) -> Block:
    """One block of ``n`` elements from ``parts``: ``(indices, block)`` pairs whose
    element j goes to position ``indices[j]`` (records stay in their buffers).

    Example:
        >>> merge_blocks([(np.array([1]), ListBlock(["a"])), (np.array([0]), ListBlock(["b"]))],
        ...              2).elements()
        ['b', 'a']
    """
    if len(parts) == 1 and np.array_equal(parts[0][0], np.arange(n)):
        return parts[0][1]
    if parts and all(isinstance(b, RecordsBlock) for _, b in parts):
        return _merge_records(parts, n)
    from .column_merge import merge_columns, mergeable_columns  # (it imports this module)

    if mergeable_columns([b for _, b in parts]):
        return merge_columns(parts, n)
    items: list[Any] = [None] * n
    for index, b in parts:
        for i, x in zip(np.asarray(index).tolist(), b.elements()):
            items[i] = x
    return ListBlock(items)


def _merge_records(parts: list[tuple[np.ndarray, Block]], n: int) -> RecordsBlock:
    buffers: list[np.ndarray] = []
    number: dict[int, int] = {}
    seg, starts, ends = (np.empty(n, np.int64) for _ in range(3))
    for index, b in parts:
        b = typing.cast(RecordsBlock, b)
        mine = np.array([number.setdefault(id(buf), len(number)) for buf in b.buffers], np.int64)
        for buf in b.buffers:
            if number[id(buf)] == len(buffers):
                buffers.append(buf)
        seg[index] = mine[0] if b.seg is None else mine[b.seg]
        starts[index], ends[index] = b.starts, b.ends
    return RecordsBlock(buffers[0], starts, ends, None if len(buffers) == 1 else seg, buffers)


def concat_blocks(blocks: list[Block]) -> Block:
    """One block of the elements of ``blocks`` in order.

    Example:
        >>> concat_blocks([ListBlock([1]), ListBlock([2, 3])]).elements()
        [1, 2, 3]
    """
    if len(blocks) == 1:
        return blocks[0]
    bounds = np.cumsum([0] + [len(b) for b in blocks])
    return merge_blocks([(np.arange(a, b), blk) for a, b, blk in zip(bounds[:-1], bounds[1:],
                                                                     blocks)], int(bounds[-1]))
