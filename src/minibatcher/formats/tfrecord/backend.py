"""The framing kernels, native or the pure-Python reference (same results).

Example:
    >>> kernels("native").scan(b"", 0, -1, True, False)["status"]
    0
"""

from __future__ import annotations

from types import SimpleNamespace

from ...errors import ConfigError

OK, TRUNCATED, HEADER_CRC, DATA_CRC = 0, 1, 2, 3


def kernels(impl: str) -> SimpleNamespace:
    """``scan``, ``read``, ``read_list``, ``frame_many``, ``check_frames``,
    ``digest_rows`` and ``frame_chunk`` of ``impl`` ("native" or "python").

    Example:
        >>> kernels("fortran")
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: impl should be 'native' or 'python', but got impl='fortran'
    """
    if impl == "native":
        from ... import _native

        return SimpleNamespace(scan=_native.tfrecord_scan, read=_native.tfrecord_read,
                               read_list=_native.tfrecord_read_list,
                               frame_many=_native.tfrecord_frame_many,
                               check_frames=_native.tfrecord_check_frames,
                               digest_rows=_native.tfrecord_digest_rows,
                               frame_chunk=_native.tfrecord_frame_chunk)
    if impl == "python":
        from . import reference

        return SimpleNamespace(scan=reference.scan, read=reference.read,
                               read_list=reference.read_list, frame_many=reference.frame_many,
                               check_frames=reference.check_frames,
                               digest_rows=reference.digest_rows,
                               frame_chunk=reference.frame_chunk)
    raise ConfigError(f"impl should be 'native' or 'python', but got impl={impl!r}")
