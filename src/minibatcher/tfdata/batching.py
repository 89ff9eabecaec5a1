"""``batch`` and ``padded_batch``.

``padded_batch`` pads every dimension left unknown (``None``/-1 in
``padded_shapes``, or every dimension when ``padded_shapes`` is None) to the
batch's maximum and fixed ones to their size, with ``padding_values``
(default 0, or ``b""`` for strings; :mod:`~minibatcher.tfdata.padding`).
NumPy values carry no static shapes, so with ``padded_shapes=None`` all
dimensions are padded to the batch maximum (the same result as TF whenever
TF's known dimensions are equal anyway).

Example:
    >>> import numpy as np
    >>> pad_batch([np.array([1]), np.array([2, 3])], None, None).tolist()
    [[1, 0], [2, 3]]
    >>> pad_batch([(np.array([1]), b"a")], ([4], None), (np.int64(9), b""))[0].tolist()
    [[1, 9, 9, 9]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..state import Fields
from .arguments import tf_int
from .block import Block, ListBlock, blocks_enabled
from .column_merge import uniform_columns
from .core import Iter, View, inner_of
from .dataset import Dataset
from .padding import check_against_spec, check_padded_shapes, check_padding_values, pad_batch
from .structure import stack

__all__ = ["BatchDataset", "PaddedBatchDataset", "pad_batch"]


class _BatchView(View):
    def __init__(self, parent: View, node: "BatchDataset") -> None:
        self.parent, self.node = parent, node
        self.size = node._batch_size
        self._n: int | None = None  # the parent's length, asked when something needs it
        self.block_limit = max(1, parent.block_limit // self.size)

    @property
    def n(self) -> int:
        if self._n is None:
            self._n = len(self.parent)
        return self._n

    def _batches(self, elements: int) -> int:
        return elements // self.size if self.node._drop else -(-elements // self.size)

    def __len__(self) -> int:
        return self._batches(self.n)

    def available(self, stop: int) -> int:
        want = stop * self.size
        got = self.parent.available(want)
        return stop if got == want else min(stop, self._batches(got))  # the parent ends at got

    def __getitem__(self, index: int) -> Any:
        start = index * self.size
        return self.node._combine(self.parent.read(start, self.parent.available(start +
                                                                                  self.size)))

    def block(self, start: int, stop: int) -> Block:
        """Batches ``start .. stop-1`` from one read of their elements (columns
        sliced, not elements stacked, where the read gives columns)."""
        lo, hi = start * self.size, self.parent.available(stop * self.size)
        return self._split(self.parent.block(lo, hi), [min(self.size, hi - lo - i * self.size)
                                                       for i in range(stop - start)])

    def gather(self, positions: np.ndarray) -> Block:
        starts = np.asarray(positions, np.int64) * self.size
        sizes = np.minimum(self.size, self.n - starts)
        flat = np.repeat(starts - np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes) + \
            np.arange(int(sizes.sum()), dtype=np.int64)
        return self._split(self.parent.gather(flat), sizes.tolist())

    def _split(self, block: Block, sizes: list[int]) -> Block:
        """The batches of ``sizes`` elements of ``block``; when an element failed
        (the block's error, after its elements), the batches before it, and
        the error for the batch that holds it."""
        out, at = [], 0
        combine = self.node._combine_block
        for size in sizes:
            if block.error is not None and at + size > len(block):
                break
            out.append(combine(block, at, at + size))
            at += size
        return ListBlock(out, block.error)

    def pins(self) -> Any:
        return self.parent.pins()


class _BatchIter(Iter):
    def __init__(self, parent: Iter, node: "BatchDataset") -> None:
        self.parent, self.node = parent, node
        self._blocks = blocks_enabled()

    def __next__(self) -> Any:
        parent, size = self.parent, self.node._batch_size
        if self._blocks:  # one block read of the batch's elements
            block = parent.next_block(size)
            if block.error is not None:
                raise block.error
            if not len(block) or (self.node._drop and len(block) < size):
                raise StopIteration
            return self.node._combine_block(block, 0, len(block))
        items = []
        for _ in range(size):
            try:
                items.append(next(parent))
            except StopIteration:
                break
        if not items or (self.node._drop and len(items) < size):
            raise StopIteration
        return self.node._combine(items)

    def next_block(self, count: int) -> Block:
        if not self._blocks:
            return super().next_block(count)
        size = self.node._batch_size
        block = self.parent.next_block(count * size)
        full = len(block) // size if block.error is not None or self.node._drop else \
            -(-len(block) // size)
        batches = [self.node._combine_block(block, i * size, min(len(block), (i + 1) * size))
                   for i in range(full)]
        return ListBlock(batches, block.error)

    def skip(self, count: int) -> int:
        size = self.node._batch_size
        done = self.parent.skip(count * size)
        return done // size + (1 if done % size and not self.node._drop else 0)

    def state(self) -> dict[str, Any]:
        return {"in": self.parent.state()}

    def at_start(self) -> bool | None:
        return self.parent.at_start()


class BatchDataset(Dataset):
    """``batch(batch_size, drop_remainder)``.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> [b.tolist() for b in BatchDataset(Dataset.range(3), 2, False)]
        [[0, 1], [2]]
    """

    def __init__(self, parent: Dataset, batch_size: int, drop_remainder: bool) -> None:
        batch_size = tf_int("batch_size", batch_size, lo=1)
        self._parent, self._batch_size, self._drop = parent, batch_size, bool(drop_remainder)

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self._parent,)

    def _spec(self) -> dict[str, Any]:
        return {"op": type(self).__name__, "batch_size": self._batch_size,
                "drop_remainder": self._drop}

    def _combine(self, items: list[Any]) -> Any:
        return stack(items)

    def _combine_block(self, block: Block, lo: int, hi: int) -> Any:
        return block.batch(lo, hi)

    def _has_view(self) -> bool:
        return self._parent._has_view()

    def _make_view(self, pins: Fields | None) -> View:
        return _BatchView(self._parent._make_view(pins), self)

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._has_view():
            return super()._make_iter(state)
        return _BatchIter(self._parent._make_iter(inner_of(state)), self)

    def _cardinality(self) -> int:
        n = self._parent._cardinality()
        if n < 0:
            return n
        return n // self._batch_size if self._drop else -(-n // self._batch_size)


class PaddedBatchDataset(BatchDataset):
    """``padded_batch(batch_size, padded_shapes, padding_values, drop_remainder)``.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = Dataset.from_tensor_slices([1, 2]).map(lambda n: np.ones(n, np.int8))
        >>> next(iter(PaddedBatchDataset(ds, 2, None, None, False))).tolist()
        [[1, 0], [1, 1]]
    """

    def __init__(self, parent: Dataset, batch_size: int, padded_shapes: Any,
                 padding_values: Any, drop_remainder: bool) -> None:
        super().__init__(parent, batch_size, drop_remainder)
        check_padded_shapes(padded_shapes)
        check_padding_values(padding_values)
        from .element_spec import static_spec
        check_against_spec(static_spec(parent), padded_shapes, padding_values)
        self._shapes, self._values = padded_shapes, padding_values

    def _spec(self) -> dict[str, Any]:
        return {**super()._spec(), "padded_shapes": repr(self._shapes),
                "padding_values": repr(self._values)}

    def _combine(self, items: list[Any]) -> Any:
        return pad_batch(items, self._shapes, self._values)

    def _combine_block(self, block: Block, lo: int, hi: int) -> Any:
        if self._shapes is None and self._values is None and uniform_columns(block):
            return block.batch(lo, hi)  # every row of a column has its shape: nothing to pad
        return pad_batch(block.elements()[lo:hi], self._shapes, self._values)
