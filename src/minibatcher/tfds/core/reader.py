"""``tfds.core.reader.Reader``: TFDS's reader of file instructions, for code that builds
datasets from split infos directly (``Reader(example_specs).read(instructions=...,
split_infos=...)``). ``example_specs=None`` yields the serialized records (bytes).

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.tfds.testing import write_dataset
    >>> from minibatcher.tfds import builder_from_directory
    >>> b = builder_from_directory(write_dataset(pathlib.Path(tempfile.mkdtemp()), {"t": [2, 1]}))
    >>> ds = Reader(None).read(instructions="t[1:]", split_infos=list(b.info.splits.values()),
    ...                        read_config=ReadConfig(), shuffle_files=False)
    >>> len(list(ds))
    2
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from ...tfdata import Dataset
from ..builder import _map_tree
from ..features import FeatureTree, Leaf, parse_features
from ..file_adapters import FileFormat, require_readable
from ..read_config import ReadConfig
from ..read_order import id_prefixes, read_files
from ..reader import ExampleDecoding
from ..shard_utils import FileInstruction
from ..split_info import SplitDict, SplitInfo

__all__ = ["ReadConfig", "Reader", "id_prefixes"]


class Reader:
    """Reads file instructions in TFDS's order (``example_specs``: the features,
    as features.json or its parsed tree; None for raw records).

    Example:
        >>> Reader(None, "riegeli")
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: Reader: file format 'riegeli' is not supported; only 'tfrecord' shards can be read
    """

    def __init__(self, example_specs: Mapping[str, Any] | FeatureTree | Leaf | None,
                 file_format: str | FileFormat = FileFormat.TFRECORD) -> None:
        self._file_format = require_readable(file_format, "Reader")
        if example_specs is None or isinstance(example_specs, (FeatureTree, Leaf)):
            tree = example_specs
        else:
            tree = parse_features(example_specs)
        self._decoding = None if tree is None else ExampleDecoding(tree)

    def read(self, *, instructions: Any, split_infos: Sequence[SplitInfo],
             read_config: ReadConfig, shuffle_files: bool, disable_shuffling: bool = False,
             decode_fn: Callable[[Any], Any] | None = None) -> Any:
        """A dataset per instruction (a split spec or AbstractSplit; a list or
        dict of them gives a list or dict of datasets)."""
        splits = SplitDict(split_infos)
        return _map_tree(lambda i: self.read_files(
            splits[i].file_instructions, read_config=read_config, shuffle_files=shuffle_files,
            disable_shuffling=disable_shuffling, decode_fn=decode_fn), instructions)

    def read_files(self, file_instructions: Sequence[FileInstruction], *,
                   read_config: ReadConfig, shuffle_files: bool,
                   disable_shuffling: bool = False,
                   decode_fn: Callable[[Any], Any] | None = None) -> Dataset:
        """One dataset over the given file instructions."""
        read_config.validate()
        ds = read_files(file_instructions, read_config, shuffle_files, self._decoding,
                        disable_shuffling)
        return ds.map(decode_fn) if decode_fn is not None else ds
