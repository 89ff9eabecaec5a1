"""``tfds.builder_from_directory`` / ``builder_from_directories``: read-only builders over
prepared dataset folders; ``as_dataset`` gives :class:`~minibatcher.tfdata.Dataset` s of
feature dicts in TFDS's exact order.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.tfds.testing import write_dataset
    >>> d = write_dataset(pathlib.Path(tempfile.mkdtemp()), {"train": [2, 3]})
    >>> b = builder_from_directory(d)
    >>> b.info.splits["train"].num_examples
    5
    >>> [int(ex["id"]) for ex in b.as_dataset("train[1:4]")]
    [1, 2, 3]
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any, Mapping, Sequence

from ..errors import ConfigError
from ..tfdata import Dataset
from .file_adapters import FileFormat, require_readable
from .info import DatasetInfo, load_info
from .read_config import ReadConfig
from .read_order import read_files
from .reader import ExampleDecoding
from .split_info import SplitDict
from .splits import SplitArg


class SkipDecoding:
    """``tfds.decode.SkipDecoding()``: keep a feature's serialized value
    (e.g. the encoded PNG/JPEG bytes of an Image).

    Example:
        >>> SkipDecoding()
        SkipDecoding()
    """

    def __repr__(self) -> str:
        return "SkipDecoding()"


def _skipped_keys(decoders: Mapping[str, Any] | None, prefix: str = "") -> frozenset[str]:
    out: set[str] = set()
    for name, value in (decoders or {}).items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping):
            out |= _skipped_keys(value, key + "/")
        elif isinstance(value, SkipDecoding):
            out.add(key)
        else:
            raise ConfigError(f"decoders should map feature names to SkipDecoding() (or nested "
                              f"dicts of them), but got {key}={value!r}")
    return frozenset(out)


def _map_tree(fn: Any, tree: Any) -> Any:
    """``fn`` over the leaves of a list/tuple/dict of splits (TFDS's split trees)."""
    if isinstance(tree, Mapping):
        return {k: _map_tree(fn, v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_map_tree(fn, v) for v in tree)
    return fn(tree)


class ReadOnlyBuilder:
    """A prepared TFDS dataset folder (``dataset_info.json``, ``features.json``,
    the shards). Only the JSON files are read when it is made.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher.tfds.testing import write_dataset
        >>> b = ReadOnlyBuilder(write_dataset(pathlib.Path(tempfile.mkdtemp()),
        ...                                   {"train": [2, 3], "test": [1]}))
        >>> b.name, sorted(b.info.splits), b.info.splits["train[:40%]"].num_examples
        ('toy', ['test', 'train'], 2)
    """

    def __init__(self, builder_dir: str | os.PathLike, *,
                 file_format: str | FileFormat | None = None,
                 info: DatasetInfo | None = None) -> None:
        self.data_dir = os.fspath(builder_dir)
        self.info: DatasetInfo = info if info is not None else load_info(self.data_dir)
        if file_format is not None:
            fmt = FileFormat.from_value(file_format).value
            self.info = _with_file_format(self.info, fmt)
        self.name = self.info.name
        self.version = self.info.version

    def __repr__(self) -> str:
        return f"ReadOnlyBuilder({self.data_dir!r})"

    def _instructions(self, split: SplitArg) -> list:
        from .elastic import InstructionSplit

        if isinstance(split, InstructionSplit):
            return list(split.instructions)
        return self.info.splits[split].file_instructions

    def as_dataset(self, split: Any = None, *, batch_size: int | None = None,
                   shuffle_files: bool = False, decoders: Mapping[str, Any] | None = None,
                   read_config: ReadConfig | None = None, as_supervised: bool = False) -> Any:
        """The examples of ``split`` (a name, a spec such as
        ``'train[10%:20%]+test'``, a ReadInstruction, or a list/dict of them;
        None: every split in a dict) as feature dicts.

        ``batch_size`` pads and batches them (-1: the whole split as one batch
        of arrays, not a dataset); ``as_supervised`` gives ``(input, target)``
        tuples. The order is TFDS's for ``shuffle_files`` and ``read_config``
        (file shuffle, input-context sharding, cycle/block interleave).

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.tfds import ReadConfig
            >>> from minibatcher.tfds.testing import write_dataset
            >>> b = ReadOnlyBuilder(write_dataset(pathlib.Path(tempfile.mkdtemp()),
            ...                                   {"train": [3, 3], "test": [2]}))
            >>> rc = ReadConfig(interleave_cycle_length=2, interleave_block_length=2)
            >>> [int(ex["id"]) for ex in b.as_dataset("train", read_config=rc)]
            [0, 1, 3, 4, 2, 5]
            >>> [x["id"].tolist() for x in b.as_dataset("train[:50%]+test", batch_size=2)]
            [[0, 1], [2, 0], [1]]
            >>> b.as_dataset("test", batch_size=-1)["id"].tolist()
            [0, 1]
        """
        if split is None:
            split = {name: name for name in self.info.splits}
        read_config = read_config or ReadConfig()
        read_config.validate()
        return _map_tree(lambda s: self._build_single_dataset(
            s, batch_size, shuffle_files, decoders, read_config, as_supervised), split)

    def _build_single_dataset(self, split: SplitArg, batch_size: int | None,
                              shuffle_files: bool, decoders: Mapping[str, Any] | None,
                              read_config: ReadConfig, as_supervised: bool) -> Any:
        whole = batch_size == -1
        if whole:
            batch_size = self.info.splits.total_num_examples or sys.maxsize
        ds = self._as_dataset(split, decoders, read_config, shuffle_files)
        if batch_size:
            ds = ds.padded_batch(batch_size)
        if as_supervised:
            keys = self.info.supervised_keys
            if not keys:
                raise ValueError(f"as_supervised=True but {self.name} does not support a "
                                 "supervised structure.")
            ds = ds.map(lambda ex: (ex[keys[0]], ex[keys[1]]))
        return ds.get_single_element() if whole else ds

    def _as_dataset(self, split: SplitArg, decoders: Mapping[str, Any] | None,
                    read_config: ReadConfig, shuffle_files: bool) -> Dataset:
        fmt = read_config.file_format or self.info.file_format
        require_readable(fmt, self.data_dir)
        if self.info.features is None:
            raise FileNotFoundError(2, "the dataset folder has no features.json",
                                    os.path.join(self.data_dir, "features.json"))
        decoding = ExampleDecoding(self.info.features, _skipped_keys(decoders))
        return read_files(self._instructions(split), read_config, shuffle_files, decoding,
                          self.info.disable_shuffling)


def _with_file_format(info: DatasetInfo, fmt: str) -> DatasetInfo:
    """The info with shard names of another file format."""
    def rename(s: Any) -> Any:
        return s.replace(filename_template=s.filename_template.replace(filetype_suffix=fmt))
    return dataclasses.replace(info, file_format=fmt,
                               splits=SplitDict([rename(s) for s in info.splits.values()]))


def builder_from_directory(builder_dir: str | os.PathLike,
                           file_format: str | FileFormat | None = None) -> ReadOnlyBuilder:
    """``tfds.builder_from_directory(builder_dir)``.

    Example:
        >>> builder_from_directory("/no/such/dir")
        Traceback (most recent call last):
        ...
        FileNotFoundError: [Errno 2] not a TFDS dataset directory: it has no dataset_info.json: ...
    """
    return ReadOnlyBuilder(builder_dir, file_format=file_format)


def builder_from_directories(builder_dirs: Sequence[str | os.PathLike], *,
                             filetype_suffix: str | None = None) -> ReadOnlyBuilder:
    """``tfds.builder_from_directories``: one dataset spread over several
    folders (same features, name and version); each split reads the shards
    of every folder, folder after folder.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher.tfds.testing import write_dataset
        >>> root = pathlib.Path(tempfile.mkdtemp())
        >>> dirs = [write_dataset(root / d, {"train": [2]}) for d in ("a", "b")]
        >>> b = builder_from_directories(dirs)
        >>> b.info.splits["train"].num_examples, b.info.splits["train"].shard_lengths
        (4, [2, 2])
    """
    if not builder_dirs:
        raise ValueError("No builder dirs were given!")
    infos = [load_info(d) for d in builder_dirs]
    merged = SplitDict.merge_multiple([i.splits for i in infos])
    return ReadOnlyBuilder(builder_dirs[0], info=dataclasses.replace(infos[0], splits=merged))


__all__ = ["ReadOnlyBuilder", "SkipDecoding", "builder_from_directories",
           "builder_from_directory"]
