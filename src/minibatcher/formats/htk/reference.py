"""Pure-Python reference of the native SCP/MLF/HTK core (``cpp/htk``).

Every function returns exactly what its native twin returns (same keys, same
dtypes), so the test suite runs against both (``impl`` fixture) and the two
are fuzzed against each other. Slow; for tests and for checking the core.
SCP and MLF parsing live here; HTK file headers and frames in
:mod:`.reference_files` (re-exported).

Example:
    >>> r = parse_scp(b"a.mfc=x.htk[0,9]\\n\\nb.mfc=x.htk[10,19]\\n", "", "")
    >>> r["lines"].tolist(), r["starts"].tolist(), r["paths"], r["blank_lines"]
    ([1, 3], [0, 10], [b'x.htk'], 1)
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

import numpy as np

from .reference_files import (COMPRESSED, FESTREAM, HAS_CRC, HAS_VQ, HEADER_ISSUES,  # noqa: F401
                              context_expand, crc, read_frames, read_headers)
from .text import key_hash, lines, rstrip

# ---------------------------------------------------------------------- SCP

SCP_ISSUES = {1: "missing_comma", 2: "missing_bracket", 3: "trailing_text", 4: "bad_start",
              5: "bad_end", 6: "start_after_end", 7: "empty_name", 8: "empty_path", 9: "idx_file"}


def _frame(text: bytes) -> int | None:
    if not text or len(text) > 10 or not all(48 <= c <= 57 for c in text):
        return None
    value = int(text)
    return value if value < 2**31 else None


def _rewrite(line: bytes, prefix: bytes, scp_dir: bytes) -> bytes:
    if prefix:
        eq = line.find(b"=")
        at = 0 if eq < 0 else eq + 1
        return line[:at] + prefix + line[at:]
    dots = line.find(b"...")
    return line if dots < 0 else line[:dots] + scp_dir + line[dots + 3:]


def _parse_scp_line(line: bytes) -> tuple[int, bytes, bytes, int, int]:
    eq = line.find(b"=")
    if eq < 0:
        return (9 if line.endswith(b"-ubyte") else 0), line, line, -1, -1
    logical, rest = line[:eq], line[eq + 1:]
    lb = rest.find(b"[")
    physical = rest if lb < 0 else rest[:lb]
    issue = 7 if not logical else 0
    if lb < 0:
        return issue, logical, physical, -1, -1
    inner = rest[lb + 1:]
    comma = inner.find(b",")
    if comma < 0:
        return 1, logical, physical, -1, -1
    rb = inner.find(b"]", comma)
    if rb < 0:
        return 2, logical, physical, -1, -1
    if rb + 1 != len(inner):
        return 3, logical, physical, -1, -1
    start, end = _frame(inner[:comma]), _frame(inner[comma + 1:rb])
    if start is None:
        return 4, logical, physical, -1, -1
    if end is None:
        return 5, logical, physical, -1, -1
    if start > end:
        return 6, logical, physical, -1, -1
    return issue, logical, physical, start, end


def parse_scp(data: bytes, prefix: str, scp_dir: str) -> dict[str, Any]:
    """Parses SCP bytes (the native ``htk_parse_scp``).

    Example:
        >>> parse_scp(b"a.x=f[3,1]\\n", "", "")["issues"].tolist()
        [6]
    """
    out: dict[str, list] = {k: [] for k in ("lines", "offsets", "issues", "keys", "key_ends",
                                             "path_index", "starts", "ends")}
    paths: dict[bytes, int] = {}
    key_text, blank = bytearray(), 0
    for number, offset, raw in lines(bytes(data)):
        trimmed = rstrip(raw)
        if not trimmed.strip(b" \t"):
            blank += 1
            continue
        line = _rewrite(trimmed, prefix.encode(), scp_dir.encode())
        issue, logical, physical, start, end = _parse_scp_line(line)
        if issue == 0 and not physical:
            issue = 8
        dot = logical.rfind(b".")
        key = logical if dot < 0 else logical[:dot]
        key_text += key
        for name, value in (("lines", number), ("offsets", offset), ("issues", issue),
                            ("keys", key_hash(key)), ("key_ends", len(key_text)),
                            ("starts", start if issue == 0 else -1),
                            ("ends", end if issue == 0 else -1)):
            out[name].append(value)
        out["path_index"].append(paths.setdefault(physical, len(paths)) if issue == 0 else -1)
    types = {"issues": np.int32, "keys": np.uint64, "path_index": np.int32}
    result: dict[str, Any] = {k: np.array(v, dtype=types.get(k, np.int64)) for k, v in out.items()}
    result.update(key_text=bytes(key_text), paths=list(paths), blank_lines=blank)
    return result


# ---------------------------------------------------------------------- MLF

MLF_ISSUES = {1: "no_header", 2: "bad_name", 3: "too_few_columns", 4: "bad_time",
              5: "end_before_start", 6: "gap", 7: "overlap", 8: "first_frame", 9: "unknown_label",
              10: "bad_class_id", 11: "class_id_too_large", 12: "column_count", 13: "no_labels",
              14: "unterminated", 15: "too_long"}
_MAX_FRAMES = 2147483647


def _number(token: bytes) -> float | None:
    try:
        text = token.decode("ascii")
    except UnicodeDecodeError:
        return None
    if not text or text[0] in "+-" or text.strip() != text or "_" in text:
        return None
    if text.isdigit() and len(text) <= 15:
        return float(int(text))
    if text.lower().lstrip(".0123456789e+-") or text.lower().startswith(("inf", "nan")):
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def _frames(t0: bytes, t1: bytes) -> tuple[int, int] | None:
    ts, te = _number(t0), _number(t1)
    if ts is None or te is None:
        return None
    if te - ts >= 99999.0:
        ts, te = ts / 100000.0 + 0.5, te / 100000.0 + 0.5
    return (_MAX_FRAMES + 1 if ts > _MAX_FRAMES else int(ts),
            _MAX_FRAMES + 1 if te > _MAX_FRAMES else int(te))


class _MlfParser:
    """The state machine of ``cpp/htk/mlf.cc``."""

    def __init__(self, states: dict[bytes, int] | None, label_dim: int) -> None:
        self.states, self.label_dim = states, label_dim
        self.r: dict[str, Any] = {k: [] for k in (
            "lines", "offsets", "issues", "issue_lines", "issue_offsets", "issue_a", "issue_b",
            "keys", "key_ends", "run_ends", "frames", "run_class", "run_length")}
        self.key_text = bytearray()
        self.header_ok, self.state, self.first_run, self.previous_end = True, "header", 0, 0

    def line(self, raw: bytes, number: int, offset: int) -> None:
        s = raw.strip(b" \t").rstrip(b" \t\r")
        if not s or self.state == "done":
            return
        if self.state == "header":
            self.state = "name" if s == b"#!MLF!#" else "done"
            self.header_ok = s == b"#!MLF!#"
            return
        if self.state != "name" and s == b".":
            self.finish()
            self.state = "name"
            return
        if self.state != "name" and s[:1] == b'"':
            self.fail(14, number, offset)
            self.finish()
            self.state = "name"
        if self.state == "name":
            if s != b"#!MLF!#":
                self.name(s, number, offset)
        elif self.state == "body":
            self.label(s, number, offset)

    def end(self) -> None:
        if self.state == "header":
            self.header_ok = False
        if self.state in ("body", "skip"):
            self.fail(14, self.r["lines"][-1], self.r["offsets"][-1])
            self.finish()

    def name(self, s: bytes, number: int, offset: int) -> None:
        r = self.r
        for k, v in (("lines", number), ("offsets", offset), ("issues", 0), ("issue_lines", 0),
                     ("issue_offsets", 0), ("issue_a", 0), ("issue_b", 0)):
            r[k].append(v)
        self.first_run, self.previous_end = len(r["run_class"]), 0
        if len(s) >= 3 and s[:1] == b'"' and s[-1:] == b'"':
            key = s[1:-1]
            key = key[2:] if key[:2] == b"*/" else key
            dot = key.rfind(b".")
            key = key if dot < 0 else key[:dot]
            self.state = "body"
        else:
            key = s
            self.fail(2, number, offset)
        r["keys"].append(key_hash(key))
        self.key_text += key
        r["key_ends"].append(len(self.key_text))

    def fail(self, issue: int, number: int, offset: int, a: int = 0, b: int = 0) -> None:
        r = self.r
        if r["issues"][-1] == 0:
            r["issues"][-1], r["issue_lines"][-1], r["issue_offsets"][-1] = issue, number, offset
            r["issue_a"][-1], r["issue_b"][-1] = a, b
        self.state = "skip"

    def finish(self) -> None:
        r = self.r
        if r["issues"][-1] == 0 and len(r["run_class"]) == self.first_run:
            r["issues"][-1], r["issue_lines"][-1] = 13, r["lines"][-1]
            r["issue_offsets"][-1] = r["offsets"][-1]
        if r["issues"][-1] != 0:
            del r["run_class"][self.first_run:], r["run_length"][self.first_run:]
            self.previous_end = 0
        r["run_ends"].append(len(r["run_class"]))
        r["frames"].append(self.previous_end)

    def label(self, s: bytes, number: int, offset: int) -> None:
        t = [token for token in re.split(rb"[ \t]+", s) if token]
        need = 3 if self.states is not None else 4
        if len(t) < need:
            return self.fail(3, number, offset, len(t))
        frames = _frames(t[0], t[1])
        if frames is None:
            return self.fail(4, number, offset)
        fs, fe = frames
        if fs > _MAX_FRAMES or fe > _MAX_FRAMES:
            return self.fail(15, number, offset)
        if fe < fs:
            return self.fail(5, number, offset, fs, fe)
        if fs != self.previous_end:
            if len(self.r["run_class"]) == self.first_run:
                return self.fail(8, number, offset, 0, fs)
            issue = 6 if fs > self.previous_end else 7
            return self.fail(issue, number, offset, self.previous_end, fs)
        if self.states is not None:
            cid = self.states.get(t[2], -1)
            if cid < 0:
                return self.fail(9, number, offset)
        else:
            if len(t) != 4:
                return self.fail(12, number, offset, len(t))
            if not t[3].isdigit() or len(t[3]) > 9:
                return self.fail(10, number, offset)
            cid = int(t[3])
        if self.label_dim > 0 and cid >= self.label_dim:
            return self.fail(11, number, offset, cid, self.label_dim)
        self.r["run_class"].append(cid)
        self.r["run_length"].append(fe - fs)
        self.previous_end = fe


def parse_mlf(data: bytes, states: Sequence[str] | None, label_dim: int) -> dict[str, Any]:
    """Parses MLF bytes (the native ``htk_parse_mlf``).

    Example:
        >>> text = b'#!MLF!#\\n"a.lab"\\n0 200000 s1\\n200000 300000 s2\\n.\\n'
        >>> r = parse_mlf(text, ["s1", "s2"], 2)
        >>> r["frames"].tolist(), r["run_class"].tolist(), r["run_length"].tolist()
        ([3], [0, 1], [2, 1])
    """
    table = None
    if states is not None:
        table = {}
        for i, name in enumerate(states):
            if table.setdefault(name.encode("utf-8"), i) != i:
                raise ValueError(f"the state list repeats the name at index {i}")
    parser = _MlfParser(table, label_dim)
    total = 0
    for number, offset, raw in lines(bytes(data)):
        parser.line(raw, number, offset)
        total = number
    parser.end()
    types = {"issues": np.int32, "keys": np.uint64, "run_class": np.int32, "run_length": np.int32}
    out: dict[str, Any] = {k: np.array(v, dtype=types.get(k, np.int64))
                           for k, v in parser.r.items()}
    out.update(header_ok=parser.header_ok, key_text=bytes(parser.key_text), total_lines=total)
    return out
