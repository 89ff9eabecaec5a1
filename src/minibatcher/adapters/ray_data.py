"""Ray Data datasources: any deserializer (one row per sequence) and TFRecord files.

``ray.data.read_datasource(DeserializerDatasource(make_deserializer))`` reads
a data set on a Ray cluster: the driver builds (or loads) the index to plan the
read, each read task builds its own deserializer and parses a contiguous run of
its chunks (so ``chunk_size_in_bytes`` sets the task size). A format plugs in
with one line: a picklable zero-argument callable returning its
``Deserializer`` (CTF: :func:`read_ctf`).

Rows: ``index`` (the sequence's position in file order), ``key`` (its
sequence id), per dense stream ``s`` a ``(samples, dim)`` tensor, per sparse
stream ``s_indptr`` / ``s_indices`` / ``s_data`` (the sequence's CSR rows).

Record files plug in the same way: :class:`TFRecordDatasource` reads TFRecord
files (a folder or a list) one read task per group of files, one row per
record: ``file``, ``index`` (the record's position in its file) and the raw
``record`` bytes, or the ``tf.train.Example`` features named in ``features``.

Example (a read task runs anywhere; ``ray.data.read_datasource`` runs them on a cluster):
    >>> import functools, pathlib, tempfile
    >>> from minibatcher import CTFDeserializer, StreamDef
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("0 |x 1\\n0 |x 2\\n1 |x 3\\n")
    >>> make = functools.partial(CTFDeserializer, str(p), {"x": StreamDef(shape=1)})
    >>> task, = DeserializerDatasource(make).get_read_tasks(1)
    >>> rows = next(iter(task())).to_pylist()
    >>> [(r["index"], r["key"], r["x"].ravel().tolist()) for r in rows]
    [(0, 0, [1.0, 2.0]), (1, 1, [3.0])]
"""

from __future__ import annotations

import functools
import os
from typing import Any, Callable, Iterator, Mapping

import numpy as np
import ray.data
from ray.data.block import BlockAccessor, BlockMetadata

from ..deserializer import ChunkData, Deserializer
from ..engine.gather import sequence_rows
from ..engine.layout import CSRMatrix
from ..streams import StreamInformation


def _ragged(parts: list[np.ndarray]) -> np.ndarray:
    """An object array holding one array per sequence (Ray: a variable-shaped tensor column)."""
    out = np.empty(len(parts), dtype=object)
    out[:] = parts
    return out


def chunk_columns(chunk: ChunkData, infos: list[StreamInformation], first: int,
                  keys: np.ndarray) -> dict[str, np.ndarray]:
    """The columns of one chunk: ``index``, ``key`` and every stream, per sequence,
    gathered as the engine gathers them (context windows expanded, sparse as CSR).

    Example:
        >>> from minibatcher.deserializer import StreamChunk
        >>> info = StreamInformation("x", 0, 1, False, np.dtype("float32"))
        >>> chunk = ChunkData((StreamChunk.dense(np.arange(3, dtype=np.float32)[:, None], [0, 2, 3]),))
        >>> cols = chunk_columns(chunk, [info], 10, np.array([7, 8], np.uint64))
        >>> cols["index"].tolist(), [a.ravel().tolist() for a in cols["x"]]
        ([10, 11], [[0.0, 1.0], [2.0]])
    """
    n = chunk.num_sequences
    columns: dict[str, np.ndarray] = {"index": np.arange(first, first + n, dtype=np.int64),
                                      "key": np.asarray(keys, dtype=np.uint64)}
    for info, stream in zip(infos, chunk.streams):
        values, lengths = sequence_rows(info, stream, np.arange(n, dtype=np.int64))
        cuts = np.concatenate([[0], np.cumsum(lengths)]).tolist()
        if not isinstance(values, CSRMatrix):
            columns[info.name] = _ragged([np.ascontiguousarray(values[a:b])
                                          for a, b in zip(cuts[:-1], cuts[1:])])
            continue
        ptr = values.indptr
        columns[f"{info.name}_indptr"] = _ragged([ptr[a:b + 1] - ptr[a]
                                                  for a, b in zip(cuts[:-1], cuts[1:])])
        columns[f"{info.name}_indices"] = _ragged([values.indices[ptr[a]:ptr[b]]
                                                   for a, b in zip(cuts[:-1], cuts[1:])])
        columns[f"{info.name}_data"] = _ragged([values.data[ptr[a]:ptr[b]]
                                                for a, b in zip(cuts[:-1], cuts[1:])])
    return columns


def _read_chunks(make_deserializer: Callable[[], Deserializer], chunk_ids: list[int]) -> Iterator[Any]:
    """A read task: this worker's deserializer parses its chunks, one block each."""
    deserializer = make_deserializer()
    table, infos = deserializer.table(), deserializer.streams
    for chunk_id in chunk_ids:
        first, stop = int(table.chunk_starts[chunk_id]), int(table.chunk_starts[chunk_id + 1])
        chunk = deserializer.load_chunk(chunk_id)
        yield BlockAccessor.batch_to_block(chunk_columns(chunk, infos, first, table.keys[first:stop]))


class DeserializerDatasource(ray.data.Datasource):
    """Sequences of a deserializer as Ray Data rows, one read task per run of chunks.

    Example:
        >>> import functools, pathlib, tempfile
        >>> from minibatcher import CTFDeserializer, StreamDef
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
        >>> _ = p.write_text("".join(f"{i // 2} |x {i}\\n" for i in range(6)))  # 3 sequences
        >>> make = functools.partial(CTFDeserializer, str(p), {"x": StreamDef(shape=1)},
        ...                          chunk_size_in_bytes=16)   # small chunks: several tasks
        >>> [task.metadata.num_rows for task in DeserializerDatasource(make).get_read_tasks(2)]
        [2, 1]
    """

    def __init__(self, make_deserializer: Callable[[], Deserializer]) -> None:
        self.make_deserializer = make_deserializer
        deserializer = make_deserializer()
        self._name = deserializer.name
        self._starts = np.asarray(deserializer.table().chunk_starts, dtype=np.int64)

    def get_name(self) -> str:
        """Ray's name of the read (``minibatcher[<deserializer>]``)."""
        return f"minibatcher[{self._name}]"

    def estimate_inmemory_data_size(self) -> int | None:
        """Unknown before parsing (Ray then sizes blocks as they come)."""
        return None

    def get_read_tasks(self, parallelism: int, per_task_row_limit: int | None = None,
                       data_context: Any = None) -> list[ray.data.ReadTask]:
        """At most ``parallelism`` tasks, each a contiguous run of chunks."""
        chunks = len(self._starts) - 1
        groups = [g.tolist() for g in np.array_split(np.arange(chunks), max(1, min(parallelism, chunks)))]
        tasks = []
        for group in groups:
            rows = int(self._starts[group[-1] + 1] - self._starts[group[0]])
            metadata = BlockMetadata(num_rows=rows, size_bytes=None, exec_stats=None,
                                     input_files=None)
            tasks.append(ray.data.ReadTask(functools.partial(_read_chunks, self.make_deserializer,
                                                             group), metadata,
                                           per_task_row_limit=per_task_row_limit))
        return tasks


def read_ctf(filename: str | os.PathLike, streams: Mapping[str, Any], *,
             chunk_size_in_bytes: int = 32 << 20, **options: Any) -> "ray.data.Dataset":
    """A Ray ``Dataset`` of a CTF file's sequences (``options`` are ``CTFDeserializer``'s;
    read tasks parse runs of ``chunk_size_in_bytes`` chunks).

    Example (the driver opens the file and plans the read before any task runs; the
    rows are those of :class:`DeserializerDatasource`):
        >>> from minibatcher import StreamDef
        >>> read_ctf("no/such/file.ctf", {"x": StreamDef(shape=1)})
        Traceback (most recent call last):
        ...
        FileNotFoundError: [Errno 2] No such file or directory: 'no/such/file.ctf'
    """
    from ..formats.ctf import CTFDeserializer

    make = functools.partial(CTFDeserializer, os.fspath(filename), dict(streams),
                             chunk_size_in_bytes=chunk_size_in_bytes, **options)
    return ray.data.read_datasource(DeserializerDatasource(make))


def tfrecord_files(paths: str | os.PathLike | list) -> list[str]:
    """The files of a TFRecord folder (names containing ``.tfrecord``, sorted) or a list.

    Example:
        >>> tfrecord_files(["b.tfrecord", "a.tfrecord"])
        ['b.tfrecord', 'a.tfrecord']
    """
    if isinstance(paths, (str, os.PathLike)) and os.path.isdir(paths):
        names = sorted(n for n in os.listdir(paths) if ".tfrecord" in n)
        if not names:
            raise FileNotFoundError(f"{os.fspath(paths)}: no TFRecord file (a name containing "
                                    "'.tfrecord') in this folder")
        return [os.path.join(paths, n) for n in names]
    return [os.fspath(p) for p in ([paths] if isinstance(paths, (str, os.PathLike)) else paths)]


def _read_tfrecords(files: list[str], features: Mapping[str, Any] | None,
                    options: Mapping[str, Any]) -> Iterator[Any]:
    """A read task: this worker reads its files batch by batch, one block each."""
    from ..formats.tfrecord import ExampleDecoder
    from ..formats.tfrecord.source import TFRecordSource

    decoder = ExampleDecoder(features) if features else None
    for path in files:
        for batch in TFRecordSource(path, **options).batches():
            columns = {"file": _ragged([os.path.basename(path)] * len(batch)),
                       "index": np.asarray(batch.positions, dtype=np.int64)}
            if decoder is None:
                columns["record"] = _ragged([bytes(r) for r in batch])
            else:
                for name, column in decoder.decode(batch).items():
                    columns[name] = _ragged([column.row(i) for i in range(len(batch))])
            yield BlockAccessor.batch_to_block(columns)


class TFRecordDatasource(ray.data.Datasource):
    """TFRecord files as Ray Data rows, one read task per group of files.

    Args:
        paths: a folder (its files with ``.tfrecord`` in the name) or a list of files.
        features: ``{name: "int64" | "float" | "bytes"}`` to decode ``tf.train.Example``
            records into columns; ``None`` gives the raw ``record`` bytes.
        compression_type, verify_crc, max_errors: as ``TFRecordSource``.

    Example:
        >>> import pathlib, tempfile
        >>> from minibatcher.formats.tfrecord import TFRecordWriter
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> for name, records in (("a.tfrecord", [b"a0", b"a1"]), ("b.tfrecord", [b"b0"])):
        ...     with TFRecordWriter(d / name) as w: w.write_many(records)
        >>> tasks = TFRecordDatasource(d).get_read_tasks(2)   # one task per file here
        >>> next(iter(tasks[0]())).to_pydict()
        {'file': ['a.tfrecord', 'a.tfrecord'], 'index': [0, 1], 'record': [b'a0', b'a1']}
    """

    def __init__(self, paths: str | os.PathLike | list, features: Mapping[str, Any] | None = None,
                 *, compression_type: str | None = None, verify_crc: bool = True,
                 max_errors: int = 0) -> None:
        self.files = tfrecord_files(paths)
        self.features = dict(features) if features else None
        self.options = {"compression_type": compression_type, "verify_crc": verify_crc,
                        "max_errors": max_errors}

    def get_name(self) -> str:
        """Ray's name of the read."""
        return "minibatcher[tfrecord]"

    def estimate_inmemory_data_size(self) -> int | None:
        """The files' size (records stay bytes unless features are decoded)."""
        return sum(os.path.getsize(f) for f in self.files)

    def get_read_tasks(self, parallelism: int, per_task_row_limit: int | None = None,
                       data_context: Any = None) -> list[ray.data.ReadTask]:
        """At most ``parallelism`` tasks, each a group of whole files."""
        groups = np.array_split(np.arange(len(self.files)), max(1, min(parallelism, len(self.files))))
        tasks = []
        for group in groups:
            files = [self.files[i] for i in group]
            metadata = BlockMetadata(num_rows=None, exec_stats=None, input_files=tuple(files),
                                     size_bytes=sum(os.path.getsize(f) for f in files))
            tasks.append(ray.data.ReadTask(functools.partial(_read_tfrecords, files, self.features,
                                                             self.options), metadata,
                                           per_task_row_limit=per_task_row_limit))
        return tasks
