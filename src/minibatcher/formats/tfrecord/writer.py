"""Writing TFRecord files byte for byte as ``tf.io.TFRecordWriter`` does.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "w.tfrecord"
    >>> with TFRecordWriter(p) as w:
    ...     w.write(b"hello")
    >>> p.read_bytes().hex()
    '0500000000000000eab2043e68656c6c6fbb1f1c19'
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import zlib
from typing import BinaryIO, Iterable

import numpy as np

from ...errors import ConfigError
from .backend import kernels
from .streams import check_compression


@dataclasses.dataclass(frozen=True)
class TFRecordOptions:
    """``tf.io.TFRecordOptions``: the compression of a file.

    Example:
        >>> TFRecordOptions("gzip").compression_type
        'GZIP'
    """

    compression_type: str | None = None
    compression_level: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "compression_type", check_compression(self.compression_type))
        level = self.compression_level
        if level is not None and (not isinstance(level, int) or not -1 <= level <= 9):
            raise ConfigError(f"compression_level should be an int in [-1, 9] or None, but got "
                              f"compression_level={level!r}")


class _ZlibFile:
    """A binary sink that ZLIB-compresses what is written (TF's "ZLIB")."""

    def __init__(self, raw: BinaryIO, level: int) -> None:
        self._raw, self._z = raw, zlib.compressobj(level, zlib.DEFLATED, 15)

    def write(self, data: bytes) -> None:
        self._raw.write(self._z.compress(data))

    def flush(self) -> None:
        self._raw.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._raw.flush()

    def close(self) -> None:
        self._raw.write(self._z.flush(zlib.Z_FINISH))
        self._raw.close()


class TFRecordWriter:
    """``tf.io.TFRecordWriter(path, options=None)``: writes framed records.

    ``options`` is a :class:`TFRecordOptions` or a compression type string
    (None, "", "GZIP", "ZLIB").

    Example:
        >>> TFRecordWriter("/tmp/x.tfrecord", options="LZ4")
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: compression_type should be None, '', 'GZIP' or 'ZLIB', ...
    """

    def __init__(self, path: str | os.PathLike, options: TFRecordOptions | str | None = None,
                 *, impl: str = "native") -> None:
        if not isinstance(options, TFRecordOptions):
            options = TFRecordOptions(options)
        self.path = os.fspath(path)
        self.options = options
        self._frame_many = kernels(impl).frame_many
        level = -1 if options.compression_level is None else options.compression_level
        raw = open(self.path, "wb")
        if options.compression_type == "GZIP":
            self._file = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=level if level >= 0
                                       else 9, mtime=0)
            self._raw: BinaryIO | None = raw
        elif options.compression_type == "ZLIB":
            self._file, self._raw = _ZlibFile(raw, level), None
        else:
            self._file, self._raw = raw, None

    def write(self, record: bytes | bytearray | memoryview) -> None:
        """Appends one record."""
        data = np.frombuffer(record, dtype=np.uint8)
        self._file.write(self._frame_many(data, np.array([len(data)], dtype=np.int64)))

    def write_many(self, records: Iterable[bytes]) -> None:
        """Appends many records with one native framing call.

        Example:
            >>> import tempfile, pathlib
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "m.tfrecord"
            >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"bc"])
            >>> p.stat().st_size
            35
        """
        records = [bytes(r) for r in records]
        data = np.frombuffer(b"".join(records), dtype=np.uint8)
        ends = np.cumsum([len(r) for r in records], dtype=np.int64)
        self._file.write(self._frame_many(data, ends))

    def flush(self) -> None:
        """Flushes buffered records to the file."""
        self._file.flush()

    def close(self) -> None:
        """Flushes and closes the file."""
        if self._file is not None:
            self._file.close()
            if self._raw is not None:
                self._raw.close()
            self._file = None  # type: ignore[assignment]

    def __enter__(self) -> "TFRecordWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
