"""Pure-Python reference parser of the CTF grammar (docs/ctf-format.md).

Small and readable on purpose: it defines the behaviour the native parser
(``cpp/ctf/parser.cc``) must reproduce. Every parser test runs against both,
and the two are fuzzed against each other. It returns exactly the structure
of ``minibatcher._native.ctf_parse``.

Example:
    >>> out = parse(b"|a 1 2\\n|a 3\\n", 0, [0, 7], [7, 5], [1, 1], [1, 2],
    ...             ["a"], [2], [False], -1, False, 1, 64)
    >>> out["streams"][0]["values"].tolist(), int(out["issues"][0])  # code 30: "3" is zero-filled
    ([1.0, 2.0, 3.0, 0.0], 30)
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .issues import IssueCode
from .numbers import NumberError, scan_number
from .reference_index import build_index

__all__ = ["ReferenceParser", "parse", "build_index"]

_PIPE, _HASH, _COLON, _NL = 0x7C, 0x23, 0x3A, 0x0A
_INT32_INDEX_LIMIT = 1 << 31
_MAX_UNKNOWN_NAMES = 256


def _is_value_delimiter(c: int) -> bool:
    return c == 0x20 or c == 0x09


def _is_non_printable(c: int) -> bool:
    return c < 0x20 or c >= 0x80


def _is_column_delimiter(c: int) -> bool:
    return (_is_value_delimiter(c) or _is_non_printable(c)) and c != _NL


def _is_name_byte(c: int) -> bool:
    return 0x20 < c < 0x80 and c != _PIPE


def _ends_sample(c: int) -> bool:
    return c == _PIPE or _is_non_printable(c)


class _Stream:
    def __init__(self, alias: str, dim: int, sparse: bool) -> None:
        self.alias, self.dim, self.sparse = alias.encode("latin-1"), dim, sparse
        self.values: list[float] = []
        self.indices: list[int] = []
        self.indptr: list[int] = [0] if sparse else []
        self.sequence_samples: list[int] = []
        self.samples = 0


class _Parser:
    def __init__(self, data: bytes, base: int, streams: list[_Stream], limits: tuple[int, int],
                 dtype: type, skip_incomplete: bool = False) -> None:
        self.data, self.base, self.streams, self.dtype = data, base, streams, dtype
        self.error_limit, self.warning_limit = limits
        self.skip_incomplete = skip_incomplete
        self.row_rejections = self.sequence_rejections = 0
        self.issues: list[list[int]] = []
        self.errors = self.dense_short = self.unknown_inputs = 0
        self.unknown: dict[bytes, list[int]] = {}
        self.p = self.end = self.line = self.sequence = 0
        self.aborted = False

    def issue(self, code: IssueCode, stream: int, at: int, a: int = 0, b: int = 0) -> None:
        self.issues.append([int(code), stream, self.base + at, self.line, self.sequence, a, b])

    def error(self, code: IssueCode, stream: int, at: int, a: int = 0, b: int = 0) -> None:
        """A charged issue; all but a duplicate input reject a sample or row
        (what follows from that is not charged again, DECISIONS.md 18)."""
        self.issue(code, stream, at, a, b)
        if code != IssueCode.DUPLICATE_INPUT:
            self.row_rejections += 1
            self.sequence_rejections += 1
        self.charge()

    def charge(self) -> None:
        self.errors += 1
        if self.errors >= self.error_limit:
            self.aborted = True

    def byte_at(self, at: int) -> int:
        return self.data[at] if at < self.end else -1

    def skip_to_next_input(self) -> None:
        while self.p < self.end and self.data[self.p] not in (_PIPE, _NL):
            self.p += 1

    def note_unknown(self, name: bytes, bar: int) -> None:
        self.unknown_inputs += 1
        if name in self.unknown:
            self.unknown[name][-1] += 1
        elif len(self.unknown) < _MAX_UNKNOWN_NAMES:
            self.unknown[name] = [self.base + bar, self.line, self.sequence, 1]

    def value(self, k: int) -> float | None:
        end, error, value = scan_number(self.data, self.p, self.end, self.dtype)
        self.p = end
        if error != NumberError.NONE:
            self.error(IssueCode.BAD_NUMBER, k, end, self.byte_at(end), int(error))
            return None
        if self.p < self.end:
            c = self.data[self.p]
            if not _is_value_delimiter(c) and not _ends_sample(c):
                self.error(IssueCode.BAD_VALUE_END, k, self.p, c)
                return None
        return value

    def skip_value_delimiters(self) -> bool:
        """Skips spaces and tabs; True while another value follows."""
        while self.p < self.end and _is_value_delimiter(self.data[self.p]):
            self.p += 1
        return self.p < self.end and not _ends_sample(self.data[self.p])

    def dense_sample(self, k: int, bar: int) -> bool:
        s = self.streams[k]
        values: list[float] = []
        while self.skip_value_delimiters():
            v = self.value(k)
            if v is None:
                return False
            values.append(v)
        if len(values) > s.dim:
            self.error(IssueCode.DENSE_TOO_LONG, k, bar, len(values), s.dim)
            return False
        if len(values) < s.dim:
            if self.dense_short < self.warning_limit:
                self.issue(IssueCode.DENSE_SHORT, k, bar, len(values), s.dim)
            self.dense_short += 1
            values.extend([0.0] * (s.dim - len(values)))
        s.values.extend(values)
        s.samples += 1
        return True

    def sparse_entry(self, k: int) -> tuple[int, float] | None:
        s, data = self.streams[k], self.data
        start = self.p
        if not 0x30 <= data[start] <= 0x39:
            self.error(IssueCode.SPARSE_INDEX_MISSING, k, start, data[start])
            return None
        after = start
        while after < self.end and 0x30 <= data[after] <= 0x39:
            after += 1
        index = int(data[start:after])
        if index >= 1 << 64:
            self.error(IssueCode.SPARSE_INDEX_OVERFLOW, k, start)
            return None
        if index >= s.dim:
            wrapped = index - (1 << 64) if index >= 1 << 63 else index  # as int64 (C++)
            self.error(IssueCode.SPARSE_INDEX_RANGE, k, start, wrapped, s.dim)
            return None
        self.p = after
        if self.p == self.end or data[self.p] != _COLON:
            self.error(IssueCode.SPARSE_COLON_MISSING, k, self.p, self.byte_at(self.p), index)
            return None
        self.p += 1
        if self.p == self.end:
            self.error(IssueCode.BAD_NUMBER, k, self.p, -1, int(NumberError.EXPECTED_DIGIT))
            return None
        v = self.value(k)
        return None if v is None else (index, v)

    def sparse_sample(self, k: int) -> bool:
        s = self.streams[k]
        entries: list[tuple[int, float]] = []
        while self.skip_value_delimiters():
            entry = self.sparse_entry(k)
            if entry is None:
                return False
            entries.append(entry)
        s.indices.extend(i for i, _ in entries)
        s.values.extend(v for _, v in entries)
        s.indptr.append(len(s.values))
        s.samples += 1
        return True

    def lookup(self, name: bytes) -> int:
        for k, s in enumerate(self.streams):
            if s.alias == name:
                return k
        return -1

    def sample(self, seen: list[bool]) -> tuple[bool, int]:
        """One sample or comment at '|': (row has content, samples read)."""
        bar, data = self.p, self.data
        if bar + 1 < self.end and data[bar + 1] == _HASH:
            self.p = bar + 2
            self.skip_to_next_input()
            return False, 0
        name_start = name_end = bar + 1
        if name_start == self.end or not _is_name_byte(data[name_start]):
            self.error(IssueCode.BAD_NAME_START, -1, bar, self.byte_at(name_start))
            self.p = name_start
            self.skip_to_next_input()
            return True, 0
        while name_end < self.end and _is_name_byte(data[name_end]):
            name_end += 1
        k = self.lookup(data[name_start:name_end])
        self.p = name_end
        if k < 0:
            self.note_unknown(data[name_start:name_end], bar)
            self.skip_to_next_input()
            return True, 0
        if seen[k]:
            self.error(IssueCode.DUPLICATE_INPUT, k, bar)
            if self.aborted:
                return True, 0
        seen[k] = True
        ok = self.sparse_sample(k) if self.streams[k].sparse else self.dense_sample(k, bar)
        if not ok:
            self.skip_to_next_input()
        return True, int(ok)

    def row(self) -> None:
        data, row_start = self.data, self.p
        while self.p < self.end and 0x30 <= data[self.p] <= 0x39:
            self.p += 1
        seen = [False] * len(self.streams)
        content, samples = False, 0
        self.row_rejections = 0
        while not self.aborted:
            while self.p < self.end and _is_column_delimiter(data[self.p]):
                self.p += 1
            if self.p == self.end or data[self.p] == _NL:
                break
            if data[self.p] != _PIPE:
                content = True
                self.error(IssueCode.EXPECTED_NAME_PREFIX, -1, self.p, data[self.p])
                self.skip_to_next_input()
                continue
            has_content, read = self.sample(seen)
            content, samples = content or has_content, samples + read
        if content and samples == 0 and self.row_rejections == 0 and not self.aborted:
            self.error(IssueCode.ROW_WITHOUT_SAMPLES, -1, row_start)
        if self.p < self.end:
            self.p += 1
            self.line += 1

    def finish_sequence(self, start: int, rows: int, first_samples: list[int], main: int) -> None:
        longest, empty = 0, -1
        for k, s in enumerate(self.streams):
            n = s.samples - first_samples[k]
            s.sequence_samples.append(n)
            if n == 0 and empty < 0:
                empty = k
            if main < 0 or main == k:
                longest = max(longest, n)
        if empty >= 0:
            follows = self.sequence_rejections > 0
            self.issue(IssueCode.EMPTY_INPUT, empty, start, int(follows))
            if not self.skip_incomplete:
                self.aborted = True
            elif not follows:
                self.charge()
            return
        if longest < rows and self.sequence_rejections == 0:
            self.error(IssueCode.TOO_FEW_SAMPLES, -1, start, longest, rows)

    def sequence_(self, span: tuple[int, int, int, int], main: int) -> None:
        offset, size, rows, line = span
        self.p, self.end, self.line = offset, offset + size, line
        first_samples = [s.samples for s in self.streams]
        self.sequence_rejections = 0
        while self.p < self.end and not self.aborted:
            self.row()
        if not self.aborted:
            self.line = line
            self.finish_sequence(offset, rows, first_samples, main)


def _stream_result(s: _Stream, dtype: type) -> dict[str, Any]:
    index_dtype = np.int64 if s.dim > _INT32_INDEX_LIMIT else np.int32
    return {
        "values": np.array(s.values, dtype=dtype),
        "indices": np.array(s.indices, dtype=index_dtype),
        "indptr": np.array(s.indptr, dtype=np.int64),
        "sequence_samples": np.array(s.sequence_samples, dtype=np.int64),
        "samples": s.samples,
    }


class ReferenceParser:
    """A chunk fed as blocks of whole sequences (``_native.CtfParserFloat``'s interface).

    Example:
        >>> p = ReferenceParser(["a"], [1], [False], -1, True, 1, 8)
        >>> p.feed(b"|a 1\\n", 0, [0], [5], [1], [1]); p.feed(b"|a 2\\n", 5, [0], [5], [1], [2])
        >>> p.finish()["streams"][0]["values"].tolist()
        [1.0, 2.0]
    """

    def __init__(self, aliases: Sequence[str], dims: Sequence[int], sparse: Sequence[bool],
                 main_stream: int, is_double: bool, error_limit: int, warning_limit: int,
                 *_size_hints: int,  # size hints only matter to the native parser
                 skip_incomplete: bool = False, first_sequence: int = 0) -> None:
        self.dtype = np.float64 if is_double else np.float32
        streams = [_Stream(a, int(d), bool(s)) for a, d, s in zip(aliases, dims, sparse)]
        self._parser = _Parser(b"", 0, streams, (int(error_limit), int(warning_limit)), self.dtype,
                               bool(skip_incomplete))
        self._main, self._sequence = int(main_stream), int(first_sequence)

    @property
    def aborted(self) -> bool:
        """Whether parsing stopped (error limit or fatal issue)."""
        return self._parser.aborted

    def feed(self, data: bytes | memoryview | np.ndarray, base_offset: int, offsets: Sequence[int],
             sizes: Sequence[int], rows: Sequence[int], lines: Sequence[int]) -> None:
        """Parses the sequences ``data[offsets[i]:offsets[i]+sizes[i]]``."""
        parser = self._parser
        parser.data, parser.base = bytes(data), int(base_offset)
        for span in zip(offsets, sizes, rows, lines):
            if parser.aborted:
                break
            parser.sequence = self._sequence
            parser.sequence_(tuple(int(x) for x in span), self._main)
            self._sequence += 1

    def finish(self) -> dict[str, Any]:
        """The accumulated result (as ``_native.ctf_parse``)."""
        parser = self._parser
        for name, (offset, line, seq, count) in parser.unknown.items():
            parser.issues.append([int(IssueCode.UNKNOWN_INPUT), -1, offset, line, seq, len(name),
                                  count])
        return {
            "streams": [_stream_result(s, self.dtype) for s in parser.streams],
            "issues": np.array(parser.issues, dtype=np.int64).reshape(-1),
            "errors": parser.errors,
            "dense_short": parser.dense_short,
            "unknown_inputs": parser.unknown_inputs,
            "aborted": parser.aborted,
        }


def parse(data: bytes | memoryview | np.ndarray, base_offset: int, offsets: Sequence[int],
          sizes: Sequence[int], rows: Sequence[int], lines: Sequence[int],
          aliases: Sequence[str], dims: Sequence[int], sparse: Sequence[bool], main_stream: int,
          is_double: bool, error_limit: int, warning_limit: int,
          skip_incomplete: bool = False) -> dict[str, Any]:
    """Parses the sequences ``data[offsets[i]:offsets[i]+sizes[i]]``.

    Same arguments and result as ``minibatcher._native.ctf_parse``.
    """
    parser = ReferenceParser(aliases, dims, sparse, main_stream, is_double, error_limit,
                             warning_limit, skip_incomplete=skip_incomplete)
    parser.feed(data, base_offset, offsets, sizes, rows, lines)
    return parser.finish()
