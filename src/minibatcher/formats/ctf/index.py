"""The CTF index: per sequence its key, byte span, rows and first line.

Built in one pass by the native indexer (or the reference) over blocks read
with ``pread`` (:func:`index_file`), grouped into
chunks with CNTK's greedy rule, and optionally cached next to the data file
(:mod:`.index_cache`). See docs/ctf-format.md, "Index".

Example:
    >>> idx = build_ctf_index("mem.ctf", b"|a 1\\n|a 2\\n", skip_sequence_ids=False,
    ...                       main_alias="", impl="python")
    >>> idx.keys.tolist(), idx.rows.tolist(), idx.chunk_starts(32 << 20, 10, "python").tolist()
    ([0, 1], [1, 1], [0, 2])
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable

import numpy as np

from ...errors import ConfigError, FormatError
from ..guarded_file import GuardedFile
from ..read_ahead import line_blocks_ahead
from .backend import backend
from .issues import excerpt
from .reference_index import IndexStatus

INDEX_BLOCK = 1 << 20  # bytes read per block while indexing (read ahead by a helper thread)
ARRAY_FIELDS = ("keys", "offsets", "sizes", "rows", "lines", "dropped_offsets", "dropped_lines")
_SIGNED = (np.int8, np.int16, np.int32, np.int64)
_UNSIGNED = (np.uint8, np.uint16, np.uint32, np.uint64)


def narrow(values: np.ndarray) -> np.ndarray:
    """The array in the smallest integer type of its signedness that holds it
    (indexes of big files are big: narrow arrays keep them small in memory and on disk).

    Example:
        >>> narrow(np.array([1, 300], dtype=np.int64)).dtype, narrow(np.array([7], np.uint64)).dtype
        (dtype('int16'), dtype('uint8'))
    """
    if not len(values):
        return values
    lo, hi = values.min(), values.max()
    for dtype in (_UNSIGNED if values.dtype.kind == "u" else _SIGNED):
        info = np.iinfo(dtype)
        if info.min <= lo and hi <= info.max:
            return values if values.dtype == dtype else values.astype(dtype)
    return values


@dataclass(frozen=True, eq=False)
class CTFIndex:
    """Sequences of one CTF file, in file order.

    ``rows`` is the budget length: the number of rows, or of rows that name
    the stream defining the minibatch size. Arrays hold the smallest integer
    type that fits their values (see :func:`narrow`). ``dropped_*`` locate sequences
    (or, in line mode, lines) skipped because they lack that stream.

    Example:
        >>> idx = build_ctf_index("m", b"0 |a 1\\n0 |a 2\\n1 |a 3\\n", skip_sequence_ids=False,
        ...                       main_alias="", impl="python")
        >>> idx.num_sequences, idx.line_mode, idx.rows.tolist()
        (2, False, [2, 1])
    """

    keys: np.ndarray
    offsets: np.ndarray
    sizes: np.ndarray
    rows: np.ndarray
    lines: np.ndarray
    dropped_offsets: np.ndarray
    dropped_lines: np.ndarray
    line_mode: bool
    total_lines: int
    ignored_lines: int

    @property
    def num_sequences(self) -> int:
        """Number of indexed sequences.

        Example:
            >>> build_ctf_index("m", b"|a 1\\n", skip_sequence_ids=False, main_alias="",
            ...                 impl="python").num_sequences
            1
        """
        return len(self.keys)

    def chunk_starts(self, chunk_size: int, file_size: int, impl: str) -> np.ndarray:
        """First sequence of every chunk, plus the sequence count (CNTK's rule
        with ``max_chunk = min(chunk_size, file_size)``).

        Example:
            >>> idx = build_ctf_index("m", b"|a 1\\n|a 2\\n|a 3\\n", skip_sequence_ids=False,
            ...                       main_alias="", impl="python")
            >>> idx.chunk_starts(10, 15, "python").tolist()
            [0, 2, 3]
        """
        if self.num_sequences == 0:
            return np.zeros(1, dtype=np.int64)
        max_chunk = max(1, min(int(chunk_size), int(file_size)))
        return backend(impl).chunk_starts(self.offsets, self.sizes, max_chunk)

    def repeated_ids(self) -> np.ndarray:
        """Positions of sequences whose id already appeared earlier in the
        file on a non-adjacent line (an error, DECISIONS.md 5). Empty in line mode.

        Example:
            >>> idx = build_ctf_index("m", b"1 |a 1\\n2 |a 2\\n1 |a 3\\n", skip_sequence_ids=False,
            ...                       main_alias="", impl="python")
            >>> idx.repeated_ids().tolist()
            [2]
        """
        if self.line_mode or self.num_sequences < 2:
            return np.zeros(0, dtype=np.int64)
        order = np.argsort(self.keys, kind="stable")
        repeat = np.zeros(len(order), dtype=bool)
        repeat[1:] = self.keys[order[1:]] == self.keys[order[:-1]]
        return np.sort(order[repeat])

    def arrays(self) -> dict[str, np.ndarray]:
        """The array fields by name (for the cache).

        Example:
            >>> sorted(build_ctf_index("m", b"|a 1\\n", skip_sequence_ids=False, main_alias="",
            ...                        impl="python").arrays())[:2]
            ['dropped_lines', 'dropped_offsets']
        """
        return {name: getattr(self, name) for name in ARRAY_FIELDS}

    @classmethod
    def from_parts(cls, arrays: dict[str, np.ndarray], scalars: dict[str, Any]) -> "CTFIndex":
        """Rebuilds an index from :meth:`arrays` and its scalar fields.

        Example:
            >>> i = build_ctf_index("m", b"|a 1\\n", skip_sequence_ids=False, main_alias="", impl="python")
            >>> CTFIndex.from_parts(i.arrays(), i.scalars()).keys.tolist()
            [0]
        """
        return cls(**arrays, **{k: scalars[k] for k in ("line_mode", "total_lines", "ignored_lines")})

    def scalars(self) -> dict[str, Any]:
        """The non-array fields.

        Example:
            >>> build_ctf_index("m", b"|a 1\\n", skip_sequence_ids=False, main_alias="",
            ...                 impl="python").scalars()["line_mode"]
            True
        """
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ARRAY_FIELDS}


def _status_error(path: str, status: IndexStatus, out: dict[str, Any], data: Any) -> FormatError:
    offset, line = int(out["status_offset"]), int(out["status_line"])
    if status == IndexStatus.EMPTY_FILE:
        return FormatError(f"{path}: the file is empty (or blank); expected CTF rows such as "
                           "'|features 1 2 3'")
    if status == IndexStatus.UTF16_BOM:
        return FormatError(f"{path}: found a UTF-16 byte order mark at byte 0; expected UTF-8 or "
                           "ASCII text (convert it, e.g. with 'iconv -f UTF-16 -t UTF-8')")
    text, column = excerpt(data, offset)
    where = f"{path}:{line}:{column + 1} (byte offset {offset})"
    if status == IndexStatus.SEQUENCE_ID_OVERFLOW:
        what = "the sequence id does not fit into 64 bits; expected an id below 2**64"
    else:
        what = ("expected a sequence id (digits) at the start of the line: the file uses sequence "
                "ids because its first non-blank byte is not '|' (use skip_sequence_ids=True to "
                "ignore ids)")
    return FormatError(f"{where}: {what}\n    {text}\n    {' ' * column}^")


def _from_output(path: str, out: dict[str, Any], data: Any) -> CTFIndex:
    status = IndexStatus(int(out["status"]))
    if status != IndexStatus.OK:
        raise _status_error(path, status, out, data)
    arrays = {name: narrow(np.asarray(out[name])) for name in ARRAY_FIELDS}
    return CTFIndex(**arrays, line_mode=bool(out["line_mode"]), total_lines=int(out["total_lines"]),
                    ignored_lines=int(out["ignored_lines"]))


def _native_blocks(file: GuardedFile, skip_sequence_ids: bool, main_alias: str, block_size: int,
                   progress: Callable[[int], object] | None) -> dict[str, Any]:
    from ... import _native

    indexer = _native.CtfIndexer(bool(skip_sequence_ids), main_alias)
    for offset, block in line_blocks_ahead(file, block_size):
        end = offset + len(block)
        consumed = indexer.feed(block, offset, end == file.size)
        if indexer.status != IndexStatus.OK:
            break
        if consumed != len(block):
            raise FormatError(f"{file.path}: the indexer consumed {consumed} of {len(block)} bytes "
                              f"at byte offset {offset} (please report this as a bug)")
        if progress is not None:
            progress(end)
    return indexer.finish()


def index_file(file: GuardedFile, *, skip_sequence_ids: bool, main_alias: str, impl: str,
               progress: Callable[[int], object] | None = None,
               block_size: int = INDEX_BLOCK) -> CTFIndex:
    """Indexes an open CTF file read in blocks with ``pread`` (never mapped:
    a file that shrinks while it is indexed is a
    :class:`~minibatcher.errors.FileChangedError`, not a crash). Raises
    :class:`FormatError` naming the location of a fatal problem, and
    ``FileChangedError`` when the file changed while it was indexed.
    ``progress(bytes_done)`` is called after each block and once at the end.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher.formats.guarded_file import GuardedFile
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"; _ = p.write_text("|a 1\\n|a 2\\n")
        >>> with GuardedFile(p) as f:
        ...     index_file(f, skip_sequence_ids=False, main_alias="", impl="native").lines.tolist()
        [1, 2]
    """
    if not isinstance(main_alias, str):
        raise ConfigError(f"main_alias should be a string, but got {main_alias!r}")
    if impl == "native":
        out = _native_blocks(file, skip_sequence_ids, main_alias, block_size, progress)
    else:
        data = np.empty(file.size, dtype=np.uint8)
        file.read_into(data, 0)
        out = backend(impl).build_index(data, bool(skip_sequence_ids), main_alias, progress)
        if progress is not None:
            progress(file.size)
    file.check()  # changed while it was indexed: the index may describe no version of it
    return _from_output(file.path, out, file.read_excerpt)


def build_ctf_index(path: str, data: Any, *, skip_sequence_ids: bool, main_alias: str, impl: str,
                    progress: Callable[[int], object] | None = None) -> CTFIndex:
    """Indexes CTF bytes; raises :class:`FormatError` naming the location of a fatal problem.

    Example:
        >>> build_ctf_index("x.ctf", b"abc\\n", skip_sequence_ids=False, main_alias="", impl="python")
        Traceback (most recent call last):
        ...
        minibatcher.errors.FormatError: x.ctf:1:1 (byte offset 0): expected a sequence id (digits) at the start of the line: the file uses sequence ids because its first non-blank byte is not '|' (use skip_sequence_ids=True to ignore ids)
            abc
            ^
    """
    if not isinstance(main_alias, str):
        raise ConfigError(f"main_alias should be a string, but got {main_alias!r}")
    out = backend(impl).build_index(data, bool(skip_sequence_ids), main_alias, progress)
    return _from_output(path, out, data)
