"""Datasets of the records of files: what ``TextLineDataset`` and ``TFRecordDataset`` share.

tf.data reads the files of both one after the other, or, with
``num_parallel_reads=n > 1``, interleaved with ``cycle_length=n,
block_length=1``. :class:`FilesDataset` does that over one record source per
file (the format's part: lines or TFRecord records), so that ``skip``,
``shard`` and restores seek through each file's index.

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

import os
from typing import Any, Callable

import numpy as np

from ..errors import ConfigError
from ..state import Fields
from .core import Iter, View
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


class FilesDataset(Dataset):
    """The records of ``filenames`` (``open_source(name)`` gives each file's
    record source, in order), sequential or interleaved as tf.data reads them.

    ``sources`` lists the per-file sources. Subclasses name the op
    (``_spec``).

    Example:
        >>> from minibatcher.tfdata.sources import RangeSource
        >>> d = FilesDataset(["1", "2"], 2, lambda name: RangeSource(0, int(name), 1))
        >>> d.sequential, len(d.sources), d.cardinality()
        (False, 2, -2)
    """

    def __init__(self, filenames: Any, num_parallel_reads: int | None,
                 open_source: Callable[[str], RecordSource]) -> None:
        self.filenames = filenames_of(filenames)
        self.sources = [open_source(f) for f in self.filenames]
        self.parallel = int(num_parallel_reads or 1)
        if self.parallel > 1 and len(self.sources) > 1:
            files = Dataset.from_tensor_slices(list(range(len(self.sources))))
            self._impl: Dataset = files.interleave(self._file_function(), cycle_length=self.parallel,
                                                   block_length=1)
        else:
            self._impl = SourceDataset(ConcatSource(self.sources))

    def _file_function(self) -> Callable[[Any], Dataset]:
        sources = self.sources

        def one_file(i: Any) -> Dataset:
            return SourceDataset(sources[int(i)])

        # Plans name functions by qualified name: keep the name states were saved with.
        one_file.__qualname__ = f"{type(self).__name__}.__init__.<locals>.<lambda>"
        return one_file

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
        return self._impl._cardinality()
