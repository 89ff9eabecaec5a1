"""``tfds.core.file_adapters.FileFormat``: the record file formats TFDS writes. Only
``tfrecord`` shards can be read here; the others are named so that configs naming them
parse, and reading them is a clear error.

Example:
    >>> FileFormat.from_value("tfrecord"), FileFormat.TFRECORD.file_suffix
    (<FileFormat.TFRECORD: 'tfrecord'>, 'tfrecord')
    >>> FileFormat.from_value("csv")
    Traceback (most recent call last):
    ...
    ValueError: csv is not a valid FileFormat! Valid file formats: ['tfrecord', 'riegeli', 'array_record', 'parquet']
"""

from __future__ import annotations

import enum

from ..errors import NotSupportedError


class FileFormat(enum.Enum):
    """Format of the record files (the value is the file name suffix).

    Example:
        >>> FileFormat("riegeli").file_suffix
        'riegeli'
    """

    TFRECORD = "tfrecord"
    RIEGELI = "riegeli"
    ARRAY_RECORD = "array_record"
    PARQUET = "parquet"

    @property
    def file_suffix(self) -> str:
        """The suffix in shard file names."""
        return self.value

    @classmethod
    def from_value(cls, file_format: "str | FileFormat") -> "FileFormat":
        """The format named by a string (or the format itself)."""
        try:
            return cls(file_format)
        except ValueError as e:
            raise ValueError(f"{file_format} is not a valid FileFormat! Valid file formats: "
                             f"{[f.value for f in cls]}") from e


DEFAULT_FILE_FORMAT = FileFormat.TFRECORD


def require_readable(file_format: "str | FileFormat", where: str) -> FileFormat:
    """The format, if minibatcher can read its shards (TFRecord).

    Example:
        >>> require_readable("riegeli", "/data/ds/1.0.0")
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: /data/ds/1.0.0: file format 'riegeli' is not supported; only 'tfrecord' shards can be read
    """
    fmt = FileFormat.from_value(file_format)
    if fmt is not FileFormat.TFRECORD:
        raise NotSupportedError(f"{where}: file format {fmt.value!r} is not supported; only "
                                "'tfrecord' shards can be read")
    return fmt
