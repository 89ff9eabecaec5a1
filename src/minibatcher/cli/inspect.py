"""``minibatcher inspect FILE``: what a CTF file holds, without declaring its streams
(TFRecord shards and TFDS folders: see :mod:`.inspect_records`).

A survey (one native pass over the bytes) finds the inputs and their shapes;
the index gives sequences, rows, chunks and the sequence-length histogram.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("0 |x 1 2 |y 3:1\\n0 |x 3 4\\n1 |x 5 6 |y 0:2\\n")
    >>> report = collect(p, skip_sequence_ids=False, chunk_size=32 << 20)
    >>> report["mode"], report["sequences"], report["rows"], [s["name"] for s in report["streams"]]
    ('sequence ids', 2, 3, ['x', 'y'])
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from ..formats.ctf import index_file
from ..formats.ctf.deserializer import DEFAULT_CHUNK_SIZE
from ..formats.guarded_file import GuardedFile
from . import common, inspect_htk

HELP = "show the streams, sequences, chunks and sequence lengths of a CTF file"
_BAR_WIDTH = 40
_MAX_EXACT_LENGTHS = 12


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Adds ``inspect`` to the subcommands.

    Example:
        >>> p = argparse.ArgumentParser().add_subparsers()
        >>> add_parser(p).parse_args(["f.ctf", "--json"]).json
        True
    """
    parser = commands.add_parser(
        "inspect", help=HELP, description=HELP + ". Streams are found by a survey of every "
        "line: a stream looks sparse when its values have the form index:value. TFRecord "
        "files and TFDS folders get their own report (records, features, splits).")
    parser.add_argument("file", metavar="FILE", nargs="+",
                        help="a CTF file; or TFRecord shards (patterns like 'd/*.tfrecord-*' "
                             "allowed); or a TFDS dataset folder (with dataset_info.json)")
    parser.add_argument("--compression", choices=["GZIP", "ZLIB"], default=None,
                        help="TFRecord files: their compression")
    parser.add_argument("--verify", action="store_true",
                        help="TFDS folders: check that every shard exists and holds the number "
                             "of records shardLengths says")
    parser.add_argument("--skip-sequence-ids", action="store_true",
                        help="every line is its own sequence (ignore leading ids)")
    parser.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE, metavar="BYTES",
                        help="chunk size in bytes for the chunk count (default: %(default)s)")
    parser.add_argument("--base-dir", metavar="DIR", default=None,
                        help="SCP files: the folder relative archive paths resolve against "
                             "(default: the working directory, as the Python API and CNTK)")
    parser.add_argument("--labels", metavar="FILE", default=None,
                        help="MLF files: the state list (label mapping file) to check labels against")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


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


def collect(path: Path, *, skip_sequence_ids: bool, chunk_size: int) -> dict[str, Any]:
    """Everything ``inspect`` prints, as a JSON-able dict.

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
    return {"file": str(path), "size": size,
            "mode": "lines" if index.line_mode else "sequence ids",
            "sequences": index.num_sequences, "rows": int(index.rows.sum()),
            "chunks": len(starts) - 1, "chunk_size": chunk_size, "lines": index.total_lines,
            "ignored_lines": index.ignored_lines, "repeated_ids": len(index.repeated_ids()),
            "streams": [_stream_entry(s) for s in surveys],
            "suggested_streams": [common.describe_stream(n, sd) for n, sd in
                                  common.surveyed_streams(surveys).items()] if surveys else [],
            "histogram": histogram(index.rows)}


def _print_streams(streams: list[dict[str, Any]]) -> None:
    if not streams:
        print("streams: none (no '|name' samples found)")
        return
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


def _print_histogram(buckets: list[dict[str, int]]) -> None:
    print("sequence lengths (rows):")
    if not buckets:
        return
    top = max(b["count"] for b in buckets)
    labels = [str(b["min"]) if b["min"] == b["max"] else f"{b['min']}-{b['max']}" for b in buckets]
    width = max(len(label) for label in labels)
    for label, b in zip(labels, buckets):
        bar = "#" * max(1, round(_BAR_WIDTH * b["count"] / top))
        print(f"  {label:>{width}}  {bar:<{_BAR_WIDTH}}  {b['count']}")


def print_report(r: dict[str, Any]) -> None:
    """Prints a :func:`collect` report for people.

    Example:
        >>> print_report({"file": "f", "size": 5, "mode": "lines", "sequences": 1, "rows": 1,
        ...   "chunks": 1, "chunk_size": 9, "lines": 1, "ignored_lines": 0, "repeated_ids": 0,
        ...   "streams": [],
        ...   "suggested_streams": [], "histogram": []})  # doctest: +ELLIPSIS
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
    _print_streams(r["streams"])
    if r["suggested_streams"]:
        print("as --stream:   " + " ".join(f"--stream {s}" for s in r["suggested_streams"]))
    _print_histogram(r["histogram"])


def _records_report(files: list[str], args: argparse.Namespace) -> bool:
    """Prints the TFRecord / TFDS report when ``files`` name such data."""
    from . import inspect_records as rec

    if len(files) == 1 and rec.is_tfds_dir(files[0]):
        report: Any = rec.collect_tfds(files[0], getattr(args, "verify", False))
        print(json.dumps(report)) if args.json else rec.print_tfds(report)
        return True
    paths = rec.expand(files)
    compression = getattr(args, "compression", None)
    if compression or all(rec.looks_like_tfrecord(p) for p in paths):
        for p in paths:
            common.existing_file(p)
        report = rec.collect_tfrecord(paths, compression)
        print(json.dumps(report)) if args.json else rec.print_tfrecord(report)
        return True
    return False


def run(args: argparse.Namespace) -> int:
    """Runs ``inspect``.

    Example:
        >>> run(argparse.Namespace(file="/no/such.ctf", skip_sequence_ids=False,
        ...                        chunk_size=1, json=False))
        Traceback (most recent call last):
        ...
        minibatcher.cli.common.UsageError: FILE should be an existing file, but got FILE='/no/such.ctf' (no such file)
    """
    common.check_positive("--chunk-size", args.chunk_size)
    files = [args.file] if isinstance(args.file, str) else list(args.file)
    if _records_report(files, args) or inspect_htk.report(files, args):
        return 0
    if len(files) > 1:
        raise common.UsageError(f"FILE: one CTF file at a time, but got {len(files)} files")
    path = common.existing_file(files[0])
    report = collect(path, skip_sequence_ids=args.skip_sequence_ids, chunk_size=args.chunk_size)
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report)
    return 0
