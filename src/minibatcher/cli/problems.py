"""Problems found in data, as every command reports them.

``inspect`` counts them and shows the first few; ``validate`` prints every
one (numbered, with its location and what was expected) and ends with a
summary table. Messages come from the readers themselves, so they name the
file, the line or byte offset and the expectation the same way everywhere.

Example:
    >>> p = Problems()
    >>> p.add("a.scp:3: frames [2,9] end past the end\\n    a=x.htk[2,9]")
    >>> p.as_json()
    {'problems': 1, 'first_problems': ['a.scp:3: frames [2,9] end past the end']}
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping

from ..budget import ErrorBudget
from .wording import say

#: How many problems ``inspect`` shows (all are counted).
SHOWN = 10


class Problems:
    """Collects problem messages (callable: a reader's ``on_error``); with
    ``echo``, prints each one as ``validate`` does, numbered.

    Example:
        >>> p = Problems(echo=True, what="error")
        >>> p("f.ctf:1:1 (byte offset 0): bad")
        error 1: f.ctf:1:1 (byte offset 0): bad
        <BLANKLINE>
        >>> p.count
        1
    """

    def __init__(self, *, echo: bool = False, what: str = "error") -> None:
        self.echo, self.what = echo, what
        self.messages: list[str] = []
        self.kinds: Counter[str] = Counter()

    @property
    def count(self) -> int:
        """Problems collected."""
        return len(self.messages)

    def add(self, message: str, kind: str = "") -> None:
        """Adds one problem (``kind`` counts it in the summary)."""
        self.messages.append(message)
        if kind:
            self.kinds[kind] += 1
        if self.echo:
            say(f"{self.what} {self.count}: {message}\n")

    def __call__(self, message: str) -> None:
        self.add(message)

    def first(self, n: int = SHOWN) -> list[str]:
        """The first line of the first ``n`` messages."""
        return [m.splitlines()[0] for m in self.messages[:n]]

    def as_json(self) -> dict[str, Any]:
        """``{"problems": count, "first_problems": [...]}`` (inspect's keys)."""
        return {"problems": self.count, "first_problems": self.first()}


@dataclass(frozen=True)
class ReadOptions:
    """How ``inspect`` reads: up to ``max_errors`` problems are skipped and counted (the next
    one stops it), and ``verify_crc`` checks checksums (``--max-errors``, ``--no-verify-crc``).

    Example:
        >>> ReadOptions(5, False).verify_crc
        False
    """

    max_errors: int
    verify_crc: bool = True


class RecordingBudget(ErrorBudget):
    """An error budget that also hands every charged message to ``problems``.

    Example:
        >>> p = Problems()
        >>> RecordingBudget(5, "f", p).charge(("crc", 1), "f: record 1: bad CRC")
        True
        >>> p.count
        1
    """

    def __init__(self, max_errors: int, source: str, problems: Problems) -> None:
        super().__init__(max_errors, source)
        self.problems = problems

    def charge(self, location: Any, message: str, advice: str | None = None) -> bool:
        new = super().charge(location, message, advice)
        if new:
            self.problems.add(message)
        return new


def print_summary(title: str, rows: Mapping[str, Any]) -> None:
    """Prints ``validate``'s summary table.

    Example:
        >>> print_summary("summary: 2 error(s)", {"records": 10, "corrupted records": 2})
        summary: 2 error(s)
          records            10
          corrupted records  2
    """
    print(title)
    width = max((len(k) for k in rows), default=0)
    for key, value in rows.items():
        say(f"  {key:<{width}}  {value}")


def verdict(errors: int, what: str = "error") -> str:
    """The summary's first line.

    Example:
        >>> verdict(0), verdict(3)
        ('summary: OK, no errors', 'summary: 3 error(s)')
    """
    return "summary: OK, no errors" if errors == 0 else f"summary: {errors} {what}(s)"


__all__ = ["Problems", "ReadOptions", "RecordingBudget", "SHOWN", "print_summary", "verdict"]
