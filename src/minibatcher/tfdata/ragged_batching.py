"""``ragged_batch(batch_size, drop_remainder, row_splits_dtype)``: batches of elements of
different shapes as ``tfdata.RaggedTensor`` (row offsets + values), as TF builds them.

TF decides per component from the static shape: a scalar or a fully known
shape is batched densely; a shape with unknown dimensions becomes ragged up to
its last unknown axis ``r`` (a batch of ragged rank ``r + 1``; ``(None, 2)``
gives ragged rank 1 with rows of pairs); ragged components gain one ragged
dimension. Where the static shape is unknown here (elements made by a Python
function) the first dimension is taken as the unknown one, and further
dimensions are ragged only when the batch's elements differ there.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> rows = Dataset.range(7).batch(3)  # static shape (None,)
    >>> [b.to_list() for b in rows.ragged_batch(2)]
    [[[0, 1, 2], [3, 4, 5]], [[6]]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import FormatError
from .batching import BatchDataset
from .dataset import Dataset
from .dtypes import as_dtype
from .element_spec import map_leaves, static_spec
from .ragged_tensor import RaggedTensor
from .specs import RaggedTensorSpec, TensorSpec
from .structure import flatten, pack_as, stack_leaves


def _ragged_rank(spec: Any) -> int | None:
    """The element-level ragged rank TF gives a component (None: batch it densely;
    -1: not known statically)."""
    if spec is None:
        return -1
    if not isinstance(spec, TensorSpec) or spec.shape.dims is None:
        return None
    dims = spec.shape.dims
    unknown = [axis for axis, d in enumerate(dims) if d is None]
    return max(unknown) if unknown else None


def _to_ragged(arr: np.ndarray, rank: int, splits: np.dtype) -> Any:
    """One element as a RaggedTensor whose first ``rank`` inner axes are ragged."""
    if rank == 0:
        return arr
    rows, width = arr.shape[0], arr.shape[1]
    inner = _to_ragged(arr.reshape(rows * width, *arr.shape[2:]), rank - 1, splits)
    return RaggedTensor.from_row_lengths(inner, np.full(rows, width, splits))


def _observed_rank(arrays: list[np.ndarray]) -> int:
    """The fallback rank: 0, or the last inner axis where the batch's elements differ."""
    ranks = {a.ndim for a in arrays}
    if len(ranks) != 1:
        raise FormatError(f"ragged_batch needs elements of one rank, but got ranks {sorted(ranks)}")
    shapes = np.array([a.shape for a in arrays])
    varying = [axis for axis in range(1, shapes.shape[1]) if len(set(shapes[:, axis])) > 1]
    return max(varying) if varying else 0


def _column(values: list[Any], rank: int | None, splits: np.dtype, component: int) -> Any:
    if rank is None or isinstance(values[0], (bytes, RaggedTensor)) or np.ndim(values[0]) == 0:
        return stack_leaves(values, component)
    arrays = [np.asarray(v) for v in values]
    if rank == -1:
        rank = _observed_rank(arrays)
    if rank == 0:
        lengths = np.array([len(a) for a in arrays], splits)
        return RaggedTensor.from_row_lengths(np.concatenate(arrays), lengths)
    return RaggedTensor.stack([_to_ragged(a, rank, splits) for a in arrays])


class RaggedBatchDataset(BatchDataset):
    """``ragged_batch(batch_size, drop_remainder, row_splits_dtype)``.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = RaggedBatchDataset(Dataset.range(5), 2, False, np.int64)
        >>> [b.tolist() for b in ds]  # scalars batch densely
        [[0, 1], [2, 3], [4]]
    """

    def __init__(self, parent: Dataset, batch_size: int, drop_remainder: bool,
                 row_splits_dtype: Any) -> None:
        super().__init__(parent, batch_size, drop_remainder)
        self._splits = np.dtype(as_dtype(row_splits_dtype).as_numpy_dtype)
        if self._splits not in (np.int32, np.int64):
            raise ValueError(f"row_splits_dtype should be int32 or int64, but got "
                             f"row_splits_dtype={row_splits_dtype!r}")
        spec = static_spec(parent)
        self._ranks = [-1] if spec is None else [_ragged_rank(s) for s in flatten(spec)]

    def _spec(self) -> dict[str, Any]:
        return {**super()._spec(), "op": "ragged_batch", "row_splits_dtype": self._splits.name}

    def _combine(self, items: list[Any]) -> Any:
        columns = list(zip(*(flatten(e) for e in items), strict=True))
        ranks = self._ranks if len(self._ranks) == len(columns) else [-1] * len(columns)
        leaves = [_column(list(c), r, self._splits, i)
                  for i, (c, r) in enumerate(zip(columns, ranks, strict=True))]
        return pack_as(items[0], leaves)

    def _combine_block(self, block: Any, lo: int, hi: int) -> Any:
        return self._combine(block.elements()[lo:hi])

    def _element_spec_static(self) -> Any:
        size = self._batch_size if self._drop else None

        def batched(spec: Any) -> Any:
            rank = _ragged_rank(spec)
            if rank is None and isinstance(spec, TensorSpec):
                dims = spec.shape.dims
                return TensorSpec(None if dims is None else (size, *dims), spec.dtype)
            if isinstance(spec, RaggedTensorSpec):
                return RaggedTensorSpec((size, *(spec.shape.dims or ())), spec.dtype,
                                        spec.ragged_rank + 1, spec.row_splits_dtype)
            if isinstance(spec, TensorSpec):
                return RaggedTensorSpec((size, *spec.shape.dims), spec.dtype, rank + 1,
                                        as_dtype(self._splits))
            return None
        return map_leaves(static_spec(self._parent), batched)
