"""``GuardedFile``: a regular file opened once, read by byte range, checked for changes.

Every file the project reads goes through this module (docs/design/guarded-files.md):
``GuardedFile`` for files read by range while a reader lives, :func:`read_small_file`
(and :func:`decode_text`, :func:`read_json`; :mod:`.small_files`) for files read whole. A file is never mapped (a mapped
file that shrinks kills the process with SIGBUS; ``pread`` just returns fewer
bytes); one descriptor is kept for the reader's life, so renaming or replacing
the path cannot change what is read; and the file's identity (device, inode,
size, modification and status-change times) is recorded at open and checked
after every read, so a change, even one that overlapped the read, is an error
(``FileChangedError``), never mixed data.

API:

* ``GuardedFile(path, what="file")``: regular files only (a directory, FIFO,
  socket or device is a ``NotARegularFileError``, never a hang); ``what``
  names the file's role in messages.
* ``.path``, ``.size``, ``.identity`` (a :class:`FileIdentity`), ``.fileno()``;
  ``.check()``: one ``fstat``; size or modification time changed ->
  ``FileChangedError`` (the status-change time is recorded, not compared:
  chmod, rename and unlink move it; caches that outlive the process compare
  the whole identity, :meth:`FileIdentity.differences`).
* ``.read(start, stop)`` (a per-thread reusable ``uint8`` buffer),
  ``.read_into(buffer, offset)``, ``.read_all()``: checked after the read;
  a short read (the file shrank) is a ``FileChangedError`` too.
* ``.read_excerpt(start, stop)``: best effort bytes for messages, never raises.
* ``.ends_digest()``, ``.fingerprint(content=None)``: the checkpoint identity
  (:mod:`minibatcher.formats.file_digest`).
* ``.close()`` / context manager; pickling reopens the path and verifies the identity.
* :func:`check_regular` (``os.stat`` and the same refusal, opening nothing) for a
  file that is looked for before it is read; :func:`file_kind` names a mode in words.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "f.txt"; _ = p.write_bytes(b"ab\\ncd\\nef")
    >>> with GuardedFile(p) as f:
    ...     bytes(f.read(1, 4)), f.size, f.read_all()
    (b'b\\nc', 8, b'ab\\ncd\\nef')
"""

from __future__ import annotations

import io
import os
import stat
import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError, FileChangedError, NotARegularFileError
from .file_digest import ends_digest, file_fingerprint
from .small_files import decode_text, read_json, read_small_file

__all__ = ["FileIdentity", "GuardedFile", "check_regular", "decode_text", "file_kind", "read_json",
           "read_small_file"]

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


@dataclass(frozen=True)
class FileIdentity:
    """What identifies one version of a file: ``(st_dev, st_ino)`` name the
    file, size and the modification and status-change times its content.

    Example:
        >>> a = FileIdentity(1, 2, 10, 5, 5)
        >>> a.differences(FileIdentity(1, 2, 7, 9, 9))
        ['size 10 -> 7 bytes', 'modification time changed', 'status-change time changed']
    """

    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> "FileIdentity":
        """The identity in a ``stat`` result.

        Example:
            >>> FileIdentity.of(os.stat(".")).size >= 0
            True
        """
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def same_contents(self, other: "FileIdentity") -> bool:
        """Same file, size and modification time: what an open descriptor reads
        is unchanged (``ctime`` also moves on chmod, rename or unlink, which do
        not change it).

        Example:
            >>> FileIdentity(1, 2, 3, 4, 5).same_contents(FileIdentity(1, 2, 3, 4, 6))
            True
        """
        return (self.dev, self.ino, self.size, self.mtime_ns) == \
            (other.dev, other.ino, other.size, other.mtime_ns)

    def differences(self, other: "FileIdentity") -> list[str]:
        """What differs in ``other``, in words (empty when it is the same)."""
        out = []
        if (self.dev, self.ino) != (other.dev, other.ino):
            out.append("it is another file now (device/inode changed)")
        if self.size != other.size:
            out.append(f"size {self.size} -> {other.size} bytes")
        if self.mtime_ns != other.mtime_ns:
            out.append("modification time changed")
        if self.ctime_ns != other.ctime_ns:
            out.append("status-change time changed")
        return out


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words (for messages).

    Example:
        >>> import os, tempfile
        >>> file_kind(os.stat(tempfile.mkdtemp()).st_mode), file_kind(stat.S_IFIFO)
        ('a directory', 'a FIFO (named pipe)')
    """
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((name for test, name in _KINDS if test(mode)), "something else")


def check_regular(path: str | os.PathLike, what: str = "file") -> os.stat_result:
    """``os.stat(path)`` of a regular file; anything else is the ``NotARegularFileError``
    :class:`GuardedFile` raises (nothing is opened, so a FIFO cannot block). For a file
    that is looked for rather than read yet: one that is there but is no regular file is an
    error naming what it is, never taken for a missing file.

    Example:
        >>> import tempfile
        >>> check_regular(tempfile.mkdtemp(), "dataset_info.json")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotARegularFileError: ...: the dataset_info.json is not a regular file but a directory; ...
    """
    st = os.stat(path)
    _require_regular(os.fspath(path), what, st)
    return st


def _require_regular(path: str, what: str, st: os.stat_result) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise NotARegularFileError(
            f"{path}: the {what} is not a regular file but {file_kind(st.st_mode)}; files are "
            "read by byte range and re-read later, so give the path of a regular file (copy "
            "data from a pipe or device to a file first)")


def _open_regular(path: str, what: str) -> tuple[int, os.stat_result]:
    """Opens without blocking (a FIFO would block until a writer appears) and
    accepts regular files only."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        _require_regular(path, what, st)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return fd, st
    except BaseException:
        os.close(fd)
        raise


_SEEK_LOCK = threading.Lock()


def _pread_into(fd: int, view: memoryview, offset: int) -> int:
    """Reads at ``offset`` into ``view``; returns the bytes read (0 at the end).
    ``os.preadv`` reads straight into the buffer; platforms without it copy
    (``os.pread``) or seek under a lock (Windows)."""
    if hasattr(os, "preadv"):
        return os.preadv(fd, [view], offset)
    if hasattr(os, "pread"):
        data = os.pread(fd, len(view), offset)
        view[:len(data)] = data
        return len(data)
    with _SEEK_LOCK, io.FileIO(fd, closefd=False) as f:
        f.seek(offset)
        return f.readinto(view) or 0


class GuardedFile:
    """A regular file read by byte range with ``pread``; see the module docstring.

    Thread-safe: ``pread`` takes the offset explicitly, so threads share the
    descriptor; each thread has its own :meth:`read` buffer.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "g"; _ = p.write_bytes(b"0123456789")
        >>> f = GuardedFile(p, what="shard")
        >>> f.check(); bytes(f.read_excerpt(8, 20))
        b'89'
        >>> with open(p, "ab") as out: _ = out.write(b"!")
        >>> f.check()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.FileChangedError: .../g: the shard changed after it was opened (size 10 -> 11 bytes, modification time changed...); ...
    """

    def __init__(self, path: str | os.PathLike, *, what: str = "file") -> None:
        self.path = os.fspath(path)
        if not isinstance(self.path, str) or not self.path:
            raise ConfigError(f"the {what} path should be a non-empty path, but got "
                              f"path={os.fspath(path)!r}")
        self.what = what
        self._fd, st = _open_regular(self.path, what)
        self.identity = FileIdentity.of(st)
        self._local = threading.local()
        self._ends: str | None = None
        self._closer = weakref.finalize(self, os.close, self._fd)
        self._closer.atexit = False  # the OS closes it at exit; a daemon thread may still read

    # -- identity -------------------------------------------------------------------------------

    @property
    def size(self) -> int:
        """The size in bytes when the file was opened."""
        return self.identity.size

    def fileno(self) -> int:
        """The open descriptor (for ``os.pread`` or native readers)."""
        return self._fd

    def check(self, needed: int | None = None) -> None:
        """Raises :class:`FileChangedError` when the open file's size or
        modification time changed since it was opened (see
        :meth:`FileIdentity.same_contents`); the message says where the file
        ends now if that is before ``needed`` (the end of a read)."""
        now = FileIdentity.of(os.fstat(self._fd))
        if not self.identity.same_contents(now):
            ends = [f"it ends at byte {now.size} now, but bytes up to {needed} were needed"] \
                if needed is not None and now.size < needed else []
            raise self._changed(ends + self.identity.differences(now))

    def _changed(self, what: list[str]) -> FileChangedError:
        return FileChangedError(
            f"{self.path}: the {self.what} changed after it was opened ({', '.join(what)}); "
            "reading stops rather than mixing old and new data (a file that is replaced by "
            "renaming a new one over it keeps being read as it was). Re-create the reader to "
            "read the new contents.")

    def ends_digest(self) -> str:
        """A digest of the first and last 64 KiB (computed once; see
        :func:`~minibatcher.formats.file_digest.ends_digest`)."""
        if self._ends is None:
            self._ends = ends_digest(self.read, self.size)
        return self._ends

    def fingerprint(self, content: str | None = None) -> list[Any]:
        """The checkpoint identity ``[size, digest]``: ``content`` (a digest of
        the whole content, where the reader's index pass made one) or else
        :meth:`ends_digest`.

        Example:
            >>> import tempfile, pathlib
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "f"; _ = p.write_bytes(b"abc")
            >>> GuardedFile(p).fingerprint("d1")
            [3, 'd1']
        """
        return file_fingerprint(self.size, content if content is not None else self.ends_digest())

    # -- reads ----------------------------------------------------------------------------------

    def read_into(self, buffer: Any, offset: int) -> None:
        """Fills ``buffer`` (writable, e.g. a uint8 array) with the bytes at ``offset``.

        Raises :class:`FileChangedError` when the file ends before the buffer is
        full, or when it changed since it was opened (checked after the read,
        so bytes of a change that overlapped the read are never delivered).
        """
        view = memoryview(buffer).cast("B")
        done, total = 0, len(view)
        while done < total:
            got = _pread_into(self._fd, view[done:], offset + done)
            if got == 0:
                break  # the file ends early: it changed (checked below)
            done += got
        # a write that overlapped the read moved the mtime: never mixed data
        self.check(needed=offset + total)
        if done < total:  # read past the end, the size and time unchanged
            raise self._changed([f"it ends at byte {offset + done} now, but bytes up to "
                                 f"{offset + total} were needed"])

    def read_all(self) -> bytes:
        """The whole file (as opened) as ``bytes``, checked after the read.

        Example:
            >>> import tempfile, pathlib
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "f"; _ = p.write_bytes(b"abc")
            >>> GuardedFile(p).read_all()
            b'abc'
        """
        if not hasattr(os, "pread"):
            buffer = bytearray(self.size)
            self.read_into(buffer, 0)
            return bytes(buffer)
        parts, pos = [], 0
        while pos < self.size:
            part = os.pread(self._fd, min(self.size - pos, 1 << 30), pos)
            if not part:
                raise self._changed([f"it ends at byte {pos} now"])
            parts.append(part)
            pos += len(part)
        self.check()
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def read(self, start: int, stop: int) -> np.ndarray:
        """Bytes ``[start, stop)`` in this thread's reusable buffer (valid until
        the thread's next ``read``)."""
        if not 0 <= start <= stop:
            raise ValueError(f"a byte range should satisfy 0 <= start <= stop, but got "
                             f"start={start}, stop={stop}")
        n = stop - start
        buffer = getattr(self._local, "buffer", None)
        if buffer is None or len(buffer) < n:
            buffer = self._local.buffer = np.empty(max(n, 1 << 16), dtype=np.uint8)
        self.read_into(buffer[:n], start)
        return buffer[:n]

    def read_excerpt(self, start: int, stop: int) -> bytes:
        """Up to ``stop - start`` bytes at ``start`` for a message; what is
        there now (fewer when the file shrank), never an error."""
        start = max(0, int(start))
        buffer = bytearray(max(0, int(stop) - start))
        try:
            return bytes(buffer[:_pread_into(self._fd, memoryview(buffer), start)])
        except OSError:
            return b""

    # -- life cycle -----------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the descriptor (idempotent)."""
        self._closer()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return not self._closer.alive

    def __enter__(self) -> "GuardedFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "what": self.what, "identity": self.identity}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], what=state["what"])  # type: ignore[misc]
        if not self.identity.same_contents(state["identity"]):
            self.close()
            raise self._changed(state["identity"].differences(self.identity))

    def __repr__(self) -> str:
        return f"GuardedFile({self.path!r}, size={self.size})"
