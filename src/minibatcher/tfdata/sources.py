"""Leaf datasets and the *record source* protocol that formats implement.

A record source is random access to the records of a format: ``len(source)``
records, ``source[i]`` the i-th as a NumPy value (or ``bytes``), an optional
block read ``source.read(start, stop)``, and ``source.fingerprint()``, a
JSON-able identity (file names, sizes, digests: no modification times) that
checkpoints are validated against. :class:`SourceDataset` turns one into a
:class:`~minibatcher.tfdata.Dataset` whose iterators *seek*: ``skip``,
``shard``, ``take`` and every restore jump to a record index without reading
what comes before (docs/design/tfdata-state.md has a guide for implementers).

Example:
    >>> class Squares:
    ...     def __len__(self): return 4
    ...     def __getitem__(self, i): return i * i
    ...     def fingerprint(self): return {"squares": 4}
    >>> [int(x) for x in SourceDataset(Squares()).skip(1)]
    [1, 4, 9]
"""

from __future__ import annotations

import bisect
import hashlib
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..state import Fields
from ..errors import ConfigError
from .block import (ArrayColumn, Block, ColumnBlock, ListBlock, RecordsBlock, concat_blocks,
                    merge_blocks)
from .core import View
from .dataset import Dataset
from .structure import flatten, is_structure, pack_as, to_array, to_leaf


@runtime_checkable
class RecordSource(Protocol):
    """Random access to the records of a format (see the module docstring).

    Example:
        >>> isinstance(RangeSource(0, 3, 1), RecordSource), isinstance([1, 2], RecordSource)
        (True, False)
    """

    def __len__(self) -> int: ...

    def __getitem__(self, index: int) -> Any: ...

    def fingerprint(self) -> Any: ...


class SourceView(View):
    """The view of a record source (block reads when the source has ``read``).

    Example:
        >>> SourceView(RangeSource(0, 6, 2)).read(1, 3)
        [np.int64(2), np.int64(4)]
    """

    def __init__(self, source: RecordSource) -> None:
        self.source = source
        self._length: int | None = None  # asked of the source when something needs it
        self._read = getattr(source, "read", None)
        self._gather = getattr(source, "gather", None)
        self._available = getattr(source, "available", None)
        self.block_limit = int(getattr(source, "block_limit", View.block_limit))

    def __len__(self) -> int:
        if self._length is None:
            self._length = len(self.source)
        return self._length

    def available(self, stop: int) -> int:
        if self._length is None and self._available is not None:
            return self._available(stop)  # a file measured as far as it is read
        return min(stop, len(self))

    def __getitem__(self, index: int) -> Any:
        return self.source[index]

    def read(self, start: int, stop: int) -> list[Any]:
        if self._read is not None:
            return list(self._read(start, stop))
        return [self.source[i] for i in range(start, stop)]

    def block(self, start: int, stop: int) -> Block:
        block = getattr(self.source, "block", None)
        if block is not None:
            return as_block(block(start, stop))
        if self._gather is not None:
            return as_block(self._gather(np.arange(start, stop, dtype=np.int64)))
        return ListBlock(self.read(start, stop))

    def gather(self, positions: np.ndarray) -> Block:
        if self._gather is not None:
            return as_block(self._gather(np.asarray(positions, np.int64)))
        return super().gather(positions)


def as_block(value: Any) -> Block:
    """A source's read as a block: a Block, records in one buffer (``.data``,
    ``.starts`` and ``.ends``: a RecordSpans; or ``.data`` and ``.ends``: a
    RecordBatch, back to back), or a list of elements.

    Example:
        >>> as_block([1, 2]).elements()
        [1, 2]
    """
    if isinstance(value, Block):
        return value
    if hasattr(value, "data") and hasattr(value, "starts") and hasattr(value, "ends"):
        return RecordsBlock(value.data, value.starts, value.ends, getattr(value, "seg", None),
                            getattr(value, "buffers", None))
    if hasattr(value, "data") and hasattr(value, "ends"):
        return RecordsBlock.from_ends(value.data, value.ends)
    return ListBlock(list(value))


class SourceDataset(Dataset):
    """A dataset over a :class:`RecordSource` (records in index order).

    Example:
        >>> len(SourceDataset(RangeSource(0, 10, 3)))
        4
    """

    def __init__(self, source: RecordSource) -> None:
        if not isinstance(source, RecordSource):
            raise TypeError("source should implement __len__, __getitem__ and fingerprint() "
                            f"(the record source protocol), but got {type(source).__name__}")
        self.source = source

    def _spec(self) -> dict[str, Any]:
        return {"op": "source", "source": type(self.source).__name__,
                "fingerprint": self.source.fingerprint()}

    def _has_view(self) -> bool:
        return True

    def _make_view(self, pins: Fields | None) -> View:
        return SourceView(self.source)

    def _cardinality(self) -> int:
        return len(self.source)


class RangeSource:
    """``Dataset.range``'s records: Python's range arithmetic, int64 scalars.

    Example:
        >>> s = RangeSource(2, 9, 3); len(s), s[2]
        (3, np.int64(8))
    """

    def __init__(self, start: int, stop: int, step: int, dtype: Any = np.int64) -> None:
        if step == 0:
            raise ConfigError("step should not be 0, but got step=0")
        self.range = range(int(start), int(stop), int(step))
        self.dtype = np.dtype(dtype)

    def __len__(self) -> int:
        return len(self.range)

    def __getitem__(self, index: int) -> Any:
        return self.dtype.type(self.range[index])

    block_limit = 4096

    def read(self, start: int, stop: int) -> list[Any]:
        return list(np.arange(self.range[start], self.range.start + stop * self.range.step,
                              self.range.step, dtype=self.dtype)) if stop > start else []

    def gather(self, indices: np.ndarray) -> Block:
        """The records at ``indices`` as one column."""
        r = self.range
        return ColumnBlock(0, [ArrayColumn((r.start + np.asarray(indices, np.int64) * r.step)
                                           .astype(self.dtype))])

    def fingerprint(self) -> Any:
        r = self.range
        return [r.start, r.stop, r.step, self.dtype.str]


def range_dataset(*args: int, output_type: Any = None) -> Dataset:
    """``Dataset.range`` (see there).

    Example:
        >>> [int(x) for x in range_dataset(3)]
        [0, 1, 2]
    """
    if not 1 <= len(args) <= 3:
        raise TypeError(f"range takes 1 to 3 integers (stop | start, stop[, step]), got {args!r}")
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    return SourceDataset(RangeSource(start, stop, step, output_type or np.int64))


def _digest_leaf(leaf: np.ndarray) -> str:
    h = hashlib.blake2b(digest_size=8)
    h.update(f"{leaf.dtype.str}{leaf.shape}".encode())
    if leaf.dtype == object:
        for v in leaf.reshape(-1):
            h.update(repr(v).encode())
    else:
        h.update(np.ascontiguousarray(leaf).tobytes())
    return h.hexdigest()


class SlicesSource:
    """Rows of in-memory arrays (``Dataset.from_tensor_slices``).

    Example:
        >>> s = SlicesSource({"x": [1, 2], "y": ["a", "b"]}); s[1]
        {'x': np.int32(2), 'y': b'b'}
    """

    def __init__(self, tensors: Any) -> None:
        self.template = tensors
        self.leaves = [to_array(v) for v in flatten(tensors)]
        lengths = {leaf.shape[0] if leaf.ndim else None for leaf in self.leaves}
        if None in lengths:
            raise ConfigError("from_tensor_slices needs values with at least one dimension, "
                              "but got a scalar; use from_tensors for a single element")
        if len(lengths) != 1:
            raise ConfigError("from_tensor_slices needs values with the same first dimension, "
                              f"but got first dimensions {sorted(lengths)}")
        self._length = lengths.pop()
        self._structured = is_structure(tensors)

    def __len__(self) -> int:
        return self._length

    block_limit = 4096

    def __getitem__(self, index: int) -> Any:
        if self._structured:
            return pack_as(self.template, [leaf[index] for leaf in self.leaves])
        return self.leaves[0][index]

    def block(self, start: int, stop: int) -> Block:
        """Rows ``start .. stop-1`` as columns (slices of the arrays)."""
        return ColumnBlock(self.template, [ArrayColumn(leaf[start:stop]) for leaf in self.leaves],
                           keep_order=False)

    def gather(self, indices: np.ndarray) -> Block:
        """The rows at ``indices`` as columns."""
        return ColumnBlock(self.template, [ArrayColumn(leaf[indices]) for leaf in self.leaves],
                           keep_order=False)

    def fingerprint(self) -> Any:
        return [_digest_leaf(leaf) for leaf in self.leaves]


def slices_dataset(tensors: Any) -> Dataset:
    """``Dataset.from_tensor_slices`` (see there).

    Example:
        >>> len(slices_dataset([[1, 2], [3, 4], [5, 6]]))
        3
    """
    return SourceDataset(SlicesSource(tensors))


def tensors_dataset(tensors: Any) -> Dataset:
    """``Dataset.from_tensors``: one element.

    Example:
        >>> list(tensors_dataset("x"))
        [b'x']
    """
    leaves = [to_leaf(v) for v in flatten(tensors)]
    element = pack_as(tensors, leaves) if is_structure(tensors) else leaves[0]
    return SourceDataset(ElementsSource([element]))


class ElementsSource:
    """A list of ready elements (the windows of group_by_window, from_tensors).

    Example:
        >>> ElementsSource([b"a"])[0]
        b'a'
    """

    def __init__(self, elements: list[Any]) -> None:
        self.elements = elements

    def __len__(self) -> int:
        return len(self.elements)

    def __getitem__(self, index: int) -> Any:
        return self.elements[index]

    def read(self, start: int, stop: int) -> list[Any]:
        return self.elements[start:stop]

    def fingerprint(self) -> Any:
        return len(self.elements)


class ConcatSource:
    """Several record sources one after the other, measured in order as they
    are read (``available``; measuring a file source may read it), all of
    them when the total length is asked.

    Example:
        >>> c = ConcatSource([[1, 2], [3]]); c.available(2), c.locate(2), len(c), c[2]
        (2, (1, 0), 3, 3)
    """

    def __init__(self, sources: list[Any]) -> None:
        self.sources = sources
        self._known = [0]  # bounds of the sources measured so far: where each one starts

    def available(self, stop: int) -> int:
        """``min(stop, len(self))``, measuring the sources only as far as that needs."""
        known = self._known
        while known[-1] < stop and len(known) <= len(self.sources):
            source, want = self.sources[len(known) - 1], stop - known[-1]
            got = source.available(want) if hasattr(source, "available") else \
                min(want, len(source))
            if got == want:
                return stop
            known.append(known[-1] + got)  # the source ends before: its length is known
        return min(stop, known[-1])

    @property
    def bounds(self) -> list[int]:
        """``bounds[k]``: the index of source ``k``'s first record (and the total last)."""
        while len(self._known) <= len(self.sources):
            self._known.append(self._known[-1] + len(self.sources[len(self._known) - 1]))
        return self._known

    def __len__(self) -> int:
        return self.bounds[-1]

    def locate(self, index: int) -> tuple[int, int]:
        """``(source number, index in it)`` of a record the sources hold."""
        self.available(index + 1)
        k = bisect.bisect_right(self._known, index) - 1
        return k, index - self._known[k]

    def _end(self, k: int) -> float:
        """Where source ``k`` ends (infinity while it is not measured)."""
        return self._known[k + 1] if k + 1 < len(self._known) else float("inf")

    def __getitem__(self, index: int) -> Any:
        k, i = self.locate(index)
        return self.sources[k][i]

    def read(self, start: int, stop: int) -> list[Any]:
        out: list[Any] = []
        stop = self.available(stop)
        while start < stop:
            k, i = self.locate(start)
            n = int(min(stop - start, self._end(k) - start))
            src = self.sources[k]
            out.extend(src.read(i, i + n) if hasattr(src, "read") else
                       [src[j] for j in range(i, i + n)])
            start += n
        return out

    @property
    def block_limit(self) -> int:
        """The smallest block limit of the sources (64 for plain sequences)."""
        return min((int(getattr(s, "block_limit", View.block_limit)) for s in self.sources),
                   default=View.block_limit)

    def block(self, start: int, stop: int) -> Block:
        """Records ``start .. stop-1`` as one block (one read per source)."""
        parts = []
        stop = self.available(stop)
        while start < stop:
            k, i = self.locate(start)
            n = int(min(stop - start, self._end(k) - start))
            source = self.sources[k]
            read = getattr(source, "block", None)
            parts.append(as_block(read(i, i + n)) if read is not None else
                         SourceView(source).block(i, i + n))
            start += n
        return concat_blocks(parts)

    def gather(self, indices: np.ndarray) -> Block:
        """The records at ``indices`` (one gather per source)."""
        indices = np.asarray(indices, np.int64)
        if len(indices):
            self.available(int(indices.max()) + 1)
        known = np.asarray(self._known)
        which = np.searchsorted(known, indices, side="right") - 1
        parts = []
        for k in np.unique(which).tolist():
            at = np.flatnonzero(which == k)
            local = indices[at] - known[k]
            parts.append((at, SourceView(self.sources[k]).gather(local)))
        return merge_blocks(parts, len(indices))

    def fingerprint(self) -> Any:
        return [s.fingerprint() if hasattr(s, "fingerprint") else len(s) for s in self.sources]
