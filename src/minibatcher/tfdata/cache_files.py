"""``cache(filename)``: the cache in a file, shared by every pipeline naming it.

As TF: the first iteration that reaches the end writes the file, and from then
on every iteration of any pipeline with that ``filename`` reads the file (the
input is not read again, even by a pipeline over other data: TF's rule). While
an iteration writes, a lock file is held; a second writer is TF's
``AlreadyExistsError`` (a lock left by a process that no longer runs, on this
host, is taken over, with a warning). An iteration abandoned before the end
removes what it wrote.

The format (ours, not TF's tensor bundle): ``{filename}.mbcache`` is a TFRecord
file (length, masked CRC32C of the length, data, masked CRC32C of the data, per
record) whose first record is the JSON header ``{"format":
"minibatcher.tfdata.cache", "version": 1}``, then one record per element
(:func:`~minibatcher.tfdata.codec.encode_element`), then the JSON footer
``{"elements": n}``. It is written as ``{filename}.mbcache.tmp-<pid>-<n>`` and
renamed when complete; the lock is ``{filename}.mbcache.lock`` (``host pid``).

Checkpoints: a reader's state is its position and the file's size and digest (a
changed file is refused); a writer's is the input's (a restore reads the input
on from there, and writes only when no complete file exists by then, re-reading
the elements already written: a bounded replay).

Example:
    >>> import pathlib, tempfile
    >>> from minibatcher.tfdata import Dataset
    >>> prefix = str(pathlib.Path(tempfile.mkdtemp()) / "c")
    >>> [int(x) for x in Dataset.range(3).cache(prefix)], sorted(p.name for p in
    ...     pathlib.Path(prefix).parent.iterdir())
    ([0, 1, 2], ['c.mbcache'])
    >>> [int(x) for x in Dataset.range(10, 12).cache(prefix)]  # the file wins, as in TF
    [0, 1, 2]
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import socket
import weakref
from typing import Any

from ..errors import CheckpointError, FormatError, NotARegularFileError
from ..formats.small_files import read_small_file
from ..formats.tfrecord import TFRecordWriter
from ..formats.tfrecord.source import TFRecordSource
from ..state import Fields
from .codec import decode_element, encode_element
from .core import Iter
from .dataset import Dataset
from .errors import AlreadyExistsError, NotFoundError
from .transforms import _Unary

_log = logging.getLogger("minibatcher.tfdata")
HEADER = {"format": "minibatcher.tfdata.cache", "version": 1}
_TEMPS = itertools.count()


class CacheFile:
    """A complete cache file: its elements by index, checked header and footer.

    Example:
        >>> import pathlib, tempfile
        >>> from minibatcher.tfdata import Dataset
        >>> prefix = str(pathlib.Path(tempfile.mkdtemp()) / "k")
        >>> _ = list(Dataset.from_tensor_slices(["a", "b"]).cache(prefix))
        >>> f = CacheFile(prefix + ".mbcache"); len(f), f[1]
        (2, b'b')
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.source = TFRecordSource(path)
        n = len(self.source)
        try:
            header, footer = (json.loads(self.source[i]) for i in (0, n - 1)) if n >= 2 else \
                (None, None)
        except ValueError:
            header = footer = None
        if header != HEADER or not isinstance(footer, dict) or footer.get("elements") != n - 2:
            raise FormatError(f"{path}: not a complete minibatcher cache file (header "
                              f"{HEADER}, elements, footer {{'elements': n}}); delete it to "
                              "cache again")
        self.length = n - 2

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> Any:
        return decode_element(self.source[index + 1])

    def identity(self) -> list[Any]:
        """The file's size and content digest (what a checkpoint checks; the
        fingerprint of every TFRecord file, docs/design/guarded-files.md)."""
        return self.source.fingerprint()


def _lock(path: str) -> None:
    """Takes the writer's lock (TF's AlreadyExistsError when another writer holds it)."""
    me = f"{socket.gethostname()} {os.getpid()}"
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileNotFoundError:
            raise NotFoundError(f"{path}; No such file or directory") from None
        except FileExistsError:
            if not _stale(path):
                raise AlreadyExistsError(
                    "There appears to be a concurrent caching iterator running - cache lockfile "
                    f"already exists ('{path}'). If you are sure no other running computation is "
                    "using this cache prefix, delete the lockfile and restart.") from None
            _log.warning("taking over the cache lock %s of a process that no longer runs", path)
            os.unlink(path)
            continue
        with os.fdopen(fd, "w") as f:
            f.write(me)
        return


def _stale(path: str) -> bool:
    try:  # the one rule for every file read (a FIFO here hung the iteration)
        host, pid = read_small_file(path, "cache lock file").split()
        if host.decode("utf-8", "replace") != socket.gethostname():
            return False
        os.kill(int(pid), 0)
    except NotARegularFileError:
        raise
    except ProcessLookupError:
        return True
    except (OSError, ValueError):
        return False
    return False


def _abandon(writer: TFRecordWriter, temp: str, lock: str) -> None:
    writer.close()
    for path in (temp, lock):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


class _FileReadIter(Iter):
    addressable = True

    def __init__(self, cache: CacheFile, pos: int) -> None:
        self.cache, self.pos = cache, pos

    def __next__(self) -> Any:
        if self.pos >= len(self.cache):
            raise StopIteration
        self.pos += 1
        return self.cache[self.pos - 1]

    def skip(self, count: int) -> int:
        done = max(0, min(count, len(self.cache) - self.pos))
        self.pos += done
        return done

    def state(self) -> dict[str, Any]:
        return {"mode": "file", "pos": self.pos, "file": self.cache.identity()}

    @property
    def address(self) -> int:
        return self.pos - 1

    def refetch(self, address: int) -> Any:
        return self.cache[address]


class _FileWriteIter(Iter):
    """Reads the input and writes each element; renames the file when complete."""

    def __init__(self, node: "FileCacheDataset", source: Iter, in0: Any, written: int,
                 write: bool) -> None:
        self.node, self.source, self.in0, self.written = node, source, in0, written
        self.writer: TFRecordWriter | None = None
        self.pending = write  # the file is started by the first read (as TF: not at iter())

    def _start(self) -> None:
        """Takes the lock and opens the temporary file, with the elements written so far
        (read again from the start of the iteration after a restore)."""
        self.pending = False
        replayed = []
        if self.written:
            replay = self.node._parent._make_iter(Fields(self.in0, "in0"))
            replayed = [next(replay) for _ in range(self.written)]
        final = self.node._final
        _lock(final + ".lock")
        self.temp = f"{final}.tmp-{os.getpid()}-{next(_TEMPS)}"
        self.writer = TFRecordWriter(self.temp)
        self._closer = weakref.finalize(self, _abandon, self.writer, self.temp, final + ".lock")
        self.writer.write(json.dumps(HEADER).encode())
        self.writer.write_many(encode_element(x) for x in replayed)

    def __next__(self) -> Any:
        if self.pending:
            self._start()
        try:
            x = next(self.source)
        except StopIteration:
            self._finish()
            raise
        if self.writer is not None:
            self.writer.write(encode_element(x))
        self.written += 1
        return x

    def _finish(self) -> None:
        if self.writer is None:
            return
        self.writer.write(json.dumps({"elements": self.written}).encode())
        self.writer.close()
        os.replace(self.temp, self.node._final)
        self._closer.detach()
        os.unlink(self.node._final + ".lock")
        self.writer = None

    def state(self) -> dict[str, Any]:
        return {"mode": "write", "in": self.source.state(), "in0": self.in0,
                "written": self.written}


class FileCacheDataset(_Unary):
    """``cache(filename)`` with a non-empty ``filename`` (see the module docstring).

    Example:
        >>> import pathlib, tempfile
        >>> from minibatcher.tfdata import Dataset
        >>> prefix = str(pathlib.Path(tempfile.mkdtemp()) / "e")
        >>> list(FileCacheDataset(Dataset.range(0), prefix)), os.path.exists(prefix + ".mbcache")
        ([], True)
    """

    def __init__(self, parent: Dataset, filename: str) -> None:
        super().__init__(parent)
        self._final = os.fsdecode(filename) + ".mbcache"

    def _has_view(self) -> bool:
        return False

    def _spec(self) -> dict[str, Any]:
        return {"op": "cache", "file": True}

    def _make_iter(self, state: Fields | None) -> Iter:
        if state is None:
            if os.path.exists(self._final):
                return _FileReadIter(CacheFile(self._final), 0)
            source = self._parent._make_iter(None)
            return _FileWriteIter(self, source, source.state(), 0, True)
        if state.str("mode", ("file", "write")) == "file":
            return self._restored_reader(state.only("mode", "pos", "file"))
        return self._restored_writer(state.only("mode", "in", "in0", "written"))

    def _restored_reader(self, state: Fields) -> Iter:
        if not os.path.exists(self._final):
            raise CheckpointError(f"the checkpoint reads the cache file {self._final}, which "
                                  "no longer exists")
        cache = CacheFile(self._final)
        if state.value("file") != cache.identity():
            raise state.bad("file", f"the identity of {self._final} ({cache.identity()})",
                            "the cache file changed since the checkpoint")
        n = len(cache)
        return _FileReadIter(cache, state.int("pos", 0, n, within=f"the {n} cached elements"))

    def _restored_writer(self, state: Fields) -> Iter:
        written, in0 = state.int("written", 0), state.child("in0")
        source = self._parent._make_iter(state.child("in"))
        # write again (from the start) only when no complete file exists by now
        return _FileWriteIter(self, source, in0.raw, written, not os.path.exists(self._final))

    def _cardinality(self) -> int:
        return self._parent._cardinality()
