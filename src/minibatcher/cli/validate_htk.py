"""``minibatcher validate`` of speech files: SCP lists, MLFs and HTK files.

The readers themselves find the problems (``on_error``: every skipped line,
archive, utterance and label entry, with its location and what was expected);
then every chunk is read, so that frames that cannot be read are found too.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.mlf").write_text('#!MLF!#\\n"u1.lab"\\n0 2 s 0\\n.\\n"u2.lab"\\n0 1 s\\n.\\n')
    >>> main = __import__("minibatcher.cli", fromlist=["main"]).main
    >>> main(["validate", str(d / "a.mlf")])  # doctest: +ELLIPSIS
    validating ... (MLF)
    <BLANKLINE>
    error 1: .../a.mlf:6: entry 'u2' (line 5): ...
    ...
    summary: 1 error(s)
    ...
    1
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..errors import ErrorBudgetExceeded, FileChangedError, FormatError
from ..formats.htk.diagnostics import NothingToRead
from ..streams import StreamDef
from . import common
from .problems import Problems, print_summary, verdict
from .wording import say

_LABEL_DIM = 1 << 30  # a bound no class id reaches when no state list is given


def _features(args: argparse.Namespace, path: Path, problems: Problems) -> Any:
    from ..formats.htk import HTKFeatureDeserializer

    base = Path(args.base_dir) if args.base_dir else None  # None: the working directory
    return HTKFeatureDeserializer({"features": StreamDef(scp=str(path))}, base_dir=base,
                                  max_errors=args.max_errors, verify_crc=args.verify_crc,
                                  trace_level=0, on_error=problems)


def _labels(args: argparse.Namespace, path: Path, problems: Problems) -> Any:
    from ..formats.htk import HTKMLFDeserializer, read_state_list

    labels = str(common.existing_file(args.labels, "--labels")) if args.labels else None
    dim = len(read_state_list(labels)) if labels else _LABEL_DIM
    return HTKMLFDeserializer(labels, {"labels": StreamDef(mlf=str(path), shape=dim)},
                              max_errors=args.max_errors, trace_level=0, on_error=problems)


def _read_all(d: Any, problems: Problems) -> None:
    """Loads every chunk; a chunk that cannot be read is one problem."""
    chunks = d.table().num_chunks
    with common.progress_bar(chunks, "chunks", unit="chunk", enabled=chunks > 64) as update:
        for c in range(chunks):
            try:
                d.load_chunk(c)
            except (FormatError, FileChangedError, OSError) as e:
                if isinstance(e, ErrorBudgetExceeded):
                    raise
                problems.add(f"chunk {c} (the rest of it is not read): {e}")
            update(c + 1)


def _summary(d: Any, stats: dict[str, int] | None, problems: Problems, stopped: bool) -> None:
    """The summary table; ``stats`` are the reader's counts (``None``: reading stopped before
    a reader was made, so they are unknown)."""
    table = d.table() if d is not None else None
    counts = {"skipped utterances": "skipped_utterances", "duplicates": "duplicates",
              "blank lines": "blank_lines"}
    rows = {"problems": problems.count,
            "utterances read": table.num_sequences if table is not None else 0,
            "frames read": int(table.lengths.sum()) if table is not None else 0,
            **{row: stats.get(key, 0) if stats is not None else "unknown (reading stopped)"
               for row, key in counts.items()}}
    title = (f"summary: reading stopped early; {problems.count} error(s) before that" if stopped
             else verdict(problems.count))
    print_summary(title, rows)


def _validate_htk_file(args: argparse.Namespace, path: Path) -> int:
    from ..formats.htk import read_htk
    from .inspect_htk import collect_htk

    problems = Problems(echo=True)
    report = collect_htk(path, args.verify_crc)
    if report["problem"]:
        problems.add(f"{path}: {report['problem']}")
    elif report["frames"] and args.verify_crc:  # read_htk checks the _K checksum
        try:
            read_htk(path)
        except (FormatError, OSError) as e:
            problems.add(str(e))
    checksum = ("none" if not report["checksum"] else
                "not checked (--no-verify-crc)" if not args.verify_crc else
                "does not match" if report["problem"] else "verified")
    print_summary(verdict(problems.count), {
        "problems": problems.count, "kind": report["kind"], "frames": report["frames"],
        "dim": report["dim"], "checksum": checksum})
    return 1 if problems.count else 0


def validate(kind: str, args: argparse.Namespace, path: Path) -> int:
    """Validates an ``scp``, ``mlf`` or ``htk`` file; 1 when it has problems."""
    say(f"validating {path} ({kind.upper()})\n")
    if kind == "htk":
        return _validate_htk_file(args, path)
    problems, d, stats, stopped = Problems(echo=True), None, None, False
    try:
        d = (_features if kind == "scp" else _labels)(args, path, problems)
        stats = d.stats.as_dict()
        _read_all(d, problems)
    except ErrorBudgetExceeded as e:
        stopped = True
        say(f"stopped: more than --max-errors {args.max_errors} errors\n{e}\n")
    except NothingToRead as e:  # nothing readable: the reader says why, and what it skipped
        problems.add(str(e))
        stats = e.stats.as_dict()
    if d is not None:
        stats = d.stats.as_dict()  # what loading the chunks skipped too
    _summary(d, stats, problems, stopped)
    return 1 if stopped or problems.count else 0
