"""``TFRecordDataset``: tf.data's name and signature over TFRecord files.

Files are read one after the other, or interleaved with
``cycle_length=num_parallel_reads, block_length=1`` as TF does
(:class:`~minibatcher.tfdata.files.FilesDataset`). Each file is a
:class:`~minibatcher.formats.tfrecord.source.TFRecordSource` with an index
(grown as the file is read, completed when something needs all of it), so
``skip``, ``shard``, ``take`` and restores seek instead of reading. CRCs are verified
(DECISIONS.md 14); ``max_errors=N`` (an extension) skips and counts up to N
corrupted records per file. A file that cannot be framed to its end (a bad
length CRC, a truncated last record) gives its records up to the damage and then
TF's ``DataLossError`` as one element, and reading goes on with the next file, as
TF's reader does (``ignore_errors()`` skips the error).

Example (a corrupted record skipped and counted; more in :class:`TFRecordDataset`):
    >>> import pathlib, tempfile
    >>> from minibatcher.formats.tfrecord import TFRecordWriter
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.tfrecord"
    >>> with TFRecordWriter(p) as w: w.write_many([b"r0", b"r1", b"r2"])
    >>> data = bytearray(p.read_bytes()); data[12] ^= 1   # a byte of record 0's payload
    >>> _ = p.write_bytes(bytes(data))
    >>> ds = TFRecordDataset(str(p), max_errors=1)
    >>> list(ds), ds.skipped
    ([b'r1', b'r2'], 1)
    >>> list(TFRecordDataset(str(p)))
    Traceback (most recent call last):
    ...
    minibatcher.errors.ErrorBudgetExceeded: reached the maximum number of allowed errors (max_errors=0) while reading ...: corrupted record 0 at byte 0: its data CRC does not match; use max_errors=N to skip and count corrupted records, or verify_crc=False to read without checking
    ...
"""

from __future__ import annotations

import functools

from typing import Any

import numpy as np

from ..formats.tfrecord.source import TFRecordFiles, TFRecordSource
from .errors import DataLossError
from .files import FilesDataset


class DamagedTailSource:
    """A file's records (a :class:`TFRecordSource` of tolerant files), then, when the file
    cannot be framed to its end, one more element whose reading raises TF's
    ``DataLossError`` naming the damage (reads that include it raise; views then read
    element by element, so the records before it are delivered).

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher.formats.tfrecord import TFRecordWriter
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.tfrecord"
        >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"b"])
        >>> with open(p, "ab") as f: _ = f.write(b"corrupted data")
        >>> s = DamagedTailSource(TFRecordFiles(tolerant=True).source(p)); len(s), s[1]
        (3, b'b')
        >>> s[2]
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.DataLossError: ...t.tfrecord: corrupted record at byte 34: the CRC of its length field does not match, so the file cannot be framed from there
    """

    def __init__(self, source: TFRecordSource) -> None:
        self.source = source

    def __len__(self) -> int:
        return len(self.source) + (self.source.open().tail_error is not None)

    def available(self, stop: int) -> int:
        """``min(stop, len(self))``, reading the file only as far as that needs."""
        records = self.source.available(stop)
        if records < stop and self.source.open().tail_error is not None:
            return records + 1  # the file ended at the damage: its error is one more element
        return records

    def _check(self, stop: int) -> None:
        if self.source.available(stop) < stop:
            raise DataLossError(str(self.source.open().tail_error))

    def __getitem__(self, index: int) -> bytes:
        self._check(index + 1)
        return self.source[index]

    def read(self, start: int, stop: int) -> list[bytes]:
        """Records ``start .. stop-1`` (DataLossError when they reach the damage)."""
        self._check(stop)
        return self.source.read(start, stop)

    def block(self, start: int, stop: int) -> Any:
        """Records ``start .. stop-1`` read in order (DataLossError when they reach
        the damage)."""
        self._check(stop)
        return self.source.block(start, stop)

    def gather(self, indices: Any) -> Any:
        """Records ``indices`` (DataLossError when one is the damage)."""
        indices = np.asarray(indices, np.int64)
        self._check(int(indices.max()) + 1 if len(indices) else 0)
        return self.source.gather(indices)

    @property
    def block_limit(self) -> int:
        """The file's block size (:attr:`TFRecordSource.block_limit`)."""
        return self.source.block_limit

    def fingerprint(self) -> Any:
        """The file's identity (:meth:`TFRecordSource.fingerprint`)."""
        return self.source.fingerprint()


def _open(files: TFRecordFiles, filename: str) -> DamagedTailSource:
    source = files.source(filename)
    source.open()  # a missing file or a FIFO is an error here, not at the first read
    return DamagedTailSource(source)


class TFRecordDataset(FilesDataset):
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
        self.files = TFRecordFiles(compression_type, verify_crc=verify_crc,
                                   max_errors=max_errors, tolerant=True)
        self.compression_type = self.files.compression_type
        # not a bound method: the plan holds the opener, and the dataset holds the plan
        super().__init__(filenames, num_parallel_reads, functools.partial(_open, self.files))

    @property
    def skipped(self) -> int:
        """Corrupted records skipped so far, over all files.

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.tfrecord import TFRecordWriter
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "a"
            >>> with TFRecordWriter(p) as w: w.write_many([b"x"])
            >>> TFRecordDataset(str(p), max_errors=1).skipped
            0
        """
        return self.files.skipped

    def _spec(self) -> dict[str, Any]:
        return {"op": "tfrecord", "num_parallel_reads": self.parallel,
                "compression_type": self.compression_type}
