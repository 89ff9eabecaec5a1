"""``minibatcher validate`` of a CTF file: parse every chunk and report every error.

Errors are collected through ``CTFDeserializer(on_error=..., on_skip=...)``
(each message names file:line:column and the byte offset and shows the line
with a caret), followed by a summary of ``deserializer.stats``. The file is
read with ``skip_incomplete_sequences=True``, so that a sequence that lost a
stream (fatal when training with the default options) is reported and
reading goes on: every problem of the file is listed, not just the first of
each chunk. Exit status 1 when there is any error or incomplete sequence, 0
otherwise.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("|x 1 2\\n|x 3 4\\n")
    >>> main = __import__("minibatcher.cli", fromlist=["main"]).main
    >>> main(["validate", str(p), "--stream", "x:2:dense"])  # doctest: +ELLIPSIS
    validating ... with streams: x:2:dense
    <BLANKLINE>
    summary: OK, no errors
    ...
    0
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..errors import ErrorBudgetExceeded, FileChangedError, FormatError
from ..formats.ctf import CTFDeserializer
from ..streams import StreamDefs
from . import common
from .wording import say

DEFAULT_CHUNK_SIZE = 1 << 20
_SUMMARY = (("errors", "errors"), ("skipped_sequences", "lost a stream"),
            ("zero_filled_samples", "zero-filled samples"),
            ("unknown_inputs", "unknown inputs"), ("dropped_sequences", "dropped sequences"),
            ("repeated_ids", "repeated ids"), ("ignored_lines", "ignored lines"))


def _streams(args: argparse.Namespace, path: Path) -> StreamDefs:
    if args.stream:
        return common.with_main_stream(common.stream_defs(args.stream), args.defines_mb_size)
    defs = common.surveyed_streams(common.survey_file(path))
    specs = " ".join(common.describe_stream(n, sd) for n, sd in defs.items())
    print(f"no --stream given: using the streams found by a survey of the file: {specs}")
    return common.with_main_stream(defs, args.defines_mb_size)


class _Printer:
    """Prints each error as it is charged (the ``on_error`` callback) or each
    incomplete sequence (``on_skip``, with ``what="incomplete sequence"``).

    Example:
        >>> _Printer()("f.ctf:1:1 (byte offset 0): bad")
        error 1: f.ctf:1:1 (byte offset 0): bad
        <BLANKLINE>
    """

    def __init__(self, what: str = "error", errors: "_Printer | None" = None) -> None:
        self.what, self.count, self.errors = what, 0, errors
        self.numbers: dict[str, int] = {}

    def __call__(self, message: str) -> None:
        self.count += 1
        self.numbers[message] = self.count
        if self.errors is not None and message in self.errors.numbers:  # printed just above
            say(f"{self.what} {self.count}: see error {self.errors.numbers[message]} above\n")
            return
        say(f"{self.what} {self.count}: {message}\n")


def _open(args: argparse.Namespace, path: Path, defs: StreamDefs, printers: tuple[_Printer, _Printer],
          large: bool) -> CTFDeserializer:
    with common.progress_bar(path.stat().st_size, "index", enabled=large) as update:
        return CTFDeserializer(
            path, defs, skip_sequence_ids=args.skip_sequence_ids, max_errors=args.max_errors,
            trace_level=0, chunk_size_in_bytes=args.chunk_size, precision=args.precision,
            progress=lambda done, total: update(done), on_error=printers[0],
            skip_incomplete_sequences=True, on_skip=printers[1])


def _read_chunks(d: CTFDeserializer, large: bool) -> int:
    """Parses every chunk; a fatal problem (none is expected: incomplete
    sequences are skipped) is printed and ends only its chunk. Returns the
    number of fatal problems."""
    chunks, fatal = d.table().num_chunks, 0
    with common.progress_bar(chunks, "chunks", unit="chunk", enabled=large) as update:
        for chunk_id in range(chunks):
            try:
                d.load_chunk(chunk_id)
            except ErrorBudgetExceeded:
                raise
            except FormatError as e:
                fatal += 1
                say(f"fatal error (the rest of chunk {chunk_id} is not read):\n{e}\n")
            update(chunk_id + 1)
    return fatal


def print_summary(stats: dict[str, Any], stopped: bool = False) -> None:
    """Prints ``stats.as_dict()`` (``stopped``: reading ended early, so the
    counts cover only what was read).

    Example:
        >>> print_summary({"errors": 0, "zero_filled_samples": 2, "unknown_inputs": {"z": 3},
        ...                "dropped_sequences": 0, "repeated_ids": 0, "ignored_lines": 1})
        summary: OK, no errors
          errors               0
          lost a stream        0
          zero-filled samples  2
          unknown inputs       z (3 samples)
          dropped sequences    0
          repeated ids         0
          ignored lines        1
    """
    errors, incomplete = stats["errors"], stats.get("skipped_sequences", 0)
    if stopped:
        print(f"summary: reading stopped early; {errors} error(s) before that")
    elif errors == 0 and incomplete == 0:
        print("summary: OK, no errors")
    else:
        print(f"summary: {errors} error(s), {incomplete} incomplete sequence(s)")
    for key, label in _SUMMARY:
        value = stats.get(key, 0)
        if key == "unknown_inputs":
            value = ", ".join(f"{k} ({v} samples)" for k, v in value.items()) or "none"
        elif key == "skipped_sequences" and value:
            value = (f"{value} sequence(s) without a sample of some stream (fatal when "
                     "training unless skip_incomplete_sequences=True)")
        say(f"  {label:<19}  {value}")


def _validate(args: argparse.Namespace, path: Path, defs: StreamDefs, large: bool) -> int:
    printer, d, fatal, stopped = _Printer(), None, 0, False
    skips = _Printer("incomplete sequence", errors=printer)
    try:
        d = _open(args, path, defs, (printer, skips), large)
        fatal = _read_chunks(d, large)
    except ErrorBudgetExceeded as e:
        stopped = True
        say(f"stopped: more than --max-errors {args.max_errors} errors\n{e}\n")
    except (FormatError, FileChangedError) as e:
        stopped = True
        say(f"fatal error (reading stopped here):\n{e}\n")
    if d is None:
        print(f"summary: reading stopped early; {printer.count} error(s) before that")
        return 1
    stats = d.stats.as_dict()
    print_summary(stats, stopped)
    if fatal:
        print(f"  {'fatal problems':<19}  {fatal} (the rest of their chunks was not read)")
    return 1 if stopped or fatal or stats["errors"] or printer.count or skips.count else 0


def validate(args: argparse.Namespace, path: Path) -> int:
    """Validates a CTF file; 1 when it has errors, 0 when it is clean."""
    common.check_positive("--chunk-size", args.chunk_size)
    large = path.stat().st_size > common.LARGE_FILE
    defs = _streams(args, path)
    print(f"validating {path} with streams: "
          + " ".join(common.describe_stream(n, sd) for n, sd in defs.items()) + "\n")
    return _validate(args, path, defs, large)
