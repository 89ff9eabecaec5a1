"""One TFRecord shard: a record index, batch reads and a record iterator.

Records are addressed by their position in the file (0, 1, ...). A record
whose data CRC does not match is an error naming the file, the byte offset of
its frame and its position; with ``max_errors=N`` up to N such records are
skipped and counted instead (their positions are then simply absent, so the
positions of the others, and TFDS example ids, do not shift). A bad length CRC
or a truncated frame is always an error: the rest of the file cannot be
framed.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.tfrecord import TFRecordWriter
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.tfrecord"
    >>> with TFRecordWriter(p) as w:
    ...     for i in range(5): w.write(b"record %d" % i)
    >>> f = TFRecordFile(p)
    >>> len(f), f.record(3), [bytes(r) for r in f.read(1, 2)]
    (5, b'record 3', [b'record 1', b'record 2'])
"""

from __future__ import annotations

import os
from typing import Any, Iterator

import numpy as np

from ...budget import ErrorBudget
from ...errors import FileChangedError, FormatError
from .backend import DATA_CRC, HEADER_CRC, OK, TRUNCATED, kernels
from .batches import RecordBatch, RecordSpans, _consecutive, _runs, _spans
from .framing import GrowingIndex
from .open_files import OpenFiles
from .streams import PlainStream, ZlibStream, open_stream

DEFAULT_BATCH_RECORDS = 1024
DEFAULT_BATCH_BYTES = 1 << 20


class TFRecordFile:
    """One TFRecord file (optionally GZIP/ZLIB compressed).

    ``verify_crc`` checks every record's data CRC (the length CRCs are always
    checked); ``max_errors`` corrupted records are skipped and counted
    (``skipped``) before the next one raises ``ErrorBudgetExceeded``. Files
    given one shared ``budget`` (an :class:`~minibatcher.budget.ErrorBudget`,
    instead of ``max_errors``) skip and count against it together.

    Example:
        >>> TFRecordFile("/no/such.tfrecord")
        Traceback (most recent call last):
        ...
        FileNotFoundError: [Errno 2] No such file or directory: '/no/such.tfrecord'
    """

    def __init__(self, path: str | os.PathLike, compression_type: str | None = None, *,
                 verify_crc: bool = True, max_errors: int = 0, impl: str = "native",
                 pool: "OpenFiles | None" = None, budget: ErrorBudget | None = None,
                 tolerant: bool = False) -> None:
        self.path = os.fspath(path)
        self._opened = open_stream(self.path, compression_type)
        self._identity = self._opened._file.identity
        self.file_size = self._opened.file_size
        self.compression_type = compression_type or ""
        self._pool = pool
        if pool is not None:
            pool.touch(self)
        self.verify_crc = bool(verify_crc)
        self._budget = budget if budget is not None else ErrorBudget(max_errors, self.path)
        self._k = kernels(impl)
        # tolerant (TFRecordDataset, as TF): a file that cannot be framed to its end holds
        # the records before the damage; tail_error says why
        self.tolerant = bool(tolerant)
        self.plain = self.compression_type == ""
        self._index = GrowingIndex(self)  # grown as the file is read (framing.py)

    @property
    def _stream(self) -> PlainStream | ZlibStream:
        """The open stream (reopened after the pool closed it: the same file only)."""
        if self._opened is None:
            stream = open_stream(self.path, self.compression_type)
            if not stream._file.identity.same_contents(self._identity):
                stream.close()
                raise FileChangedError(f"{self.path}: the TFRecord file changed since it was "
                                       f"indexed (size or modification time differ); reopen it "
                                       f"to read the new contents")
            self._opened = stream
        if self._pool is not None:
            self._pool.touch(self)
        return self._opened

    def release(self) -> None:
        """Closes the file descriptor; the next read reopens it (the index stays)."""
        if self._opened is not None:
            self._opened.close()
            self._opened = None

    @property
    def skipped(self) -> int:
        """Corrupted records skipped so far (each counted once; with a shared
        ``budget``, over all the files that share it)."""
        return self._budget.count

    @property
    def frames(self) -> np.ndarray:
        """The record index: the byte offset of every record's frame (the whole
        file framed on first use; reads in order frame it as they go)."""
        return self._index.whole()[0]

    def __len__(self) -> int:
        return len(self.frames)

    @property
    def framed(self) -> int:
        """Records framed so far (the whole file once ``len`` was asked)."""
        return self._index.n

    def available(self, stop: int) -> int:
        """``min(stop, len(self))``, framing the file only as far as that needs
        (keeping the chunk read for the records it holds).

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.tfrecord import TFRecordWriter
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.tfrecord"
            >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"b"])
            >>> f = TFRecordFile(p); f.available(1), f.available(5)
            (1, 2)
        """
        return self._index.available(stop)

    def mean_record_bytes(self) -> float:
        """Bytes per record, frames included: of the records framed so far, or
        guessed from the first bytes of a file not read yet."""
        return self._index.mean_record_bytes()

    @property
    def tail_error(self) -> str | None:
        """Why a ``tolerant`` file ends before its last byte (its records are the
        ones before the damage); None for a file framed to its end."""
        return self._index.tail_error

    @property
    def content_digest(self) -> str:
        """A digest of the whole file made by the framing: every record's length
        and stored data CRC (a same-size edit anywhere changes it)."""
        return self._index.digest()

    def _raise_if_fatal(self, r: dict, base: int, pos: int) -> None:
        """Raises for a bad length CRC, or a truncation at the end of the file."""
        offset = int(r["status_offset"]) + base
        if r["status"] == HEADER_CRC:
            raise self._index.damage(HEADER_CRC, offset, offset)
        if r["status"] == TRUNCATED:
            buf, b = self._stream.window(offset, 16)
            if self._stream.at_end(b + len(buf)):
                raise self._index.damage(TRUNCATED, offset, b + len(buf))

    def _position(self, frame: int) -> int:
        return int(np.searchsorted(self.frames, frame))

    def _charge(self, bad: np.ndarray, base: int) -> None:
        for frame in np.asarray(bad, dtype=np.int64) + base:
            self._budget.charge(("crc", self.path, int(frame)), self._crc_message(int(frame)))

    def _crc_message(self, frame: int) -> str:
        return (f"{self.path}: corrupted record {self._position(frame)} at byte {frame}: its "
                f"data CRC does not match; use max_errors=N to skip and count corrupted "
                f"records, or verify_crc=False to read without checking")

    def _start(self, start: int) -> int:
        if start == 0:
            return 0
        if start < 0 or self.available(start + 1) < start:
            raise IndexError(f"{self.path}: record {start} is out of range (the file holds "
                             f"{len(self)} records)")
        return int(self._index.known()[0][start]) if start < self._index.n else -1

    def _calls(self, start: int, count: int, as_list: bool, batch_records: int,
               batch_bytes: int) -> Iterator[tuple[dict, int, int]]:
        """Native calls covering ``count`` frames from record ``start`` (all when
        count < 0); yields (result, base, first position)."""
        if count < 0 and self.tolerant:
            count = len(self) - start  # the records before a damaged tail, not the damage
        pos, position, left = self._start(start), start, count
        fn = self._k.read_list if as_list else self._k.read
        while left != 0 and pos >= 0:
            buf, base = self._stream.window(pos, batch_bytes + 16)
            limit = batch_records if left < 0 else min(left, batch_records)
            skip_bad = self._budget.max_errors > 0
            r = fn(buf, pos - base, limit, batch_bytes, self.verify_crc, skip_bad)
            walked = len(r["frames"]) + len(r["bad"])
            self._charge(r["bad"], base)
            if walked:
                yield r, base, position
            if r["status"] == DATA_CRC:  # max_errors=0: this one raises
                frame = int(r["status_offset"]) + base
                self._budget.charge(("crc", self.path, frame), self._crc_message(frame))
            elif r["status"] != OK:
                self._raise_if_fatal(r, base, pos)
            if not walked:
                if self._stream.at_end(base + len(buf)):
                    return
                need = self._index.whole_frame(buf[pos - base:], pos, position)
                self._stream.window(pos, need)  # a frame spans the window
            position += walked
            left -= walked if left > 0 else 0
            pos = int(r["next"]) + base

    def batches(self, start: int = 0, count: int = -1, *,
                batch_records: int = DEFAULT_BATCH_RECORDS,
                batch_bytes: int = DEFAULT_BATCH_BYTES) -> Iterator[RecordBatch]:
        """Records ``[start, start + count)`` (to the end when ``count < 0``) in
        batches, each filled by one native call.

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.tfrecord import TFRecordWriter
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.tfrecord"
            >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"bb", b"ccc"])
            >>> [b.positions.tolist() for b in TFRecordFile(p).batches(batch_records=2)]
            [[0, 1], [2]]
        """
        for r, base, position in self._calls(start, count, False, batch_records, batch_bytes):
            yield RecordBatch(r["data"], r["ends"], self._positions(r, base, position))

    def _positions(self, r: dict, base: int, position: int) -> np.ndarray:
        frames = np.asarray(r["frames"], dtype=np.int64)
        if not len(r["bad"]):
            return np.arange(position, position + len(frames), dtype=np.int64)
        walked = np.sort(np.concatenate([frames, np.asarray(r["bad"], np.int64)]))
        return position + np.searchsorted(walked, frames).astype(np.int64)

    def read(self, start: int = 0, count: int = -1) -> RecordBatch:
        """Records ``[start, start + count)`` in one flat buffer.

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.tfrecord import TFRecordWriter
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.tfrecord"
            >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"bb", b"ccc"])
            >>> b = TFRecordFile(p).read(1); bytes(b.data), b.ends.tolist(), b.positions.tolist()
            (b'bbccc', [2, 5], [1, 2])
        """
        parts = list(self.batches(start, count, batch_records=1 << 62, batch_bytes=1 << 62))
        if len(parts) == 1:
            return parts[0]
        offsets = np.cumsum([0] + [len(p.data) for p in parts[:-1]])
        return RecordBatch(
            np.concatenate([p.data for p in parts]) if parts else np.zeros(0, np.uint8),
            np.concatenate([p.ends + o for p, o in zip(parts, offsets)]) if parts
            else np.zeros(0, np.int64),
            np.concatenate([p.positions for p in parts]) if parts else np.zeros(0, np.int64))

    def read_at(self, positions: Any) -> "RecordSpans":
        """The records at ``positions`` (any order, repeats allowed): the byte
        ranges covering them are read with one ``pread`` each into one buffer,
        their frames checked by one native call per range (CRCs verified), and
        the records left in place (no copy).

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.tfrecord import TFRecordWriter
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.tfrecord"
            >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"bb", b"ccc"])
            >>> TFRecordFile(p).read_at([2, 0, 2]).records()
            [b'ccc', b'a', b'ccc']
        """
        positions = np.asarray(positions, np.int64).reshape(-1)
        n = len(positions)
        if n:
            low, top = int(positions.min()), int(positions.max())
            if low < 0 or self.available(top + 1) <= top:
                bad = int(positions[(positions < 0) | (positions >= len(self))][0])
                raise IndexError(f"{self.path}: record {bad} is out of range (the file holds "
                                 f"{len(self)} records)")
        if not self.plain:
            return self._read_at_streaming(positions)
        if n and top - low == n - 1 and int(positions[0]) == low and \
                (n == 1 or bool((positions[1:] - positions[:-1] == 1).all())):
            parts = self._index.read_in_order(low, top + 1)
            if parts is not None:
                return _spans(parts, positions)
        return self._read_runs(positions)

    def read_range(self, start: int, stop: int) -> "RecordSpans":
        """Records ``[start, stop)`` in place, as :meth:`read_at` reads them
        (read in order: from the chunks of the growing index).

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.tfrecord import TFRecordWriter
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.tfrecord"
            >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"bb", b"ccc"])
            >>> TFRecordFile(p).read_range(1, 3).records()
            [b'bb', b'ccc']
        """
        if start < 0 or (stop > start and self.available(stop) < stop):
            raise IndexError(f"{self.path}: records [{start}, {stop}) are out of range (the "
                             f"file holds {len(self)} records)")
        if self.plain and stop > start:
            parts = self._index.read_in_order(start, stop)
            if parts is not None:
                return _spans(parts, np.arange(start, stop, dtype=np.int64))
        return self.read_at(np.arange(start, max(start, stop), dtype=np.int64))

    def _read_runs(self, positions: np.ndarray) -> "RecordSpans":
        """:meth:`read_at` by runs of the sorted frames: one ``pread`` per run
        into one buffer, the frames checked against the index."""
        frames, lengths = self._index.known()
        frames, lengths = frames[positions], lengths[positions]
        order = np.argsort(frames, kind="stable")
        runs = _runs(frames[order], lengths[order])
        spans = [(int(frames[order[r[0]]]), int((frames[order[r]] + lengths[order[r]]).max()) + 16)
                 for r in runs]
        data = np.empty(sum(hi - lo for lo, hi in spans), np.uint8)
        starts, at = np.empty(len(positions), np.int64), 0
        for run, (lo, hi) in zip(runs, spans):
            idx = order[run]
            buf = data[at:at + hi - lo]
            self._stream._file.read_into(buf, lo)
            status, failed = self._k.check_frames(buf, frames[idx] - lo, lengths[idx],
                                                  self.verify_crc)
            if status != OK:
                self._read_failed(status, int(frames[idx[failed]]))
            starts[idx] = frames[idx] - lo + at + 12
            at += hi - lo
        return RecordSpans(data, starts, starts + lengths, positions)

    def _lengths(self) -> np.ndarray:
        """Data bytes of every record, from the index."""
        return self._index.whole()[1]

    def _read_failed(self, status: int, frame: int) -> None:
        if status == DATA_CRC and not self._budget.max_errors:
            self._budget.charge(("crc", self.path, frame), self._crc_message(frame))
        raise FileChangedError(f"{self.path}: the record at byte {frame} no longer matches the "
                               f"file's record index (its length or CRC changed): the file "
                               f"changed since it was indexed; reopen it to read the new contents")

    def _read_at_streaming(self, positions: np.ndarray) -> "RecordSpans":
        """:meth:`read_at` for compressed files: sorted runs read in order."""
        wanted = np.unique(positions)
        data, ends, at = [], [], 0
        for first, count in _consecutive(wanted):
            batch = self.read(first, count)
            data.append(batch.data)
            ends.append(batch.ends + at)
            at += len(batch.data)
        flat_ends = np.concatenate(ends) if ends else np.zeros(0, np.int64)
        flat_starts = np.concatenate([[0], flat_ends[:-1]]).astype(np.int64)
        index = np.searchsorted(wanted, positions)
        return RecordSpans(np.concatenate(data) if data else np.zeros(0, np.uint8),
                           flat_starts[index], flat_ends[index], positions)

    def record(self, position: int) -> bytes:
        """The record at ``position`` (random access through the index).

        Raises IndexError past the end; a skipped corrupted record raises
        FormatError."""
        if position < 0 or self.available(position + 1) <= position:
            raise IndexError(f"{self.path}: record {position} is out of range (the file holds "
                             f"{len(self)} records)")
        batch = self.read(position, 1)
        if not len(batch):
            raise FormatError(self._crc_message(int(self.frames[position])))
        return bytes(batch[0])

    def iter_records(self, start: int = 0, count: int = -1) -> Iterator[bytes]:
        """The records as ``bytes``, one at a time (read in batches natively)."""
        for r, _, _ in self._calls(start, count, True, DEFAULT_BATCH_RECORDS, DEFAULT_BATCH_BYTES):
            yield from r["records"]

    def read_list(self, start: int = 0, count: int = -1) -> list[bytes]:
        """Records ``[start, start + count)`` as a list of ``bytes`` (skipped
        corrupted records are absent)."""
        out: list[bytes] = []
        for r, _, _ in self._calls(start, count, True, 1 << 62, DEFAULT_BATCH_BYTES):
            out.extend(r["records"])
        return out

    def __iter__(self) -> Iterator[bytes]:
        return self.iter_records()

    def close(self) -> None:
        """Closes the file."""
        self.release()
        if self._pool is not None:
            self._pool.forget(self)
