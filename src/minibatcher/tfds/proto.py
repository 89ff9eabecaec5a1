"""``tfds.core.proto.SplitInfo``: the fields of a ``dataset_info.json`` split entry (TFDS's
protocol buffer message, as a plain dataclass: no protobuf needed).

Example:
    >>> SplitInfo(name="validation", shard_lengths=[5], num_bytes=0).filepath_template
    '{DATASET}-{SPLIT}.{FILEFORMAT}-{SHARD_X_OF_Y}'
"""

from __future__ import annotations

import dataclasses

from .naming import DEFAULT_FILENAME_TEMPLATE as DEFAULT_TEMPLATE


@dataclasses.dataclass
class SplitInfoProto:
    """``name``, ``shard_lengths``, ``num_bytes`` and ``filepath_template`` of a split."""

    name: str
    shard_lengths: list[int] = dataclasses.field(default_factory=list)
    num_bytes: int = 0
    filepath_template: str = DEFAULT_TEMPLATE

    def __post_init__(self) -> None:
        self.filepath_template = self.filepath_template or DEFAULT_TEMPLATE


SplitInfo = SplitInfoProto

__all__ = ["SplitInfo", "SplitInfoProto"]
