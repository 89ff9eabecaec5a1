"""``Dataset.save(path)`` and ``Dataset.load(path)``: a dataset written to a folder and read
back, with TF's arguments (``compression``, ``shard_func``, ``element_spec``, ``reader_func``).

The folder format (ours; TensorFlow's snapshot protos are not read or written):

* ``shard-<index:08d>.tfrecord``: TFRecord files (compressed as ``compression`` says:
  None, ``"GZIP"`` or ``"ZLIB"``), one record per element, encoded by
  :func:`~minibatcher.tfdata.codec.encode_element`; ``shard_func(element)`` (an int) picks
  the shard, all elements go to shard 0 without it;
* ``snapshot.json``: ``{"format": "minibatcher.tfdata.snapshot", "version": 1,
  "compression": ..., "element_spec": ..., "shards": [{"index", "file", "elements"}, ...]}``,
  written last (by renaming a finished temporary file), so a folder without it is not a
  complete snapshot. ``element_spec`` is JSON: ``{"TensorSpec": [dims, dtype]}``,
  ``{"RaggedTensorSpec": [dims, dtype, ragged_rank, row_splits_dtype]}``,
  ``{"SparseTensorSpec": [dims, dtype]}``, ``{"DatasetSpec": spec}``, ``{"tuple": [...]}``,
  ``{"dict": {...}}``.

``load`` gives ``reader_func(shards)``, ``shards`` being a dataset of one dataset per
shard in index order; TF's default reader interleaves them with
``cycle_length=multiprocessing.cpu_count()``, and so does ours (with one shard the
saved order comes back whatever the machine). Its cardinality is the saved element
count whatever ``reader_func`` does, as TF's (a reader that drops elements does not
change it). The loaded dataset reads records by position: its iterators checkpoint and
seek like any file reader's.

Example:
    >>> import pathlib, tempfile
    >>> from minibatcher.tfdata import Dataset
    >>> path = str(pathlib.Path(tempfile.mkdtemp()) / "snap")
    >>> Dataset.from_tensor_slices({"x": [1, 2, 3]}).save(path, compression="GZIP")
    >>> [int(e["x"]) for e in Dataset.load(path)]
    [1, 2, 3]
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from typing import Any, Callable

import numpy as np

from ..errors import FormatError, NotSupportedError
from ..formats.small_files import read_json
from ..formats.tfrecord import TFRecordWriter
from ..formats.tfrecord.source import TFRecordSource
from ..state import Fields
from .codec import decode_element, encode_element
from .core import Iter, View
from .dataset import Dataset
from .element_spec import element_spec
from .errors import NotFoundError
from .sources import ElementsSource, SourceDataset
from .specs import DatasetSpec, RaggedTensorSpec, SparseTensorSpec, TensorSpec
from .structure import call
from .transforms import _Unary

METADATA = "snapshot.json"
FORMAT = {"format": "minibatcher.tfdata.snapshot", "version": 1}
_RETRY_SECONDS = 5


def spec_to_json(spec: Any) -> Any:
    """An element_spec as JSON (see the module docstring).

    Example:
        >>> spec_to_json((TensorSpec([None, 3], "float32"), {"a": TensorSpec([], "string")}))
        ... # doctest: +NORMALIZE_WHITESPACE
        {'tuple': [{'TensorSpec': [[None, 3], 'float32']},
                   {'dict': {'a': {'TensorSpec': [[], 'string']}}}]}
    """
    if isinstance(spec, dict):
        return {"dict": {k: spec_to_json(v) for k, v in sorted(spec.items())}}
    if isinstance(spec, tuple):
        return {"tuple": [spec_to_json(v) for v in spec]}
    if isinstance(spec, DatasetSpec):
        return {"DatasetSpec": spec_to_json(spec.element_spec)}
    dims = None if spec.shape.dims is None else list(spec.shape.dims)
    if isinstance(spec, RaggedTensorSpec):
        return {"RaggedTensorSpec": [dims, spec.dtype.name, spec.ragged_rank,
                                     spec.row_splits_dtype.name]}
    return {type(spec).__name__: [dims, spec.dtype.name]}


def spec_from_json(data: Any) -> Any:
    """The element_spec :func:`spec_to_json` wrote.

    Example:
        >>> spec_from_json({"TensorSpec": [[None], "int64"]})
        TensorSpec(shape=(None,), dtype=tf.int64, name=None)
    """
    (kind, body), = data.items()
    if kind == "dict":
        return {k: spec_from_json(v) for k, v in body.items()}
    if kind == "tuple":
        return tuple(spec_from_json(v) for v in body)
    if kind == "DatasetSpec":
        return DatasetSpec(spec_from_json(body))
    classes = {"TensorSpec": TensorSpec, "RaggedTensorSpec": RaggedTensorSpec,
               "SparseTensorSpec": SparseTensorSpec}
    return classes[kind](*body)


def _shard_index(shard_func: Callable[..., Any] | None, element: Any) -> int:
    if shard_func is None:
        return 0
    index = np.asarray(call(shard_func, element))
    if index.shape != () or index.dtype.kind not in "iu" or int(index) < 0:
        raise ValueError("shard_func should return a non-negative integer scalar (the shard "
                         f"index), but returned {index!r}")
    return int(index)


def _spec_json_or_none(dataset: Dataset) -> Any:
    try:
        return spec_to_json(element_spec(dataset))
    except NotSupportedError:  # a function's elements, and none to look at
        return None


def save(dataset: Dataset, path: str, compression: str | None = None,
         shard_func: Callable[..., Any] | None = None, checkpoint_args: Any = None) -> None:
    """``Dataset.save`` (see the module docstring): one iteration of ``dataset`` written.

    Example:
        >>> import pathlib, tempfile
        >>> path = str(pathlib.Path(tempfile.mkdtemp()) / "s")
        >>> save(Dataset.range(4), path, shard_func=lambda x: x % 2)
        >>> sorted(f for f in os.listdir(path))
        ['shard-00000000.tfrecord', 'shard-00000001.tfrecord', 'snapshot.json']
    """
    if checkpoint_args is not None:
        raise NotSupportedError("save(checkpoint_args=...) uses TF's CheckpointManager, which "
                                "minibatcher does not provide; save the dataset in one run")
    path = os.fspath(path)
    os.makedirs(path, exist_ok=True)
    writers: dict[int, TFRecordWriter] = {}
    counts: dict[int, int] = {}
    try:
        for element in dataset:
            index = _shard_index(shard_func, element)
            if index not in writers:
                writers[index] = TFRecordWriter(os.path.join(path, f"shard-{index:08d}.tfrecord"),
                                                compression or None)
                counts[index] = 0
            writers[index].write(encode_element(element))
            counts[index] += 1
    finally:
        for writer in writers.values():
            writer.close()
    shards = [{"index": i, "file": f"shard-{i:08d}.tfrecord", "elements": counts[i]}
              for i in sorted(counts)]
    meta = {**FORMAT, "compression": (compression or "").upper(),
            "element_spec": _spec_json_or_none(dataset), "shards": shards}
    temp = os.path.join(path, METADATA + ".tmp")
    with open(temp, "w") as f:
        json.dump(meta, f)
    os.replace(temp, os.path.join(path, METADATA))


class SnapshotShardSource:
    """The elements of one shard file (a record source).

    Example:
        >>> import pathlib, tempfile
        >>> path = str(pathlib.Path(tempfile.mkdtemp()) / "s"); save(Dataset.range(3), path)
        >>> s = SnapshotShardSource(os.path.join(path, "shard-00000000.tfrecord"), ""); len(s), s[2]
        (3, np.int64(2))
    """

    def __init__(self, path: str, compression: str) -> None:
        self.records = TFRecordSource(path, compression or None)

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, index: int) -> Any:
        return decode_element(self.records[index])

    def read(self, start: int, stop: int) -> list[Any]:
        """Elements ``start .. stop-1``."""
        return [decode_element(r) for r in self.records.read(start, stop)]

    def fingerprint(self) -> Any:
        """The shard file's (name, size, compression)."""
        return self.records.fingerprint()


class LoadedDataset(_Unary):
    """What ``Dataset.load`` returns: ``reader_func``'s dataset with the saved element_spec.

    Example:
        >>> import pathlib, tempfile
        >>> path = str(pathlib.Path(tempfile.mkdtemp()) / "s"); save(Dataset.range(3), path)
        >>> load(path).element_spec
        TensorSpec(shape=(), dtype=tf.int64, name=None)
    """

    def __init__(self, parent: Dataset, spec: Any, shards: list[SnapshotShardSource],
                 count: int) -> None:
        super().__init__(parent)
        self._saved_spec, self._shards, self._count = spec, shards, count

    def _spec(self) -> dict[str, Any]:
        return {"op": "load", "shards": [s.fingerprint() for s in self._shards]}

    def _element_spec_static(self) -> Any:
        return self._saved_spec

    def _make_view(self, pins: Fields | None) -> View:
        return self._parent._make_view(pins)

    def _make_iter(self, state: Fields | None) -> Iter:
        return self._parent._make_iter(state)

    def _cardinality(self) -> int:
        return self._count


def _metadata(path: str, wait: bool) -> dict[str, Any]:
    meta_path = os.path.join(path, METADATA)
    while not os.path.exists(meta_path):
        if os.path.exists(os.path.join(path, "dataset_spec.pb")):
            raise NotSupportedError(f"{path} holds a snapshot written by TensorFlow; "
                                    "minibatcher reads the folders Dataset.save writes (see "
                                    "docs/tfdata.md)")
        if not wait:
            raise NotFoundError(f"tf.data snapshot element_spec file not found: {meta_path}")
        time.sleep(_RETRY_SECONDS)  # TF's wait=True: retry until the snapshot is written
    meta = read_json(meta_path, "snapshot metadata file")  # the one rule for every file
    if not isinstance(meta, dict):
        raise FormatError(f"{meta_path}: the snapshot metadata file should hold a JSON object, "
                          f"but got a {type(meta).__name__}")
    if {k: meta.get(k) for k in FORMAT} != FORMAT:
        raise NotSupportedError(f"{meta_path}: format {meta.get('format')!r} version "
                                f"{meta.get('version')!r}, but this minibatcher reads "
                                f"{FORMAT['format']!r} version {FORMAT['version']}")
    return meta


def _default_reader(datasets: Dataset) -> Dataset:
    return datasets.interleave(lambda x: x, cycle_length=multiprocessing.cpu_count(),
                               num_parallel_calls=-1)


def load(path: str, element_spec: Any = None, compression: str | None = None,
         reader_func: Callable[[Dataset], Dataset] | None = None,
         wait: bool = False) -> Dataset:
    """``Dataset.load`` (see the module docstring).

    Example:
        >>> load("/nonexistent/snapshot")
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.NotFoundError: tf.data snapshot element_spec file not found: ...
    """
    path = os.fspath(path)
    meta = _metadata(path, wait)
    saved = meta["compression"]
    if compression is not None and compression.upper() != saved:
        raise ValueError(f"compression should be {saved or None!r} (the snapshot was saved so), "
                         f"but got compression={compression!r}")
    sources = [SnapshotShardSource(os.path.join(path, s["file"]), saved) for s in meta["shards"]]
    if element_spec is None and meta["element_spec"] is not None:
        element_spec = spec_from_json(meta["element_spec"])
    shards = [SourceDataset(s) for s in sources] or [Dataset.range(0)]
    reader = _default_reader if reader_func is None else reader_func
    count = sum(s["elements"] for s in meta["shards"])  # TF's, whatever the reader does
    return LoadedDataset(reader(SourceDataset(ElementsSource(shards))), element_spec, sources,
                         count)
