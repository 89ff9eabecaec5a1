"""``minibatcher validate`` of text files and CNTK configs.

Text: every line must be UTF-8 (each bad line is named with its byte offset);
an empty file has no line to read. Config: every reader section (or
``--section``) must build, and every chunk of its data must read.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "train.de"
    >>> _ = p.write_bytes(b"gut\\nbad \\xff\\n")
    >>> main = __import__("minibatcher.cli", fromlist=["main"]).main
    >>> main(["validate", str(p)])  # doctest: +ELLIPSIS
    validating ... (text)
    <BLANKLINE>
    error 1: .../train.de:2: byte offset 8: byte 0xff is not UTF-8 (expected UTF-8 text)
    <BLANKLINE>
    summary: 1 error(s)
      problems     1
      lines        2
      blank lines  0
    1
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..errors import ConfigError, ErrorBudgetExceeded, FileChangedError, FormatError
from .problems import Problems, print_summary, verdict
from .wording import say


def _text(path: Path) -> int:
    from .inspect_text import collect_text

    say(f"validating {path} (text)\n")
    problems = Problems(echo=True)
    report = collect_text(path, problems)
    if report.get("error"):
        problems.add(report["error"])
    print_summary(verdict(problems.count), {"problems": problems.count, "lines": report["lines"],
                                            "blank lines": report["blank_lines"]})
    return 1 if problems.count else 0


def _read_section(path: Path, name: str | None, base_dir: str | None,
                  max_errors: int) -> dict[str, Any]:
    from ..engine.source import MinibatchSource

    with MinibatchSource.from_config(path, name, base_dir=base_dir, max_errors=max_errors,
                                     trace_level=0) as source:
        d = source.deserializer
        table = d.table()
        for c in range(table.num_chunks):
            d.load_chunk(c)
        stats = getattr(d, "stats", None)
        return {"sequences": table.num_sequences, "samples": int(source.sweep_size),
                "skipped errors": stats.as_dict().get("errors", 0) if stats is not None else 0}


def _config(args: argparse.Namespace, path: Path) -> int:
    from .inspect_text import _reader_sections
    from ..config import load_config

    say(f"validating {path} (CNTK config)\n")
    sections = _reader_sections(load_config(path), [])
    names = [s.name if s.parent is not None else None for s in sections]
    if args.section is not None:
        names = [args.section]
    problems, rows, config_errors = Problems(echo=True), {}, 0
    for name in names:
        label = name or "(top level)"
        try:
            counts = _read_section(path, name, args.base_dir, args.max_errors)
            rows[f"section {label}"] = ", ".join(f"{v} {k}" for k, v in counts.items())
        except ConfigError as e:  # the config is wrong, not the data: exit status 2
            problems.add(f"section {label}: {e}")
            rows[f"section {label}"] = "cannot be built (the config is wrong)"
            config_errors += 1
        except (FormatError, FileChangedError, ErrorBudgetExceeded, OSError, ValueError) as e:
            problems.add(f"section {label}: {e}")
            rows[f"section {label}"] = "cannot be read"
    if not names:
        problems.add(f"{path}: no section of the config has a reader")
    print_summary(verdict(problems.count), {"problems": problems.count, **rows})
    return 2 if config_errors else 1 if problems.count else 0


def validate(kind: str, args: argparse.Namespace, path: Path) -> int:
    """Validates a ``text`` file or a ``config``: 2 when a section cannot be built because of
    the config itself (a file it names does not exist, a bad option), 1 when the data has
    problems, else 0."""
    return _config(args, path) if kind == "config" else _text(path)
