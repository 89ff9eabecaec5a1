"""``TFRecordDataset``: tf.data's name and signature over TFRecord files.

Files are read one after the other, or interleaved with
``cycle_length=num_parallel_reads, block_length=1`` as TF does
(:class:`~minibatcher.tfdata.files.FilesDataset`). Each file is a
:class:`~minibatcher.formats.tfrecord.source.TFRecordSource` with an index
(built on first use by one pass over the frame headers), so ``skip``,
``shard``, ``take`` and restores seek instead of reading. CRCs are verified
(DECISIONS.md 14); ``max_errors=N`` (an extension) skips and counts up to N
corrupted records per file.

Example (reading files: see :class:`TFRecordDataset`):
    >>> TFRecordDataset.__mro__[1].__name__
    'FilesDataset'
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
