"""``Dataset.list_files``: TF's file matching (``tf.io.matching_files``) and its shuffle.

Matching follows TF's ``GetMatchingPaths``: a pattern without ``*``, ``?``,
``[`` or ``\\`` is returned as it is when it exists; otherwise the folders from
the last fixed one down are walked level by level, each path matched like
POSIX ``fnmatch(FNM_PATHNAME)`` (``*``, ``?`` and ``[...]`` do not match ``/``;
``[!...]`` and ``[^...]`` negate; ``\\`` escapes; hidden files match ``*``). A
pattern whose fixed part has no folder is read from ``./`` and its matches
start with ``./``, as in TF. The matches of all patterns are sorted together
(duplicates kept). No match is TF's ``InvalidArgumentError``, raised when the
dataset is built.

``list_files(pattern, shuffle=None, seed=None)`` is then
``from_tensor_slices(matches).shuffle(len(matches), seed)`` (``shuffle`` defaults
to True), so its orders are the shuffle's, bit for bit.

Example:
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for n in ("b.txt", "a.txt", ".h.txt", "c.dat"): _ = (d / n).write_text(n)
    >>> [pathlib.Path(p.decode()).name for p in match_files([f"{d}/*.txt"])]
    ['.h.txt', 'a.txt', 'b.txt']
"""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np

from .dataset import Dataset
from .errors import InvalidArgumentError

_SPECIAL = "*?[\\"


def _dirname(path: str) -> str:
    cut = path.rfind("/")
    return "" if cut < 0 else ("/" if cut == 0 else path[:cut])


def _join(folder: str, name: str) -> str:
    if not folder:
        return name
    return folder + name if folder.endswith("/") else f"{folder}/{name}"


def _class(pattern: str, i: int) -> tuple[str, int] | None:
    """The regex of the bracket expression at ``pattern[i] == '['`` and the index after it."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    j += negate
    start = j
    while j < len(pattern) and (pattern[j] != "]" or j == start):
        j += 1
    if j >= len(pattern):
        return None  # no closing bracket: a literal '['
    body = pattern[start:j].replace("\\", "\\\\").replace("^", "\\^")
    return ("[^/" if negate else "[") + body + "]", j + 1


def fnmatch_regex(pattern: str) -> re.Pattern[str]:
    """POSIX ``fnmatch(pattern, path, FNM_PATHNAME)`` as a compiled regex.

    Example:
        >>> negated, star = fnmatch_regex("d/[!a]*.txt"), fnmatch_regex("*")
        >>> bool(negated.fullmatch("d/b1.txt")), bool(star.fullmatch("a/b"))
        (True, False)
    """
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        elif c == "[" and (found := _class(pattern, i)) is not None:
            out.append(found[0])
            i = found[1]
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def _levels(pattern: str) -> tuple[list[str], bool]:
    fixed = pattern[:min((pattern.find(c) for c in _SPECIAL if c in pattern))]
    top = _dirname(fixed)
    if not top:
        top, pattern = ".", _join(".", pattern)
    is_directory = pattern.endswith("/")
    levels = [] if is_directory else [pattern]
    folder = _dirname(pattern)
    while len(folder) > len(top):
        levels.append(folder)
        folder = _dirname(folder)
    levels.append(top)
    return levels[::-1], is_directory


def _children(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:  # TF skips folders it cannot list
        return []


def _match_one(pattern: str) -> list[str]:
    if not pattern:
        return []
    if not any(c in pattern for c in _SPECIAL):
        return [pattern] if os.path.lexists(pattern) else []
    levels, is_directory = _levels(pattern)
    regexes = [fnmatch_regex(level) for level in levels]
    queue, out = [(levels[0], 0)], []
    while queue:
        folder, depth = queue.pop(0)
        depth += 1
        for name in _children(folder):
            path = _join(folder, name)
            if not regexes[depth].fullmatch(path):
                continue
            if depth != len(levels) - 1:
                if os.path.isdir(path):
                    queue.append((path, depth))
            elif not is_directory or os.path.isdir(path):
                out.append(path)
    return out


def _patterns(file_pattern: Any) -> list[str]:
    values = np.asarray(file_pattern, dtype=object).reshape(-1)
    return [os.fsdecode(v) if isinstance(v, (bytes, os.PathLike)) else str(v) for v in values]


def match_files(file_pattern: Any) -> list[bytes]:
    """The sorted matches of one pattern or a list of them, as ``bytes`` (TF's strings).

    Example:
        >>> match_files(["/nonexistent-folder/*"])
        []
    """
    found = [path for p in _patterns(file_pattern) for path in _match_one(p)]
    return sorted(os.fsencode(path) for path in found)


def list_files(file_pattern: Any, shuffle: bool | None = None, seed: int | None = None) -> Dataset:
    """``Dataset.list_files`` (see the module docstring).

    Example:
        >>> list_files("/nonexistent/*.txt")
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.InvalidArgumentError: No files matched pattern: /nonexistent/*.txt
    """
    matches = match_files(file_pattern)
    if not matches:
        raise InvalidArgumentError("No files matched pattern: " +
                                   ", ".join(_patterns(file_pattern)))
    names = np.empty(len(matches), dtype=object)
    names[:] = matches
    dataset = Dataset.from_tensor_slices(names)
    if shuffle is None or shuffle:
        dataset = dataset.shuffle(max(len(matches), 1), seed=seed)
    return dataset
