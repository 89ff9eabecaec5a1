"""The vocabulary files ``check_vocab`` wrote in this process, remembered (at most 64)
with where their words came from, so that an error about a written file names the
line of the original too. Messages only: nothing read depends on it.

Example:
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "v").write_text("<unk>\\n<s>\\n</s>\\nx\\n")
    >>> _remember_rewrite(str(d / "v"), str(d / "orig"), ["<unk>", "<s>", "</s>"], (5,))
    >>> _rewrite_of(str(d / "v")).where(str(d / "v"), 3)[0].endswith("orig:5")
    True
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class _Rewrite:
    """A vocabulary file ``check_vocab`` wrote: where its words came from."""

    original: str
    specials: str  # the prepended tokens, space-separated
    lines: tuple[int, ...]  # the original's line of each word after the specials
    stamp: tuple[int, int]  # (size, mtime_ns) of the written file

    def where(self, path: str, index: int) -> tuple[str, str]:
        """``(file:line, note)`` of word ``index`` (0-based, after the specials) of
        the written file ``path``: its line in the original file, and a note with
        its line in the written one."""
        line = self.lines[index - 3]
        if os.path.abspath(path) == os.path.abspath(self.original):
            return (f"{path}:{index + 1}",
                    f"line {line} before check_vocab prepended {self.specials} to it")
        return (f"{self.original}:{line}",
                f"line {index + 1} of {path}; check_vocab wrote it with {self.specials} "
                "prepended")


_REWRITES: dict[str, _Rewrite] = {}  # written file (real path) -> its origin, for messages only


def _stamp(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def _remember_rewrite(new_file: str, original: str, specials: list[str],
                      lines: tuple[int, ...]) -> None:
    key = os.path.realpath(new_file)
    _REWRITES.pop(key, None)
    while len(_REWRITES) >= 64:
        del _REWRITES[next(iter(_REWRITES))]
    _REWRITES[key] = _Rewrite(original, " ".join(specials), lines, _stamp(new_file))


def _rewrite_of(path: str) -> _Rewrite | None:
    """The origin of ``path`` if this process's ``check_vocab`` wrote it (unchanged since)."""
    found = _REWRITES.get(os.path.realpath(path))
    try:
        return found if found is not None and found.stamp == _stamp(path) else None
    except OSError:
        return None
