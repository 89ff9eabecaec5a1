"""``minibatcher inspect`` of a CTF file: streams, sequences, chunks, lengths,
label distributions and problems, without declaring the streams.

A survey (one native pass) finds the inputs and their shapes; the index gives
sequences, rows, chunks and the sequence-length histogram; one parse with the
surveyed streams counts the problems a reader would meet and the classes of
every label stream (sparse, one value per sample, as ``|labels 3:1``).

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("0 |x 1 2 |y 3:1\\n0 |x 3 4 |y 0:1\\n1 |x 5 6 |y 3:1\\n")
    >>> report = collect(p, skip_sequence_ids=False, chunk_size=32 << 20)
    >>> report["mode"], report["sequences"], report["rows"], [s["name"] for s in report["streams"]]
    ('sequence ids', 2, 3, ['x', 'y'])
    >>> report["labels"], report["problems"]
    ({'y': {'0': 1, '3': 2}}, 0)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..formats.ctf import CTFDeserializer, index_file
from ..formats.guarded_file import GuardedFile
from . import common
from .problems import Problems

_BAR_WIDTH = 40
_MAX_EXACT_LENGTHS = 12


def histogram(rows: np.ndarray) -> list[dict[str, int]]:
    """Counts of sequence lengths: exact when there are few distinct lengths,
    else in power-of-two buckets ``[2**k, 2**(k+1) - 1]``.

    Example:
        >>> histogram(np.array([1, 1, 3]))
        [{'min': 1, 'max': 1, 'count': 2}, {'min': 3, 'max': 3, 'count': 1}]
    """
    lengths, counts = np.unique(np.asarray(rows, dtype=np.int64), return_counts=True)
    if len(lengths) <= _MAX_EXACT_LENGTHS:
        return [{"min": int(n), "max": int(n), "count": int(c)} for n, c in zip(lengths, counts)]
    buckets: dict[int, int] = {}
    for n, c in zip(lengths.tolist(), counts.tolist()):
        k = max(0, int(n).bit_length() - 1)
        buckets[k] = buckets.get(k, 0) + int(c)
    return [{"min": 1 << k, "max": (1 << (k + 1)) - 1, "count": c}
            for k, c in sorted(buckets.items())]


def _stream_entry(s: Any) -> dict[str, Any]:
    return {"name": s.name, "samples": s.samples, "values": s.tokens,
            "sparse_values": s.sparse_tokens, "looks_sparse": s.looks_sparse,
            "max_index": s.max_index, "dim": s.dim, "min_values_per_sample": s.min_tokens,
            "max_values_per_sample": s.max_tokens}


def _is_label_stream(s: Any) -> bool:
    return s.looks_sparse and s.sparse_tokens == s.tokens and s.min_tokens == s.max_tokens == 1


def _parse(path: Path, surveys: list, skip_sequence_ids: bool,
           max_errors: int) -> tuple[Problems, dict]:
    """Parses every chunk with the surveyed streams: the problems and the
    class counts of the label streams (class index as text -> samples)."""
    problems = Problems()
    defs = common.surveyed_streams(surveys)
    labels = [s.name for s in surveys if _is_label_stream(s)]
    counts = {name: np.zeros(defs[name].dim, np.int64) for name in labels}
    d = CTFDeserializer(path, defs, skip_sequence_ids=skip_sequence_ids, max_errors=max_errors,
                        trace_level=0, on_error=problems, skip_incomplete_sequences=True,
                        on_skip=problems)
    names = list(defs)
    for c in range(d.table().num_chunks):
        chunk = d.load_chunk(c)
        for name in labels:
            s = chunk.streams[names.index(name)]
            counts[name] += np.bincount(np.asarray(s.indices, np.int64),
                                        minlength=len(counts[name]))
    distributions = {name: {str(i): int(n) for i, n in enumerate(c.tolist()) if n}
                     for name, c in counts.items()}
    return problems, distributions


def collect(path: Path, *, skip_sequence_ids: bool, chunk_size: int,
            max_errors: int = 10**9) -> dict[str, Any]:
    """Everything ``inspect`` prints, as a JSON-able dict (up to ``max_errors`` problems are
    counted; the next one raises ``ErrorBudgetExceeded``).

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "d.ctf"; _ = p.write_text("|a 1\\n\\n|a 2\\n")
        >>> r = collect(p, skip_sequence_ids=False, chunk_size=1 << 20)
        >>> r["mode"], r["ignored_lines"], r["histogram"]
        ('lines', 1, [{'min': 1, 'max': 1, 'count': 2}])
    """
    surveys = common.survey_file(path)
    with GuardedFile(path, what="CTF file") as f, \
            common.progress_bar(f.size, "index", enabled=f.size > common.LARGE_FILE) as bar:
        index = index_file(f, skip_sequence_ids=skip_sequence_ids, main_alias="", impl="native",
                           progress=bar)
        size = f.size
    starts = index.chunk_starts(chunk_size, size, "native")
    problems, labels = _parse(path, surveys, skip_sequence_ids, max_errors)
    return {"file": str(path), "format": "ctf", "size": size,
            "mode": "lines" if index.line_mode else "sequence ids",
            "sequences": index.num_sequences, "rows": int(index.rows.sum()),
            "chunks": len(starts) - 1, "chunk_size": chunk_size, "lines": index.total_lines,
            "ignored_lines": index.ignored_lines, "repeated_ids": len(index.repeated_ids()),
            "streams": [_stream_entry(s) for s in surveys],
            "suggested_streams": [common.describe_stream(n, sd) for n, sd in
                                  common.surveyed_streams(surveys).items()],
            "histogram": histogram(index.rows), "labels": labels, **problems.as_json()}


def _print_streams(streams: list[dict[str, Any]]) -> None:
    width = max(6, *(len(s["name"]) for s in streams))
    print(f"streams (from a survey of every line):\n  {'name':<{width}}  {'samples':>9}  "
          f"{'values':>10}  {'format':<7} {'dim':>9}  values/sample")
    for s in streams:
        kind = "sparse" if s["looks_sparse"] else "dense"
        if s["looks_sparse"] and s["sparse_values"] < s["values"]:
            kind = "mixed"
        dim = "?" if s["looks_sparse"] and s["max_index"] is None else str(s["dim"])
        spread = f"{s['min_values_per_sample']}..{s['max_values_per_sample']}"
        print(f"  {s['name']:<{width}}  {s['samples']:>9}  {s['values']:>10}  {kind:<7} "
              f"{dim:>9}  {spread}")
    print("  (sparse: dim = max index + 1; dense: dim = most values in a sample)")


def print_bars(title: str, items: list[tuple[str, int]]) -> None:
    """Prints a bar chart of ``(label, count)`` items.

    Example:
        >>> print_bars("lengths:", [("1", 2), ("3", 1)])
        lengths:
          1  ########################################  2
          3  ####################                      1
    """
    print(title)
    if not items:
        return
    top = max(count for _, count in items) or 1
    width = max(len(label) for label, _ in items)
    for label, count in items:
        bar = "#" * max(1, round(_BAR_WIDTH * count / top))
        print(f"  {label:>{width}}  {bar:<{_BAR_WIDTH}}  {count}")


def histogram_items(buckets: list[dict[str, int]]) -> list[tuple[str, int]]:
    """Histogram buckets as ``(label, count)``: ``"3"`` or ``"4-7"``.

    Example:
        >>> histogram_items([{"min": 4, "max": 7, "count": 2}])
        [('4-7', 2)]
    """
    return [(str(b["min"]) if b["min"] == b["max"] else f"{b['min']}-{b['max']}", b["count"])
            for b in buckets]


def print_report(r: dict[str, Any]) -> None:
    """Prints a :func:`collect` report for people.

    Example:
        >>> print_report({"file": "f", "size": 5, "mode": "lines", "sequences": 1, "rows": 1,
        ...   "chunks": 1, "chunk_size": 9, "lines": 1, "ignored_lines": 0, "repeated_ids": 0,
        ...   "streams": [], "suggested_streams": [], "histogram": [], "labels": {},
        ...   "problems": 0, "first_problems": []})  # doctest: +ELLIPSIS
        file:          f (5 B)
        mode:          lines (each line is a sequence)
        ...
    """
    mode = ("lines (each line is a sequence)" if r["mode"] == "lines"
            else "sequence ids (consecutive lines with the same id form a sequence)")
    print(f"file:          {r['file']} ({common.human_size(r['size'])})")
    print(f"mode:          {mode}")
    print(f"sequences:     {r['sequences']}")
    print(f"rows:          {r['rows']}")
    print(f"chunks:        {r['chunks']} (chunk size {common.human_size(r['chunk_size'])})")
    print(f"lines:         {r['lines']} ({r['ignored_lines']} ignored: blank or comment-only)")
    if r["repeated_ids"]:
        print(f"repeated ids:  {r['repeated_ids']} sequence(s) reuse an id of an earlier, "
              "non-adjacent sequence (an error for the reader)")
    if r["streams"]:
        _print_streams(r["streams"])
    if r["suggested_streams"]:
        print("as --stream:   " + " ".join(f"--stream {s}" for s in r["suggested_streams"]))
    print_bars("sequence lengths (rows):", histogram_items(r["histogram"]))
    for name, counts in r["labels"].items():
        print_bars(f"classes of label stream {name!r} (samples):", list(counts.items()))
    print_problems(r)


def print_problems(r: dict[str, Any]) -> None:
    """Prints the problem count and the first problems of a report.

    Example:
        >>> print_problems({"problems": 2, "first_problems": ["a:1: bad", "a:2: bad"]})
        problems:      2 (minibatcher validate lists every one)
          ! a:1: bad
          ! a:2: bad
    """
    if not r.get("problems"):
        print("problems:      none")
        return
    print(f"problems:      {r['problems']} (minibatcher validate lists every one)")
    for line in r.get("first_problems", []):
        print(f"  ! {line}")


__all__ = ["collect", "histogram", "histogram_items", "print_bars", "print_problems",
           "print_report"]
