"""Blocks of whole lines read by a helper thread while the caller scans the previous ones.

``line_blocks(file)`` reads and hands out one block at a time, so copying the
bytes from the page cache (about 60% of indexing a CTF file) and scanning them take
turns on one core. :func:`line_blocks_ahead` gives the same blocks, read ahead by a
helper thread into a few reused buffers: the copy of the next blocks overlaps the
scan of this one.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.guarded_file import GuardedFile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "f.txt"; _ = p.write_bytes(b"ab\\ncd\\nef")
    >>> with GuardedFile(p) as f:
    ...     [(o, bytes(b)) for o, b in line_blocks_ahead(f, 4)]
    [(0, b'ab\\n'), (3, b'cd\\n'), (6, b'ef')]
"""

from __future__ import annotations

import queue
import threading
from typing import Iterator

import numpy as np

from .guarded_file import GuardedFile

BUFFERS = 3  # one being scanned, one read, one being read
_NEWLINE = 0x0A
_SCAN = 1 << 12


def last_newline(view: np.ndarray) -> int:
    """Index of the last ``'\\n'`` in ``view``, or -1 (scans backwards in growing steps).

    Example:
        >>> last_newline(np.frombuffer(b"a\\nb\\nc", np.uint8)), last_newline(np.zeros(3, np.uint8))
        (3, -1)
    """
    hi, step = len(view), _SCAN
    while hi > 0:
        lo = max(0, hi - step)
        hits = np.flatnonzero(view[lo:hi] == _NEWLINE)
        if len(hits):
            return lo + int(hits[-1])
        hi, step = lo, min(step * 2, 1 << 20)
    return -1


def line_blocks(file: GuardedFile, block_size: int = 1 << 20,
                start: int = 0) -> Iterator[tuple[int, np.ndarray]]:
    """Yields ``(file offset, bytes)`` of consecutive blocks of whole lines
    of about ``block_size`` bytes from ``start`` to the size at open (a line
    longer than a block comes whole). Each view is valid until the next one.
    About 1 MiB is fastest: the block is still in the CPU cache when it is
    scanned after the copy.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "f.txt"; _ = p.write_bytes(b"a\\nbbbbbb\\nc")
        >>> with GuardedFile(p) as f:  # the long line comes whole
        ...     [(o, bytes(b)) for o, b in line_blocks(f, 4)]
        [(0, b'a\\n'), (2, b'bbbbbb\\nc')]
    """
    buffer = np.empty(max(1, int(block_size)), dtype=np.uint8)
    pos, have, size = int(start), 0, file.size
    while pos + have < size or have:
        want = min(len(buffer) - have, size - pos - have)
        if want > 0:
            file.read_into(buffer[have:have + want], pos + have)
            have += want
        cut = have if pos + have >= size else last_newline(buffer[:have]) + 1
        if cut == 0:  # a line longer than the buffer
            buffer = np.concatenate([buffer, np.empty(len(buffer), dtype=np.uint8)])
            continue
        yield pos, buffer[:cut]
        buffer[:have - cut] = buffer[cut:have]
        pos, have = pos + cut, have - cut


def _fill(file: GuardedFile, buffer: np.ndarray, tail: np.ndarray,
          pos: int) -> tuple[np.ndarray, int, int]:
    """``tail`` then the file's bytes after it in ``buffer`` (grown while it holds no
    line end before the end of the file); returns the buffer, the bytes in it and the
    length of the whole lines among them."""
    size = file.size
    if len(buffer) <= len(tail):  # the tail of a long line read into a grown buffer
        buffer = np.empty(2 * len(tail) + 1, dtype=np.uint8)
    buffer[:len(tail)] = tail
    have = len(tail)
    while True:
        want = min(len(buffer) - have, size - pos - have)
        if want > 0:
            file.read_into(buffer[have:have + want], pos + have)
            have += want
        cut = have if pos + have >= size else last_newline(buffer[:have]) + 1
        if cut > 0:
            return buffer, have, cut
        buffer = np.concatenate([buffer, np.empty(len(buffer), dtype=np.uint8)])  # a long line


def _read(file: GuardedFile, block_size: int, free: queue.Queue, ready: queue.Queue,
          stop: threading.Event) -> None:
    """The helper: fills free buffers with blocks of whole lines, in order, until the end."""
    try:
        pos, tail = 0, np.empty(0, dtype=np.uint8)
        while pos + len(tail) < file.size or len(tail):
            buffer = free.get()
            if stop.is_set():
                return
            buffer, have, cut = _fill(file, buffer, tail, pos)
            tail = buffer[cut:have].copy()
            ready.put((pos, buffer, cut))
            pos += cut
        ready.put(None)
    except BaseException as e:  # noqa: BLE001 (raised on the caller's thread)
        ready.put(e)


def line_blocks_ahead(file: GuardedFile,
                      block_size: int = 1 << 20) -> Iterator[tuple[int, np.ndarray]]:
    """``(file offset, bytes)`` of consecutive blocks of whole lines of about
    ``block_size`` bytes, as ``line_blocks(file, block_size)`` gives them (a line longer
    than a block comes whole, in a block of its own size); each view is valid until the
    next one. Errors of the reads (a file that changed) are raised here."""
    if file.size <= block_size:
        yield from line_blocks(file, block_size)
        return
    free: queue.Queue = queue.Queue()
    ready: queue.Queue = queue.Queue()
    for _ in range(BUFFERS):
        free.put(np.empty(block_size, dtype=np.uint8))
    stop = threading.Event()
    helper = threading.Thread(target=_read, args=(file, block_size, free, ready, stop),
                              name="minibatcher-read-ahead", daemon=True)
    helper.start()
    try:
        while (item := ready.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            pos, buffer, cut = item
            yield pos, buffer[:cut]
            free.put(buffer)
    finally:
        stop.set()
        free.put(np.empty(0, dtype=np.uint8))  # wakes a helper waiting for a buffer
        helper.join()
