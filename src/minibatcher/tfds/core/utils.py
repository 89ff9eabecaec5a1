"""``tfds.core.utils``: the ``shard_utils`` and ``read_config`` modules.

Example:
    >>> from minibatcher.tfds.core.utils import read_config, shard_utils
    >>> read_config.ReadConfig().interleave_block_length, shard_utils.get_shard_boundaries(4, 2)
    (16, [2, 4])
"""

from .. import read_config, shard_utils

__all__ = ["read_config", "shard_utils"]
