"""Issues found while parsing CTF: codes (shared with ``cpp/ctf/parser.h``) and messages.

An issue is a row ``(code, stream, offset, line, sequence, a, b)``. Errors are
charged to the error budget, ``EMPTY_INPUT`` is fatal, warnings never count.
Messages name the file, line, column and byte offset, show the line, and say
what was expected.

Example:
    >>> issue = Issue(IssueCode.BAD_VALUE_END, 0, 9, 2, 0, ord(","), 0)
    >>> describe(issue, ["'A'"], dims=[1])
    "value of input 'A' is followed by ','; expected a space, a tab, '|' or the end of the line after a value"
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple, Sequence

import numpy as np

__all__ = ["IssueCode", "Issue", "describe", "excerpt", "issues_from_array"]


class IssueCode(enum.IntEnum):
    """Issue kinds; values equal ``mb::ctf::IssueCode``.

    Example:
        >>> IssueCode.EMPTY_INPUT.is_fatal, IssueCode.DENSE_SHORT.is_error
        (True, False)
    """

    EXPECTED_NAME_PREFIX = 1
    BAD_NAME_START = 2
    BAD_NUMBER = 3
    BAD_VALUE_END = 4
    DENSE_TOO_LONG = 5
    SPARSE_INDEX_MISSING = 6
    SPARSE_INDEX_OVERFLOW = 7
    SPARSE_INDEX_RANGE = 8
    SPARSE_COLON_MISSING = 9
    DUPLICATE_INPUT = 10
    ROW_WITHOUT_SAMPLES = 11
    TOO_FEW_SAMPLES = 12
    EMPTY_INPUT = 20
    DENSE_SHORT = 30
    UNKNOWN_INPUT = 31

    @property
    def is_error(self) -> bool:
        """Charged to the error budget."""
        return self.value < 20

    @property
    def is_fatal(self) -> bool:
        """Raises regardless of the budget, unless incomplete sequences are skipped."""
        return self is IssueCode.EMPTY_INPUT


class Issue(NamedTuple):
    """One located issue.

    Example:
        >>> Issue(IssueCode.DUPLICATE_INPUT, 1, 40, 3, 0, 0, 0).code.is_error
        True
    """

    code: IssueCode
    stream: int
    offset: int
    line: int
    sequence: int
    a: int
    b: int


def issues_from_array(flat: np.ndarray) -> list[Issue]:
    """Unpacks the parser's flat ``int64`` issue array.

    Example:
        >>> issues_from_array(np.array([30, 0, 5, 1, 0, 1, 3]))[0].code.name
        'DENSE_SHORT'
    """
    rows = np.asarray(flat, dtype=np.int64).reshape(-1, 7).tolist()
    return [Issue(IssueCode(r[0]), *r[1:]) for r in rows]


def _byte(value: int) -> str:
    if value < 0:
        return "the end of the data"
    if value == 0x0A:
        return "the end of the line"
    if 0x20 < value < 0x7F:
        return repr(chr(value))
    names = {0x20: "a space", 0x09: "a tab", 0x0D: "a carriage return ('\\r')"}
    return names.get(value, f"the byte 0x{value:02x}")


_NUMBERS = "numbers look like 1, -2.5, .5, 3e-4, inf or nan"


def _describe_value_issue(issue: Issue, name: str, dim: int) -> str:
    c, a, b = issue.code, issue.a, issue.b
    if c is IssueCode.BAD_NUMBER:
        if b == 2:
            return f"malformed exponent in input {name}: found {_byte(a)}; expected digits after 'e'"
        return f"malformed number in input {name}: found {_byte(a)}; expected a number ({_NUMBERS})"
    if c is IssueCode.BAD_VALUE_END:
        return (f"value of input {name} is followed by {_byte(a)}; expected a space, a tab, '|' "
                "or the end of the line after a value")
    if c is IssueCode.DENSE_TOO_LONG:
        return f"dense sample of input {name} has {a} values; expected at most dim={b}"
    if c is IssueCode.DENSE_SHORT:
        return f"dense sample of input {name} has {a} of dim={b} values; the rest is filled with zeros"
    if c is IssueCode.SPARSE_INDEX_MISSING:
        return (f"sparse sample of input {name}: found {_byte(a)}; expected an index (a non-negative "
                "integer) followed by ':' and a value")
    if c is IssueCode.SPARSE_INDEX_OVERFLOW:
        return f"sparse index of input {name} does not fit into 64 bits; expected an index below dim={dim}"
    if c is IssueCode.SPARSE_INDEX_RANGE:  # the parser stores the uint64 index as int64
        return (f"sparse index {a % 2**64} of input {name} is out of range; expected an index "
                f"below dim={b}")
    return (f"sparse index {b % 2**64} of input {name} is followed by {_byte(a)}; expected ':' "
            "and a value right after the index")


def describe(issue: Issue, names: Sequence[str], dims: Sequence[int], key: int | None = None,
             expected_names: Sequence[str] = ()) -> str:
    """The "what happened; what was expected" part of an issue's message;
    ``names`` are the streams as they should be shown (e.g. ``'F0' (stream 'x')``)."""
    c = issue.code
    name = names[issue.stream] if issue.stream >= 0 else ""
    dim = dims[issue.stream] if issue.stream >= 0 else 0
    seq = f"sequence (key {key})" if key is not None else "the sequence"
    if c is IssueCode.EXPECTED_NAME_PREFIX:
        return f"unexpected {_byte(issue.a)}; expected '|' followed by an input name"
    if c is IssueCode.BAD_NAME_START:
        return (f"'|' is followed by {_byte(issue.a)}; expected an input name or '#' (a comment) "
                "right after '|'")
    if c is IssueCode.DUPLICATE_INPUT:
        return (f"input {name} appears twice on one line; expected at most one sample per input "
                "and line (both samples are kept)")
    if c is IssueCode.ROW_WITHOUT_SAMPLES:
        return "line has no readable sample; expected at least one valid input sample on a row"
    if c is IssueCode.TOO_FEW_SAMPLES:
        return (f"{seq} has {issue.b} rows but its longest input has {issue.a} samples; expected "
                "one sample per row (samples were rejected above)")
    if c is IssueCode.EMPTY_INPUT:
        why = " (its samples were rejected by the errors above)" if issue.a == 1 else ""
        return (f"input {name} has no sample in {seq}{why}; expected every input to have at "
                "least one sample in every sequence")
    if c is IssueCode.UNKNOWN_INPUT:
        known = ", ".join(repr(n) for n in expected_names)
        return (f"skipping {issue.b} sample(s) of an unknown input; expected one of {known} "
                "(declare it in the streams to read it)")
    return _describe_value_issue(issue, name, dim)


def excerpt(data: Any, offset: int, width: int = 72) -> tuple[str, int]:
    """The line around ``offset`` (clipped to ``width``) and the caret column.
    ``data`` holds the file's bytes, or is a ``read(start, stop) -> bytes``
    function (e.g. ``GuardedFile.read_excerpt``: no mapping is touched, and a
    file that shrank gives a shorter excerpt, never a crash).

    Example:
        >>> excerpt(b"1 |a 1\\n2 |a 2,0\\n", 12)
        ('2 |a 2,0', 5)
        >>> excerpt(lambda lo, hi: b"1 |a 1\\n2 |a 2,0\\n"[lo:hi], 12)
        ('2 |a 2,0', 5)
    """
    lo = max(0, offset - width // 2)
    chunk = bytes(data(lo, offset + width // 2) if callable(data) else data[lo:offset + width // 2])
    rel = offset - lo
    start = chunk.rfind(b"\n", 0, rel) + 1 if rel <= len(chunk) else 0
    stop = chunk.find(b"\n", rel)
    stop = len(chunk) if stop < 0 else stop
    text = chunk[start:stop].decode("utf-8", errors="replace").rstrip("\r")
    return text.expandtabs(1), rel - start
