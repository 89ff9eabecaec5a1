"""``minibatcher inspect`` for speech files: HTK feature files, SCP lists and MLFs.

* an HTK file: its header (kind and qualifiers, dimension, frames, period,
  byte order), whether it is truncated and whether its ``_K`` checksum holds;
* an SCP file: utterances, frames, archives, and every problem the reader
  would skip (malformed lines, missing archives, ranges past the end), with
  the utterance-length histogram;
* an MLF: entries, frames, the invalid entries by cause (``--labels``
  checks the labels against a state list).

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.htk import write_htk
    >>> d = pathlib.Path(tempfile.mkdtemp()); write_htk(d / "a.htk", np.ones((3, 2), np.float32))
    >>> detect(str(d / "a.htk")), collect_htk(d / "a.htk")["kind"]
    ('htk', 'USER')
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from ..formats.htk.backend import backend
from ..formats.htk.diagnostics import Diagnostics
from ..formats.htk.htkfile import describe_header_issue, kind_name
from ..formats.htk.labels import read_state_list
from ..formats.htk.reference import MLF_ISSUES
from ..formats.htk.scp import load_scp
from . import common

_MAX_SHOWN = 10


def detect(path: str) -> str | None:
    """``"htk"``, ``"mlf"``, ``"scp"`` or ``None`` (another kind of file)."""
    p = Path(path)
    if not p.is_file():
        return None
    with open(p, "rb") as f:
        head = f.read(4096)
    if head.lstrip().startswith(b"#!MLF!#"):
        return "mlf"
    if p.suffix.lower() == ".scp":
        return "scp"
    fd = os.open(p, os.O_RDONLY)
    try:
        h = backend("native").read_headers(np.array([fd]), np.array([p.stat().st_size]), False)
    finally:
        os.close(fd)
    exact = int(h["data_start"][0]) + int(h["samples"][0]) * int(h["sample_size"][0]) + (
        2 if int(h["kind"][0]) & 0o10000 else 0)
    return "htk" if int(h["issue"][0]) == 0 and exact == p.stat().st_size else None


def collect_htk(path: Path) -> dict[str, Any]:
    """The header report of one HTK file."""
    fd = os.open(path, os.O_RDONLY)
    try:
        h = backend("native").read_headers(np.array([fd]), np.array([path.stat().st_size]), True)
    finally:
        os.close(fd)
    kind = int(h["kind"][0])
    return {"file": str(path), "format": "htk", "kind": kind_name(kind), "parm_kind": kind,
            "dim": int(h["dim"][0]), "frames": int(h["samples"][0]),
            "period_100ns": int(h["period"][0]),
            "byte_order": "big" if bool(h["swap"][0]) == np.little_endian else "little",
            "compressed": bool(kind & 0o2000), "checksum": bool(kind & 0o10000),
            "problem": describe_header_issue(h, 0) if int(h["issue"][0]) else None}


def collect_scp(path: Path, base_dir: Path | None) -> dict[str, Any]:
    """Utterances, frames, archives and problems of an SCP file."""
    from ..formats.htk.features import HTKFeatureDeserializer
    from ..streams import StreamDef

    problems: list[str] = []
    diag = Diagnostics(str(path), 10**9, 0)  # counts lines; the reader below reports problems
    rows = load_scp([path], diag, base_dir=base_dir)
    report: dict[str, Any] = {"file": str(path), "format": "scp", "lines": len(rows.keys) +
                              diag.stats.errors, "blank_lines": diag.stats.blank_lines,
                              "archives": len(rows.paths), "base_dir": str(rows.base_dir)}
    try:
        f = HTKFeatureDeserializer({"features": StreamDef(scp=str(path))}, base_dir=base_dir,
                                   max_errors=10**9, trace_level=0, on_error=problems.append)
        lengths = f.table().lengths
        report.update(utterances=len(lengths), frames=int(lengths.sum()), dim=f.file_dim,
                      chunks=f.table().num_chunks, skipped=f.stats.skipped_utterances,
                      histogram=_histogram(lengths))
    except Exception as e:  # nothing readable at all: say why
        report.update(utterances=0, frames=0, error=str(e))
    report["problems"] = len(problems)
    report["first_problems"] = [p.splitlines()[0] for p in problems[:_MAX_SHOWN]]
    return report


def collect_mlf(path: Path, labels: Path | None) -> dict[str, Any]:
    """Entries, frames and invalid entries of an MLF."""
    states = read_state_list(labels) if labels is not None else None
    r = backend("native").parse_mlf(path.read_bytes(), states, 0)
    if not r["header_ok"]:
        return {"file": str(path), "format": "mlf", "error": "no #!MLF!# header"}
    issues = r["issues"]
    valid = issues == 0
    causes = Counter(MLF_ISSUES[int(i)] for i in issues[~valid].tolist())
    first = [f"{path}:{int(line)}: {MLF_ISSUES[int(i)]}"
             for i, line in zip(issues[~valid][:_MAX_SHOWN].tolist(),
                                r["issue_lines"][~valid][:_MAX_SHOWN].tolist())]
    classes = np.unique(r["run_class"]) if len(r["run_class"]) else np.zeros(0)
    return {"file": str(path), "format": "mlf", "entries": len(issues),
            "valid_entries": int(valid.sum()), "frames": int(r["frames"][valid].sum()),
            "label_lines": len(r["run_class"]), "distinct_labels": len(classes),
            "invalid": dict(causes), "first_problems": first,
            "histogram": _histogram(r["frames"][valid])}


def _histogram(lengths: np.ndarray) -> list[dict[str, int]]:
    from .inspect import histogram

    return histogram(np.asarray(lengths)) if len(lengths) else []


def _print(report: dict[str, Any]) -> None:
    skip = {"histogram", "first_problems", "file", "format"}
    print(f"{report['file']}: {report['format'].upper()} file")
    for key, value in report.items():
        if key not in skip and value is not None:
            print(f"  {key.replace('_', ' ')}: {value}")
    for line in report.get("first_problems", []):
        print(f"  ! {line}")
    buckets = report.get("histogram") or []
    if buckets:
        print("  lengths (frames): " + ", ".join(
            f"{b['min']}{'' if b['min'] == b['max'] else '-' + str(b['max'])}: {b['count']}"
            for b in buckets))


def report(files: list[str], args: argparse.Namespace) -> bool:
    """Prints the report when ``files`` is one HTK, SCP or MLF file; False otherwise."""
    if len(files) != 1:
        return False
    kind = detect(files[0])
    if kind is None:
        return False
    path = common.existing_file(files[0])
    base = getattr(args, "base_dir", None)
    labels = getattr(args, "labels", None)
    if kind == "htk":
        result = collect_htk(path)
    elif kind == "scp":
        result = collect_scp(path, Path(base) if base else None)  # None: the working directory
    else:
        result = collect_mlf(path, Path(labels) if labels else None)
    print(json.dumps(result)) if args.json else _print(result)
    return True
