"""``minibatcher inspect`` of text files (tf.data's ``TextLineDataset``, nmt
corpora and vocabularies) and CNTK configs.

A text report gives lines, blank lines, tokens (whitespace-separated), the
histogram of tokens per line, the vocabulary size, the most frequent tokens,
and problems (bytes that are not UTF-8, by line and byte offset). A config
report lists every section with a ``reader`` and what its reader reads
(deserializers, streams, sequences, samples), or why it cannot be built.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "train.en"
    >>> _ = p.write_bytes(b"a b c\\n\\nb c\\n")
    >>> r = collect_text(p)
    >>> r["lines"], r["blank_lines"], r["tokens"], r["vocabulary"], r["top_tokens"]["b"]
    (3, 1, 5, 3, 2)
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from ..formats.guarded_file import GuardedFile
from ..formats.read_ahead import line_blocks
from . import common
from .inspect_ctf import histogram
from .problems import Problems

TOP_TOKENS = 30
_BLOCK = 1 << 22


def _scan_block(data: bytes, offset: int, first_line: int, problems: Problems,
                tokens: Counter, lengths: list[int], path: Path) -> int:
    """Counts one block of whole lines; returns the number of lines in it."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    at = offset
    for i, raw in enumerate(lines):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            problems.add(f"{path}:{first_line + i}: byte offset {at + e.start}: byte "
                         f"{raw[e.start]:#04x} is not UTF-8 (expected UTF-8 text)")
            text = raw.decode("utf-8", errors="replace")
        words = text.split()
        lengths.append(len(words))
        tokens.update(words)
        at += len(raw) + 1
    return len(lines)


def collect_text(path: Path, problems: Problems | None = None) -> dict[str, Any]:
    """The report of a text file (``error`` when it has no line at all);
    ``problems`` (optional) receives every problem."""
    problems = Problems() if problems is None else problems
    tokens: Counter[str] = Counter()
    lengths: list[int] = []
    line = 1
    with GuardedFile(path, what="text file") as f:
        size = f.size
        with common.progress_bar(size, "scan", enabled=size > common.LARGE_FILE) as update:
            for offset, block in line_blocks(f, _BLOCK):
                line += _scan_block(bytes(block), offset, line, problems, tokens, lengths, path)
                update(offset + len(block))
        f.check()
    counts = np.asarray(lengths, np.int64)
    report = {"file": str(path), "format": "text", "size": size, "lines": len(counts),
              "blank_lines": int((counts == 0).sum()), "tokens": int(counts.sum()),
              "vocabulary": len(tokens), "histogram": histogram(counts) if len(counts) else [],
              "histogram_of": "tokens per line",
              "top_tokens": dict(tokens.most_common(TOP_TOKENS)), **problems.as_json()}
    if not len(counts):
        report["error"] = f"{path}: no line to read: the file is empty"
    return report


def print_text(r: dict[str, Any]) -> None:
    """Prints a :func:`collect_text` report."""
    from .inspect_ctf import histogram_items, print_bars, print_problems

    print(f"file:          {r['file']} ({common.human_size(r['size'])}, UTF-8 text)")
    print(f"lines:         {r['lines']} ({r['blank_lines']} blank)")
    print(f"tokens:        {r['tokens']} (whitespace-separated; {r['vocabulary']} distinct)")
    print_bars("tokens per line:", histogram_items(r["histogram"]))
    print_bars(f"the {len(r['top_tokens'])} most frequent tokens:", list(r["top_tokens"].items()))
    print_problems(r)
    if r.get("error"):
        print(f"error: {r['error']}")


def _reader_sections(node: Any, out: list) -> list:
    """Every config block (depth first) that holds a ``reader``."""
    from ..config import ConfigNode

    if node.has("reader"):
        out.append(node)
    for key in node.keys():
        value = node.get(key, inherit=False)
        if isinstance(value, ConfigNode) and key.lower() != "reader":
            _reader_sections(value, out)
    return out


def _section(path: Path, section: Any, base_dir: str | None, max_errors: int) -> dict[str, Any]:
    from ..engine.source import MinibatchSource
    from ..errors import ConfigError, ErrorBudgetExceeded

    name = section.name if section.parent is not None else None
    entry: dict[str, Any] = {"section": name or "(top level)"}
    try:
        with MinibatchSource.from_config(path, name, base_dir=base_dir, max_errors=max_errors,
                                         trace_level=0) as src:
            table = src.deserializer.table()
            entry.update(deserializer=src.deserializer.name, sequences=table.num_sequences,
                         samples=int(src.sweep_size), chunks=table.num_chunks,
                         streams=[f"{i.name}:{i.dim}:{'sparse' if i.is_sparse else 'dense'}"
                                  for i in src.stream_infos()])
    except ErrorBudgetExceeded:
        raise  # past --max-errors: inspect stops
    except ConfigError as e:  # the config is wrong (a file it names is missing, ...): status 2
        entry.update(error=str(e), config_error=True)
    except Exception as e:  # a section whose data cannot be read: say why (exit status 1)
        entry["error"] = str(e)
    return entry


def collect_config(path: Path, base_dir: str | None, max_errors: int = 10**9) -> dict[str, Any]:
    """Every reader section of a config and what it reads; ``configuration_errors`` counts
    the sections the config itself makes unreadable (``inspect`` exits 2 then)."""
    from ..config import load_config

    sections = [_section(path, s, base_dir, max_errors)
                for s in _reader_sections(load_config(path), [])]
    problems = [f"section {s['section']}: {s['error']}" for s in sections if "error" in s]
    report = {"file": str(path), "format": "config", "sections": sections,
              "configuration_errors": sum(bool(s.get("config_error")) for s in sections),
              "problems": len(problems), "first_problems": [p.splitlines()[0] for p in problems]}
    if not sections:
        report["error"] = f"{path}: no section of the config has a reader"
    elif len(problems) == len(sections):
        report["error"] = f"{path}: no reader section can be read: {problems[0]}"
    return report


def print_config(r: dict[str, Any]) -> None:
    """Prints a :func:`collect_config` report."""
    from .inspect_ctf import print_problems

    print(f"file:          {r['file']} (CNTK config)")
    for s in r["sections"]:
        if "error" in s:
            print(f"section {s['section']}: cannot be read: {s['error'].splitlines()[0]}")
            continue
        print(f"section {s['section']}: {s['deserializer']}: {s['sequences']} sequences, "
              f"{s['samples']} samples, {s['chunks']} chunks; streams {' '.join(s['streams'])}")
    print_problems(r)
    if r.get("error"):
        print(f"error: {r['error']}")


__all__ = ["collect_config", "collect_text", "print_config", "print_text"]
