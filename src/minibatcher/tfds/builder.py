"""``tfds.builder_from_directory``: a read-only builder over a prepared
dataset folder; ``as_dataset`` gives a :class:`~minibatcher.tfdata.Dataset`
of feature dicts in TFDS's exact order.

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

import os
from typing import Any, Mapping

from ..errors import ConfigError, FormatError
from ..tfdata import Dataset
from .info import DatasetInfo, load_info
from .read_config import ReadConfig
from .reader import ExampleDecoding, read_files
from .splits import AbstractSplit, SplitArg, file_instructions


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

    def __init__(self, data_dir: str | os.PathLike) -> None:
        self.data_dir = os.fspath(data_dir)
        self.info: DatasetInfo = load_info(self.data_dir)
        self.name = self.info.name

    def __repr__(self) -> str:
        return f"ReadOnlyBuilder({self.data_dir!r})"

    def _instructions(self, split: SplitArg) -> list:
        from .elastic import InstructionSplit

        if isinstance(split, InstructionSplit):
            return list(split.instructions)  # already joined with data_dir
        fis = file_instructions(self.info.splits, split)
        return [type(f)(os.path.join(self.data_dir, f.filename), f.skip, f.take,
                        f.examples_in_shard) for f in fis]

    def as_dataset(self, split: SplitArg | None = None, *, batch_size: int | None = None,
                   shuffle_files: bool = False, decoders: Mapping[str, Any] | None = None,
                   read_config: ReadConfig | None = None, as_supervised: bool = False) -> Dataset:
        """The examples of ``split`` (a name, a spec such as
        ``'train[10%:20%]+test'``, or a ReadInstruction) as feature dicts.

        ``batch_size`` pads and batches them (-1: the whole split in one
        batch); ``as_supervised`` gives ``(input, target)`` tuples. The order
        is TFDS's for ``shuffle_files`` and ``read_config`` (file shuffle,
        input-context sharding, cycle/block interleave).

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
        """
        if split is None:
            raise ConfigError("split should be given (e.g. split='train'); the splits of "
                              f"{self.name} are {list(self.info.splits)}")
        if self.info.file_format != "tfrecord":
            raise FormatError(f"{self.data_dir}: fileFormat {self.info.file_format!r} is not "
                              "supported; only 'tfrecord' shards can be read")
        read_config = read_config or ReadConfig()
        read_config.validate()
        if self.info.features is None:
            raise FileNotFoundError(2, "the dataset folder has no features.json",
                                    os.path.join(self.data_dir, "features.json"))
        decoding = ExampleDecoding(self.info.features, _skipped_keys(decoders))
        instructions = self._instructions(AbstractSplit.from_spec(split))
        ds = read_files(instructions, read_config, shuffle_files, decoding,
                        self.info.disable_shuffling)
        if as_supervised:
            keys = self.info.supervised_keys
            if keys is None:
                raise ValueError(f"as_supervised=True but {self.name} does not support a "
                                 "supervised structure.")
            ds = ds.map(lambda ex: (ex[keys[0]], ex[keys[1]]))
        if batch_size:
            size = sum(f.take for f in instructions) if batch_size == -1 else batch_size
            ds = ds.padded_batch(max(size, 1))
        return ds


def builder_from_directory(builder_dir: str | os.PathLike) -> ReadOnlyBuilder:
    """``tfds.builder_from_directory(builder_dir)``.

    Example:
        >>> builder_from_directory("/no/such/dir")
        Traceback (most recent call last):
        ...
        FileNotFoundError: [Errno 2] not a TFDS dataset directory: it has no dataset_info.json: ...
    """
    return ReadOnlyBuilder(builder_dir)
