"""The records of one file instruction, decoded: :class:`ShardSource` (a record source,
so the interleave's slots seek on restore) over the shards of a read (:class:`ShardCache`:
each file indexed once and checked against ``shardLengths``), decoded per features.json
(:class:`ExampleDecoding`). The read order is :mod:`~minibatcher.tfds.read_order`.

Example:
    >>> ShardCache(ReadConfig(max_errors=2)).skipping
    True
"""

from __future__ import annotations

import copy
import os
import typing
from typing import Any, Callable, Sequence

import numpy as np

from ..budget import ErrorBudget
from ..formats.tfrecord import ExampleDecoder, FeatureKind, TFRecordFile
from ..formats.tfrecord.source import TFRecordFiles
from .features import FeatureTree, Leaf, decode_leaf, unflatten_ragged
from ..tfdata.block import Block, RecordsBlock, merge_blocks
from ..tfdata.parallel import AUTOTUNE, Workers, parallelism
from ..tfdata.sources import as_block
from .example_block import decode_block
from .read_config import ReadConfig
from .shard_utils import FileInstruction


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
    """Serialized Examples -> feature dicts, per features.json: one element at
    a time (:meth:`decode`, the element path) or a block at a time in columns
    (:func:`~minibatcher.tfds.example_block.decode_block`), images decoded on
    ``num_parallel_calls`` threads (a read uses ``ReadConfig.num_parallel_calls_for_decode``:
    None or -1 is AUTOTUNE, the schedulable CPUs; see :meth:`for_read`).

    Example:
        >>> from minibatcher.formats.tfrecord import encode_example
        >>> from minibatcher.tfds.features import parse_features
        >>> from minibatcher.tfds.testing import DEFAULT_FEATURES
        >>> d = ExampleDecoding(parse_features(DEFAULT_FEATURES))
        >>> ex = d.decode([encode_example({"id": [4], "label": [1]})], lambda i: "rec")[0]
        >>> int(ex["id"]), int(ex["label"])
        (4, 1)
    """

    def __init__(self, tree: FeatureTree | Leaf, skip: frozenset[str] = frozenset(),
                 num_parallel_calls: int | None = 1) -> None:
        self.tree = tree
        self.leaves = tree.leaves() if isinstance(tree, FeatureTree) else [tree]
        keys = [k for leaf in self.leaves for k in leaf.keys()]
        self.decoder = ExampleDecoder(dict(keys))
        self.skip = skip
        n = _decode_workers(num_parallel_calls)
        self.workers = Workers(n) if n > 1 else None
        features = _template(tree) if isinstance(tree, FeatureTree) else None
        self._templates = (features, None if features is None else {**features, "tfds_id": 0})

    def for_read(self, num_parallel_calls: int | None) -> "ExampleDecoding":
        """This decoding with ``num_parallel_calls`` decode threads (a read's
        ``ReadConfig.num_parallel_calls_for_decode``).

        Example:
            >>> from minibatcher.tfds.features import parse_features
            >>> from minibatcher.tfds.testing import DEFAULT_FEATURES
            >>> d = ExampleDecoding(parse_features(DEFAULT_FEATURES))
            >>> d.workers is None, d.for_read(2).workers.n
            (True, 2)
        """
        out = copy.copy(self)
        n = _decode_workers(num_parallel_calls)
        out.workers = Workers(n) if n > 1 else None
        return out

    def template(self, with_ids: bool) -> dict[str, Any] | None:
        """The element's structure (nested dicts in features.json order, leaves
        0; ``tfds_id`` last with ``with_ids``); None when the root is one feature."""
        return self._templates[1 if with_ids else 0]

    def decode(self, records: list[bytes], where: Callable[[int], str]) -> list[dict[str, Any]]:
        """The examples of ``records`` as feature dicts (the element path)."""
        cols = self.decoder.decode(records, where)
        n = len(records)
        columns = [self.whole(leaf, cols, n) for leaf in self.leaves]
        out = []
        for i in range(n):
            values = {leaf.path: (col[i] if col is not None else
                                  self.leaf_value(leaf, cols, i, where(i)))
                      for leaf, col in zip(self.leaves, columns)}
            out.append(self.nest(values))
        return out

    @staticmethod
    def whole(leaf: Leaf, cols: dict, n: int) -> Any:
        """All records' values of a fixed-shape numeric leaf at once (None when
        the leaf or a record needs the per-record path, which also reports errors)."""
        if leaf.sequence_rank or leaf.kind == FeatureKind.BYTES or None in leaf.shape:
            return None
        col = cols[leaf.key]
        size = int(np.prod(leaf.shape)) if leaf.shape else 1
        if not n or not np.all(col.counts == size):
            return None
        return col.values[:n * size].astype(leaf.dtype, copy=False).reshape((n,) + leaf.shape)

    def leaf_value(self, leaf: Leaf, cols: dict, i: int, where: str) -> Any:
        """Record i's value of ``leaf`` (errors name ``where``)."""
        skip = leaf.key in self.skip
        if leaf.sequence_rank < 2:
            return decode_leaf(leaf, cols[leaf.key].row(i), where, skip)
        flat = decode_leaf(leaf, cols[f"{leaf.key}/ragged_flat_values"].row(i), where, skip)
        lengths = [cols[f"{leaf.key}/ragged_row_lengths_{k}"].row(i)
                   for k in range(leaf.sequence_rank - 1)]
        return unflatten_ragged(flat, [np.zeros(0, np.int64) if x is None else x for x in lengths])

    def nest(self, values: dict, tree: FeatureTree | Leaf | None = None) -> Any:
        """The element of the leaves' ``values`` (by path)."""
        tree = self.tree if tree is None else tree
        if isinstance(tree, Leaf):
            return values[tree.path]
        return {k: self.nest(values, v) for k, v in tree.children.items()}


def _decode_workers(num_parallel_calls: int | None) -> int:
    """Decode threads: None or -1 (AUTOTUNE, TFDS's default) the schedulable
    CPUs; 0 (which ``ReadConfig`` accepts) one, as 1."""
    if num_parallel_calls is None:
        return parallelism(AUTOTUNE)
    return parallelism(max(1, num_parallel_calls) if num_parallel_calls != AUTOTUNE else AUTOTUNE,
                       "num_parallel_calls_for_decode")


def _template(tree: FeatureTree | Leaf) -> Any:
    if isinstance(tree, Leaf):
        return 0
    return {k: _template(v) for k, v in tree.children.items()}


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
        self.records = cache.source(fi.filename, fi.skip, fi.stop - fi.skip, fi.examples_in_shard)

    def positions(self) -> np.ndarray | None:
        """Positions in the shard of the records this source holds (None: all
        of ``[skip, skip + take)``, nothing is skipped)."""
        return self.records.good_positions()

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, index: int) -> Any:
        return self.read(index, index + 1)[0]

    @property
    def block_limit(self) -> int:
        """Examples per block read: about 8 MB of records, fewer where decoded
        images make an example larger (unknown dimensions count as 256)."""
        limit = self.records.block_limit
        images = [leaf for leaf in (self.decoding.leaves if self.decoding else [])
                  if leaf.connector == "Image" and leaf.key not in self.decoding.skip]
        size = sum(int(np.prod([256 if d is None else d for d in leaf.shape])) *
                   leaf.dtype.itemsize for leaf in images)
        return min(limit, max(16, (8 << 20) // size)) if size else limit

    def block(self, start: int, stop: int) -> Block:
        """Examples ``start .. stop-1`` decoded as one block (in columns where
        the features allow: :mod:`~minibatcher.tfds.example_block`)."""
        return read_runs([(np.arange(stop - start), self, start, stop)], stop - start)

    def read(self, start: int, stop: int) -> list[Any]:
        """Examples ``start .. stop-1``, one dict each (the element path)."""
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
        """The instruction (shard name, range, shard length): the plan's
        identity of the read, known without opening the shard."""
        fi = self.instruction
        return [os.path.basename(fi.filename), fi.skip, fi.take, fi.examples_in_shard]

    def file_fingerprint(self) -> Any:
        """The shard's identity while it is read: its size and a digest of every
        record's length and data CRC (its index pass), then the range read.

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.tfrecord import TFRecordWriter
            >>> from minibatcher.tfds.shard_utils import FileInstruction
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "s-00000-of-00001"
            >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"b"])
            >>> fp = ShardSource(FileInstruction(str(p), 1, 1, 2), "s", ShardCache(), None,
            ...                  False).file_fingerprint()
            >>> fp[0], fp[2:]
            (34, [1, 1])
        """
        return self.records.fingerprint()


def read_runs(runs: Sequence[tuple[np.ndarray, ShardSource, int, int]], n: int) -> Block:
    """One block of ``n`` examples from runs of sources that share their
    decoding and ``add_tfds_id``: run ``(index, source, start, stop)`` gives the
    block's elements ``index`` (its examples ``start .. stop-1``). The records
    are read by position (left in their buffers), then decoded together.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher.formats.tfrecord import TFRecordWriter
        >>> from minibatcher.tfds.shard_utils import FileInstruction
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "s-00000-of-00001"
        >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"b", b"c"])
        >>> s = ShardSource(FileInstruction(str(p), 0, 3, 3), "s", ShardCache(), None, True)
        >>> [ex["tfds_id"] for ex in read_runs([(np.array([1, 0]), s, 0, 2)], 2).elements()]
        [b's__1', b's__0']
    """
    first = runs[0][1]
    parts, which = [], np.empty(n, np.int64)
    at = np.empty(n, np.int64)
    for k, (index, source, start, stop) in enumerate(runs):
        parts.append((index, as_block(source.records.gather(np.arange(start, stop)))))
        which[index], at[index] = k, source.records.positions(start, stop)
    records = merge_blocks(parts, n)
    where = lambda i: f"{runs[which[i]][1].instruction.filename} record {at[i]}"  # noqa: E731
    ids = [f"{runs[k][1].prefix}__{p}".encode() for k, p in zip(which.tolist(), at.tolist())] \
        if first.add_tfds_id else None
    return decode_block(first.decoding, typing.cast(RecordsBlock, records), where, ids)
