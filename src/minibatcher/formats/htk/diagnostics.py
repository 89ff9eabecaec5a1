"""Error budget, messages and counts of the HTK and MLF readers.

Every malformed item costs one error of the budget (``max_errors``), charged
once per location; within the budget the item is skipped, logged and counted
in :class:`HTKStats` (nothing is dropped silently; DECISIONS 11-13).

Example:
    >>> d = Diagnostics("a.scp", max_errors=1, trace_level=0)
    >>> d.charge(("line", 3), "a.scp:3: bad range", skipped=1)
    >>> d.stats.errors, d.stats.skipped_utterances
    (1, 1)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable, Hashable

from ...budget import ErrorBudget
from ...errors import FormatError
from ...log import Tracer


@dataclass
class HTKStats:
    """What a reader skipped: ``errors`` charged to the budget, the
    ``skipped_utterances`` they removed, ``blank_lines`` of SCP files and
    ``duplicates`` (repeated keys; the first occurrence is kept).

    Example:
        >>> HTKStats(errors=2).as_dict()["errors"]
        2
    """

    errors: int = 0
    skipped_utterances: int = 0
    blank_lines: int = 0
    duplicates: int = 0

    def as_dict(self) -> dict[str, int]:
        """A JSON-able copy."""
        return asdict(self)


class NothingToRead(FormatError):
    """Every utterance or label entry was skipped: a :class:`FormatError` whose ``stats``
    count what was skipped (so a report can show them though no reader was made).

    Example:
        >>> e = NothingToRead("a.mlf: no label entry to read (1 skipped)", HTKStats(1, 1))
        >>> isinstance(e, FormatError), e.stats.skipped_utterances
        (True, 1)
    """

    def __init__(self, message: str, stats: HTKStats) -> None:
        super().__init__(message)
        self.stats = stats


class Diagnostics:
    """Charges errors to a budget, logs them and counts what they skip."""

    def __init__(self, source: str, max_errors: int, trace_level: int,
                 on_error: Callable[[str], object] | None = None) -> None:
        self.budget = ErrorBudget(max_errors, source)
        self.tracer = Tracer(trace_level)
        self.on_error = on_error
        self.stats = HTKStats()

    def charge(self, location: Hashable, message: str, skipped: int = 0,
               advice: str | None = None) -> None:
        """Charges one error (raises ``ErrorBudgetExceeded`` past the budget;
        ``advice`` as :meth:`ErrorBudget.charge`)."""
        if not self.budget.charge(location, message, advice):
            return
        self.stats.errors = self.budget.count
        self.stats.skipped_utterances += skipped
        if self.on_error is not None:
            self.on_error(message)
        self.tracer.warning("%s (error %d of max_errors=%d; skipped)", message, self.budget.count,
                            self.budget.max_errors)


def excerpt(data: bytes, offset: int, limit: int = 160) -> str:
    """The line starting at ``offset``, for messages (control characters escaped, so a
    binary file cannot garble a terminal).

    Example:
        >>> excerpt(b"ab\\ncd\\n", 3), excerpt(b"u=a\\x00b\\x1b[0,1]", 0)
        ('cd', 'u=a\\\\x00b\\\\x1b[0,1]')
    """
    end = len(data)
    for terminator in (b"\n", b"\r"):
        at = data.find(terminator, offset)
        if 0 <= at < end:
            end = at
    text = "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1]
                   for c in data[offset:end].decode("utf-8", errors="replace"))
    return text if len(text) <= limit else text[:limit] + "..."
