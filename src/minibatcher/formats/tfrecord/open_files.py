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

from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .records import TFRecordFile


class OpenFiles:
    """Keeps at most ``limit`` TFRecord files open (least recently used ones
    release their descriptor and reopen when read again), so datasets of
    thousands of shards stay under the descriptor limit.

    Example:
        >>> pool = OpenFiles(limit=2); pool.limit
        2
    """

    def __init__(self, limit: int = 64) -> None:
        self.limit = limit
        self._open: "OrderedDict[int, TFRecordFile]" = OrderedDict()

    def touch(self, f: TFRecordFile) -> None:
        """Marks ``f`` as used (it holds a descriptor)."""
        self._open[id(f)] = f
        self._open.move_to_end(id(f))
        while len(self._open) > self.limit:
            _, old = self._open.popitem(last=False)
            old.release()

    def forget(self, f: TFRecordFile) -> None:
        """Drops ``f`` (closed)."""
        self._open.pop(id(f), None)
