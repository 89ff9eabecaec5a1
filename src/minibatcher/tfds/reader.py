"""TFDS's read order on the tfdata layer (``core/reader.py::_read_files``).

::

    instructions (sorted by experimental_interleave_sort_fn, if given)
      -> shard(num_input_pipelines, input_pipeline_id)        if input_context
      -> shuffle(#instructions, shuffle_seed, reshuffle)       if shuffle_files
      -> repeat()                                              if repeat_filenames
      -> interleave(shard records [skip, skip + take), cycle, block)

Each instruction opens a :class:`ShardSource`: the records of one file range
decoded per features.json, a record source (so the interleave's slots seek on
restore). Shard files are checked against ``shardLengths`` when first read.

Example:
    >>> fis = [FileInstruction("a", 0, 3, 3), FileInstruction("b", 1, 2, 3)]
    >>> id_prefixes(fis)
    ['a', 'b']
"""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

import numpy as np

from ..budget import ErrorBudget
from ..formats.tfrecord import ExampleDecoder, FeatureKind, TFRecordFile
from ..formats.tfrecord.source import TFRecordFiles
from ..tfdata import Dataset, SourceDataset
from ..tfdata.interleave import InterleaveDataset
from .features import FeatureTree, Leaf, decode_leaf, unflatten_ragged
from .read_config import ReadConfig
from .splits import FileInstruction


def id_prefixes(instructions: Sequence[FileInstruction]) -> list[str]:
    """``tfds_id`` prefixes: the basename when all files share a folder, else
    ``<folder>/<basename>``."""
    dirs = {os.path.dirname(f.filename) for f in instructions}
    if len(dirs) <= 1:
        return [os.path.basename(f.filename) for f in instructions]
    return [os.path.join(os.path.basename(os.path.dirname(f.filename)),
                         os.path.basename(f.filename)) for f in instructions]


class ShardCache(TFRecordFiles):
    """The shard files of one read (each opened and indexed once, checked
    against its ``shardLengths`` entry), with the read's CRC options: every
    file charges corrupted records to one error budget (``ReadConfig.max_errors``).

    Example:
        >>> ShardCache(ReadConfig(max_errors=2)).skipping, ShardCache().skipped
        (True, 0)
    """

    what = "shard"
    expected_from = "dataset_info.json (shardLengths)"

    def __init__(self, read_config: ReadConfig | None = None) -> None:
        rc = read_config or ReadConfig()
        super().__init__(verify_crc=rc.verify_crc,
                         budget=ErrorBudget(rc.max_errors, "the shards of this dataset"))

    def open(self, path: str, expected: int | None = None) -> TFRecordFile:
        """The shard at ``path``; a missing one names the count it should hold."""
        if path not in self._files and not os.path.exists(path):
            raise FileNotFoundError(2, f"shard file missing: dataset_info.json lists "
                                       f"{expected} examples in it", path)
        return super().open(path, expected)


class ExampleDecoding:
    """Serialized Examples -> feature dicts, per features.json."""

    def __init__(self, tree: FeatureTree | Leaf, skip: frozenset[str] = frozenset()) -> None:
        self.tree = tree
        self.leaves = tree.leaves() if isinstance(tree, FeatureTree) else [tree]
        keys = [k for leaf in self.leaves for k in leaf.keys()]
        self.decoder = ExampleDecoder(dict(keys))
        self.skip = skip

    def decode(self, records: list[bytes], where: Callable[[int], str]) -> list[dict[str, Any]]:
        cols = self.decoder.decode(records, where)
        n = len(records)
        columns = [self._whole(leaf, cols, n) for leaf in self.leaves]
        out = []
        for i in range(n):
            values = {leaf.path: (col[i] if col is not None else
                                  self._leaf(leaf, cols, i, where(i)))
                      for leaf, col in zip(self.leaves, columns)}
            out.append(self._nest(self.tree, values))
        return out

    @staticmethod
    def _whole(leaf: Leaf, cols: dict, n: int) -> Any:
        """All records' values of a fixed-shape numeric leaf at once (None when
        the leaf or a record needs the per-record path, which also reports errors)."""
        if leaf.sequence_rank or leaf.kind == FeatureKind.BYTES or None in leaf.shape:
            return None
        col = cols[leaf.key]
        size = int(np.prod(leaf.shape)) if leaf.shape else 1
        if not n or not np.all(col.counts == size):
            return None
        return col.values[:n * size].astype(leaf.dtype, copy=False).reshape((n,) + leaf.shape)

    def _leaf(self, leaf: Leaf, cols: dict, i: int, where: str) -> Any:
        skip = leaf.key in self.skip
        if leaf.sequence_rank < 2:
            return decode_leaf(leaf, cols[leaf.key].row(i), where, skip)
        flat = decode_leaf(leaf, cols[f"{leaf.key}/ragged_flat_values"].row(i), where, skip)
        lengths = [cols[f"{leaf.key}/ragged_row_lengths_{k}"].row(i)
                   for k in range(leaf.sequence_rank - 1)]
        return unflatten_ragged(flat, [np.zeros(0, np.int64) if x is None else x for x in lengths])

    def _nest(self, tree: FeatureTree | Leaf, values: dict) -> Any:
        if isinstance(tree, Leaf):
            return values[tree.path]
        return {k: self._nest(v, values) for k, v in tree.children.items()}


class ShardSource:
    """Examples ``[skip, skip + take)`` of one shard, decoded (a record source
    over the shard's :class:`~minibatcher.formats.tfrecord.source.TFRecordSource`).

    When corrupted records are skipped (``ReadConfig.max_errors``), the range
    is verified once when the source is first measured, and the source holds
    only its good records (``positions``: their positions in the shard)."""

    def __init__(self, instruction: FileInstruction, prefix: str, cache: ShardCache,
                 decoding: ExampleDecoding | None, add_tfds_id: bool) -> None:
        self.instruction, self.prefix = instruction, prefix
        self.decoding, self.add_tfds_id = decoding, add_tfds_id
        fi = instruction
        self.records = cache.source(fi.filename, fi.skip, fi.take, fi.examples_in_shard)

    def positions(self) -> np.ndarray | None:
        """Positions in the shard of the records this source holds (None: all
        of ``[skip, skip + take)``, nothing is skipped)."""
        return self.records.good_positions()

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, index: int) -> Any:
        return self.read(index, index + 1)[0]

    def read(self, start: int, stop: int) -> list[Any]:
        records = self.records.read(start, stop)
        at = self.records.positions(start, stop).tolist()
        where = lambda i: f"{self.instruction.filename} record {at[i]}"  # noqa: E731
        out: list[Any] = self.decoding.decode(records, where) if self.decoding else records
        if self.add_tfds_id:
            ids = [f"{self.prefix}__{p}".encode() for p in at]
            out = [dict(ex, tfds_id=i) if isinstance(ex, dict) else {"record": ex, "tfds_id": i}
                   for ex, i in zip(out, ids)]
        return out

    def fingerprint(self) -> Any:
        fi = self.instruction
        return [os.path.basename(fi.filename), fi.skip, fi.take, fi.examples_in_shard]


def instruction_order(count: int, read_config: ReadConfig, shuffle_files: bool) -> Dataset:
    """The dataset of instruction numbers in reading order: sharded per input
    pipeline, then shuffled (iterating it again gives the next epoch's order)."""
    inst = Dataset.from_tensor_slices(np.arange(count, dtype=np.int64))
    ctx = read_config.input_context
    if ctx is not None and ctx.num_input_pipelines > 1:
        if count < ctx.num_input_pipelines:
            raise ValueError(
                f"Cannot shard the pipeline with given `input_context`. `num_shards={count}` "
                f"but `num_input_pipelines={ctx.num_input_pipelines}`. This means that some "
                "workers won't read any data. To shard the data, you may want to use the "
                "subsplit API instead: https://www.tensorflow.org/datasets/splits")
        inst = inst.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
    if shuffle_files:
        reshuffle = read_config.shuffle_reshuffle_each_iteration
        inst = inst.shuffle(count, seed=read_config.shuffle_seed,
                            reshuffle_each_iteration=True if reshuffle is None else reshuffle)
    return inst


class ShardInterleave(InterleaveDataset):
    """as_dataset's interleave of shard ranges; ``shards`` is its
    :class:`ShardCache` (the skipped-record count)."""

    def __init__(self, parent: Dataset, fn: Callable[..., Dataset], cycle_length: int | None,
                 block_length: int | None, shards: ShardCache) -> None:
        super().__init__(parent, fn, cycle_length, block_length)
        self.shards = shards


def read_files(instructions: Sequence[FileInstruction], read_config: ReadConfig,
               shuffle_files: bool, decoding: ExampleDecoding | None,
               disable_shuffling: bool = False) -> Dataset:
    """The dataset of examples of ``instructions`` in TFDS's order."""
    fis = list(instructions)
    if read_config.experimental_interleave_sort_fn is not None:
        fis = list(read_config.experimental_interleave_sort_fn(fis))
    if disable_shuffling and read_config.enable_ordering_guard and shuffle_files:
        raise ValueError("Dataset is an ordered dataset ('disable_shuffling=True'), but examples "
                         "will not be read in order because `shuffle_files=True`.")
    cache, prefixes = ShardCache(read_config), id_prefixes(fis)
    sources = [ShardSource(fi, p, cache, decoding, read_config.add_tfds_id)
               for fi, p in zip(fis, prefixes)]
    inst = instruction_order(len(fis), read_config, shuffle_files)
    if read_config.repeat_filenames:
        inst = inst.repeat()

    def open_instruction(index: Any) -> Dataset:
        return SourceDataset(sources[int(index)])

    return ShardInterleave(inst, open_instruction, read_config.cycle_length(disable_shuffling),
                           read_config.block_length(), cache)


def skipped_records(dataset: Dataset) -> int:
    """Corrupted records skipped so far by the ``as_dataset`` reads inside
    ``dataset`` (``ReadConfig(max_errors=N)``; each record counted once, over
    all iterations). A minibatcher extension.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher import tfds
        >>> from minibatcher.tfds.testing import write_dataset
        >>> b = tfds.builder_from_directory(write_dataset(pathlib.Path(tempfile.mkdtemp()),
        ...                                               {"train": [2]}))
        >>> ds = b.as_dataset("train", read_config=tfds.ReadConfig(max_errors=5)).batch(2)
        >>> _ = list(ds); skipped_records(ds)
        0
    """
    seen: set[int] = set()
    total, todo = 0, [dataset]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ShardInterleave):
            total += node.shards.skipped
        todo.extend(node._inputs())
    return total
