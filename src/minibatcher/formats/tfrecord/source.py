"""TFRecord files as *record sources* of the tfdata layer (random access).

A :class:`TFRecordSource` is one file: ``len`` records, ``source[i]`` and
block reads ``source.read(start, stop)`` through the record index, so that
``skip``/``shard``/restores seek. With ``max_errors > 0`` the corrupted records
are found (and counted) when the index is built and are left out of the
source, so its length and indices stay consistent.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.tfrecord import TFRecordWriter
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.tfrecord"
    >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"b", b"c"])
    >>> s = TFRecordSource(p); len(s), s[2], s.read(0, 2)
    (3, b'c', [b'a', b'b'])
"""

from __future__ import annotations

import os
from typing import Any

from .records import OpenFiles, TFRecordFile


class TFRecordSource:
    """One TFRecord file as a record source (records are ``bytes``)."""

    def __init__(self, path: str | os.PathLike, compression_type: str | None = None, *,
                 verify_crc: bool = True, max_errors: int = 0,
                 pool: OpenFiles | None = None) -> None:
        self.path = os.fspath(path)
        self.file = TFRecordFile(self.path, compression_type, verify_crc=verify_crc,
                                 max_errors=max_errors, pool=pool)
        self._good = None

    def _positions(self) -> Any:
        if self._good is None:
            self._good = self.file.good_positions()
        return self._good

    def __len__(self) -> int:
        return len(self._positions())

    def __getitem__(self, index: int) -> bytes:
        return self.read(index, index + 1)[0]

    def read(self, start: int, stop: int) -> list[bytes]:
        """Records ``start .. stop-1`` (one native call)."""
        if stop <= start:
            return []
        good = self._positions()
        first, last = int(good[start]), int(good[stop - 1])
        return self.file.read_list(first, last + 1 - first)

    def fingerprint(self) -> Any:
        """File name, size and compression (no modification times)."""
        return [os.path.basename(self.path), self.file.file_size,
                self.file.compression_type]

    @property
    def skipped(self) -> int:
        """Corrupted records left out (``max_errors > 0``)."""
        return self.file.skipped
