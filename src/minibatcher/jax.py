"""JAX integration: global batches for multi-process JAX, Grain data sources, arrays.

* :class:`GlobalBatches` -- each process (``jax.process_index()``) reads its
  share; the parts become global ``jax.Array`` batches on a sharding
  (``jax.make_array_from_process_local_data``); equal work per process.
  ``GlobalBatches.from_pipeline`` does the same for a ``tfdata`` pipeline per
  process (TFDS: ``tfds.split_for_jax_process``), read in the process or by
  worker processes, with exact states (:class:`PipelineGlobalBatches`).
* :class:`SequenceDataSource`, :func:`ctf_data_source` -- Grain's
  ``RandomAccessDataSource`` protocol (``len``, ``[i]``) by sequence index.
* :func:`to_jax`, :func:`jax_minibatches` -- arrays of one process's minibatches.

Example:
    >>> sorted(n for n in __all__ if n[0].isupper())
    ['GlobalBatches', 'PartitionedReader', 'PipelineGlobalBatches', 'SequenceDataSource']
"""

from __future__ import annotations

from .adapters.grain import SequenceDataSource, ctf_data_source
from .adapters.jax import jax_minibatches, to_jax
from .adapters.jax_batches import GlobalBatches, default_sharding, pad_local
from .adapters.jax_pipeline import PipelineGlobalBatches
from .adapters.reader import PartitionedReader

__all__ = ["GlobalBatches", "PartitionedReader", "PipelineGlobalBatches", "SequenceDataSource",
           "ctf_data_source", "default_sharding", "jax_minibatches", "pad_local", "to_jax"]
