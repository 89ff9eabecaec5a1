"""The feature archives of an SCP list, read through :class:`GuardedFile`.

At construction every distinct file is opened (regular files only), its
header read and checked, and its identity (device, inode, size, mtime)
remembered. Up to ``KEEP_OPEN`` archives stay open for the reader's life (the
usual few large archives: renaming or replacing a path cannot change what is
read); larger sets (one file per utterance) are reopened per chunk and must
still have the identity they had. A file changed under a reader is an error,
never mixed data (issue 6).

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
import hashlib
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from ...errors import FileChangedError
from ..guarded_file import FileIdentity, GuardedFile
from .backend import backend

KEEP_OPEN = 256
_WHAT = "HTK archive"


class Archives:
    """Headers and identities of the physical files; ``errors[i]`` says why
    file ``i`` cannot be used (``None`` when it can)."""

    def __init__(self, paths: Sequence[Path], verify_crc: bool, impl: str) -> None:
        self.paths = list(paths)
        self.errors: list[str | None] = [None] * len(self.paths)
        self.identities: list[FileIdentity | None] = [None] * len(self.paths)
        self._open: dict[int, GuardedFile] = {}
        self._digest: str | None = None
        files: list[GuardedFile] = []
        try:
            for i, path in enumerate(self.paths):
                try:
                    f = GuardedFile(path, what=_WHAT)
                except OSError as e:
                    self.errors[i] = f"cannot open archive {str(path)!r}: {e.strerror or e}"
                    continue
                self.identities[i] = f.identity
                files.append(f)
                if len(self.paths) <= KEEP_OPEN:
                    self._open[i] = f
            self.opened = np.array([e is None for e in self.errors], dtype=bool)
            self.headers = backend(impl).read_headers(
                np.array([f.fileno() for f in files], dtype=np.int64),
                np.array([f.size for f in files], dtype=np.int64), verify_crc)
        finally:
            for f in files:
                if f not in self._open.values():
                    f.close()
        self.header_of = np.cumsum(self.opened) - 1  # file -> row of `headers` (when opened)

    def header(self, i: int, field: str) -> int:
        """Header ``field`` of file ``i`` (which must have been opened).

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.htk.htkfile import write_htk
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.htk"
            >>> write_htk(p, np.ones((4, 3), np.float32))
            >>> Archives([p], verify_crc=False, impl="python").header(0, "sample_size")
            12
        """
        return int(self.headers[field][int(self.header_of[i])])

    @contextlib.contextmanager
    def open_files(self, files: Sequence[int]) -> Iterator[dict[int, int]]:
        """Descriptors of ``files`` (file index -> fd) for reads inside the
        ``with`` block; every file is checked before and after them, so a
        file changed in between (even while it was read) raises
        :class:`~minibatcher.errors.FileChangedError`, never mixed data."""
        opened: list[GuardedFile] = []
        used: list[GuardedFile] = []
        try:
            for i in files:
                f = self._open.get(i)
                if f is None:
                    f = GuardedFile(self.paths[i], what=_WHAT)
                    opened.append(f)
                    self._same_as_indexed(i, f)
                used.append(f)
                f.check()
            yield {i: f.fileno() for i, f in zip(files, used)}
            for f in used:
                f.check()  # after the reads: a write that overlapped them moved the mtime
        finally:
            for f in opened:
                f.close()

    def digest(self) -> str:
        """The checkpoint identity of the archives: each file's size and a
        digest of its first and last 64 KiB (a file that could not be opened: ``[-1, '']``),
        in SCP order (docs/design/guarded-files.md). Computed once, at the
        first checkpoint; a file changed since indexing is a FileChangedError.

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.htk.htkfile import write_htk
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.htk"
            >>> write_htk(p, np.ones((4, 3), np.float32)); before = Archives([p], False, "native").digest()
            >>> write_htk(p, np.zeros((4, 3), np.float32))  # the same size
            >>> Archives([p], False, "native").digest() == before
            False
        """
        if self._digest is None:
            total = hashlib.blake2b(digest_size=16)
            for i, path in enumerate(self.paths):
                total.update(repr(self._file_identity(i)).encode())
            self._digest = total.hexdigest()
        return self._digest

    def _file_identity(self, i: int) -> list[Any]:
        if self.errors[i] is not None:  # skipped within the error budget
            return [-1, ""]
        f = self._open.get(i)
        if f is not None:
            return f.fingerprint()
        with GuardedFile(self.paths[i], what=_WHAT) as f:
            self._same_as_indexed(i, f)
            return f.fingerprint()

    def _same_as_indexed(self, i: int, f: GuardedFile) -> None:
        if not self.identities[i].same_contents(f.identity):
            raise FileChangedError(
                f"{self.paths[i]}: the {_WHAT} changed since the reader indexed it "
                f"({', '.join(self.identities[i].differences(f.identity))}); restart "
                "the reader to read the new file")

    def close(self) -> None:
        """Closes the archives kept open."""
        for f in self._open.values():
            f.close()
        self._open.clear()
