"""TFRecord files as *record sources*: the one way every reader reaches TFRecord data.

``TFRecordDataset``, TFDS's ``as_dataset`` and the Ray datasource all read
through a :class:`TFRecordSource`: the records of one file, or of the range
``[skip, skip + take)`` of it (a TFDS file instruction), with ``len``,
``source[i]`` and block reads ``source.read(start, stop)`` through the file's
record index (so ``skip``/``shard``/restores seek), the records' positions in
the file (``positions``: TFDS ids, Ray's ``index`` column), streaming reads
(``batches``) and ``fingerprint()`` for checkpoints.

The sources of one reader share a :class:`TFRecordFiles`: the open files
(each indexed once however many sources read it; at most ``limit``
descriptors held), the CRC options and the error budget. With
``max_errors > 0`` the corrupted records of a source's range are found (and
counted) when it is first measured and are left out of it, so its length and
indices stay consistent; their positions are absent from ``positions``.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.tfrecord import TFRecordWriter
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.tfrecord"
    >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"b", b"c"])
    >>> s = TFRecordSource(p); len(s), s[2], s.read(0, 2)
    (3, b'c', [b'a', b'b'])
    >>> r = TFRecordFiles().source(p, skip=1, take=2); r.read(0, 2), r.positions(0, 2).tolist()
    ([b'b', b'c'], [1, 2])
"""

from __future__ import annotations

import os
from typing import Any, Iterator

import numpy as np

from ...budget import ErrorBudget
from ...errors import FormatError
from ..file_digest import file_fingerprint
from .records import OpenFiles, RecordBatch, RecordSpans, TFRecordFile
from .streams import check_compression


class TFRecordFiles:
    """The TFRecord files one reader opens, each once, with shared options.

    ``budget``: one :class:`~minibatcher.budget.ErrorBudget` that every file
    charges (TFDS's ``ReadConfig.max_errors``); without it each file gets its
    own budget of ``max_errors`` (``TFRecordDataset``). ``what`` and
    ``expected_from`` name the files and the origin of expected record counts
    in messages.

    Example:
        >>> files = TFRecordFiles(max_errors=2); files.skipping, files.skipped, files.limit
        (True, 0, 64)
    """

    what = "TFRecord file"
    expected_from = "the caller"

    def __init__(self, compression_type: str | None = None, *, verify_crc: bool = True,
                 max_errors: int = 0, budget: ErrorBudget | None = None,
                 limit: int = 64, tolerant: bool = False) -> None:
        self.compression_type = check_compression(compression_type)
        self.verify_crc = bool(verify_crc)
        self.tolerant = tolerant  # a damaged tail ends a file (TFRecordFile.tail_error)
        self.max_errors = max_errors
        self.budget = budget
        self._pool = OpenFiles(limit)  # at most `limit` descriptors however many files
        self._files: dict[str, TFRecordFile] = {}

    @property
    def limit(self) -> int:
        """Descriptors held at most (the least recently used files reopen when read)."""
        return self._pool.limit

    @property
    def skipping(self) -> bool:
        """Whether corrupted records are skipped (CRCs verified, a budget above 0)."""
        allowed = self.budget.max_errors if self.budget is not None else self.max_errors
        return self.verify_crc and allowed > 0

    @property
    def skipped(self) -> int:
        """Corrupted records skipped so far, each counted once."""
        if self.budget is not None:
            return self.budget.count
        return sum(f.skipped for f in self._files.values())

    def open(self, path: str, expected: int | None = None) -> TFRecordFile:
        """The file at ``path``, opened (and, with ``expected``, indexed and
        checked to hold that many records) on first use."""
        f = self._files.get(path)
        if f is None:
            f = TFRecordFile(path, self.compression_type, verify_crc=self.verify_crc,
                             max_errors=self.max_errors, pool=self._pool, budget=self.budget,
                             tolerant=self.tolerant)
            if expected is not None and len(f) != expected:
                raise FormatError(f"{path}: the {self.what} holds {len(f)} records, but "
                                  f"{self.expected_from} says {expected}")
            self._files[path] = f
        return f

    def source(self, path: str | os.PathLike, skip: int = 0, take: int | None = None,
               expected: int | None = None) -> "TFRecordSource":
        """The records ``[skip, skip + take)`` of ``path`` (to the end without
        ``take``) as a :class:`TFRecordSource` of these files."""
        return TFRecordSource(path, files=self, skip=skip, take=take, expected=expected)


class TFRecordSource:
    """Records ``[skip, skip + take)`` of one TFRecord file as a record source
    (records are ``bytes``); the whole file by default.

    Without ``files`` the source has files of its own with the given options.
    The file is opened on first use (:meth:`open` opens it at once).

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher.formats.tfrecord import TFRecordWriter
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.tfrecord"
        >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"b", b"c"])
        >>> s = TFRecordSource(p, skip=1); len(s), s[0], [bytes(r) for b in s.batches() for r in b]
        (2, b'b', [b'b', b'c'])
    """

    def __init__(self, path: str | os.PathLike, compression_type: str | None = None, *,
                 verify_crc: bool = True, max_errors: int = 0,
                 files: TFRecordFiles | None = None, skip: int = 0, take: int | None = None,
                 expected: int | None = None) -> None:
        self.path = os.fspath(path)
        self.files = files if files is not None else TFRecordFiles(
            compression_type, verify_crc=verify_crc, max_errors=max_errors)
        self.skip, self._take, self.expected = int(skip), take, expected
        self._good: np.ndarray | None = None
        self._file: TFRecordFile | None = None

    def open(self) -> TFRecordFile:
        """The file (opened, and checked against ``expected``, on first use)."""
        if self._file is None:
            self._file = self.files.open(self.path, self.expected)
        return self._file

    @property
    def file(self) -> TFRecordFile:
        """The open file (see :meth:`open`)."""
        return self.open()

    @property
    def take(self) -> int:
        """Records of the range (the corrupted ones included)."""
        if self._take is None:
            self._take = len(self.open()) - self.skip
        return self._take

    def good_positions(self) -> np.ndarray | None:
        """Positions in the file of the records this source holds; None when
        nothing is skipped (all of ``[skip, skip + take)``). Found once, by one
        verifying pass that charges every corrupted record."""
        if not self.files.skipping:
            return None
        if self._good is None:
            parts = [b.positions for b in self.batches(batch_records=1 << 62,
                                                       batch_bytes=16 << 20)]
            self._good = np.concatenate(parts) if parts else np.zeros(0, np.int64)
        return self._good

    def __len__(self) -> int:
        good = self.good_positions()
        return self.take if good is None else len(good)

    def __getitem__(self, index: int) -> bytes:
        return self.read(index, index + 1)[0]

    def positions(self, start: int, stop: int) -> np.ndarray:
        """File positions of records ``start .. stop-1`` of this source."""
        good = self.good_positions()
        if good is None:
            return np.arange(self.skip + start, self.skip + max(start, stop), dtype=np.int64)
        return good[start:stop]

    def read(self, start: int, stop: int) -> list[bytes]:
        """Records ``start .. stop-1`` (one native call per batch of the file)."""
        if stop <= start:
            return []
        at = self.positions(start, stop)
        first = int(at[0])
        return self.open().read_list(first, int(at[-1]) + 1 - first)

    def gather(self, indices: Any) -> RecordSpans:
        """Records ``indices`` of this source (any order, repeats allowed) read by
        position (:meth:`TFRecordFile.read_at`: one ``pread`` per range of the
        file, the records left in place).

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.tfrecord import TFRecordWriter
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.tfrecord"
            >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"bb", b"c"])
            >>> TFRecordSource(p, skip=1).gather([1, 0]).records()
            [b'c', b'bb']
        """
        indices = np.asarray(indices, np.int64)
        if len(indices) and (indices.min() < 0 or
                             self.available(int(indices.max()) + 1) <= indices.max()):
            raise IndexError(f"{self.path}: record index out of range (the source holds "
                             f"{len(self)} records)")
        good = self.good_positions()
        return self.open().read_at(self.skip + indices if good is None else good[indices])

    def block(self, start: int, stop: int) -> RecordSpans:
        """Records ``start .. stop-1`` of this source, in place (read in order:
        :meth:`TFRecordFile.read_range`).

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.tfrecord import TFRecordWriter
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.tfrecord"
            >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"bb", b"c"])
            >>> TFRecordSource(p, skip=1).block(0, 2).records()
            [b'bb', b'c']
        """
        if self.good_positions() is not None or start < 0:
            return self.gather(np.arange(start, max(start, stop), dtype=np.int64))
        if self._take is not None and stop > self._take:
            raise IndexError(f"{self.path}: record index out of range (the source holds "
                             f"{len(self)} records)")
        return self.open().read_range(self.skip + start, self.skip + max(start, stop))

    @property
    def block_limit(self) -> int:
        """Records per block read (about 8 MB at the file's mean record size, as
        far as it is framed; guessed from its first bytes before it is read)."""
        mean = self.open().mean_record_bytes()
        return int(min(4096, max(16, (8 << 20) // max(1, mean))))

    def available(self, stop: int) -> int:
        """``min(stop, len(self))``, framing the file only as far as that needs
        (:meth:`TFRecordFile.available`).

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.tfrecord import TFRecordWriter
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.tfrecord"
            >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"b", b"c"])
            >>> TFRecordSource(p, skip=1).available(5), TFRecordSource(p).available(2)
            (2, 2)
        """
        if self._take is not None or self.files.skipping:
            return min(stop, len(self))
        return max(0, self.open().available(self.skip + stop) - self.skip)

    def batches(self, **options: int) -> Iterator[RecordBatch]:
        """The source's records in :class:`RecordBatch` es (streaming, each
        with the records' file positions); ``options`` as
        :meth:`TFRecordFile.batches`."""
        count = -1 if self._take is None else self._take  # to the end: no index needed
        return self.open().batches(self.skip, count, **options)

    def fingerprint(self) -> Any:
        """The file's checkpoint identity: its size and a digest of every
        record's length and data CRC (made as the file is framed; no names
        or times), then ``skip`` and ``take`` for a range.

        Example:
            >>> import tempfile, pathlib
            >>> from minibatcher.formats.tfrecord import TFRecordWriter
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.tfrecord"
            >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"b"])
            >>> fp = TFRecordSource(p).fingerprint(); fp[0], len(fp)
            (34, 2)
            >>> with TFRecordWriter(p) as w: w.write_many([b"a", b"c"])  # same size
            >>> TFRecordSource(p).fingerprint() == fp, TFRecordSource(p, skip=1).fingerprint()[2:]
            (False, [1, 1])
        """
        f = self.open()
        identity = file_fingerprint(f.file_size, f.content_digest)
        whole = self.skip == 0 and (self._take is None or self._take == len(f))
        return identity if whole else identity + [self.skip, self.take]

    @property
    def skipped(self) -> int:
        """Corrupted records skipped so far by the files of this source."""
        return self.files.skipped
