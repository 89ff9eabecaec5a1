"""``TFRecordDataset``: tf.data's name and signature over TFRecord files.

Files are read one after the other, or interleaved with
``cycle_length=num_parallel_reads, block_length=1`` as TF does. Each file is
a record source with an index (built on first use by one pass over the
frame headers), so ``skip``, ``shard``, ``take`` and restores seek instead of
reading. CRCs are verified (DECISIONS.md 14); ``max_errors=N`` (an
extension) skips and counts up to N corrupted records per file.

Example (reading files: see :class:`TFRecordDataset`):
    >>> TFRecordDataset.__mro__[1].__name__
    'Dataset'
"""

from __future__ import annotations

import bisect
from typing import Any

import numpy as np

from ..formats.tfrecord.records import OpenFiles
from ..formats.tfrecord.source import TFRecordSource
from ..formats.tfrecord.streams import check_compression
from .core import Iter, View
from .dataset import Dataset
from .sources import SourceDataset
from .text import _filenames


class _LazyConcat:
    """Record sources one after the other; lengths are taken on first use."""

    def __init__(self, sources: list[TFRecordSource]) -> None:
        self.sources = sources
        self._bounds: list[int] | None = None

    @property
    def bounds(self) -> list[int]:
        if self._bounds is None:
            self._bounds = np.cumsum([0] + [len(s) for s in self.sources]).tolist()
        return self._bounds

    def __len__(self) -> int:
        return self.bounds[-1]

    def __getitem__(self, index: int) -> bytes:
        return self.read(index, index + 1)[0]

    def read(self, start: int, stop: int) -> list[bytes]:
        out: list[bytes] = []
        while start < stop:
            k = bisect.bisect_right(self.bounds, start) - 1
            n = min(stop, self.bounds[k + 1]) - start
            i = start - self.bounds[k]
            out.extend(self.sources[k].read(i, i + n))
            start += n
        return out

    def fingerprint(self) -> Any:
        return [s.fingerprint() for s in self.sources]


class TFRecordDataset(Dataset):
    """``tf.data.TFRecordDataset(filenames, compression_type=None,
    buffer_size=None, num_parallel_reads=None)``; elements are ``bytes``.

    ``buffer_size`` is accepted for compatibility (reads are sized by the
    reader); ``verify_crc`` and ``max_errors`` are extensions.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher.formats.tfrecord import TFRecordWriter
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> for name, recs in (("a", [b"a0", b"a1"]), ("b", [b"b0"])):
        ...     with TFRecordWriter(d / name) as w: w.write_many(recs)
        >>> list(TFRecordDataset([str(d / "a"), str(d / "b")]))
        [b'a0', b'a1', b'b0']
        >>> list(TFRecordDataset([str(d / "a"), str(d / "b")], num_parallel_reads=2).skip(1))
        [b'b0', b'a1']
    """

    def __init__(self, filenames: Any, compression_type: str | None = None,
                 buffer_size: int | None = None, num_parallel_reads: int | None = None,
                 name: str | None = None, *, verify_crc: bool = True,
                 max_errors: int = 0) -> None:
        self.filenames = _filenames(filenames)
        self.compression_type = check_compression(compression_type)
        pool = OpenFiles(64)  # at most 64 descriptors however many files
        self.sources = [TFRecordSource(f, self.compression_type, verify_crc=verify_crc,
                                       max_errors=max_errors, pool=pool) for f in self.filenames]
        self.parallel = int(num_parallel_reads or 1)
        if self.parallel > 1 and len(self.sources) > 1:
            files = Dataset.from_tensor_slices(list(range(len(self.sources))))
            self._impl: Dataset = files.interleave(
                lambda i: SourceDataset(self.sources[int(i)]), cycle_length=self.parallel,
                block_length=1)
        else:
            self._impl = SourceDataset(_LazyConcat(self.sources))

    @property
    def skipped(self) -> int:
        """Corrupted records skipped so far, over all files."""
        return sum(s.skipped for s in self.sources)

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self._impl,)

    def _spec(self) -> dict[str, Any]:
        return {"op": "tfrecord", "num_parallel_reads": self.parallel,
                "compression_type": self.compression_type}

    def _has_view(self) -> bool:
        return self._impl._has_view()

    def _make_view(self, pins: Any) -> View:
        return self._impl._make_view(pins)

    def _make_iter(self, state: dict[str, Any] | None) -> Iter:
        return self._impl._make_iter(state)

    def _cardinality(self) -> int:
        return self._impl._cardinality()
