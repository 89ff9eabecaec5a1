"""The feature archives of an SCP list: opened once at indexing, guarded after.

At construction every distinct file is opened (regular files only), its
header read and checked, and its identity (device, inode, size, mtime)
remembered. A chunk load reopens the files it needs and refuses a file whose
identity changed: a file rewritten under a reader is an error, never mixed
data (issue 6).

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.htk.htkfile import write_htk
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.htk"; write_htk(p, np.ones((4, 3), np.float32))
    >>> a = Archives([p], verify_crc=True, impl="native")
    >>> bool(a.opened[0]), int(a.headers["dim"][0]), int(a.headers["samples"][0])
    (True, 3, 4)
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from ...errors import FormatError
from .backend import backend


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class Archives:
    """Headers and identities of the physical files; ``errors[i]`` says why
    file ``i`` cannot be used (``None`` when it can)."""

    def __init__(self, paths: Sequence[Path], verify_crc: bool, impl: str) -> None:
        self.paths = list(paths)
        self.impl = impl
        self.errors: list[str | None] = [None] * len(self.paths)
        self.identities: list[tuple[int, int, int, int] | None] = [None] * len(self.paths)
        fds, sizes = [], []
        try:
            for i, path in enumerate(self.paths):
                fd = self._open(i, path)
                if fd is not None:
                    fds.append(fd)
                    sizes.append(self.identities[i][2])
            self.opened = np.array([e is None for e in self.errors], dtype=bool)
            self.headers = backend(impl).read_headers(np.array(fds, dtype=np.int64),
                                                      np.array(sizes, dtype=np.int64), verify_crc)
        finally:
            for fd in fds:
                os.close(fd)
        self.header_of = np.cumsum(self.opened) - 1  # file -> row of `headers` (when opened)

    def _open(self, i: int, path: Path) -> int | None:
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError as e:
            self.errors[i] = f"cannot open archive {str(path)!r}: {e.strerror}"
            return None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            self.errors[i] = f"archive {str(path)!r} is not a regular file"
            return None
        self.identities[i] = _identity(st)
        return fd

    def header(self, i: int, field: str) -> int:
        """Header ``field`` of file ``i`` (which must have been opened)."""
        return int(self.headers[field][int(self.header_of[i])])

    @contextlib.contextmanager
    def open_files(self, files: Sequence[int]) -> Iterator[dict[int, int]]:
        """Reopens ``files`` (file index -> fd), refusing any that changed."""
        fds: dict[int, int] = {}
        try:
            for i in files:
                path = self.paths[i]
                try:
                    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
                except OSError as e:
                    raise FormatError(f"archive {str(path)!r} cannot be opened any more "
                                      f"({e.strerror}); it was readable when the reader started") from e
                fds[i] = fd
                if _identity(os.fstat(fd)) != self.identities[i]:
                    raise FormatError(f"archive {str(path)!r} changed since the reader indexed it "
                                      "(its size, inode or modification time differ); restart the "
                                      "reader to read the new file")
            yield fds
        finally:
            for fd in fds.values():
                os.close(fd)
