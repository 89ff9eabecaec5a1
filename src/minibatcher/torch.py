"""PyTorch integration: ``MinibatchDataset`` for ``DataLoader`` / DDP, and tensor helpers.

* :class:`MinibatchDataset` -- an ``IterableDataset`` of whole minibatches
  (``DataLoader(dataset, batch_size=None)``), split across ranks and loader
  workers, equal work per rank, exact ``state_dict()`` / ``load_state_dict()``.
* :class:`PipelineDataset` -- a ``minibatcher.tfdata`` pipeline (TFDS, TFRecord,
  text, nmt's ``get_iterator``) as an ``IterableDataset`` with epochs and exact
  ``state_dict()`` / ``load_state_dict()``.
* :func:`to_tensor`, :func:`batch_to_tensors`, :func:`to_device`,
  :func:`torch_minibatches` -- tensors from minibatch arrays (dense share memory;
  sparse streams become sparse CSR tensors).

Example:
    >>> sorted(n for n in __all__ if n[0].isupper())
    ['MinibatchDataset', 'PartitionedReader', 'PipelineDataset']
"""

from __future__ import annotations

from .adapters.reader import PartitionedReader
from .adapters.torch import batch_to_tensors, to_device, to_tensor, torch_minibatches
from .adapters.torch_dataset import MinibatchDataset, distributed_rank
from .adapters.torch_pipeline import PipelineDataset

__all__ = ["MinibatchDataset", "PartitionedReader", "PipelineDataset", "batch_to_tensors",
           "distributed_rank", "to_device", "to_tensor", "torch_minibatches"]
