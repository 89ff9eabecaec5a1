"""``minibatcher validate PATH``: read all of a file or dataset and report every problem.

Every problem is printed as it is found, numbered, with its location (file,
line or byte offset, record or utterance) and what was expected; a summary
table follows. Exit status 1 when there is any problem, 0 when the data is
clean. What is checked depends on the format (``--help`` lists it).

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

from . import common, validate_ctf, validate_htk, validate_records, validate_text

HELP = "read all of a file or dataset and report every problem (any format)"
DEFAULT_MAX_ERRORS = common.COUNT_ALL
_DESCRIPTION = """\
Read all of a file or dataset and report every problem: where it is, and what
was expected; then a summary table. Exit status 1 when there is any problem.

What is read and checked, by format (detected; --format to say it):
  CTF       every chunk with the --stream declarations (default: the streams
            found by a survey): values, samples, ids, incomplete sequences
  SCP       every line and archive, then every utterance's frames (--base-dir)
  MLF       every entry: times, labels (--labels STATE_LIST), duplicates
  HTK file  the header, the frames and the _K checksum
  TFRecord  every record's framing and CRCs, and each tf.train.Example
  TFDS      every shard of every split: presence, record counts against
            shardLengths, CRCs, and every example against features.json
  text      every line is UTF-8
  config    every reader section builds and its data reads"""


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Adds ``validate`` to the subcommands.

    Example:
        >>> p = argparse.ArgumentParser().add_subparsers()
        >>> add_parser(p).parse_args(["f.ctf", "--stream", "x:1:dense"]).stream
        ['x:1:dense']
    """
    parser = commands.add_parser("validate", help=HELP, description=_DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", metavar="PATH", help="a file or TFDS dataset folder")
    common.add_format_option(parser)
    common.add_max_errors_option(parser, DEFAULT_MAX_ERRORS, "report up to N problems, stop at "
                                 "the next one")
    common.add_verify_crc_option(parser, "the data CRCs of TFRecord records and TFDS shards, or "
                                 "the _K checksums of HTK files (only the framing and the rest "
                                 "are checked)")
    ctf = parser.add_argument_group("CTF files")
    ctf.add_argument("--stream", action="append", default=[], metavar="SPEC",
                     help="NAME:DIM:dense|sparse[:ALIAS] (repeat for each stream; ALIAS is the "
                          "name after '|' in the file, default NAME)")
    ctf.add_argument("--defines-mb-size", metavar="NAME",
                     help="the stream whose samples define the minibatch size (sequences "
                          "without it are skipped and counted)")
    ctf.add_argument("--skip-sequence-ids", action="store_true",
                     help="every line is its own sequence (ignore leading ids)")
    ctf.add_argument("--precision", choices=("float", "double"), default="float",
                     help="value type (default: %(default)s)")
    ctf.add_argument("--chunk-size", type=int, default=validate_ctf.DEFAULT_CHUNK_SIZE,
                     metavar="BYTES", help="chunk size in bytes (default: %(default)s)")
    speech = parser.add_argument_group("SCP, MLF and configs")
    speech.add_argument("--base-dir", metavar="DIR", default=None,
                        help="the folder relative paths resolve against (default: the working "
                             "directory for SCP files; a config's own folder for configs)")
    speech.add_argument("--labels", metavar="FILE", default=None,
                        help="MLF: the state list (label mapping file) labels must be in")
    speech.add_argument("--section", metavar="NAME", default=None,
                        help="configs: validate only this section's reader")
    records = parser.add_argument_group("TFRecord files")
    records.add_argument("--compression", choices=["GZIP", "ZLIB"], default=None,
                         help="the file's compression (default: detected)")
    return parser


def run(args: argparse.Namespace) -> int:
    """Runs ``validate``; 1 when the data has problems, 0 when it is clean.

    Example:
        >>> run(argparse.Namespace(file="/no/such.ctf", format=None, max_errors=0))
        Traceback (most recent call last):
        ...
        minibatcher.cli.common.UsageError: PATH should be an existing file, but got PATH='/no/such.ctf' (no such file)
    """
    common.check_positive("--max-errors", args.max_errors, minimum=0)
    found = common.detect(args.file, args, "PATH")
    path = Path(found.path)
    if found.format == "ctf":
        return validate_ctf.validate(args, path)
    if found.format in ("htk", "scp", "mlf"):
        return validate_htk.validate(found.format, args, path)
    if found.format in ("tfrecord", "tfds"):
        return validate_records.validate(found.format, args, path)
    return validate_text.validate(found.format, args, path)
