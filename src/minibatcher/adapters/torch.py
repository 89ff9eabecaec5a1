"""PyTorch adapter: tensors sharing memory with minibatch arrays.

Example (needs torch):
    >>> import numpy as np
    >>> t = to_tensor(np.ones((2, 3), np.float32))
    >>> tuple(t.shape)
    (2, 3)
"""

from __future__ import annotations

import warnings
from typing import Any, Iterator, Mapping

import numpy as np

from ..engine.layout import CSRMatrix


def _torch() -> Any:
    try:
        import torch
    except ImportError as e:
        raise ImportError("this needs PyTorch: pip install 'minibatcher[torch]'") from e
    return torch


def to_tensor(values: np.ndarray | CSRMatrix) -> Any:
    """A torch tensor over ``values``: dense arrays share memory; CSR becomes a
    sparse CSR tensor (indices sorted and duplicates summed, as torch requires)."""
    torch = _torch()
    if isinstance(values, CSRMatrix):
        m = values.canonical()
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
            return torch.sparse_csr_tensor(
                torch.from_numpy(m.indptr), torch.from_numpy(m.indices.astype(np.int64, copy=False)),
                torch.from_numpy(m.data), size=m.shape, check_invariants=False)
    return torch.from_numpy(np.ascontiguousarray(values))


def _stream_tensors(data: Any, padded: bool) -> Any:
    """One stream of a minibatch: ``MinibatchData`` (packed or padded) or a bare array."""
    if padded:
        if not hasattr(data, "padded"):
            raise TypeError(f"padded=True needs MinibatchData streams, but got {type(data).__name__}")
        tensor, mask = (to_tensor(a) for a in data.padded())
        return tensor, mask
    return to_tensor(getattr(data, "values", data))


def batch_to_tensors(minibatch: Mapping[str, Any], padded: bool = False) -> dict[str, Any]:
    """``{stream: tensor}`` (``padded``: ``(data, mask)`` pairs) of one minibatch.

    Example:
        >>> out = batch_to_tensors({"x": np.zeros((2, 1), np.float32)})
        >>> list(out), tuple(out["x"].shape)
        (['x'], (2, 1))
    """
    return {name: _stream_tensors(data, padded) for name, data in minibatch.items()}


def map_leaves(batch: Any, fn: Any) -> Any:
    """``batch`` with ``fn`` applied to every leaf of its dicts, tuples (named
    ones too) and lists, the containers rebuilt as they were.

    Example:
        >>> import collections
        >>> Pair = collections.namedtuple("Pair", "a b")
        >>> map_leaves({"x": Pair(1, [2, 3])}, lambda v: v * 10)
        {'x': Pair(a=10, b=[20, 30])}
    """
    if isinstance(batch, Mapping):
        return {k: map_leaves(v, fn) for k, v in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(map_leaves(v, fn) for v in batch))
    if isinstance(batch, (tuple, list)):
        return type(batch)(map_leaves(v, fn) for v in batch)
    return fn(batch)


def to_device(batch: Any, device: Any, non_blocking: bool = True) -> Any:
    """Moves every tensor of a batch (dicts, tuples, lists; dense or sparse) to
    ``device``; with pinned memory (``DataLoader(pin_memory=True)``) and
    ``non_blocking=True`` the copies overlap with compute.

    Example:
        >>> import torch
        >>> to_device({"x": (torch.zeros(1), torch.ones(1))}, "cpu")["x"][1].tolist()
        [1.0]
    """
    torch = _torch()
    return map_leaves(batch, lambda v: v.to(device, non_blocking=non_blocking)
                      if isinstance(v, torch.Tensor) else v)


def torch_minibatches(source: Any, minibatch_size: int, device: Any = None,
                      padded: bool = False) -> Iterator[dict[str, Any]]:
    """Yields ``{stream: tensor}`` per minibatch until the epoch ends; ``padded``
    gives ``(data[rows, max_len, dim], mask)`` pairs instead of the packed values."""
    for minibatch in source.minibatches(minibatch_size):
        out = batch_to_tensors(minibatch, padded)
        yield to_device(out, device, non_blocking=False) if device else out
