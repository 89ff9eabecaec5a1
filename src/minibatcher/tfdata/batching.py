"""``batch`` and ``padded_batch``.

``padded_batch`` pads every dimension left unknown (``None``/-1 in
``padded_shapes``, or every dimension when ``padded_shapes`` is None) to the
batch's maximum and fixed ones to their size, with ``padding_values``
(default 0, or ``b""`` for strings). NumPy values carry no static shapes, so
with ``padded_shapes=None`` all dimensions are padded to the batch maximum
(the same result as TF whenever TF's known dimensions are equal anyway).

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
from ..errors import ConfigError, FormatError
from .core import Iter, View, inner_of
from .dataset import Dataset
from .structure import flatten, flatten_up_to, is_structure, pack_as, stack


def _dims(shape: Any, rank: int, component: int) -> list[int | None]:
    if shape is None:
        return [None] * rank
    dims = [None if d is None or int(d) < 0 else int(d) for d in
            (shape.as_list() if hasattr(shape, "as_list") else list(shape))]
    if len(dims) != rank:
        raise FormatError(f"padded_shapes of component {component} has rank {len(dims)}, but "
                          f"its elements have rank {rank}")
    return dims


def _pad_column(values: list[Any], shape: Any, value: Any, component: int) -> np.ndarray:
    arrays = [np.asarray(v, dtype=object) if isinstance(v, bytes) else np.asarray(v)
              for v in values]
    rank = arrays[0].ndim
    for i, a in enumerate(arrays):
        if a.ndim != rank:
            raise FormatError(f"Cannot pad tensors of different ranks in component {component}: "
                              f"element 0 has rank {rank} and element {i} has rank {a.ndim}")
    target = []
    for d, fixed in enumerate(_dims(shape, rank, component)):
        longest = max(a.shape[d] for a in arrays)
        if fixed is not None and longest > fixed:
            raise FormatError(f"Attempted to pad to a smaller size than the input element: "
                              f"component {component}, dimension {d} has size {longest} > "
                              f"padded size {fixed}")
        target.append(longest if fixed is None else fixed)
    dtype = arrays[0].dtype
    fill = (b"" if dtype.kind == "O" else 0) if value is None else value
    out = np.full((len(arrays), *target), fill, dtype=dtype)
    for i, a in enumerate(arrays):
        out[(i, *(slice(0, s) for s in a.shape))] = a
    return out


def pad_batch(elements: list[Any], padded_shapes: Any, padding_values: Any) -> Any:
    """One padded batch of ``elements`` (see the module docstring).

    Example:
        >>> pad_batch([np.zeros((1, 2)), np.zeros((2, 1))], None, None).shape
        (2, 2, 2)
    """
    template = elements[0]
    columns = list(zip(*(flatten(e) for e in elements)))
    n = len(columns)
    shapes = [None] * n if padded_shapes is None else \
        flatten_up_to(template, padded_shapes, "padded_shapes")
    if padding_values is None:
        values: list[Any] = [None] * n
    elif is_structure(template) and not is_structure(padding_values):
        values = [padding_values] * n
    else:
        values = flatten_up_to(template, padding_values, "padding_values")
    return pack_as(template, [_pad_column(list(c), s, v, i)
                              for i, (c, s, v) in enumerate(zip(columns, shapes, values))])


class _BatchView(View):
    def __init__(self, parent: View, node: "BatchDataset") -> None:
        self.parent, self.node = parent, node
        self.n, self.size = len(parent), node._batch_size
        self._length = self.n // self.size if node._drop else -(-self.n // self.size)

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: int) -> Any:
        start = index * self.size
        return self.node._combine(self.parent.read(start, min(start + self.size, self.n)))

    def pins(self) -> Any:
        return self.parent.pins()


class _BatchIter(Iter):
    def __init__(self, parent: Iter, node: "BatchDataset") -> None:
        self.parent, self.node = parent, node

    def __next__(self) -> Any:
        parent, size = self.parent, self.node._batch_size
        items = []
        for _ in range(size):
            try:
                items.append(next(parent))
            except StopIteration:
                break
        if not items or (self.node._drop and len(items) < size):
            raise StopIteration
        return self.node._combine(items)

    def skip(self, count: int) -> int:
        size = self.node._batch_size
        done = self.parent.skip(count * size)
        return done // size + (1 if done % size and not self.node._drop else 0)

    def state(self) -> dict[str, Any]:
        return {"in": self.parent.state()}


class BatchDataset(Dataset):
    """``batch(batch_size, drop_remainder)``.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> [b.tolist() for b in BatchDataset(Dataset.range(3), 2, False)]
        [[0, 1], [2]]
    """

    def __init__(self, parent: Dataset, batch_size: int, drop_remainder: bool) -> None:
        batch_size = int(batch_size)
        if batch_size < 1:
            raise ConfigError(f"batch_size should be at least 1, but got batch_size={batch_size}")
        self._parent, self._batch_size, self._drop = parent, batch_size, bool(drop_remainder)

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self._parent,)

    def _spec(self) -> dict[str, Any]:
        return {"op": type(self).__name__, "batch_size": self._batch_size,
                "drop_remainder": self._drop}

    def _combine(self, items: list[Any]) -> Any:
        return stack(items)

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
        self._shapes, self._values = padded_shapes, padding_values

    def _spec(self) -> dict[str, Any]:
        return {**super()._spec(), "padded_shapes": repr(self._shapes),
                "padding_values": repr(self._values)}

    def _combine(self, items: list[Any]) -> Any:
        return pad_batch(items, self._shapes, self._values)
