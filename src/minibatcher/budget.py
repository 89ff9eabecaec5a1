"""The error budget (CNTK's ``maxErrors``), charged once per location.

``max_errors`` malformed items are tolerated; the next one raises. An item is
identified by its location, so re-reading the same chunk in a later sweep
does not charge it again (DECISIONS.md 4).

Example:
    >>> budget = ErrorBudget(1, "data.ctf")
    >>> budget.charge(("bad", 10), "x"), budget.charge(("bad", 10), "x"), budget.count
    (True, False, 1)
    >>> budget.charge(("bad", 20), "data.ctf:2: unexpected ','")
    Traceback (most recent call last):
    ...
    minibatcher.errors.ErrorBudgetExceeded: reached the maximum number of allowed errors (max_errors=1) while reading data.ctf: data.ctf:2: unexpected ','
    Use max_errors=N with a larger N to skip more malformed items (1 skipped so far).
"""

from __future__ import annotations

import threading
from typing import Hashable

from .args import non_negative_int
from .errors import ErrorBudgetExceeded


def check_max_errors(max_errors: int) -> int:
    """Validates ``max_errors``.

    Example:
        >>> check_max_errors(-1)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option max_errors should be a non-negative integer, but got max_errors=-1
    """
    return non_negative_int("max_errors", max_errors)


class ErrorBudget:
    """Counts distinct malformed items; raises once more than ``max_errors`` are seen.

    Thread-safe: chunks are parsed on background threads.

    Example:
        >>> ErrorBudget(3, "f").remaining
        3
    """

    def __init__(self, max_errors: int, source: str) -> None:
        self.max_errors = check_max_errors(max_errors)
        self.source = source
        self._charged: set[Hashable] = set()
        self._lock = threading.Lock()

    @property
    def count(self) -> int:
        """Distinct errors charged so far."""
        return len(self._charged)

    @property
    def remaining(self) -> int:
        """Errors still tolerated before the next one raises."""
        return self.max_errors - self.count

    def seen(self, location: Hashable) -> bool:
        """Whether ``location`` was already charged."""
        return location in self._charged

    def charge(self, location: Hashable, message: str, advice: str | None = None) -> bool:
        """Charges one error; False when ``location`` was charged before.

        Raises :class:`ErrorBudgetExceeded` when the budget is used up. ``advice``
        replaces the default advice (raise ``max_errors``) for problems that
        more tolerance is not the fix for, such as a missing file; with
        ``max_errors=0`` such an error is then just ``message`` and ``advice``.

        Example:
            >>> ErrorBudget(0, "a.scp").charge("f", "a.scp:1: cannot open 'x.htk'", advice="")
            Traceback (most recent call last):
            ...
            minibatcher.errors.ErrorBudgetExceeded: a.scp:1: cannot open 'x.htk'
        """
        with self._lock:
            if location in self._charged:
                return False
            if len(self._charged) >= self.max_errors:
                raise ErrorBudgetExceeded(self._exceeded(message, advice))
            self._charged.add(location)
            return True

    def _exceeded(self, message: str, advice: str | None) -> str:
        if advice is not None and self.max_errors == 0:
            return f"{message}\n{advice}".rstrip()
        if advice is None:
            advice = ("Use max_errors=N with a larger N to skip more malformed items "
                      f"({len(self._charged)} skipped so far).")
        return (f"reached the maximum number of allowed errors (max_errors={self.max_errors}) "
                f"while reading {self.source}: {message}\n{advice}").rstrip()
