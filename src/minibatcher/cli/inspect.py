"""``minibatcher inspect PATH``: what a data file or dataset folder holds.

The format is detected (content first, then the name; ``--format`` to say
it). Every report has sizes, counts, length histograms, label distributions
where the data has labels, and the problems a reader would meet; ``--json``
prints it as one JSON object and ``--html FILE`` writes it as a page with
charts. Exit status 1 when nothing can be read (an SCP whose every line is
bad, an MLF without a valid entry, an empty file, ...); 2 when a config names a
file that does not exist.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("0 |x 1 2 |y 3:1\\n0 |x 3 4\\n1 |x 5 6 |y 0:2\\n")
    >>> main = __import__("minibatcher.cli", fromlist=["main"]).main
    >>> main(["inspect", str(p)])  # doctest: +ELLIPSIS
    file:          ... (41 B)
    mode:          sequence ids (consecutive lines with the same id form a sequence)
    sequences:     2
    ...
    0
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Callable

from ..formats.ctf.deserializer import DEFAULT_CHUNK_SIZE
from . import common, inspect_ctf, inspect_htk, inspect_records, inspect_text
from .problems import ReadOptions
from .wording import reworded

HELP = "show what a data file or dataset folder holds (any format)"
_DESCRIPTION = """\
Show what a file or dataset folder holds: sizes, counts, length histograms,
label distributions and the problems a reader would meet.

Reads: CTF files (streams found by a survey), HTK feature files, SCP lists,
MLF label files (--labels STATE_LIST names the classes), TFRecord files
(several, or a pattern such as 'shards/*.tfrecord-*'), TFDS dataset folders,
UTF-8 text files, and CNTK configs (every reader section). The format is
detected from the content, then the name; --format says it.

Problems are skipped and counted as a reader would (--max-errors N to stop
after N); --no-verify-crc reads without checking TFRecord data CRCs and HTK _K
checksums. Exit status 1 when nothing can be read (the report says why); 2
when a config's section cannot be built because of the config (a file it
names does not exist)."""


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Adds ``inspect`` to the subcommands.

    Example:
        >>> p = argparse.ArgumentParser().add_subparsers()
        >>> add_parser(p).parse_args(["f.ctf", "--json"]).json
        True
    """
    parser = commands.add_parser("inspect", help=HELP, description=_DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", metavar="PATH", nargs="+",
                        help="a file or TFDS folder; several TFRecord files or patterns")
    common.add_format_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--html", metavar="FILE", help="also write the report as a page with "
                        "charts (one self-contained HTML file)")
    parser.add_argument("--skip-sequence-ids", action="store_true",
                        help="CTF: every line is its own sequence (ignore leading ids)")
    parser.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE, metavar="BYTES",
                        help="CTF: chunk size in bytes for the chunk count (default: %(default)s)")
    parser.add_argument("--base-dir", metavar="DIR", default=None,
                        help="SCP files and configs: the folder relative paths resolve against "
                             "(default: the working directory for SCP files, as the Python API "
                             "and CNTK; a config's own folder for configs)")
    parser.add_argument("--labels", metavar="FILE", default=None,
                        help="MLF: the state list (label mapping file) to check and name labels")
    parser.add_argument("--compression", choices=["GZIP", "ZLIB"], default=None,
                        help="TFRecord: the files' compression (default: detected)")
    parser.add_argument("--verify", action="store_true",
                        help="TFDS: check that every shard exists and holds the number of "
                             "records shardLengths says")
    parser.add_argument("--max-examples", type=int, default=inspect_records.MAX_EXAMPLES,
                        metavar="N", help="TFDS: ClassLabel features are counted over the first "
                        "N examples of each split (default: %(default)s)")
    common.add_max_errors_option(parser, common.COUNT_ALL, "count up to N problems (malformed "
                                 "items, skipped as a reader skips them), stop with exit status "
                                 "1 at the next one")
    common.add_verify_crc_option(parser, "the data CRCs of TFRecord records and TFDS shards, or "
                                 "the _K checksums of HTK files")
    return parser


def _tfrecord_paths(files: list[str], args: argparse.Namespace) -> list[str]:
    paths = inspect_records.expand(files)
    for p in paths:
        found = common.detect(p, args)
        if found.format != "tfrecord":
            raise common.UsageError(f"PATH: several paths are read only as TFRecord files, but "
                                    f"{found.describe()}")
    return paths


def collect(args: argparse.Namespace) -> dict[str, Any]:
    """The report of ``args.file`` (one path, or several TFRecord files)."""
    files = [args.file] if isinstance(args.file, str) else list(args.file)
    reading = ReadOptions(getattr(args, "max_errors", common.COUNT_ALL),
                          getattr(args, "verify_crc", True))
    if len(files) > 1 or any(c in files[0] for c in "*?["):
        compression = getattr(args, "compression", None)
        return inspect_records.collect_tfrecord(_tfrecord_paths(files, args), compression, reading)
    found = common.detect(files[0], args, "PATH")
    path = Path(found.path)
    if found.format == "ctf":
        return inspect_ctf.collect(path, skip_sequence_ids=args.skip_sequence_ids,
                                   chunk_size=args.chunk_size, max_errors=reading.max_errors)
    if found.format in ("htk", "scp", "mlf"):
        return inspect_htk.collect(found.format, path, args.base_dir, args.labels, reading)
    if found.format == "tfrecord":
        return inspect_records.collect_tfrecord([path], args.compression, reading)
    if found.format == "tfds":
        return inspect_records.collect_tfds(path, args.verify, args.max_examples, reading)
    if found.format == "config":
        return inspect_text.collect_config(path, args.base_dir, reading.max_errors)
    return inspect_text.collect_text(path)


PRINTERS: dict[str, Callable[[dict[str, Any]], None]] = {
    "ctf": inspect_ctf.print_report, "htk": inspect_htk.print_report,
    "scp": inspect_htk.print_report, "mlf": inspect_htk.print_report,
    "tfrecord": inspect_records.print_tfrecord, "tfds": inspect_records.print_tfds,
    "text": inspect_text.print_text, "config": inspect_text.print_config,
}


def run(args: argparse.Namespace) -> int:
    """Runs ``inspect``: 2 when a config section cannot be built because of the config itself
    (a file it names does not exist, a bad option), 1 when the report has an ``error``
    (nothing can be read), else 0.

    Example:
        >>> run(argparse.Namespace(file="/no/such.ctf", format=None, chunk_size=1))
        Traceback (most recent call last):
        ...
        minibatcher.cli.common.UsageError: PATH should be an existing file, but got PATH='/no/such.ctf' (no such file)
    """
    common.check_positive("--chunk-size", args.chunk_size)
    common.check_positive("--max-examples", getattr(args, "max_examples", 1), minimum=0)
    report = reworded(collect(args))  # messages in the command line's words, as everywhere
    if args.json:
        print(json.dumps(report))
    else:
        PRINTERS[report["format"]](report)
    if getattr(args, "html", None):
        from .report_html import write_report

        write_report(report, Path(args.html))
    if report.get("configuration_errors"):
        return 2  # the config names a missing file or is otherwise wrong: not the data
    return 1 if report.get("error") else 0
