"""Small TFDS folders for the tests, and reading example ids back."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from minibatcher import tfds
from minibatcher.tfds.testing import write_dataset

_ID = re.compile(r"^toy-(\w+)\.tfrecord-(\d+)-of-\d+__(\d+)$")


def make(tmp_path: Path, lengths: dict[str, list[int]], **kw: Any) -> tfds.ReadOnlyBuilder:
    return tfds.builder_from_directory(write_dataset(tmp_path, lengths, **kw))


def shard_ids(builder: tfds.ReadOnlyBuilder, limit: int | None = None, **kw: Any) -> list[str]:
    """``s<shard>:<index in shard>`` of every example read (from tfds_id)."""
    rc = kw.pop("read_config", None) or tfds.ReadConfig()
    rc.add_tfds_id = True
    out = []
    for ex in builder.as_dataset(read_config=rc, **kw):
        m = _ID.match(ex["tfds_id"].decode())
        out.append(f"s{int(m.group(2))}:{m.group(3)}")
        if limit is not None and len(out) >= limit:
            break
    return out


def global_ids(builder: tfds.ReadOnlyBuilder, limit: int | None = None, **kw: Any) -> list[int]:
    """The global index of every example read (the ``id`` feature)."""
    out = []
    for ex in builder.as_dataset(**kw):
        out.append(int(ex["id"]))
        if limit is not None and len(out) >= limit:
            break
    return out
