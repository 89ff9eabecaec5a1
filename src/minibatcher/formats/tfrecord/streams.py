"""Byte windows over a TFRecord file: plain (read by range) or GZIP/ZLIB.

The framing kernels work on a window ``[base, base + len)`` of the
uncompressed stream. A plain file is read with ``pread`` in blocks (no memory
map: a file truncated underneath a mapping would kill the process with
SIGBUS); a compressed one is inflated forwards, and a seek backwards restarts
inflation from the start. Files are read through the shared
:class:`~minibatcher.formats.guarded_file.GuardedFile` (regular files only),
which checks after every read that the file has not changed since it was
opened (size, modification time): a file that changes underneath is an
error (``FileChangedError``), never mixed data. :meth:`reach` says how far
the stream reaches without keeping what it inflates on the way (a corrupted
length field cannot make a reader allocate what is not there).

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "f"; _ = p.write_bytes(b"0123456789")
    >>> s = open_stream(p, "")
    >>> buf, base = s.window(3, 4); bytes(buf[:4]), base, s.at_end(base + len(buf))
    (b'3456', 3, True)
"""

from __future__ import annotations

import os
import zlib

import numpy as np

from ...errors import ConfigError, FormatError
from ..guarded_file import GuardedFile

BLOCK = 1 << 20
_WBITS = {"GZIP": 31, "ZLIB": 15}


def check_compression(compression_type: str | None) -> str:
    """Normalizes tf.data's ``compression_type`` (None, "", "GZIP", "ZLIB").

    Example:
        >>> check_compression(None), check_compression("gzip")
        ('', 'GZIP')
    """
    value = (compression_type or "").upper()
    if value not in ("", "GZIP", "ZLIB"):
        raise ConfigError(f"compression_type should be None, '', 'GZIP' or 'ZLIB', but got "
                          f"compression_type={compression_type!r}")
    return value


class _Stream:
    """Common part: the guarded file and the current window."""

    def __init__(self, path: str | os.PathLike) -> None:
        self._file = GuardedFile(path, what="TFRecord file")
        self.path = self._file.path
        self.file_size = self._file.size
        self._buf = np.zeros(0, np.uint8)
        self._base = 0
        self._eof = False

    def describe(self) -> str:
        """The stream in messages."""
        return "file"

    def at_end(self, offset: int) -> bool:
        """Whether ``offset`` (an end of window) is the end of the stream."""
        return self._eof and offset >= self._base + len(self._buf)

    def close(self) -> None:
        """Closes the file."""
        self._file.close()


_FREE: list[np.ndarray] = []  # read buffers of closed plain streams, for the next ones


class PlainStream(_Stream):
    """An uncompressed file read by range into a buffer of its own, reused
    from window to window (a window is valid until the stream's next call).
    A closed stream hands its buffer on to the next one: fresh pages would
    cost a page fault each."""

    def __init__(self, path: str | os.PathLike) -> None:
        super().__init__(path)
        try:
            self._scratch = _FREE.pop()
        except IndexError:
            self._scratch = np.zeros(0, np.uint8)

    def close(self) -> None:
        """Closes the file and hands the read buffer on."""
        super().close()
        scratch = self.__dict__.pop("_scratch", None)
        if scratch is not None and len(scratch) and len(_FREE) < 4:
            _FREE.append(scratch)
        self._buf = np.zeros(0, np.uint8)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def window(self, pos: int, need: int) -> tuple[np.ndarray, int]:
        """A buffer of the bytes from ``pos`` (at least ``need`` unless the file
        ends first) and the stream offset of its first byte."""
        end = self._base + len(self._buf)
        if self._base <= pos and (pos + need <= end or end >= self.file_size):
            self._eof = end >= self.file_size
            return self._buf[pos - self._base:], pos
        n = max(min(need, self.file_size - pos), min(BLOCK, self.file_size - pos), 0)
        scratch = self.__dict__.get("_scratch", np.zeros(0, np.uint8))
        if len(scratch) < n:
            scratch = self._scratch = np.empty(max(n, 2 * len(scratch)), np.uint8)
        buf = scratch[:n]
        if n:
            self._file.read_into(buf, pos)
        self._buf, self._base = buf, pos
        self._eof = pos + n >= self.file_size
        return buf, pos

    def reach(self, end: int) -> int:
        """``end``, or the end of the file when it comes first."""
        return min(end, self.file_size)


class _Inflater:
    """Where inflation stands: the decompressor and the compressed offset read
    so far. A member that ends is followed by the next one (concatenated GZIP
    members read as one stream, as TensorFlow reads them); anything else after
    it is corrupt data."""

    def __init__(self, stream: "ZlibStream") -> None:
        self.stream, self.read_at, self.done = stream, 0, False
        self.d = zlib.decompressobj(stream.wbits)

    def copy(self) -> "_Inflater":
        """An independent copy (to look ahead)."""
        other = _Inflater.__new__(_Inflater)
        other.stream, other.read_at, other.done = self.stream, self.read_at, self.done
        other.d = self.d.copy()
        return other

    def _raw(self) -> np.ndarray:
        s = self.stream
        raw = np.empty(min(BLOCK, s.file_size - self.read_at), np.uint8)
        s._file.read_into(raw, self.read_at)
        self.read_at += len(raw)
        return raw

    def more(self) -> bytes:
        """The next piece of output (perhaps empty; ``done`` at the end)."""
        s, d = self.stream, self.d
        if d.eof:  # checked first: zlib may leave input in unconsumed_tail at the end too
            if not d.unused_data and self.read_at >= s.file_size:
                self.done = True
                return b""
            data = d.unused_data or self._raw()
            self.d = d = zlib.decompressobj(s.wbits)
        elif d.unconsumed_tail:
            data = d.unconsumed_tail
        elif self.read_at >= s.file_size:
            raise FormatError(f"{s.path}: truncated {s.compression_type} stream (the compressed "
                              f"data ends at byte {s.file_size} before the end of its stream)")
        else:
            data = self._raw()
        try:
            return d.decompress(data, BLOCK)
        except zlib.error as e:
            raise FormatError(f"{s.path}: corrupt {s.compression_type} data before compressed "
                              f"byte {self.read_at}: {e}") from None


class ZlibStream(_Stream):
    """A GZIP or ZLIB compressed file, inflated forwards."""

    def __init__(self, path: str | os.PathLike, compression_type: str) -> None:
        super().__init__(path)
        self.wbits = _WBITS[compression_type]
        self.compression_type = compression_type
        self._restart()

    def _restart(self) -> None:
        self._z = _Inflater(self)
        self._buf, self._base, self._eof = np.zeros(0, np.uint8), 0, False

    def describe(self) -> str:
        """The stream in messages."""
        return f"{self.compression_type} stream"

    def _more(self) -> bytes:
        chunk = self._z.more()
        self._eof = self._z.done
        return chunk

    def reach(self, end: int) -> int:
        """``end``, or the end of the uncompressed stream when it comes first:
        inflates ahead on a copy of the decompressor and keeps nothing (memory
        stays at one block whatever a length field claims)."""
        have = self._base + len(self._buf)
        if end <= have or self._eof:
            return min(end, have)
        ahead = self._z.copy()
        while have < end and not ahead.done:
            have += len(ahead.more())
        return min(end, have)

    def window(self, pos: int, need: int) -> tuple[np.ndarray, int]:
        """Like :meth:`PlainStream.window`, in uncompressed offsets."""
        if pos < self._base:
            self._restart()
        parts = [self._buf[pos - self._base:]] if pos < self._base + len(self._buf) else []
        have = sum(len(p) for p in parts)
        end = self._base + len(self._buf)
        while end < pos and not self._eof:  # inflate and drop up to pos
            chunk = self._more()
            take = chunk[max(0, pos - end):]
            end += len(chunk)
            if take:
                parts, have = [np.frombuffer(take, np.uint8)], len(take)
        while have < max(need, 1) and not self._eof:
            chunk = self._more()
            if chunk:
                parts.append(np.frombuffer(chunk, np.uint8))
                have += len(chunk)
        self._buf = (parts[0] if len(parts) == 1 else
                     np.concatenate(parts) if parts else np.zeros(0, np.uint8))
        self._base = pos
        return self._buf, pos


def open_stream(path: str | os.PathLike, compression_type: str | None) -> PlainStream | ZlibStream:
    """The stream class for ``compression_type``.

    Example:
        >>> open_stream("/no/such/file", None)
        Traceback (most recent call last):
        ...
        FileNotFoundError: [Errno 2] No such file or directory: '/no/such/file'
    """
    kind = check_compression(compression_type)
    return ZlibStream(path, kind) if kind else PlainStream(path)
