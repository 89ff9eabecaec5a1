"""Turns parser issues into messages, budget charges, log records and counts.

Errors are charged once per location for the reader's lifetime; warnings of a
chunk are logged the first time it is parsed; every skipped or repaired item
is counted in :class:`CTFStats` (nothing is dropped silently).

Example:
    >>> stats = CTFStats()
    >>> stats.zero_filled_samples, stats.unknown_inputs
    (0, {})
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ...budget import ErrorBudget
from ...errors import FormatError
from ...log import Tracer
from .issues import Issue, IssueCode, describe, excerpt, issues_from_array

_WARNINGS_PER_CHUNK = 8


@dataclass
class CTFStats:
    """Counts of everything a CTF reader skipped or repaired.

    ``errors`` are malformed items charged to the budget (samples, rows,
    sequences, repeated ids); ``skipped_sequences`` are sequences left out
    because some stream had no sample in them (only with
    ``skip_incomplete_sequences=True``); ``zero_filled_samples`` are dense samples with
    fewer values than ``dim``; ``unknown_inputs`` counts samples of inputs
    that no stream declares; ``dropped_sequences`` lack the stream that
    defines the minibatch size; ``ignored_lines`` are blank or comment-only.

    Example:
        >>> CTFStats(errors=2).as_dict()["errors"]
        2
    """

    errors: int = 0
    skipped_sequences: int = 0
    zero_filled_samples: int = 0
    unknown_inputs: dict[str, int] = field(default_factory=dict)
    dropped_sequences: int = 0
    repeated_ids: int = 0
    ignored_lines: int = 0

    def as_dict(self) -> dict[str, Any]:
        """A JSON-able copy.

        Example:
            >>> sorted(CTFStats().as_dict())[:2]
            ['dropped_sequences', 'errors']
        """
        return {
            "errors": self.errors,
            "skipped_sequences": self.skipped_sequences,
            "zero_filled_samples": self.zero_filled_samples,
            "unknown_inputs": dict(self.unknown_inputs),
            "dropped_sequences": self.dropped_sequences,
            "repeated_ids": self.repeated_ids,
            "ignored_lines": self.ignored_lines,
        }


class CTFDiagnostics:
    """Processes the issues of parsed chunks of one file. ``data`` is the
    file's bytes or a ``read(start, stop) -> bytes`` function (for excerpts).

    Example:
        >>> d = CTFDiagnostics("f.ctf", b"|a 1,\\n", ["a"], ["a"], [1], np.zeros(1, np.uint64),
        ...                    ErrorBudget(5, "f.ctf"), Tracer(0))
        >>> print(d.message(Issue(IssueCode.BAD_VALUE_END, 0, 4, 1, 0, ord(","), 0), 0))
        f.ctf:1:5 (byte offset 4): value of input 'a' is followed by ','; expected a space, a tab, '|' or the end of the line after a value
            |a 1,
                ^
    """

    def __init__(self, path: str, data: Any, names: Sequence[str], aliases: Sequence[str],
                 dims: Sequence[int], keys: np.ndarray, budget: ErrorBudget, tracer: Tracer,
                 on_error: Callable[[str], object] | None = None, skip_incomplete: bool = False,
                 on_skip: Callable[[str], object] | None = None) -> None:
        self.path, self.data, self.aliases = path, data, list(aliases)
        self.names = [repr(a) if a == n else f"{a!r} (stream {n!r})" for n, a in zip(names, aliases)]
        self.dims, self.keys, self.budget, self.tracer = list(dims), keys, budget, tracer
        self.on_error, self.on_skip, self.skip_incomplete = on_error, on_skip, skip_incomplete
        self.stats = CTFStats()
        self._skipped: set[int] = set()  # offsets of skipped sequences (counted once)
        self._lock = threading.Lock()
        self._seen_chunks: set[int] = set()
        self._charged_in_chunk: dict[int, int] = {}

    def _bytes(self, start: int, stop: int) -> bytes:
        return bytes(self.data(start, stop) if callable(self.data) else self.data[start:stop])

    def where(self, offset: int, line: int) -> tuple[str, str]:
        """``path:line:column (byte offset N)``, and the line with a caret under the column."""
        text, column = excerpt(self.data, offset)
        return (f"{self.path}:{line}:{column + 1} (byte offset {offset})", f"    {text}\n    {' ' * column}^")

    def message(self, issue: Issue, first_sequence: int) -> str:
        """The full message of one issue."""
        key = int(self.keys[first_sequence + issue.sequence]) if issue.sequence >= 0 else None
        what = describe(issue, self.names, self.dims, key, self.aliases)
        if issue.code is IssueCode.UNKNOWN_INPUT:
            name = self._bytes(issue.offset + 1, issue.offset + 1 + issue.a).decode("latin-1")
            what = what.replace("an unknown input", f"the unknown input {name!r}")
        head, shown = self.where(issue.offset, issue.line)
        return f"{head}: {what}\n{shown}"

    def error_limit(self, chunk_id: int) -> int:
        """How many errors the parser may record before it can stop early."""
        return max(1, self.budget.remaining + 1 + self._charged_in_chunk.get(chunk_id, 0))

    def process(self, chunk_id: int, first_sequence: int, out: dict[str, Any]) -> tuple[int, ...]:
        """Charges, logs and counts the issues of one parsed chunk; raises on
        a fatal issue or when the budget is used up. Returns the sequences
        (within the chunk) to skip."""
        issues = issues_from_array(out["issues"])
        with self._lock:
            if chunk_id not in self._seen_chunks:
                self._seen_chunks.add(chunk_id)
                self._count_warnings(issues, chunk_id, first_sequence, out)
            for issue in issues:
                self._one(issue, chunk_id, first_sequence)
        if out["aborted"]:
            raise FormatError(f"{self.path}: parsing chunk {chunk_id} stopped early without a "
                              "reported cause (please report this as a bug)")
        return tuple(i.sequence for i in issues if i.code is IssueCode.EMPTY_INPUT)

    def _one(self, issue: Issue, chunk_id: int, first_sequence: int) -> None:
        if issue.code is IssueCode.EMPTY_INPUT:
            self._incomplete(issue, chunk_id, first_sequence)
            return
        if not issue.code.is_error or self.budget.seen((issue.code, issue.offset)):
            return
        message = self.message(issue, first_sequence)
        self._charge_in_chunk(chunk_id, (issue.code, issue.offset), message)
        self.tracer.warning("%s (error %d of max_errors=%d; skipped)", message,
                            self.budget.count, self.budget.max_errors)

    def _charge_in_chunk(self, chunk_id: int, location: tuple[Any, int], message: str) -> None:
        self.charge(location, message)
        self._charged_in_chunk[chunk_id] = self._charged_in_chunk.get(chunk_id, 0) + 1

    def _incomplete(self, issue: Issue, chunk_id: int, first_sequence: int) -> None:
        """A sequence without a sample of some stream: fatal (CNTK), or skipped
        and counted once; charged when nothing in it was rejected before."""
        if issue.offset in self._skipped:
            return
        message = self.message(issue, first_sequence)
        if not self.skip_incomplete:
            raise FormatError(message + "\n(this cannot be skipped with max_errors: the sequence "
                              "would lose a stream; skip_incomplete_sequences=True skips such "
                              "sequences, counted, instead of failing)")
        charged = issue.a == 0
        if charged:
            self._charge_in_chunk(chunk_id, (issue.code, issue.offset), message)
        self._skipped.add(issue.offset)
        self.stats.skipped_sequences += 1
        note = (f"error {self.budget.count} of max_errors={self.budget.max_errors}; "
                if charged else "")
        self.tracer.warning("%s (%sthe sequence is skipped)", message, note)
        if self.on_skip is not None:
            self.on_skip(message)

    def charge(self, location: tuple[Any, int], message: str) -> None:
        """Charges one error (raises when the budget is used up) and reports it."""
        self.budget.charge(location, message)
        self.stats.errors = self.budget.count
        if self.on_error is not None:
            self.on_error(message)

    def _count_warnings(self, issues: list[Issue], chunk_id: int, first_sequence: int,
                        out: dict[str, Any]) -> None:
        self.stats.zero_filled_samples += int(out["dense_short"])
        shown = 0
        for issue in issues:
            if issue.code is IssueCode.DENSE_SHORT and shown < _WARNINGS_PER_CHUNK:
                shown += 1
                self.tracer.warning("%s", self.message(issue, first_sequence))
            elif issue.code is IssueCode.UNKNOWN_INPUT:
                name = self._bytes(issue.offset + 1, issue.offset + 1 + issue.a).decode("latin-1")
                if name not in self.stats.unknown_inputs:
                    self.tracer.warning("%s", self.message(issue, first_sequence))
                self.stats.unknown_inputs[name] = self.stats.unknown_inputs.get(name, 0) + issue.b
        hidden = int(out["dense_short"]) - shown
        if hidden > 0:
            self.tracer.warning("%s: %d more zero-filled dense samples in chunk %d (not shown)",
                                self.path, hidden, chunk_id)
