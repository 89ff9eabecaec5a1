"""``minibatcher convert INPUT OUTPUT``: between data formats.

Every input becomes examples (:mod:`minibatcher.convert`, one per CTF
sequence, utterance, record, line or TFDS example) and is written as TFRecord
files, a TFDS dataset folder, Parquet, or (from TFRecord and SCP) CTF.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "in.ctf").write_text("0 |x 1 2 |y 3:1\\n0 |x 3 4\\n1 |x 5 6 |y 0:2\\n")
    >>> main = __import__("minibatcher.cli", fromlist=["main"]).main
    >>> main(["convert", str(d / "in.ctf"), str(d / "out.tfrecord"), "--stream", "x:2:dense",
    ...       "--stream", "y:5:sparse"])
    converted 2 sequences: ctf -> tfrecord
    0
    >>> main(["convert", str(d / "out.tfrecord"), str(d / "back.ctf"), "--stream", "x:2:dense",
    ...       "--stream", "y:5:sparse"])
    converted 2 sequences: tfrecord -> ctf
    0
    >>> print((d / "back.ctf").read_text(), end="")
    0 |x 1 2 |y 3:1
    0 |x 3 4
    1 |x 5 6 |y 0:2
    >>> main(["convert", str(d / "in.ctf"), str(d / "ds"), "--to", "tfds"])  # doctest: +ELLIPSIS
    converted 2 sequences: ctf -> tfds (.../ds: split 'train' of dataset 'in', 1 shard)
    0
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from .. import convert as lib
from . import common
from .convert_ctf import tfrecord_to_ctf
from .convert_htk import add_arguments as add_htk_arguments
from .convert_htk import scp_to_ctf
from .inspect_records import expand

HELP = "convert between formats: to TFRecord, a TFDS folder, Parquet or CTF"
TARGETS = ("tfrecord", "tfds", "parquet", "ctf")
SOURCES = ("ctf", "scp", "tfrecord", "text", "tfds")
_EXTENSIONS = {".tfrecord": "tfrecord", ".tfrecords": "tfrecord", ".parquet": "parquet",
               ".pq": "parquet", ".ctf": "ctf"}
_DESCRIPTION = """\
Convert a file or dataset to another format.

INPUT (format detected; --format to say it): a CTF file (one example per
sequence; --stream, default: the surveyed streams), an SCP list with --mlf
labels (one per utterance: name, frames, a class per frame), TFRecord files of
tf.train.Examples (one per record; a pattern such as 'd/*.tfrecord-*' for
several), a text file (one per line), or a TFDS folder (--split).

OUTPUT (--to, default from its extension): .tfrecord (tf.train.Examples),
.parquet (Parquet for Hugging Face datasets; needs pyarrow), a folder with
--to tfds (a TFDS dataset: shards named and sized as TFDS does,
dataset_info.json, features.json; tfds.builder_from_directory opens it, and
--split adds another split to it), or .ctf (from TFRecord files in the CTF
layout, with --stream; from an SCP list with --mlf)."""


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Adds ``convert`` to the subcommands.

    Example:
        >>> p = argparse.ArgumentParser().add_subparsers()
        >>> add_parser(p).parse_args(["a.ctf", "b.tfrecord", "--to", "tfrecord"]).to
        'tfrecord'
    """
    parser = commands.add_parser("convert", help=HELP, description=_DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", metavar="INPUT", help="the file, pattern or folder to convert")
    parser.add_argument("output", metavar="OUTPUT", help="the file or folder to write")
    common.add_format_option(parser)
    parser.add_argument("--from", dest="format", choices=SOURCES, type=str.lower,
                        help=argparse.SUPPRESS)  # the name before --format
    parser.add_argument("--to", choices=TARGETS, type=str.lower,
                        help="the output's format (default: from OUTPUT's extension)")
    parser.add_argument("--stream", action="append", default=[], metavar="SPEC",
                        help="CTF: NAME:DIM:dense|sparse[:ALIAS] (repeatable; CTF input default: "
                             "the streams found by a survey; required for TFRecord -> CTF)")
    parser.add_argument("--compression", choices=["GZIP", "ZLIB"], default=None,
                        help="TFRecord output: its compression (an input's is detected)")
    parser.add_argument("--max-errors", type=int, default=0, metavar="N",
                        help="skip up to N malformed items (CTF values and lines, SCP lines, "
                             "archives and utterances, MLF entries, corrupted TFRecord records; "
                             "each is reported) (default: 0)")
    common.add_verify_crc_option(parser, "the data CRCs of TFRecord and TFDS records, or the "
                                 "_K checksums of HTK archives")
    tfds = parser.add_argument_group("TFDS folders (input or output)")
    tfds.add_argument("--split", default="train", help="the split written or read "
                      "(default: %(default)s)")
    tfds.add_argument("--name", help="the dataset's name (default: from INPUT's file name)")
    tfds.add_argument("--version", default="1.0.0", help="the dataset's version "
                      "(default: %(default)s)")
    tfds.add_argument("--num-shards", type=int, metavar="N",
                      help="shards to write (default: TFDS's rule, 64 MiB to 1 GiB each)")
    tfds.add_argument("--allow-shuffling", action="store_true",
                      help="do not record the input's order (disableShuffling false): readers "
                           "may then interleave shards (TFDS's default order) and shuffle files")
    add_htk_arguments(parser)
    return parser


def _target(args: argparse.Namespace) -> str:
    if args.to:
        return args.to
    if Path(args.output).is_dir() or args.output.endswith(os.sep):
        return "tfds"
    target = _EXTENSIONS.get(os.path.splitext(args.output)[1].lower())
    if target is None:
        raise common.UsageError(f"--to should name the output format ({', '.join(TARGETS)}) "
                                f"when OUTPUT's extension does not, but got "
                                f"OUTPUT={args.output!r}")
    return target


def _source(args: argparse.Namespace) -> tuple[str, lib.ExampleSource | None]:
    """The input's format, and its examples (None: a CTF writer reads it itself)."""
    paths = expand([args.input])
    found = common.detect(paths[0], args, "INPUT")
    kind = found.format
    if kind not in SOURCES:
        raise common.UsageError(f"INPUT: {found.describe()}; convert reads {', '.join(SOURCES)} "
                                "(an SCP list with --mlf for its labels)")
    if _target(args) == "ctf":
        return kind, None
    if kind == "ctf":
        defs = common.stream_defs(args.stream) if args.stream else None
        return kind, lib.ctf_examples(found.path, defs, max_errors=args.max_errors)
    if kind == "scp":
        return kind, _htk_source(args, found.path)
    if kind == "tfrecord":
        return kind, lib.tfrecord_examples(paths, verify_crc=args.verify_crc,  # compression found
                                           max_errors=args.max_errors)
    if kind == "text":
        return kind, lib.text_examples(found.path)
    return kind, lib.tfds_examples(found.path, args.split, verify_crc=args.verify_crc,
                                   max_errors=args.max_errors)


def _htk_source(args: argparse.Namespace, scp: str) -> lib.ExampleSource:
    from .convert_htk import context_of

    mlf = [str(common.existing_file(m, "--mlf")) for m in args.mlf]
    labels = str(common.existing_file(args.labels, "--labels")) if args.labels else None
    if mlf and labels is None and args.label_dim is None:
        raise common.UsageError("--label-dim (the number of classes) is needed without --labels")
    left, right = context_of(args.context)
    return lib.htk_examples(scp, mlf, labels=labels, label_dim=args.label_dim,
                            context=(left, right) if left or right else None,
                            base_dir=Path(args.base_dir) if args.base_dir else None,
                            max_errors=args.max_errors, verify_crc=args.verify_crc)


def _write(target: str, source: lib.ExampleSource, args: argparse.Namespace) -> str:
    """Writes ``source``; returns what was written, for the last line."""
    with common.progress_bar(source.count or 0, "convert", unit="ex") as update:
        if target == "tfrecord":
            lib.write_tfrecord(source, args.output, args.compression, update)
            return ""
        if target == "parquet":
            lib.write_parquet(source, args.output, update)
            return ""
        common.check_positive("--num-shards", args.num_shards)
        info = lib.write_tfds(source, args.output, split=args.split, name=args.name,
                              version=args.version, num_shards=args.num_shards,
                              disable_shuffling=not args.allow_shuffling, progress=update)
    from ..tfds.info import load_info

    name = load_info(args.output).name
    return (f" ({args.output}: split {info.name!r} of dataset {name!r}, {info.num_shards} "
            f"shard{'s' if info.num_shards > 1 else ''})")


def run(args: argparse.Namespace) -> int:
    """Runs ``convert``."""
    common.check_positive("--max-errors", args.max_errors, minimum=0)
    target = _target(args)
    kind, source = _source(args)
    if target == "ctf":
        if kind not in ("tfrecord", "scp"):
            raise common.UsageError(f"cannot convert {kind} to ctf; CTF is written from "
                                    "tfrecord (with --stream) and scp (with --mlf)")
        count = (tfrecord_to_ctf if kind == "tfrecord" else scp_to_ctf)(args)
        print(f"converted {count} sequences: {kind} -> ctf")
        return 0
    note = _write(target, source, args)
    print(f"converted {source.count} {source.what}: {kind} -> {target}{note}")
    return 0
