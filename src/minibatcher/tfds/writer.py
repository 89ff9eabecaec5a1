"""Writing a split of a TFDS folder: shards named and sized as TFDS does.

The examples are staged in one file, then cut into the shards TFDS's writer
would make (:class:`~minibatcher.tfds.shard_utils.ShardConfig`: 64 MiB to 1 GiB
each; ``get_shard_boundaries``: even cuts), named by TFDS's template
(``{DATASET}-{SPLIT}.{FILEFORMAT}-{SHARD_X_OF_Y}``). Examples keep the input's
order; ``disable_shuffling`` (the default) records that, so TFDS and
minibatcher read them back in that order.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.tfds.connectors import FeaturesDict, Scalar
    >>> f = FeaturesDict({"id": Scalar("int64")})
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> info = write_split((f.serialize_example({"id": i}) for i in range(5)), d, name="toy",
    ...                    features=f, shard_config=ShardConfig(num_shards=2))
    >>> info.shard_lengths, info.filenames
    ([2, 3], ['toy-train.tfrecord-00000-of-00002', 'toy-train.tfrecord-00001-of-00002'])
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable

from ..errors import ConfigError, FormatError
from ..formats.small_files import read_json
from .connectors import FeaturesDict
from .folder_dataset import dataset_info_json, write_json
from .info import load_info
from .naming import ShardedFileTemplate
from .shard_utils import ShardConfig, get_shard_boundaries
from .split_info import SplitInfo

def check_num_shards(num_examples: int, num_shards: int) -> None:
    """Refuses more shards than examples (every shard holds one at least).

    Example:
        >>> check_num_shards(2, 3)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: num_shards should be in [1, 2] (one example per shard at least), but got num_shards=3
    """
    if not 0 < num_shards <= num_examples:
        raise ConfigError(f"num_shards should be in [1, {num_examples}] (one example per shard "
                          f"at least), but got num_shards={num_shards}")


def _staging(examples: Iterable[bytes], path: Path) -> list[int]:
    """Writes every serialized example to one file; returns their sizes."""
    from ..formats.tfrecord import TFRecordWriter

    sizes: list[int] = []
    with TFRecordWriter(path) as w:
        for record in examples:
            w.write(record)
            sizes.append(len(record))
    return sizes


def _reshard(staged: Path, folder: Path, names: list[str], ends: list[int]) -> None:
    from ..formats.tfrecord import TFRecordFile, TFRecordWriter

    f = TFRecordFile(staged)
    start = 0
    for name, end in zip(names, ends):
        with TFRecordWriter(folder / name) as w:
            for batch in f.batches(start, end - start):
                w.write_many(bytes(r) for r in batch)
        start = end
    f.close()


def _existing(folder: Path, name: str, features: FeaturesDict, split: str) -> list[SplitInfo]:
    """The other splits of a folder written before (same name and features)."""
    if not (folder / "dataset_info.json").exists():
        return []
    info = load_info(folder)
    written = read_json(folder / "features.json", "features.json")
    if info.name != name or written != features.to_json():
        raise FormatError(f"{folder}: the folder holds dataset {info.name!r} with other features; "
                          f"a split is added only to a dataset of the same name and features "
                          "(write to another folder)")
    if split in info.splits:
        for old in info.splits[split].filenames:
            (folder / old).unlink(missing_ok=True)
    return [s for s in info.splits.values() if s.name != split]


def write_split(records: Iterable[bytes], data_dir: str | os.PathLike, *, name: str,
                features: FeaturesDict, split: str = "train", version: str = "1.0.0",
                shard_config: ShardConfig | None = None, disable_shuffling: bool = True,
                description: str = "") -> SplitInfo:
    """Writes serialized examples as split ``split`` of the dataset folder
    ``data_dir`` (made when missing; other splits of the same dataset are kept)."""
    folder = Path(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    others = _existing(folder, name, features, split)
    staged = folder / f".{name}-{split}.tfrecord.incomplete"
    template = ShardedFileTemplate(folder, dataset_name=name, split=split,
                                   filetype_suffix="tfrecord")
    try:
        sizes = _staging(records, staged)
        if not sizes:
            raise FormatError(f"no example to write into split {split!r} (the input is empty)")
        n = (shard_config or ShardConfig()).get_number_shards(sum(sizes), len(sizes))
        check_num_shards(len(sizes), n)
        ends = get_shard_boundaries(len(sizes), n)
        _reshard(staged, folder, template.sharded_filenames(n), ends)
    finally:
        staged.unlink(missing_ok=True)
    info = SplitInfo(split, [b - a for a, b in zip([0] + ends[:-1], ends)], sum(sizes), template)
    splits = sorted(others + [info], key=lambda s: s.name)
    write_json(folder, features, dataset_info_json(
        name, version, splits, disable_shuffling=disable_shuffling, description=description))
    return info


def serialized(features: FeaturesDict, examples: Iterable[Any],
               progress: Callable[[int], None] | None = None) -> Iterable[bytes]:
    """``features.serialize_example`` of every example (``progress(count)`` after each)."""
    for i, example in enumerate(examples, 1):
        yield features.serialize_example(example)
        if progress is not None:
            progress(i)


__all__ = ["ShardConfig", "check_num_shards", "serialized", "write_split"]
