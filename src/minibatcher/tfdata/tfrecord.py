"""``TFRecordDataset``: tf.data's name and signature over TFRecord files.

Files are read one after the other, or interleaved with
``cycle_length=num_parallel_reads, block_length=1`` as TF does
(:class:`~minibatcher.tfdata.files.FilesDataset`). Each file is a
:class:`~minibatcher.formats.tfrecord.source.TFRecordSource` with an index
(built on first use by one pass over the frame headers), so ``skip``,
``shard``, ``take`` and restores seek instead of reading. CRCs are verified
(DECISIONS.md 14); ``max_errors=N`` (an extension) skips and counts up to N
corrupted records per file.

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

from typing import Any

from ..formats.tfrecord.source import TFRecordFiles, TFRecordSource
from .files import FilesDataset


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
                                   max_errors=max_errors)
        self.compression_type = self.files.compression_type
        super().__init__(filenames, num_parallel_reads, self._open)

    def _open(self, filename: str) -> TFRecordSource:
        source = self.files.source(filename)
        source.open()  # a missing file or a FIFO is an error here, not at the first read
        return source

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
