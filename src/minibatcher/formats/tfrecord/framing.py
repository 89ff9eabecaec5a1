"""A TFRecord file's record index, grown as the file is read in order.

A TFRecord file has no header: its records are found by walking the frames
from the first byte. :class:`GrowingIndex` walks them *while the file is
read*: a read of the next records reads the next chunk of the file (1 MiB,
into a pooled buffer), frames it, checks its records' data CRCs and feeds the
stored CRCs of the content digest in one native call (``frame_chunk``), appends the frames to the
index and keeps the chunk: the records are then used where they lie, so the
first pass over a file reads every byte once (it used to read the whole file
for the index, then again for the records). Whatever needs the whole index
(``len``, a record past what is framed, the content digest of a checkpoint)
frames the rest of the file at once (without keeping its bytes): a state taken
in the middle of a first pass costs one pass over the rest of the file.

Reads in order of records already indexed (a second epoch, a file measured
before it was read) go through chunks too: a chunk of whole records is read
with one ``pread`` and its frames checked against the index, so consecutive
small reads (an interleave's slot reads a few records at a time) cost one
read per MiB. Chunks stay while records after the last one read lie in them
(at most :data:`KEEP_CHUNKS` per file); blocks hold their buffers as long as
they use them, and :data:`POOL` hands a buffer out again once nothing refers
to it (fresh memory would cost a page fault per 4 KiB).

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.tfrecord import TFRecordFile, TFRecordWriter
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.tfrecord"
    >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"bb", b"ccc"])
    >>> f = TFRecordFile(p); f.available(2), f.framed, f.read_at([0, 1]).records()
    (2, 3, [b'a', b'bb'])
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import sys
import threading
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import FormatError
from .backend import HEADER_CRC, OK, TRUNCATED

if TYPE_CHECKING:
    from .records import TFRecordFile

CHUNK_BYTES = 1 << 20  # bytes read per chunk (more for a record that does not fit)
KEEP_CHUNKS = 12       # chunks a file keeps for the reads after the last one
PROBE_BYTES = 4096     # bytes read to guess the record size of a file not read yet


class BufferPool:
    """Read buffers of ``size`` bytes, handed out again once nothing but the
    pool refers to them (a block that still uses one keeps it); at most
    ``keep`` are pooled.

    Example:
        >>> pool = BufferPool(16, keep=2); a = pool.take(); b = pool.take()
        >>> pool.take() is a, len(a)
        (False, 16)
        >>> del a; pool.take() is not b
        True
    """

    def __init__(self, size: int, keep: int) -> None:
        self.size, self.keep = size, keep
        self._buffers: list[np.ndarray] = []
        self._lock = threading.Lock()

    def take(self) -> np.ndarray:
        """A buffer of ``size`` bytes nothing else refers to."""
        with self._lock:
            buffers = self._buffers
            for i in range(len(buffers)):  # the first free one: recently used, still cached
                # referred to by the list and getrefcount's argument only (a view of the
                # buffer refers to it: NumPy views refer to their base)
                if sys.getrefcount(buffers[i]) <= 2:
                    return buffers[i]
            buffer = np.empty(self.size, np.uint8)
            if len(buffers) < self.keep:
                buffers.append(buffer)
            return buffer


POOL = BufferPool(CHUNK_BYTES, keep=64)  # up to 64 MiB kept for reuse


def read_buffer(size: int) -> np.ndarray:
    """``size`` bytes to read into: pooled when they fit a chunk buffer.

    Example:
        >>> len(read_buffer(10)), len(read_buffer(CHUNK_BYTES + 1)) == CHUNK_BYTES + 1
        (10, True)
    """
    return POOL.take()[:size] if size <= CHUNK_BYTES else np.empty(size, np.uint8)


@dataclasses.dataclass(frozen=True)
class Chunk:
    """Records ``[first, stop)`` of a file in ``data`` (read from byte
    ``base``): record ``first + i`` has its frame at ``data[frames[i]]`` and
    ``lengths[i]`` data bytes; frames checked, data CRCs of records before
    ``good_stop`` too (when the file verifies them)."""

    data: np.ndarray
    base: int
    first: int
    frames: np.ndarray
    lengths: np.ndarray
    good_stop: int

    @property
    def stop(self) -> int:
        """The position after the chunk's last record."""
        return self.first + len(self.frames)


class GrowingIndex:
    """The record index of one file (see the module docstring): the frames of
    records ``[0, n)``, the byte offset ``next`` of the first frame not
    framed yet, ``complete`` once the file is framed to its end (or to the
    damage of a ``tolerant`` file: ``tail_error``, ``end``), the stored data
    CRCs the content digest is made of, and the chunks kept for reads in order."""

    def __init__(self, file: "TFRecordFile") -> None:
        self._file = weakref.ref(file)  # no cycle: a file is closed when its last user drops it
        self._frames = np.zeros(0, np.int64)
        self._lengths = np.zeros(0, np.int64)
        self._crcs = np.zeros(0, np.uint32)  # stored data CRCs: the digest's rows, with lengths
        self.n = self.next = 0
        self.complete = False
        self._digest: str | None = None
        self.tail_error: str | None = None
        self.end = file.file_size
        self.chunks: collections.deque[Chunk] = collections.deque()
        self.lock = threading.RLock()

    @property
    def file(self) -> "TFRecordFile":
        """The file this is the index of."""
        file = self._file()
        if file is None:  # pragma: no cover - the file holds its index
            raise ReferenceError("the TFRecord file of this index was closed")
        return file

    # -- the index ----------------------------------------------------------------------------

    def known(self) -> tuple[np.ndarray, np.ndarray]:
        """Frames and lengths of the records framed so far (views)."""
        return self._frames[:self.n], self._lengths[:self.n]

    def whole(self) -> tuple[np.ndarray, np.ndarray]:
        """Frames and lengths of every record (frames the rest of the file)."""
        with self.lock:
            while not self.complete:
                self._frame_next(keep=False)
            return self.known()

    def available(self, stop: int) -> int:
        """``min(stop, records)``, framing only as far as that needs."""
        if stop <= self.n or self.complete:  # n only grows: no lock needed to read it
            return min(stop, self.n)
        with self.lock:
            while self.n < stop and not self.complete:
                self._frame_next(keep=self.file.plain)
            return min(stop, self.n)

    def digest(self) -> str:
        """The content digest of the whole file: BLAKE2b of every record's length
        (8 bytes, little-endian) and stored data CRC (4 bytes), in file order."""
        with self.lock:
            if self._digest is None:
                frames, lengths = self.whole()
                rows = np.empty(len(frames), np.dtype([("length", "<i8"), ("crc", "<u4")]))
                rows["length"], rows["crc"] = lengths, self._crcs[:self.n]
                self._digest = hashlib.blake2b(rows.tobytes(), digest_size=16).hexdigest()
            return self._digest

    def _add(self, frames: np.ndarray, lengths: np.ndarray, crcs: np.ndarray) -> None:
        n, k = self.n, len(frames)
        if n + k > len(self._frames):
            size = max(n + k, 2 * len(self._frames), 1024)
            self._frames, self._lengths, self._crcs = (
                np.concatenate([a[:n], np.empty(size - n, a.dtype)])
                for a in (self._frames, self._lengths, self._crcs))
        self._frames[n:n + k] = frames
        self._lengths[n:n + k] = lengths
        self._crcs[n:n + k] = crcs
        self.n = n + k

    # -- framing ------------------------------------------------------------------------------

    def _frame_next(self, keep: bool) -> None:
        """Frames the records of the next window of the file (a chunk kept for
        reading when ``keep``); a damaged tail ends a tolerant file."""
        at = self.next  # where the frame being framed starts
        try:
            self._frame_window(keep)
        except FormatError as e:
            if not self.file.tolerant:
                raise
            at = getattr(e, "frame_offset", at)
            self.tail_error, self.end, self.complete = str(e), at, True

    def _frame_window(self, keep: bool) -> None:
        f, pos, need = self.file, self.next, 16
        while True:
            data, at_end = self._window(pos, need, keep)
            r = f._k.frame_chunk(data, f.verify_crc and keep)
            if len(r["frames"]) or r["status"] != TRUNCATED or at_end:
                break
            need = self.whole_frame(data, pos, self.n)  # a frame larger than the window
        first = self.n
        frames = np.asarray(r["frames"], np.int64)
        self._add(frames + pos, r["lengths"], r["crcs"])
        if r["status"] == HEADER_CRC or (r["status"] == TRUNCATED and at_end):
            self.next = pos + int(r["status_offset"])
            raise self.damage(r["status"], self.next, pos + len(data))
        self.next = pos + int(r["next"])
        self.complete = at_end and r["status"] == OK
        if keep and len(frames):
            bad = int(r["first_bad"])
            self.chunks.append(Chunk(data, pos, first, frames, np.asarray(r["lengths"], np.int64),
                                     first + bad if bad >= 0 else first + len(frames)))
            while len(self.chunks) > KEEP_CHUNKS:
                self.chunks.popleft()

    def _window(self, pos: int, need: int, keep: bool) -> tuple[Any, bool]:
        """The bytes from ``pos`` (at least ``need`` unless the stream ends first),
        and whether they reach the end of the stream: a pooled buffer of its own
        for a chunk kept, else the stream's reused window."""
        f = self.file
        if keep:
            size = min(max(need, CHUNK_BYTES), f.file_size - pos)
            data = read_buffer(size)
            f._stream._file.read_into(data, pos)
            return data, pos + size >= f.file_size
        stream = f._stream
        buf, base = stream.window(pos, need)
        return buf[pos - base:], stream.at_end(base + len(buf))

    def whole_frame(self, data: Any, pos: int, record: int) -> int:
        """The size of the frame at ``pos`` (whose length CRC matched); a length
        claiming more than the stream holds is a FormatError before anything is
        allocated for it."""
        f = self.file
        need = 16 + (int.from_bytes(bytes(data[:8]), "little") if len(data) >= 12 else 0)
        reach = f._stream.reach(pos + need)
        if reach < pos + need:
            e = FormatError(f"{f.path}: truncated record {record} at byte {pos}: its length "
                            f"field says {need - 16} data bytes, but the "
                            f"{f._stream.describe()} ends {reach - pos} bytes into the "
                            f"frame (expected a 12-byte header, the data and a 4-byte CRC)")
            e.frame_offset = pos  # type: ignore[attr-defined]
            raise e
        return need

    def damage(self, status: int, offset: int, reach: int) -> FormatError:
        """The error of a frame that cannot be framed (a bad length CRC, or a
        truncation at ``offset`` of a stream that ends at ``reach``)."""
        path = self.file.path
        if status == HEADER_CRC:
            e = FormatError(f"{path}: corrupted record at byte {offset}: the CRC of its length "
                            f"field does not match, so the file cannot be framed from there")
        else:
            e = FormatError(f"{path}: truncated record at byte {offset}: the file ends "
                            f"{reach - offset} bytes into a record frame (expected a 12-byte "
                            f"header, the data and a 4-byte CRC)")
        e.frame_offset = offset  # type: ignore[attr-defined]
        return e

    def mean_record_bytes(self) -> float:
        """Bytes per record (frame included): of the records framed so far, or
        guessed from the file's first bytes (a file not read yet)."""
        if self.n or self.complete or not self.file.plain:
            if not self.file.plain:
                self.whole()
            return self.next / max(1, self.n) if self.n else float(max(16, self.file.file_size))
        f = self.file
        data = f._stream._file.read(0, min(PROBE_BYTES, f.file_size))
        r = f._k.frame_chunk(data, False)
        if len(r["frames"]):
            return int(r["next"]) / len(r["frames"])
        length = int.from_bytes(bytes(data[:8]), "little") if len(data) >= 12 else 0
        return float(min(max(16, f.file_size), 16 + length))

    # -- reading in order ---------------------------------------------------------------------

    def read_in_order(self, start: int, stop: int) -> list[tuple[Chunk, int, int]] | None:
        """Records ``[start, stop)`` (framed: ``stop <= n``) as ``(chunk, lo,
        hi)`` parts, from the chunks kept, framed or read in order; None when a
        data CRC among them does not match or a chunk read finds the frames
        changed (the caller's read by position then reports it)."""
        with self.lock:
            last = self.chunks[-1] if self.chunks else None
            if last is not None and last.first <= start and stop <= last.good_stop:
                parts = [(last, start, stop)]  # reads in order mostly find their records there
            else:
                parts = self._parts(start, stop)
            while self.chunks and self.chunks[0].stop <= stop:  # handed out: not kept
                self.chunks.popleft()
            return parts

    def _parts(self, start: int, stop: int) -> list[tuple[Chunk, int, int]] | None:
        parts = []
        while start < stop:
            chunk = self._chunk_holding(start)
            if chunk is None:
                return None
            hi = min(stop, chunk.stop)
            if chunk.good_stop < hi:
                return None
            parts.append((chunk, start, hi))
            start = hi
        return parts

    def _chunk_holding(self, position: int) -> Chunk | None:
        for chunk in self.chunks:
            if chunk.first <= position < chunk.stop:
                return chunk
        if position >= self.n:
            return None
        return self._read_chunk(position)

    def _read_chunk(self, first: int) -> Chunk | None:
        """A chunk of whole indexed records from ``first``: one read, the frames
        checked against the index (data CRCs verified)."""
        f = self.file
        frames, lengths = self.known()
        lo = int(frames[first])
        ends = frames[first:] + lengths[first:] + 16
        count = max(1, int(np.searchsorted(ends, lo + CHUNK_BYTES, side="right")))
        size = int(ends[count - 1]) - lo
        data = read_buffer(size)
        f._stream._file.read_into(data, lo)
        rel = frames[first:first + count] - lo
        mine = lengths[first:first + count]
        status, _ = f._k.check_frames(data, rel, mine, f.verify_crc)
        if status != OK:
            return None
        chunk = Chunk(data, lo, first, rel, mine, first + count)
        self.chunks.append(chunk)
        while len(self.chunks) > KEEP_CHUNKS:
            self.chunks.popleft()
        return chunk
