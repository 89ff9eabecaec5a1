"""``tfds.core.subsplits_utils``: ``even_splits`` and ``split_for_jax_process``.

Example:
    >>> from minibatcher.tfds.core.subsplits_utils import even_splits
    >>> len(even_splits("train", 4))
    4
"""

from ..even_splits import even_splits, split_for_jax_process

__all__ = ["even_splits", "split_for_jax_process"]
