"""``minibatcher cat PATH``: what a reader delivers, as JSON lines, for debugging.

Files the engine reads (CTF, SCP lists with ``--mlf`` labels, MLFs, configs)
print one line per minibatch: ``{"minibatch": i, "end_of_sweep": bool,
"streams": {name: {"keys", "names", "lengths", "values"}}}`` (``names`` where
the reader names its sequences: utterances); dense ``values`` hold one list
per sample, sparse streams give CSR arrays (``indptr``, ``indices``,
``values``). Record formats (TFRecord, TFDS, text, an HTK file) print one
line per example with its name (:mod:`.cat_records`).

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("|x 1 2\\n|x 3 4\\n|x 5 6\\n")
    >>> main = __import__("minibatcher.cli", fromlist=["main"]).main
    >>> main(["cat", str(p), "--stream", "x:2:dense", "--minibatch-size", "2"])
    {"minibatch": 0, "end_of_sweep": false, "streams": {"x": {"keys": [0, 1], "lengths": [1, 1], "values": [[1.0, 2.0], [3.0, 4.0]]}}}
    {"minibatch": 1, "end_of_sweep": true, "streams": {"x": {"keys": [2], "lengths": [1], "values": [[5.0, 6.0]]}}}
    0
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.minibatch import Minibatch, MinibatchData
from ..engine.source import MinibatchSource
from ..formats.ctf import CTFDeserializer
from . import common

HELP = "print what a reader delivers as JSON lines (minibatches or examples, with names)"
_DESCRIPTION = """\
Print what a reader delivers, as JSON lines.

Minibatches (one line each; --minibatch-size, --count, --sweeps, --seed):
  CTF file    read with the --stream specs (default: the surveyed streams)
  config      a .cntk file or --section: its reader section (relative paths
              resolve against the config's folder)
  SCP list    HTK features, with labels from --mlf (--labels or --label-dim);
              every stream lists the utterance names
  MLF         the labels alone (--labels STATE_LIST or --label-dim N)
A file is read in file order unless --seed is given (then randomized with that
seed); a config keeps its own randomization unless --no-randomize (or --seed).

Examples (one line each, with a name; --count N for the first N):
  TFRecord    every record, decoded when it is a tf.train.Example
  TFDS folder the examples of --split (default: train) with their tfds_id
  text        every line, with its number
  HTK file    the file's frames"""


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Adds ``cat`` to the subcommands.

    Example:
        >>> p = argparse.ArgumentParser().add_subparsers()
        >>> add_parser(p).parse_args(["x.cntk", "--set", "a=1"]).set
        ['a=1']
    """
    parser = commands.add_parser("cat", help=HELP, description=_DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", metavar="PATH", help="a file or TFDS folder (any format)")
    common.add_format_option(parser)
    parser.add_argument("--section", metavar="NAME",
                        help="config section whose reader is used (default: a top-level reader)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="config override, like CNTK's command line (repeatable)")
    parser.add_argument("--base-dir", type=Path, metavar="DIR",
                        help="folder that the config's relative file paths resolve against "
                             "(default: the config's folder, as in the Python API)")
    parser.add_argument("--stream", action="append", default=[], metavar="SPEC",
                        help="CTF files: NAME:DIM:dense|sparse[:ALIAS] (repeatable)")
    parser.add_argument("--defines-mb-size", metavar="NAME",
                        help="CTF files: the stream whose samples define the minibatch size")
    parser.add_argument("--skip-sequence-ids", action="store_true",
                        help="CTF files: every line is its own sequence")
    parser.add_argument("--max-errors", type=int, metavar="N",
                        help="malformed items skipped (and reported) before reading fails "
                             "(default: 0 for CTF files, the config's maxErrors for configs)")
    parser.add_argument("--minibatch-size", type=int, default=8, metavar="N",
                        help="samples per minibatch (default: %(default)s)")
    parser.add_argument("--count", type=int, metavar="N",
                        help="print at most N minibatches or examples (default: all)")
    order = parser.add_mutually_exclusive_group()
    order.add_argument("--no-randomize", action="store_true", help="read in file order")
    order.add_argument("--seed", type=int, metavar="N", help="randomize with seed N")
    parser.add_argument("--sweeps", type=int, default=1, metavar="N",
                        help="sweeps over the data (default: %(default)s)")
    _add_speech_options(parser)
    parser.add_argument("--split", default="train", help="TFDS: the split to print (default: "
                        "%(default)s; any split spec such as 'test[:10]')")
    common.add_verify_crc_option(parser, "the data CRCs of TFRecord and TFDS records, or the "
                                 "_K checksums of HTK archives")
    return parser


def _add_speech_options(parser: argparse.ArgumentParser) -> None:
    speech = parser.add_argument_group("SCP lists and MLFs")
    speech.add_argument("--mlf", action="append", default=[], metavar="FILE",
                        help="SCP: an MLF with the utterances' labels (repeatable)")
    speech.add_argument("--labels", metavar="FILE", help="the state list (label mapping file)")
    speech.add_argument("--label-dim", type=int, metavar="N",
                        help="the number of classes (default: the state list's length)")
    speech.add_argument("--context", default="0:0", metavar="L:R",
                        help="SCP: frames of context added left and right (default: 0:0)")


def parse_overrides(items: list[str]) -> dict[str, str]:
    """``--set KEY=VALUE`` items as a dict.

    Example:
        >>> parse_overrides(["defMBSize=true", "x = 1"])
        {'defMBSize': 'true', 'x': '1'}
    """
    overrides = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise common.UsageError(f"--set should be KEY=VALUE (e.g. --set defMBSize=true), "
                                    f"but got --set={item!r}")
        overrides[key.strip()] = value.strip()
    return overrides


def _order_options(args: argparse.Namespace, config: bool) -> dict[str, Any]:
    if args.no_randomize:
        return {"randomize": False}
    if args.seed is not None:
        return {"randomize": True, "randomization_seed": args.seed}
    return {} if config else {"randomize": False}


def _config_source(args: argparse.Namespace, path: Path) -> MinibatchSource:
    for option in ("stream", "skip_sequence_ids", "defines_mb_size"):
        if getattr(args, option):
            raise common.UsageError(f"--{option.replace('_', '-')} applies to CTF files only; "
                                    "a config's reader section declares its own streams")
    return MinibatchSource.from_config(
        path, args.section, overrides=parse_overrides(args.set),
        base_dir=args.base_dir, max_errors=args.max_errors,
        max_sweeps=args.sweeps, **_order_options(args, True))


def _ctf_source(args: argparse.Namespace, path: Path) -> MinibatchSource:
    if args.set:
        raise common.UsageError("--set applies to configs only (a config file or --section)")
    if args.stream:
        defs = common.stream_defs(args.stream)
    else:
        defs = common.surveyed_streams(common.survey_file(path))
        specs = " ".join(common.describe_stream(n, sd) for n, sd in defs.items())
        print(f"cat: no --stream given; using the streams found by a survey: {specs}",
              file=sys.stderr)
    defs = common.with_main_stream(defs, args.defines_mb_size)
    size = path.stat().st_size
    with common.progress_bar(size, "index", enabled=size > common.LARGE_FILE) as update:
        deserializer = CTFDeserializer(path, defs, skip_sequence_ids=args.skip_sequence_ids,
                                       max_errors=args.max_errors or 0,
                                       progress=lambda done, total: update(done))
    return MinibatchSource(deserializer, max_sweeps=args.sweeps, **_order_options(args, False))


def _floats(values: np.ndarray) -> list[Any]:
    if values.dtype != np.float32:
        return values.tolist()
    # str() of a float32 is the shortest text that reads back to the same float32
    text = values.astype(str)
    return [float(t) for t in text] if text.ndim == 1 else [[float(t) for t in r] for r in text]


def stream_json(data: MinibatchData) -> dict[str, Any]:
    """One stream of a minibatch as plain JSON-able data.

    Example:
        >>> from minibatcher.streams import StreamInformation
        >>> from minibatcher.engine.layout import SequenceLayout
        >>> info = StreamInformation("x", 0, 2, False, np.dtype("float32"))
        >>> data = MinibatchData(info, np.array([[0.1, 2]], np.float32), np.array([1]),
        ...                      np.array([7], np.uint64), True, SequenceLayout.first_fit([1]))
        >>> stream_json(data)
        {'keys': [7], 'lengths': [1], 'values': [[0.1, 2.0]]}
    """
    out: dict[str, Any] = {"keys": [int(k) for k in data.keys]}
    names = data.names
    if names is not None:
        out["names"] = names
    out["lengths"] = data.lengths.tolist()
    if data.is_sparse:
        csr = data.values
        out.update(indptr=np.asarray(csr.indptr).tolist(), indices=np.asarray(csr.indices).tolist(),
                   values=_floats(np.asarray(csr.data)))
    else:
        out["values"] = _floats(np.asarray(data.values).reshape(data.num_samples, -1))
    return out


def minibatch_json(i: int, mb: Minibatch) -> str:
    """One JSON line for minibatch ``i``.

    Example:
        >>> minibatch_json(0, Minibatch())
        '{"minibatch": 0, "end_of_sweep": false, "streams": {}}'
    """
    streams = {name: stream_json(data) for name, data in mb.items()}
    return json.dumps({"minibatch": i, "end_of_sweep": mb.end_of_sweep, "streams": streams})


def _speech_source(args: argparse.Namespace, kind: str, path: Path) -> MinibatchSource:
    """The source of an SCP list (with its --mlf labels) or of an MLF alone."""
    from ..formats.htk import HTKFeatureDeserializer, HTKMLFDeserializer, read_state_list
    from ..streams import StreamDef
    from .convert_htk import context_of

    labels = str(common.existing_file(args.labels, "--labels")) if args.labels else None
    mlf = [str(path)] if kind == "mlf" else [str(common.existing_file(m, "--mlf"))
                                             for m in args.mlf]
    dim = len(read_state_list(labels)) if labels else args.label_dim
    if mlf and dim is None:
        raise common.UsageError("--label-dim (the number of classes) is needed without --labels")
    errors = {"max_errors": args.max_errors or 0}
    parts: list[Any] = []
    if kind == "scp":
        left, right = context_of(args.context)
        context = (left, right) if left or right else None
        parts.append(HTKFeatureDeserializer(
            {"features": StreamDef(scp=str(path), context=context)}, base_dir=args.base_dir,
            verify_crc=getattr(args, "verify_crc", True), **errors))
    if mlf:
        parts.append(HTKMLFDeserializer(labels, {"labels": StreamDef(mlf=mlf, shape=dim)},
                                        **errors))
    return MinibatchSource(parts, max_sweeps=args.sweeps, **_order_options(args, False))


def _source(args: argparse.Namespace, kind: str, path: Path) -> MinibatchSource:
    if kind == "config" or args.section is not None:
        return _config_source(args, path)
    if kind == "ctf":
        return _ctf_source(args, path)
    return _speech_source(args, kind, path)


def run(args: argparse.Namespace) -> int:
    """Runs ``cat``.

    Example:
        >>> run(argparse.Namespace(source="/no/such.ctf", format=None, minibatch_size=1,
        ...                        count=None, sweeps=1, seed=None))
        Traceback (most recent call last):
        ...
        minibatcher.cli.common.UsageError: PATH should be an existing file, but got PATH='/no/such.ctf' (no such file)
    """
    common.check_positive("--minibatch-size", args.minibatch_size)
    common.check_positive("--count", args.count, minimum=0)
    common.check_positive("--sweeps", args.sweeps)
    common.check_positive("--seed", args.seed, minimum=0)
    common.check_positive("--max-errors", getattr(args, "max_errors", None), minimum=0)
    found = common.detect(args.source, args, "PATH")
    if found.format in ("tfrecord", "tfds", "text", "htk") and args.section is None:
        from .cat_records import print_examples

        return print_examples(found.format, Path(found.path), args)
    with _source(args, found.format, Path(found.path)) as source:
        minibatches = itertools.islice(source.minibatches(args.minibatch_size), args.count)
        for i, mb in enumerate(minibatches):
            print(minibatch_json(i, mb))
    return 0
