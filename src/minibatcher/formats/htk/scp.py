"""SCP files as rows: key, physical path, frame range, where in which file.

Lines are parsed by the core (``backend.parse_scp``); this module turns the
rows of several SCP files into one list, charges malformed lines and repeated
keys to the budget (DECISIONS 11: the first occurrence is kept) and resolves
relative physical paths against ``base_dir``.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.scp").write_text("u1.mfc=x.htk[0,4]\\nu2.mfc=x.htk[5,7]\\n")
    >>> rows = load_scp([d / "a.scp"], Diagnostics("a.scp", 0, 0), base_dir=d)
    >>> rows.names(), rows.starts.tolist(), rows.ends.tolist(), [p.name for p in rows.paths]
    (['u1', 'u2'], [0, 5], [4, 7], ['x.htk'])
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ...errors import FormatError
from ..guarded_file import read_small_file
from .backend import backend
from .codes import ScpIssue
from .diagnostics import Diagnostics, excerpt
from .text import strip_bom

_WHAT = {
    ScpIssue.MISSING_COMMA: "'[' without ','; expected logical=path[start,end]",
    ScpIssue.MISSING_BRACKET: "no ']' after the end frame; expected logical=path[start,end]",
    ScpIssue.TRAILING_TEXT:
        "text after ']'; expected the line to end after logical=path[start,end]",
    ScpIssue.BAD_START: "the start frame is not a non-negative integer below 2^31",
    ScpIssue.BAD_END: "the end frame is not a non-negative integer below 2^31",
    ScpIssue.START_AFTER_END:
        "the start frame is after the end frame; expected [start,end] with start <= end "
        "(inclusive)",
    ScpIssue.EMPTY_NAME: "the logical name before '=' is empty",
    ScpIssue.EMPTY_PATH: "the physical path is empty",
    ScpIssue.IDX_FILE: "MNIST idx ('-ubyte') feature files are not supported; expected HTK files",
}
#: A row whose physical path holds a NUL byte (found here, not by the core: no file name can
#: hold one, so the archive could never be opened).
NUL_IN_PATH = -1
_WHAT_PY = {NUL_IN_PATH: "the physical path contains a NUL byte (\\x00), which no file name can "
                         "hold; expected logical=path[start,end] with the path of an HTK file "
                         "(is this a binary file rather than an SCP list?)"}


def normalize_prefix(prefix: str | None) -> str:
    """CNTK's ``prefixPathInSCP``: '/' separators, trailing '/' removed, then one added.

    Example:
        >>> normalize_prefix("C:\\\\data\\\\"), normalize_prefix("")
        ('C:/data/', '')
    """
    text = (prefix or "").replace("\\", "/").rstrip("/")
    return text + "/" if text else ""


@dataclass
class ScpRows:
    """The well-formed lines of all SCP files, in order."""

    files: list[Path]                # the SCP files
    data: list[bytes]                # their bytes (for messages)
    file_of: np.ndarray              # which SCP file each row comes from
    lines: np.ndarray
    offsets: np.ndarray
    keys: np.ndarray
    key_text: list[str]
    paths: list[Path]                # distinct physical paths (resolved)
    path_index: np.ndarray
    starts: np.ndarray               # -1: the whole file
    ends: np.ndarray
    blank_lines: int = 0
    base_dir: Path | None = None     # what relative physical paths were resolved against
    relative: frozenset[int] = frozenset()  # paths written relative (no '...', no prefix root)

    def names(self) -> list[str]:
        """The key of every row."""
        return list(self.key_text)

    def where(self, i: int) -> str:
        """``file.scp:line`` of row ``i``.

        Example:
            >>> _example_rows().where(1).endswith("a.scp:2")
            True
        """
        return f"{self.files[int(self.file_of[i])]}:{int(self.lines[i])}"

    def line(self, i: int) -> str:
        """The text of row ``i``'s line.

        Example:
            >>> _example_rows().line(1)
            'u2.mfc=x.htk[5,7]'
        """
        return excerpt(self.data[int(self.file_of[i])], int(self.offsets[i]))

    def select(self, keep: np.ndarray) -> "ScpRows":
        """The rows where ``keep`` is True."""
        idx = np.flatnonzero(keep)
        return ScpRows(self.files, self.data, self.file_of[idx], self.lines[idx], self.offsets[idx],
                       self.keys[idx], [self.key_text[i] for i in idx.tolist()], self.paths,
                       self.path_index[idx], self.starts[idx], self.ends[idx], self.blank_lines,
                       self.base_dir, self.relative)


def _split(text: bytes, ends: np.ndarray) -> list[str]:
    starts = np.concatenate([[0], ends[:-1]]).tolist()
    return [text[a:b].decode("utf-8", errors="replace") for a, b in zip(starts, ends.tolist())]


def _read(path: Path) -> bytes:
    if not path.exists():
        raise FileNotFoundError(f"SCP file {str(path)!r} does not exist (scp=..., scpFile=...)")
    return strip_bom(read_small_file(path, "SCP file"))


def load_scp(files: Sequence[str | os.PathLike], diag: Diagnostics, *, prefix: str | None = None,
             base_dir: str | os.PathLike | None = None, impl: str = "native") -> ScpRows:
    """Parses ``files`` in order, charges bad lines and repeated keys, resolves paths.

    A relative physical path (after ``prefix`` and ``...`` rewriting) resolves against
    ``base_dir``, by default the working directory (CNTK's rule; a config passes its own)."""
    base = Path(os.path.abspath(base_dir if base_dir is not None else os.getcwd()))
    parts, path_ids, relative_paths = [], {}, set()
    texts: list[bytes] = []
    for k, file in enumerate(Path(f) for f in files):
        texts.append(_read(file))
        r = _parse_one(texts[-1], file, prefix, impl)
        diag.stats.blank_lines += int(r["blank_lines"])
        r["path_index"] = _index_paths(r, base, path_ids, relative_paths)[r["path_index"]]
        r["file_of"] = np.full(len(r["lines"]), k, dtype=np.int32)
        parts.append(r)
    paths = list(path_ids)
    relative = frozenset(path_ids[p] for p in relative_paths)
    cat = {k: np.concatenate([p[k] for p in parts]) if parts else np.zeros(0) for k in (
        "file_of", "lines", "offsets", "issues", "keys", "path_index", "starts", "ends")}
    rows = ScpRows([Path(f) for f in files], texts, cat["file_of"], cat["lines"], cat["offsets"],
                   cat["keys"].astype(np.uint64), [k for p in parts for k in p["key_list"]], paths,
                   cat["path_index"], cat["starts"], cat["ends"], diag.stats.blank_lines, base,
                   relative)
    bad = cat["issues"] != 0
    for i in np.flatnonzero(bad).tolist():
        issue = int(cat["issues"][i])
        what = _WHAT_PY[issue] if issue in _WHAT_PY else _WHAT[ScpIssue(issue)]
        diag.charge(("scp", rows.where(i)), f"{rows.where(i)}: {what}\n    {rows.line(i)}",
                    skipped=1)
    rows = rows.select(~bad)
    return rows.select(_first_occurrences(rows, diag))


def _parse_one(data: bytes, file: Path, prefix: str | None, impl: str) -> dict:
    """One SCP file's rows; ``...`` becomes the file's own folder (absolute)."""
    scp_dir = os.path.dirname(os.path.abspath(file))
    r = backend(impl).parse_scp(data, normalize_prefix(prefix), scp_dir)
    r["key_list"] = _split(r["key_text"], r["key_ends"])
    nul = np.array([b"\0" in p for p in r["paths"]] + [False], dtype=bool)[r["path_index"]]
    r["issues"] = np.where((r["issues"] == 0) & nul, NUL_IN_PATH, r["issues"])
    return r


def _index_paths(r: dict, base: Path, path_ids: dict[Path, int], relative: set[Path]) -> np.ndarray:
    """Resolves one file's physical paths against ``base``; returns the global index of each
    (and -1 last, for rows without a path), adding new paths to ``path_ids`` and the ones
    written relative to ``relative``. A path with a NUL byte gets -1 (its rows are bad)."""
    resolved = [None if b"\0" in p else _resolve(p, base) for p in r["paths"]]
    relative.update(q for p, q in zip(r["paths"], resolved)
                    if q is not None and not Path(os.fsdecode(p)).is_absolute())
    ids = [-1 if q is None else path_ids.setdefault(q, len(path_ids)) for q in resolved]
    return np.array(ids + [-1], dtype=np.int32)


def _resolve(raw: bytes, base: Path) -> Path:
    path = Path(os.fsdecode(raw))
    return path if path.is_absolute() else base / path


def _first_occurrences(rows: ScpRows, diag: Diagnostics) -> np.ndarray:
    """False for a repeated key (charged once per repetition)."""
    keep = np.ones(len(rows.keys), dtype=bool)
    if len(rows.keys) == len(np.unique(rows.keys)):
        return keep
    if len(set(rows.key_text)) != len(np.unique(rows.keys)):
        raise FormatError(f"{rows.files[0]}: two different utterance names have the same 64-bit "
                          "key hash; please report this (rename one of them to continue)")
    first: dict[str, int] = {}
    for i, key in enumerate(rows.key_text):
        if key in first:
            keep[i] = False
            diag.stats.duplicates += 1
            diag.charge(("scp-duplicate", rows.where(i)),
                        f"{rows.where(i)}: utterance {key!r} was already listed at "
                        f"{rows.where(first[key])}; expected every logical name once (the first "
                        f"occurrence is kept)\n    {rows.line(i)}", skipped=1)
        else:
            first[key] = i
    return keep


def _example_rows() -> ScpRows:
    """Two rows of one SCP file (the examples)."""
    import tempfile

    d = Path(tempfile.mkdtemp())
    (d / "a.scp").write_text("u1.mfc=x.htk[0,4]\nu2.mfc=x.htk[5,7]\n")
    return load_scp([d / "a.scp"], Diagnostics("a.scp", 0, 0), base_dir=d)
