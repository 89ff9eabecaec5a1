"""``FixedLengthRecordDataset``: fixed-size records between a header and a footer.

Each file is ``header_bytes``, then records of ``record_bytes``, then
``footer_bytes``. As TF, an uncompressed file whose body is not a multiple of
the record size is an ``InvalidArgumentError`` before any of its records; a
compressed one (``GZIP``/``ZLIB``) is a ``DataLossError``, raised when the file
is opened (TF gives the file's whole records first, then the error: our reader
indexes a file before reading it). Several files are read one after the
other, or interleaved by ``num_parallel_reads`` as TF does (:mod:`.files`).

An uncompressed file is read by offset through
:class:`~minibatcher.formats.guarded_file.GuardedFile` (any record at once;
changes to the file are errors); a compressed one is decompressed into memory
when first read. Files are opened when the iteration first needs them (TF
opens them while iterating: a missing file is an error of the iteration).

Example:
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.bin"; _ = p.write_bytes(b"HHaaabbbcccF")
    >>> list(FixedLengthRecordDataset(str(p), 3, header_bytes=2, footer_bytes=1))
    [b'aaa', b'bbb', b'ccc']
"""

from __future__ import annotations

import gzip
import os
import zlib
from typing import Any

from ..errors import ConfigError
from ..formats.file_digest import content_digest
from ..formats.guarded_file import GuardedFile
from .errors import DataLossError, InvalidArgumentError, NotFoundError
from .files import FilesDataset

_COMPRESSION = ("", "ZLIB", "GZIP")


def _body_error(path: str, header: int, footer: int, body: int, record: int) -> str:
    return (f"Excluding the header ({header} bytes) and footer ({footer} bytes), input file "
            f"\"{path}\" has body length {body} bytes, which is not an exact multiple of the "
            f"record length ({record} bytes).")


class FixedLengthRecordSource:
    """The records of one file (a record source; opened on first use).

    Example:
        >>> import pathlib, tempfile
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "r"; _ = p.write_bytes(b"0123456789")
        >>> s = FixedLengthRecordSource(str(p), 5, 0, 0, ""); len(s), s[1]
        (2, b'56789')
    """

    def __init__(self, path: str, record_bytes: int, header_bytes: int, footer_bytes: int,
                 compression_type: str) -> None:
        self.path, self.record = path, record_bytes
        self.header, self.footer, self.compression = header_bytes, footer_bytes, compression_type
        self._file: GuardedFile | None = None
        self._data: bytes | None = None  # a decompressed file
        self._raw_fingerprint: list[Any] = []  # its fingerprint (size, digest of all of it)
        self._count = -1

    def _open(self) -> None:
        if self._count >= 0:
            return
        if self.record <= 0:
            raise InvalidArgumentError("`record_bytes` must be > 0")
        if not os.path.exists(self.path):
            raise NotFoundError(f"{self.path}; No such file or directory")
        if self.compression:
            self._open_compressed()
            return
        self._file = GuardedFile(self.path, what="fixed-length record file")
        body = self._file.size - self.header - self.footer
        if body < 0 or body % self.record:
            raise InvalidArgumentError(_body_error(self.path, self.header, self.footer, body,
                                                   self.record))
        self._count = body // self.record

    def _open_compressed(self) -> None:
        with GuardedFile(self.path, what="fixed-length record file") as f:
            raw = f.read_all()
            self._raw_fingerprint = f.fingerprint(content_digest(raw))
        try:
            data = gzip.decompress(raw) if self.compression == "GZIP" else zlib.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise DataLossError(f"{self.path}: cannot decompress as {self.compression}: "
                                f"{e}") from e
        body = len(data) - self.header - self.footer
        if body < 0 or body % self.record:
            raise DataLossError(_body_error(self.path, self.header, self.footer, body,
                                            self.record))
        self._data, self._count = data, body // self.record

    def __len__(self) -> int:
        self._open()
        return self._count

    def __getitem__(self, index: int) -> bytes:
        return self.read(index, index + 1)[0]

    def read(self, start: int, stop: int) -> list[bytes]:
        """Records ``start .. stop-1`` (one read; the file is checked for changes after it)."""
        self._open()
        first, last = self.header + start * self.record, self.header + stop * self.record
        if self._data is not None:
            block = self._data[first:last]
        elif self._file is not None:
            block = bytes(self._file.read(first, last))
            self._file.check()
        else:  # _open() sets one of them or raises
            raise RuntimeError(f"{self.path}: the fixed-length record file was not opened")
        return [block[i:i + self.record] for i in range(0, len(block), self.record)]

    def fingerprint(self) -> Any:
        """Layout, record count and the file's size and digest (a compressed
        file, read whole: all of it; else its first and last 64 KiB; the rule
        of docs/design/guarded-files.md)."""
        self._open()
        file = self._raw_fingerprint if self._data is not None else self._file.fingerprint()
        return [self.header, self.record, self.footer, self.compression, len(self), *file]


class FixedLengthRecordDataset(FilesDataset):
    """``tf.data.FixedLengthRecordDataset(filenames, record_bytes, header_bytes,
    footer_bytes, buffer_size, compression_type, num_parallel_reads)``.

    Example:
        >>> import pathlib, tempfile
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "a").write_bytes(b"a1a2"); _ = (d / "b").write_bytes(b"b1")
        >>> list(FixedLengthRecordDataset([d / "a", d / "b"], 2, num_parallel_reads=2))
        [b'a1', b'b1', b'a2']
    """

    def __init__(self, filenames: Any, record_bytes: int, header_bytes: int | None = None,
                 footer_bytes: int | None = None, buffer_size: int | None = None,
                 compression_type: str | None = None, num_parallel_reads: int | None = None,
                 name: str | None = None) -> None:
        kind = (compression_type or "").upper()
        if kind not in _COMPRESSION:
            raise ConfigError(f"compression_type should be one of {list(_COMPRESSION)}, but got "
                              f"compression_type={compression_type!r}")
        layout = (int(record_bytes), int(header_bytes or 0), int(footer_bytes or 0))
        self._layout = layout + (kind,)
        super().__init__(filenames, num_parallel_reads,
                         lambda f: FixedLengthRecordSource(f, *layout, kind))

    def _spec(self) -> dict[str, Any]:
        record, header, footer, kind = self._layout
        return {"op": "fixed_length_record", "record_bytes": record, "header_bytes": header,
                "footer_bytes": footer, "compression_type": kind,
                "num_parallel_reads": self.parallel}
