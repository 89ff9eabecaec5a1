"""Writing examples as TFRecord files of ``tf.train.Example`` s and as TFDS folders.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher import tfds
    >>> from minibatcher.convert import text_examples
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "corpus.txt").write_text("a b\\nc\\n")
    >>> write_tfds(text_examples(d / "corpus.txt"), d / "corpus").shard_lengths
    [2]
    >>> [ex["text"] for ex in tfds.builder_from_directory(d / "corpus").as_dataset("train")]
    [b'a b', b'c']
"""

from __future__ import annotations

import os
from typing import Callable

from ..tfds.split_info import SplitInfo
from ..tfds.writer import ShardConfig, serialized, write_split
from .examples import ExampleSource, check_name


def write_tfrecord(source: ExampleSource, path: str | os.PathLike,
                   compression: str | None = None,
                   progress: Callable[[int], None] | None = None) -> int:
    """Writes every example of ``source`` as a ``tf.train.Example``; returns the count.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher.convert import text_examples
        >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "c.txt").write_text("a\\nb\\n")
        >>> write_tfrecord(text_examples(d / "c.txt"), d / "c.tfrecord")
        2
    """
    from ..formats.tfrecord import TFRecordWriter

    count = 0
    with TFRecordWriter(path, compression) as w:
        for record in serialized(source.features, source, progress):
            w.write(record)
            count += 1
    return count


def write_tfds(source: ExampleSource, data_dir: str | os.PathLike, *, split: str = "train",
               name: str | None = None, version: str = "1.0.0", num_shards: int | None = None,
               disable_shuffling: bool = True, description: str = "",
               progress: Callable[[int], None] | None = None) -> SplitInfo:
    """Writes ``source`` as split ``split`` of the TFDS folder ``data_dir``
    (``tfds.builder_from_directory(data_dir)`` opens it): shards named and
    sized as TFDS does (``num_shards`` to force a count), ``dataset_info.json``,
    ``features.json``; the dataset is ``name`` (default: the folder's dataset when
    it holds one, else from the input's name)."""
    if name is None and os.path.exists(os.path.join(data_dir, "dataset_info.json")):
        from ..tfds.info import load_info

        name = load_info(data_dir).name  # adding a split to the dataset already there
    return write_split(serialized(source.features, source, progress), data_dir,
                       name=check_name(name or source.name), features=source.features,
                       split=split, version=version, shard_config=ShardConfig(num_shards),
                       disable_shuffling=disable_shuffling, description=description)


__all__ = ["write_tfds", "write_tfrecord"]
