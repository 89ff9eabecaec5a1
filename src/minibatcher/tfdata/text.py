r"""``TextLineDataset``: the lines of text files, with TensorFlow's line rules.

TextLineDataset reads with TF's ``BufferedInputStream::ReadLine``: a line ends
at ``\n`` and **every** ``\r`` is dropped (not only one before ``\n``: a lone
``\r`` inside a line disappears too); a last line without ``\n`` counts when
it is not empty. Nothing else is a line break (not VT, FF or ``\u2028``:
unlike Python's ``str.splitlines()``). Lines are ``bytes``. (Vocabulary files
are read by another TF reader with other rules: :func:`input_buffer_lines`.)

The file is read once into memory (by the rule for every file: regular files
only, so a FIFO is an error at once, never a hang; checked after the read)
and indexed (line offsets), so any line is reachable at once: ``skip``/``shard``
seek and restores need no re-reading. What is read is a snapshot: the
checkpoint fingerprint (the size and a digest of the whole file) refuses a
restore on changed data.

Example:
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
    >>> _ = p.write_bytes(b"a b\r\nc\rd\n\nlast\r")
    >>> list(TextLineDataset(str(p)))
    [b'a b', b'cd', b'', b'last']
"""

from __future__ import annotations

import gzip
import os
import zlib
from typing import Any

import numpy as np

from ..errors import ConfigError, FormatError
from ..formats.file_digest import content_digest, file_fingerprint
from ..formats.guarded_file import read_small_file
from .block import RecordsBlock
from .files import FilesDataset

_BLOCK = 1 << 26
_COMPRESSION = ("", "ZLIB", "GZIP")


def _newline_offsets(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""``(starts, ends)`` of the ``\n``-separated segments, the last one only when
    it is not empty."""
    size = len(data)
    parts = [np.flatnonzero(data[i:i + _BLOCK] == 10) + i for i in range(0, size, _BLOCK)]
    newlines = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
    starts = np.concatenate([[0], newlines + 1]).astype(np.int64)
    ends = np.concatenate([newlines, [size]]).astype(np.int64)
    if starts[-1] == size:  # nothing after the last newline
        starts, ends = starts[:-1], ends[:-1]
    return starts, ends


def text_lines(raw: bytes) -> tuple[bytes, np.ndarray, np.ndarray]:
    r"""``(text, starts, ends)``: TextLineDataset's lines of ``raw`` are
    ``text[starts[i]:ends[i]]`` (``text`` is ``raw`` without its ``\r`` bytes).

    Example:
        >>> text, s, e = text_lines(b"ab\r\n\nc\rd\r")
        >>> [text[a:b] for a, b in zip(s, e)]
        [b'ab', b'', b'cd']
    """
    text = raw.replace(b"\r", b"") if b"\r" in raw else raw
    starts, ends = _newline_offsets(np.frombuffer(text, dtype=np.uint8))
    return text, starts, ends


def input_buffer_lines(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""``(starts, ends)`` of the lines TF's ``InputBuffer::ReadLine`` gives (the
    reader of vocabulary tables): ``\n`` ends a line and one ``\r`` directly
    before it is dropped; a last line counts when it is not empty after
    dropping a final ``\r``.

    Example:
        >>> s, e = input_buffer_lines(np.frombuffer(b"ab\r\n\nc\rd\r", np.uint8))
        >>> s.tolist(), e.tolist()
        ([0, 4, 5], [2, 4, 8])
    """
    starts, ends = _newline_offsets(data)
    nonempty = ends > starts
    cr = np.zeros(len(ends), bool)
    cr[nonempty] = data[ends[nonempty] - 1] == 13
    ends = ends - cr
    if len(starts) and ends[-1] == starts[-1] and (len(data) == 0 or data[-1] != 10):
        starts, ends = starts[:-1], ends[:-1]  # a last line that was only "\r"
    return starts, ends


def _read_file(path: str, compression_type: str) -> tuple[bytes, list[Any]]:
    """The file's (decompressed) bytes and its fingerprint."""
    raw = read_small_file(path, "text file")  # FileNotFoundError names the path
    return _decompress(raw, path, compression_type), file_fingerprint(len(raw), content_digest(raw))


def _decompress(raw: bytes, path: str, compression_type: str) -> bytes:
    try:
        if compression_type == "GZIP":
            return gzip.decompress(raw)
        if compression_type == "ZLIB":
            return zlib.decompress(raw)
    except (OSError, EOFError, zlib.error) as e:
        raise FormatError(f"{path}: cannot decompress as {compression_type}: {e}") from e
    return raw


class TextLineSource:
    """The lines of one file: a record source (``len``, ``[i]``, ``read``, ``fingerprint``).

    ``data`` (uint8: the file without its ``\\r`` bytes), ``starts`` and ``ends``
    are public for vectorized readers.

    Example:
        >>> import pathlib, tempfile
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "x"; _ = p.write_bytes(b"1\\n2\\n")
        >>> s = TextLineSource(p); len(s), s[1], s.read(0, 2)
        (2, b'2', [b'1', b'2'])
    """

    def __init__(self, path: str | os.PathLike, compression_type: str | None = None) -> None:
        self.path = os.fspath(path)
        kind = (compression_type or "").upper()
        if kind not in _COMPRESSION:
            raise ConfigError(f"compression_type should be one of {list(_COMPRESSION)}, but got "
                              f"compression_type={compression_type!r}")
        raw, self._fingerprint = _read_file(self.path, kind)
        self.raw, self.starts, self.ends = text_lines(raw)
        self.data = np.frombuffer(self.raw, dtype=np.uint8)
        self._lists: tuple[list[int], list[int]] | None = None  # made on the first line read

    def _offsets(self) -> tuple[list[int], list[int]]:
        if self._lists is None:
            self._lists = (self.starts.tolist(), self.ends.tolist())
        return self._lists

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, index: int) -> bytes:
        starts, ends = self._offsets()
        return self.raw[starts[index]:ends[index]]

    block_limit = 4096

    def block(self, start: int, stop: int) -> RecordsBlock:
        """Lines ``start .. stop-1`` as one block (no copy)."""
        return RecordsBlock(self.data, self.starts[start:stop], self.ends[start:stop])

    def gather(self, indices: np.ndarray) -> RecordsBlock:
        """The lines at ``indices`` as one block (no copy)."""
        return RecordsBlock(self.data, self.starts[indices], self.ends[indices])

    def read(self, start: int, stop: int) -> list[bytes]:
        """Lines ``start .. stop-1``."""
        raw, (starts, ends) = self.raw, self._offsets()
        return [raw[a:b] for a, b in zip(starts[start:stop], ends[start:stop])]

    def fingerprint(self) -> Any:
        """The file's checkpoint identity: its size and a digest of all its bytes.

        Example:
            >>> import pathlib, tempfile
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "x"; _ = p.write_bytes(b"1\\n2\\n")
            >>> fp = TextLineSource(p).fingerprint(); _ = p.write_bytes(b"1\\n3\\n")
            >>> fp[0], TextLineSource(p).fingerprint() == fp
            (4, False)
        """
        return self._fingerprint


class TextLineDataset(FilesDataset):
    """``tf.data.TextLineDataset(filenames, compression_type, buffer_size,
    num_parallel_reads)``: files one after the other, or interleaved with
    ``cycle_length=num_parallel_reads, block_length=1`` as TF does.

    ``sources`` lists the per-file :class:`TextLineSource` objects.

    Example:
        >>> import pathlib, tempfile
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "a").write_bytes(b"a1\\na2\\n"); _ = (d / "b").write_bytes(b"b1\\n")
        >>> list(TextLineDataset([d / "a", d / "b"], num_parallel_reads=2))
        [b'a1', b'b1', b'a2']
    """

    def __init__(self, filenames: Any, compression_type: str | None = None,
                 buffer_size: int | None = None, num_parallel_reads: int | None = None,
                 name: str | None = None) -> None:
        super().__init__(filenames, num_parallel_reads,
                         lambda f: TextLineSource(f, compression_type))

    def _spec(self) -> dict[str, Any]:
        return {"op": "text_line", "num_parallel_reads": self.parallel}
