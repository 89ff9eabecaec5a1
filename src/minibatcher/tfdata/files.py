"""Datasets of the records of files: what ``TextLineDataset`` and ``TFRecordDataset`` share.

tf.data reads the files of both one after the other, or, with
``num_parallel_reads=n > 1``, interleaved with ``cycle_length=n,
block_length=1``. :class:`FilesDataset` does that over one record source per
file (the format's part: lines or TFRecord records), so that ``skip``,
``shard`` and restores seek through each file's index.

A file read one after the other is identified in the plan (its source's
fingerprint: size and content digest). A file opened by the interleave is
not in the plan (the interleave's function is opaque to it): its
:class:`FileSourceDataset` keeps the fingerprint in the slot's cursor, checked
when a restore reopens the file, so a checkpoint is refused on data changed
since (docs/design/guarded-files.md) without reading files no slot has open.

Example:
    >>> from minibatcher.tfdata.sources import RangeSource
    >>> class Numbers(FilesDataset):
    ...     def __init__(self, names, num_parallel_reads=None):
    ...         super().__init__(names, num_parallel_reads,
    ...                          lambda name: RangeSource(0, int(name), 1))
    ...     def _spec(self): return {"op": "numbers", "num_parallel_reads": self.parallel}
    >>> [int(x) for x in Numbers(["2", "3"])], [int(x) for x in Numbers(["2", "3"], 2)]
    ([0, 1, 0, 1, 2], [0, 0, 1, 1, 2])
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable

import numpy as np

from ..errors import ConfigError
from ..state import Fields, as_fields
from .arguments import MAX_CYCLE, tf_opt_int
from .core import UNKNOWN, Iter, View, ViewIter, view_iter
from .dataset import Dataset
from .sources import ConcatSource, RecordSource, SourceDataset


def filenames_of(filenames: Any) -> list[str]:
    """tf.data's ``filenames`` argument as a list of paths: a path, a list or
    array of them, or a dataset of them.

    Example:
        >>> filenames_of(b"a.txt"), filenames_of(["a", "b"])
        (['a.txt'], ['a', 'b'])
        >>> filenames_of([])
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: filenames should name at least one file, but got an empty list
    """
    if isinstance(filenames, Dataset):
        filenames = list(filenames)
    if isinstance(filenames, (str, bytes, os.PathLike)):
        filenames = [filenames]
    names = [os.fsdecode(f) if isinstance(f, (bytes, os.PathLike)) else str(f)
             for f in np.asarray(filenames, dtype=object).reshape(-1)]
    if not names:
        raise ConfigError("filenames should name at least one file, but got an empty list")
    return names


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=repr))


class _FileViewIter(ViewIter):
    """A view iterator whose state names the file it reads (``"source"``)."""

    def __init__(self, view: View, pos: int, fingerprint: Callable[[], Any]) -> None:
        super().__init__(view, pos)
        self._fingerprint = fingerprint

    def state(self) -> dict[str, Any]:
        return {**super().state(), "source": self._fingerprint()}


class FileSourceDataset(SourceDataset):
    """A file's record source opened inside a function (an interleave's):
    its cursor carries the source's fingerprint (``"source"``, taken when the
    state is), and a restore whose file has another one is refused. A cursor
    without it (written before files were identified) is accepted.

    Example:
        >>> from minibatcher.tfdata.sources import RangeSource
        >>> it = FileSourceDataset(RangeSource(0, 3, 1))._make_iter(None); _ = next(it)
        >>> state = it.state(); state
        {'pos': 1, 'pins': None, 'source': [0, 3, 1, '<i8']}
        >>> int(next(FileSourceDataset(RangeSource(0, 3, 1))._make_iter(Fields(state))))
        1
        >>> FileSourceDataset(RangeSource(0, 4, 1))._make_iter(Fields(state, "it"))
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'it.source' should be [0, 4, 1, '<i8'] (this file's size and digest), but got it.source=[0, 3, 1, '<i8'], the file changed since the checkpoint; the state is damaged or was edited
    """

    def _make_iter(self, state: Fields | None) -> Iter:
        state = as_fields(state)
        mine = lambda: _jsonable(self.source.fingerprint())  # noqa: E731
        if state is not None and state.has("source"):
            if state.value("source") != mine():
                raise state.bad("source", f"{mine()!r} (this file's size and digest)",
                                "the file changed since the checkpoint")
            state = Fields({k: v for k, v in state.raw.items() if k != "source"}, state.path)
        it = view_iter(self._make_view, state)
        return _FileViewIter(it.view, it.pos, mine)


class FilesDataset(Dataset):
    """The records of ``filenames`` (``open_source(name)`` gives each file's
    record source, in order), sequential or interleaved as tf.data reads them.

    As TF: the files are read one after the other (``num_parallel_reads=None``
    or 1), interleaved with ``cycle_length=num_parallel_reads, block_length=1``,
    or with ``AUTOTUNE`` interleaved with TF's ``cycle_length=None`` rule. A
    dataset of file names (``list_files``) is read again by every iteration
    (a shuffling one lists the files in a new order each epoch); its files
    are opened when an iteration reaches them. ``sources`` lists the per-file
    sources of a list of names (opened here). The cardinality is unknown, as
    TF's (TF does not count the records of files). Subclasses name the op
    (``_spec``).

    Example:
        >>> from minibatcher.tfdata.sources import RangeSource
        >>> d = FilesDataset(["1", "2"], 2, lambda name: RangeSource(0, int(name), 1))
        >>> d.sequential, len(d.sources), d.cardinality()
        (False, 2, -2)
        >>> names = Dataset.from_tensor_slices(["2", "1"]).shuffle(2, seed=0)
        >>> d = FilesDataset(names, None, lambda name: RangeSource(0, int(name), 1))
        >>> [[int(x) for x in d] for _ in range(2)]
        [[0, 1, 0], [0, 0, 1]]
    """

    def __init__(self, filenames: Any, num_parallel_reads: int | None,
                 open_source: Callable[[str], RecordSource]) -> None:
        self.parallel = tf_opt_int("num_parallel_reads", num_parallel_reads, -1, MAX_CYCLE) or 1
        if isinstance(filenames, Dataset):
            self.filenames: list[str] | None = None
            self.sources: list[RecordSource] = []
            opened: dict[str, RecordSource] = {}

            def by_name(name: Any) -> RecordSource:
                path = os.fsdecode(name) if isinstance(name, (bytes, os.PathLike)) else str(name)
                if path not in opened:
                    opened[path] = open_source(path)
                return opened[path]
            self._impl: Dataset = self._read(filenames, by_name)
            return
        self.filenames = filenames_of(filenames)
        self.sources = [open_source(f) for f in self.filenames]
        if self.parallel != 1 and len(self.sources) > 1:
            files = Dataset.from_tensor_slices(list(range(len(self.sources))))
            sources = self.sources  # not self: the plan would hold the dataset that holds it
            self._impl = self._read(files, lambda i: sources[int(i)])
        else:
            self._impl = SourceDataset(ConcatSource(self.sources))

    def _read(self, files: Dataset, source_of: Callable[[Any], RecordSource]) -> Dataset:
        """The records of the files ``files`` names, read as TF reads them."""
        def one_file(name: Any) -> Dataset:
            return FileSourceDataset(source_of(name))

        # Plans name functions by qualified name: keep the name states were saved with.
        one_file.__qualname__ = f"{type(self).__name__}.__init__.<locals>.<lambda>"
        if self.parallel == -1:  # TF: interleave(num_parallel_calls=AUTOTUNE)
            return files.interleave(one_file, block_length=1, num_parallel_calls=-1)
        if self.parallel > 1:
            return files.interleave(one_file, cycle_length=self.parallel, block_length=1)
        return files.flat_map(one_file)

    @property
    def sequential(self) -> bool:
        """Whether the files are read one after the other (no interleave).

        Example:
            >>> from minibatcher.tfdata.sources import RangeSource
            >>> FilesDataset(["1", "1"], 2, lambda n: RangeSource(0, 1, 1)).sequential
            False
        """
        return isinstance(self._impl, SourceDataset)

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self._impl,)

    def _has_view(self) -> bool:
        return self._impl._has_view()

    def _make_view(self, pins: Fields | None) -> View:
        return self._impl._make_view(pins)

    def _make_iter(self, state: Fields | None) -> Iter:
        return self._impl._make_iter(state)

    def _cardinality(self) -> int:
        return UNKNOWN  # TF does not count the records of files
