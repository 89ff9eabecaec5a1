"""``minibatcher inspect`` of speech files: HTK feature files, SCP lists and MLFs.

* an HTK file: its header (kind and qualifiers, dimension, frames, period,
  byte order), whether it is truncated and whether its ``_K`` checksum holds;
* an SCP file: utterances, frames, archives, and every problem the reader
  would skip (malformed lines, missing archives, ranges past the end), with
  the utterance-length histogram;
* an MLF: entries, frames, the invalid entries by cause and the frames of
  each label (``--labels`` checks and names the labels with a state list).

A report with an ``error`` (nothing can be read) makes ``inspect`` exit 1.
Every file is opened through the format layer (``GuardedFile``).

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.htk import write_htk
    >>> d = pathlib.Path(tempfile.mkdtemp()); write_htk(d / "a.htk", np.ones((3, 2), np.float32))
    >>> r = collect_htk(d / "a.htk")
    >>> r["kind"], r["frames"], r["problem"]
    ('USER', 3, None)
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ErrorBudgetExceeded, FormatError
from ..formats.guarded_file import GuardedFile, read_small_file
from ..formats.htk.backend import backend
from ..formats.htk.codes import COMPRESSED, HAS_CRC, HeaderIssue
from ..formats.htk.diagnostics import NothingToRead
from ..formats.htk.htkfile import describe_header_issue, kind_name
from ..formats.htk.labels import read_state_list
from ..formats.htk.reference import MLF_ISSUES
from . import common
from .inspect_ctf import histogram
from .problems import Problems, ReadOptions


def read_header(path: Path, verify_crc: bool = True) -> dict[str, Any]:
    """The native header report of one HTK file (``read_headers`` of the
    format layer, on a guarded descriptor).

    Example:
        >>> import tempfile
        >>> from minibatcher.formats.htk import write_htk
        >>> p = Path(tempfile.mkdtemp()) / "a.htk"; write_htk(p, np.ones((2, 5), np.float32))
        >>> int(read_header(p)["dim"][0])
        5
    """
    with GuardedFile(path, what="HTK file") as f:
        headers = backend("native").read_headers(np.array([f.fileno()]), np.array([f.size]),
                                                 verify_crc)
        f.check()
    return headers


def collect_htk(path: Path, verify_crc: bool = True) -> dict[str, Any]:
    """The header report of one HTK file (``error`` when it cannot be read)."""
    h = read_header(path, verify_crc)
    kind = int(h["kind"][0])
    problem = describe_header_issue(h, 0) if int(h["issue"][0]) else None
    report = {"file": str(path), "format": "htk", "kind": kind_name(kind), "parm_kind": kind,
              "dim": int(h["dim"][0]), "frames": int(h["samples"][0]),
              "period_100ns": int(h["period"][0]),
              "byte_order": "big" if bool(h["swap"][0]) == np.little_endian else "little",
              "compressed": bool(kind & COMPRESSED), "checksum": bool(kind & HAS_CRC),
              "problem": problem, "problems": int(problem is not None),
              "first_problems": [f"{path}: {problem}"] if problem else []}
    if problem is not None and not HeaderIssue(int(h["issue"][0])).skips_only_the_missing_part:
        report["error"] = f"{path}: {problem}"
    return report


def collect_scp(path: Path, base_dir: Path | None,
                reading: ReadOptions = ReadOptions(10**9)) -> dict[str, Any]:
    """Utterances, frames, archives and problems of an SCP file (``reading``: the error
    budget, past which ``ErrorBudgetExceeded`` is raised, and whether _K checksums are
    checked)."""
    from ..formats.htk.diagnostics import Diagnostics
    from ..formats.htk.features import HTKFeatureDeserializer
    from ..formats.htk.scp import load_scp
    from ..streams import StreamDef

    problems = Problems()
    diag = Diagnostics(str(path), 10**9, 0)  # counts lines; the reader below reports problems
    rows = load_scp([path], diag, base_dir=base_dir)
    report: dict[str, Any] = {"file": str(path), "format": "scp", "lines": len(rows.keys) +
                              diag.stats.errors, "blank_lines": diag.stats.blank_lines,
                              "archives": len(rows.paths), "base_dir": str(rows.base_dir)}
    try:
        f = HTKFeatureDeserializer({"features": StreamDef(scp=str(path))}, base_dir=base_dir,
                                   max_errors=reading.max_errors, verify_crc=reading.verify_crc,
                                   trace_level=0, on_error=problems)
        lengths = f.table().lengths
        report.update(utterances=len(lengths), frames=int(lengths.sum()), dim=f.file_dim,
                      chunks=f.table().num_chunks, skipped=f.stats.skipped_utterances,
                      histogram=histogram(lengths))
    except ErrorBudgetExceeded:
        raise  # past --max-errors: inspect stops (exit status 1)
    except FormatError as e:  # nothing readable at all: say why (exit status 1)
        skipped = e.stats.skipped_utterances if isinstance(e, NothingToRead) else None
        report.update(utterances=0, frames=0, skipped=skipped, histogram=[], error=str(e))
    report.update(problems.as_json())
    return report


def _label_frames(r: dict[str, Any], states: list[str] | None) -> dict[str, int]:
    """Frames per label of the valid entries (label names with a state list,
    class ids without)."""
    counts = np.bincount(np.asarray(r["run_class"], np.int64),
                         weights=np.asarray(r["run_length"], np.int64)).astype(np.int64)
    return {(states[i] if states else str(i)): int(n) for i, n in enumerate(counts.tolist()) if n}


def _mlf_problems(path: Path, labels: Path | None, dim: int | None,
                  max_errors: int) -> dict[str, Any]:
    """The MLF reader's own messages for every skipped entry (and duplicates)."""
    from ..formats.htk import HTKMLFDeserializer
    from ..streams import StreamDef

    problems = Problems()
    try:
        HTKMLFDeserializer(labels, {"labels": StreamDef(mlf=str(path), shape=dim or 1 << 30)},
                           max_errors=max_errors, trace_level=0, on_error=problems)
    except NothingToRead:  # no entry left: the report's error says so
        pass
    return problems.as_json()


def collect_mlf(path: Path, labels: Path | None, max_errors: int = 10**9) -> dict[str, Any]:
    """Entries, frames, invalid entries and frames per label of an MLF."""
    states = read_state_list(labels) if labels is not None else None
    r = backend("native").parse_mlf(read_small_file(path, "MLF"), states, 0)
    base = {"file": str(path), "format": "mlf", "state_list": str(labels) if labels else None}
    if not r["header_ok"]:
        return {**base, "entries": 0, "valid_entries": 0, "frames": 0, "problems": 1,
                "first_problems": [f"{path}:1: no #!MLF!# header"],
                "error": f"{path}: not an MLF: the first line should be #!MLF!#"}
    issues = r["issues"]
    valid = issues == 0
    causes = Counter(MLF_ISSUES[int(i)] for i in issues[~valid].tolist())
    report = {**base, "entries": len(issues), "valid_entries": int(valid.sum()),
              "frames": int(r["frames"][valid].sum()), "label_lines": len(r["run_class"]),
              "distinct_labels": len(np.unique(r["run_class"])), "invalid": dict(causes),
              **_mlf_problems(path, labels, len(states) if states else None, max_errors),
              "histogram": histogram(r["frames"][valid]) if valid.any() else [],
              "labels": _label_frames(r, states) if valid.any() else {}}
    if not valid.any():
        why = "it has no entry" if not len(issues) else "no entry is valid"
        hint = "" if states or not len(issues) else (
            " (without --labels, label lines need a class id in column 4; give the state list)")
        report["error"] = f"{path}: no label entry to read: {why}{hint}"
    return report


def print_report(report: dict[str, Any]) -> None:
    """Prints an HTK, SCP or MLF report for people."""
    from .inspect_ctf import histogram_items, print_bars, print_problems

    skip = {"histogram", "first_problems", "file", "format", "labels", "problems", "problem",
            "error"}
    print(f"{report['file']}: {report['format'].upper()} file")
    for key, value in report.items():
        if key not in skip and value is not None:
            print(f"  {key.replace('_', ' ')}: {value}")
    if report.get("histogram"):
        print_bars("lengths (frames):", histogram_items(report["histogram"]))
    if report.get("labels"):
        top = sorted(report["labels"].items(), key=lambda kv: -kv[1])[:30]
        print_bars(f"frames per label ({len(report['labels'])} labels, the 30 most frequent):",
                   top)
    print_problems(report)
    if report.get("error"):
        print(f"error: {report['error']}")


def collect(kind: str, path: Path, base_dir: str | None, labels: str | None,
            reading: ReadOptions = ReadOptions(10**9)) -> dict[str, Any]:
    """The report of an ``htk``, ``scp`` or ``mlf`` file."""
    if kind == "htk":
        return collect_htk(path, reading.verify_crc)
    if kind == "scp":
        base = Path(base_dir) if base_dir else None  # None: the working directory
        return collect_scp(path, base, reading)
    labels_file = Path(common.existing_file(labels, "--labels")) if labels else None
    return collect_mlf(path, labels_file, reading.max_errors)


__all__ = ["collect", "collect_htk", "collect_mlf", "collect_scp", "print_report", "read_header"]
