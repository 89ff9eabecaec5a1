"""Survey of a CTF file: which inputs it names, and what their samples look like.

One fast pass that needs no stream declarations: for every distinct name
after ``|`` it counts samples, value tokens and sparse (``index:value``)
tokens, the largest sparse index, and the fewest/most tokens in one sample.
The native kernel (``mb::ctf::survey``, ``cpp/ctf/survey.cc``) and the
pure-Python reference below return identical results; lines are tokenized
exactly like the parser does (ids skipped, ``|#`` comments end at the next
``|``, bytes before a ``|`` that are not a sample are skipped).

Example:
    >>> [s.as_dict() for s in survey(b"0 |x 1 2 |y 3:1\\n0 |x 3 |# note\\n", impl="python")]
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'name': 'x', 'samples': 2, 'tokens': 3, 'sparse_tokens': 0, 'max_index': None,
      'min_tokens': 1, 'max_tokens': 2},
     {'name': 'y', 'samples': 1, 'tokens': 1, 'sparse_tokens': 1, 'max_index': 3,
      'min_tokens': 1, 'max_tokens': 1}]
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable

import numpy as np

from ...args import check_int
from ...errors import ConfigError
from ..guarded_file import GuardedFile
from ..read_ahead import line_blocks

__all__ = ["MAX_NAMES", "StreamSurvey", "merge_surveys", "survey", "survey_blocks", "survey_file"]

MAX_NAMES = 1000
_PIPE, _HASH, _COLON, _NL = 0x7C, 0x23, 0x3A, 0x0A
_UINT64_MAX = 2**64 - 1
_BLOCK_SIZE = 16 << 20


@dataclass(frozen=True)
class StreamSurvey:
    """What the survey saw of one input name.

    Example:
        >>> s = StreamSurvey("w", samples=2, tokens=3, sparse_tokens=3, max_index=41,
        ...                  min_tokens=1, max_tokens=2)
        >>> s.looks_sparse, s.dim
        (True, 42)
    """

    name: str
    samples: int
    tokens: int
    sparse_tokens: int
    max_index: int | None
    min_tokens: int
    max_tokens: int

    @property
    def looks_sparse(self) -> bool:
        """Whether any token has the sparse ``index:value`` form.

        Example:
            >>> StreamSurvey("x", 1, 2, 0, None, 2, 2).looks_sparse
            False
        """
        return self.sparse_tokens > 0

    @property
    def dim(self) -> int:
        """A dimension that fits the data: sparse, the largest index + 1;
        dense, the most values in one sample (at least 1).

        Example:
            >>> StreamSurvey("x", 3, 9, 0, None, 2, 4).dim
            4
        """
        if self.looks_sparse:
            return self.max_index + 1 if self.max_index is not None else 1
        return max(1, self.max_tokens)

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dict (the native kernel's result format).

        Example:
            >>> StreamSurvey("x", 1, 1, 0, None, 1, 1).as_dict()["name"]
            'x'
        """
        return asdict(self)


def _is_column_delimiter(c: int) -> bool:
    return (c == 0x20 or c == 0x09 or c < 0x20 or c >= 0x80) and c != _NL


def _is_name_byte(c: int) -> bool:
    return 0x20 < c < 0x80 and c != _PIPE


def _ends_token(c: int) -> bool:
    return c == 0x20 or c == 0x09 or c == _PIPE or c < 0x20 or c >= 0x80


def _index_of(token: bytes) -> int | None:
    digits = token[:token.index(b":")]
    if not digits or not digits.isdigit():
        return None
    value = int(digits)
    return value if value <= _UINT64_MAX else None


class _Reference:
    """The pure-Python kernel: mirrors ``cpp/ctf/survey.cc`` line by line."""

    def __init__(self, data: bytes) -> None:
        self.data, self.p, self.end = data, 0, len(data)
        self.out: dict[bytes, dict[str, Any]] = {}

    def run(self) -> list[dict[str, Any]]:
        while self.p < self.end:
            self.line()
        return list(self.out.values())

    def skip_to_next_input(self) -> None:
        d = self.data
        while self.p < self.end and d[self.p] != _PIPE and d[self.p] != _NL:
            self.p += 1

    def line(self) -> None:
        d = self.data
        while self.p < self.end and 0x30 <= d[self.p] <= 0x39:
            self.p += 1
        while True:
            while self.p < self.end and _is_column_delimiter(d[self.p]):
                self.p += 1
            if self.p == self.end:
                return
            if d[self.p] == _NL:
                self.p += 1
                return
            if d[self.p] == _PIPE:
                self.input()
            else:
                self.skip_to_next_input()

    def input(self) -> None:
        d, name = self.data, self.p + 1
        if name < self.end and d[name] == _HASH:
            self.p = name + 1
            self.skip_to_next_input()
            return
        name_end = name
        while name_end < self.end and _is_name_byte(d[name_end]):
            name_end += 1
        self.p = name_end
        if name_end == name:
            self.skip_to_next_input()
            return
        self.sample(self.lookup(d[name:name_end]))

    def lookup(self, name: bytes) -> dict[str, Any] | None:
        if name not in self.out:
            if len(self.out) >= MAX_NAMES:
                return None
            self.out[name] = {"name": name.decode("ascii"), "samples": 0, "tokens": 0,
                              "sparse_tokens": 0, "max_index": None, "min_tokens": 0,
                              "max_tokens": 0}
        return self.out[name]

    def sample(self, s: dict[str, Any] | None) -> None:
        d, n = self.data, 0
        while True:
            while self.p < self.end and d[self.p] in (0x20, 0x09):
                self.p += 1
            if self.p == self.end or _ends_token(d[self.p]):
                break
            self.token(s)
            n += 1
        if s is None:
            return
        s["min_tokens"] = n if s["samples"] == 0 else min(s["min_tokens"], n)
        s["max_tokens"] = n if s["samples"] == 0 else max(s["max_tokens"], n)
        s["samples"] += 1
        s["tokens"] += n

    def token(self, s: dict[str, Any] | None) -> None:
        start = self.p
        while self.p < self.end and not _ends_token(self.data[self.p]):
            self.p += 1
        token = self.data[start:self.p]
        if s is None or _COLON not in token:
            return
        s["sparse_tokens"] += 1
        index = _index_of(token)
        if index is not None and (s["max_index"] is None or index > s["max_index"]):
            s["max_index"] = index


def _raw(data: Any, impl: str) -> list[dict[str, Any]]:
    if impl == "python":
        return _Reference(data if isinstance(data, bytes) else bytes(data)).run()
    if impl == "native":
        from ... import _native

        array = data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8)
        return _native.ctf_survey(np.ascontiguousarray(array.reshape(-1).view(np.uint8)))
    raise ConfigError(f"impl should be one of 'native', 'python', but got impl={impl!r}")


def survey(data: Any, impl: str = "native") -> list[StreamSurvey]:
    """Surveys CTF bytes (``bytes``, a buffer or a uint8 array): one entry per
    distinct input name, in order of first appearance (at most 1000 names).

    Example:
        >>> [(s.name, s.looks_sparse, s.dim) for s in survey(b"|a 1 2 3\\n|b 7:1 |a 4\\n")]
        [('a', False, 3), ('b', True, 8)]
    """
    return [StreamSurvey(**entry) for entry in _raw(data, impl)]


def _merge_two(a: StreamSurvey, b: StreamSurvey) -> StreamSurvey:
    indices = [i for i in (a.max_index, b.max_index) if i is not None]
    return StreamSurvey(a.name, a.samples + b.samples, a.tokens + b.tokens,
                        a.sparse_tokens + b.sparse_tokens, max(indices) if indices else None,
                        min(a.min_tokens, b.min_tokens), max(a.max_tokens, b.max_tokens))


def merge_surveys(parts: Iterable[list[StreamSurvey]]) -> list[StreamSurvey]:
    """Combines the surveys of consecutive parts of one file (split at line ends).

    Example:
        >>> merged = merge_surveys([survey(b"|a 1\\n"), survey(b"|a 1 2 |b 3\\n")])
        >>> [(s.name, s.samples, s.min_tokens, s.max_tokens) for s in merged]
        [('a', 2, 1, 2), ('b', 1, 1, 1)]
    """
    out: dict[str, StreamSurvey] = {}
    for part in parts:
        for s in part:
            if s.name in out:
                out[s.name] = _merge_two(out[s.name], s)
            elif len(out) < MAX_NAMES:
                out[s.name] = s
    return list(out.values())


def _line_start_after(data: np.ndarray, pos: int) -> int:
    """The first position after the first ``'\\n'`` at or after ``pos`` (or the size)."""
    step = 1 << 16
    while pos < len(data):
        hit = np.flatnonzero(data[pos:pos + step] == _NL)
        if len(hit):
            return pos + int(hit[0]) + 1
        pos += step
    return len(data)


def _block_ends(data: np.ndarray, block_size: int) -> list[int]:
    ends, start, size = [], 0, len(data)
    while start < size:
        stop = min(size, start + block_size)
        if stop < size:
            stop = _line_start_after(data, stop)
        ends.append(stop)
        start = stop
    return ends


def survey_blocks(data: Any, *, block_size: int = _BLOCK_SIZE, impl: str = "native",
                  progress: Callable[[int], object] | None = None) -> list[StreamSurvey]:
    """:func:`survey` in blocks of about ``block_size`` bytes split after a
    ``'\\n'``, calling ``progress(bytes_done)`` after each block.

    Example:
        >>> [s.samples for s in survey_blocks(b"|a 1\\n" * 10, block_size=8)]
        [10]
    """
    block_size = check_int("block_size", block_size, 1, expected="a positive int")
    array = data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8)
    parts, start = [], 0
    for stop in _block_ends(array, block_size):
        parts.append(survey(array[start:stop], impl))
        start = stop
        if progress is not None:
            progress(stop)
    return merge_surveys(parts)


def survey_file(file: GuardedFile, *, block_size: int = 1 << 20, impl: str = "native",
                progress: Callable[[int], object] | None = None) -> list[StreamSurvey]:
    """:func:`survey` of an open file, read in blocks of whole lines with
    ``pread`` (a file that shrinks meanwhile is a ``FileChangedError``, not a
    crash), calling ``progress(bytes_done)`` after each block.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"; _ = p.write_bytes(b"|a 1 |b 2\\n" * 3)
        >>> [(s.name, s.samples) for s in survey_file(GuardedFile(p), block_size=4)]
        [('a', 3), ('b', 3)]
    """
    parts = []
    for offset, block in line_blocks(file, block_size):
        parts.append(survey(block, impl))
        if progress is not None:
            progress(offset + len(block))
    file.check()
    return merge_surveys(parts)
