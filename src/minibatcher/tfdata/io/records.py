"""``tf.io.TFRecordWriter`` and ``tf.io.TFRecordOptions`` (TF's signatures) over the writer of
:mod:`minibatcher.formats.tfrecord` (byte for byte TF's files, GZIP and ZLIB).

TF's zlib tuning fields are accepted at their defaults; other values raise
``NotSupportedError`` (they change the compressed bytes, which are written by Python's
``gzip``/``zlib`` here). Buffer sizes and ``flush_mode`` do not change the file.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.tfrecord import TFRecordFile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.tfrecord.gz"
    >>> with TFRecordWriter(str(p), TFRecordOptions(compression_type="GZIP")) as w:
    ...     w.write(b"abc"); w.write("é")
    >>> list(TFRecordFile(p, "GZIP"))
    [b'abc', b'\\xc3\\xa9']
"""

from __future__ import annotations

import os
from typing import Any

from ...errors import NotSupportedError
from ...formats.tfrecord import writer as _writer


def TFRecordOptions(compression_type: str | None = None, flush_mode: Any = None,  # noqa: N802
                    input_buffer_size: int | None = None, output_buffer_size: int | None = None,
                    window_bits: int | None = None, compression_level: int | None = None,
                    compression_method: Any = None, mem_level: int | None = None,
                    compression_strategy: Any = None) -> _writer.TFRecordOptions:
    """``tf.io.TFRecordOptions(compression_type, ..., compression_level, ...)``.

    Example:
        >>> TFRecordOptions("ZLIB", compression_level=9).compression_level
        9
        >>> TFRecordOptions("ZLIB", window_bits=10)
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: TFRecordOptions(window_bits=10) is not supported: ...
    """
    tuning = {"window_bits": (window_bits, (None, 15)), "mem_level": (mem_level, (None, 9)),
              "compression_method": (compression_method, (None, 8)),
              "compression_strategy": (compression_strategy, (None, 0))}
    for field, (value, defaults) in tuning.items():
        if value not in defaults:
            raise NotSupportedError(f"TFRecordOptions({field}={value!r}) is not supported: "
                                    f"files are compressed with zlib's defaults ({field}="
                                    f"{defaults[1]}); leave it unset")
    return _writer.TFRecordOptions(compression_type, compression_level)


class TFRecordWriter(_writer.TFRecordWriter):
    """``tf.io.TFRecordWriter(path, options=None)``: ``options`` is a TFRecordOptions or a
    compression type string; ``write`` takes bytes or str (UTF-8), as TF's.

    Example:
        >>> TFRecordWriter("/tmp/never.tfrecord", options="BZ2")
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: compression_type should be None, '', 'GZIP' or 'ZLIB', ...
    """

    def __init__(self, path: str | os.PathLike, options: Any = None) -> None:
        super().__init__(path, options)

    def write(self, record: Any) -> None:
        """Appends one record (``str`` is written as UTF-8)."""
        super().write(record.encode() if isinstance(record, str) else record)


__all__ = ["TFRecordOptions", "TFRecordWriter"]
