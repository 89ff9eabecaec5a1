"""A pool of open TFRecord files: at most ``limit`` descriptors however many
files a dataset reads (the least recently used file releases its descriptor,
and reopens when it is read again, checked to be the same file).

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.tfrecord import TFRecordFile, TFRecordWriter
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("a", "b"):
    ...     with TFRecordWriter(d / name) as w: w.write(name.encode())
    >>> pool = OpenFiles(limit=1)
    >>> a, b = TFRecordFile(d / "a", pool=pool), TFRecordFile(d / "b", pool=pool)
    >>> a._opened is None, b._opened is None  # opening b released a
    (True, False)
    >>> a.record(0), a._opened is None, b._opened is None  # reading a reopened it
    (b'a', False, True)
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .records import TFRecordFile


class OpenFiles:
    """Keeps at most ``limit`` TFRecord files open (least recently used ones
    release their descriptor and reopen when read again), so datasets of
    thousands of shards stay under the descriptor limit. The pool refers to its
    files weakly: a file refers to its pool, and a cycle would keep every dropped
    file's descriptor open until the cyclic garbage collector ran.

    Example:
        >>> pool = OpenFiles(limit=2); pool.limit
        2
    """

    def __init__(self, limit: int = 64) -> None:
        self.limit = limit
        self._open: "OrderedDict[int, weakref.ref[TFRecordFile]]" = OrderedDict()

    def touch(self, f: TFRecordFile) -> None:
        """Marks ``f`` as used (it holds a descriptor)."""
        key = id(f)
        ref = self._open.get(key)
        if ref is None or ref() is not f:
            self._open[key] = weakref.ref(f)
        self._open.move_to_end(key)
        if len(self._open) > self.limit:  # dropped files closed themselves
            for dead in [k for k, r in self._open.items() if r() is None]:
                del self._open[dead]
        while len(self._open) > self.limit:
            old = self._open.popitem(last=False)[1]()
            if old is not None:
                old.release()

    def forget(self, f: TFRecordFile) -> None:
        """Drops ``f`` (closed)."""
        ref = self._open.get(id(f))
        if ref is not None and ref() is f:
            del self._open[id(f)]
