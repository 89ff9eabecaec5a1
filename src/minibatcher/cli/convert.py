"""``minibatcher convert INPUT OUTPUT``: between data formats, dispatched by
the kind of the input (and of the output).

Kinds: ``ctf`` (CNTK text format) and ``tfrecord`` (tf.train.Examples).
The input kind is detected (a TFRecord file starts with a valid frame
header) unless ``--from`` says it; the output kind comes from ``--to`` or the
output's extension (``.tfrecord`` / ``.ctf``, ``.txt``). New converters
register in :data:`CONVERTERS`.

CTF <-> TFRecord layout, one Example per CTF sequence: ``sequence_id``
(int64, the CTF key); a dense stream ``x`` of dimension d is ``x``
(float_list, samples x d values, row-major); a sparse stream ``y`` is
``y/indices`` (int64), ``y/values`` (float) and ``y/lengths`` (int64, the
non-zeros of each sample). TFRecord -> CTF needs the ``--stream`` specs.

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
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..formats.ctf import CTFDeserializer
from ..formats.tfrecord import ExampleDecoder, TFRecordFile, TFRecordWriter, encode_example
from ..streams import StreamDefs
from . import common
from .convert_htk import add_arguments as add_htk_arguments
from .convert_htk import looks_like_scp, scp_to_ctf
from .inspect_records import looks_like_tfrecord

HELP = "convert between data formats (CTF <-> TFRecord, HTK + MLF -> CTF)"
_EXTENSIONS = {".tfrecord": "tfrecord", ".tfrecords": "tfrecord", ".ctf": "ctf", ".txt": "ctf"}


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Adds ``convert`` to the subcommands.

    Example:
        >>> p = argparse.ArgumentParser().add_subparsers()
        >>> add_parser(p).parse_args(["a.ctf", "b.tfrecord", "--to", "tfrecord"]).to
        'tfrecord'
    """
    parser = commands.add_parser("convert", help=HELP, description=__doc__.split("Example:")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", metavar="INPUT", help="the file to convert")
    parser.add_argument("output", metavar="OUTPUT", help="the file to write")
    parser.add_argument("--from", dest="source", choices=sorted({k for k, _ in CONVERTERS}),
                        help="the input's kind (default: detected)")
    parser.add_argument("--to", choices=sorted({k for _, k in CONVERTERS}),
                        help="the output's kind (default: from OUTPUT's extension)")
    parser.add_argument("--stream", action="append", default=[], metavar="SPEC",
                        help="NAME:DIM:dense|sparse[:ALIAS] (repeatable; CTF input default: "
                             "the streams found by a survey; required for TFRecord input)")
    parser.add_argument("--compression", choices=["GZIP", "ZLIB"], default=None,
                        help="TFRecord compression (input or output)")
    add_htk_arguments(parser)
    return parser


def detect_kind(path: str) -> str:
    """The kind of an input file.

    Example:
        >>> detect_kind("/no/such.ctf")
        'ctf'
    """
    if looks_like_scp(path):
        return "scp"
    return "tfrecord" if looks_like_tfrecord(path) else "ctf"


def _defs(args: argparse.Namespace, path: Path) -> StreamDefs:
    if args.stream:
        return common.stream_defs(args.stream)
    return common.surveyed_streams(common.survey_file(path))


def ctf_to_tfrecord(args: argparse.Namespace) -> int:
    """CTF sequences -> tf.train.Examples; returns the number written."""
    path = common.existing_file(args.input, "INPUT")
    defs = _defs(args, path)
    names = list(defs)
    reader = CTFDeserializer(str(path), defs)
    table = reader.table()
    keys, count = table.keys, 0
    with TFRecordWriter(args.output, args.compression) as w:
        for c in range(table.num_chunks):
            chunk = reader.load_chunk(c)
            first = int(table.chunk_starts[c])
            records = []
            for i in range(chunk.num_sequences):
                ex: dict[str, Any] = {"sequence_id": np.array([int(keys[first + i])])}
                for name, s in zip(names, chunk.streams):
                    sl = s.sequence_slice(i)
                    if s.is_sparse:
                        lo, hi = int(s.indptr[sl.start]), int(s.indptr[sl.stop])
                        ex[f"{name}/indices"] = np.asarray(s.indices[lo:hi], np.int64)
                        ex[f"{name}/values"] = np.asarray(s.values[lo:hi], np.float32)
                        ex[f"{name}/lengths"] = np.diff(
                            s.indptr[sl.start:sl.stop + 1]).astype(np.int64)
                    else:
                        ex[name] = np.asarray(s.values[sl], np.float32).reshape(-1)
                records.append(encode_example(ex))
            w.write_many(records)
            count += len(records)
    return count


def _number(v: float) -> str:
    return np.format_float_positional(np.float32(v), trim="-")


def _lines(key: int, cols: dict, i: int, defs: StreamDefs) -> list[str]:
    per: dict[str, list[str]] = {}
    for name, sd in defs.items():
        if sd.is_sparse:
            lengths, idx = cols[f"{name}/lengths"].row(i), cols[f"{name}/indices"].row(i)
            vals, out, pos = cols[f"{name}/values"].row(i), [], 0
            for n in ([] if lengths is None else lengths.tolist()):
                out.append(" ".join(f"{int(idx[pos + j])}:{_number(vals[pos + j])}"
                                    for j in range(n)))
                pos += n
        else:
            vals = cols[name].row(i)
            dim = int(np.prod(sd.shape)) if not isinstance(sd.shape, int) else sd.shape
            rows = [] if vals is None else vals.reshape(-1, dim)
            out = [" ".join(_number(v) for v in row) for row in rows]
        per[sd.field or name] = out
    n = max((len(v) for v in per.values()), default=0)
    return [f"{key} " + " ".join(f"|{f} {v[r]}".rstrip() for f, v in per.items() if r < len(v))
            for r in range(n)]


def tfrecord_to_ctf(args: argparse.Namespace) -> int:
    """tf.train.Examples -> CTF sequences; returns the number written."""
    if not args.stream:
        raise common.UsageError("--stream specs are needed to convert TFRecord to CTF "
                                "(e.g. --stream x:2:dense --stream y:5:sparse)")
    defs = common.stream_defs(args.stream)
    wanted: dict[str, str] = {"sequence_id": "int64"}
    for name, sd in defs.items():
        wanted.update({f"{name}/indices": "int64", f"{name}/values": "float",
                       f"{name}/lengths": "int64"} if sd.is_sparse else {name: "float"})
    decoder = ExampleDecoder(wanted)
    f = TFRecordFile(common.existing_file(args.input, "INPUT"), args.compression)
    count = 0
    with open(args.output, "w", encoding="utf-8") as out:
        for batch in f.batches():
            cols = decoder.decode(batch, lambda i: f"{args.input} record {batch.positions[i]}")
            for i in range(len(batch)):
                ids = cols["sequence_id"].row(i)
                key = int(ids[0]) if ids is not None and len(ids) else int(batch.positions[i])
                out.writelines(line + "\n" for line in _lines(key, cols, i, defs))
                count += 1
    return count


CONVERTERS: dict[tuple[str, str], Callable[[argparse.Namespace], int]] = {
    ("ctf", "tfrecord"): ctf_to_tfrecord,
    ("tfrecord", "ctf"): tfrecord_to_ctf,
    ("scp", "ctf"): scp_to_ctf,
}


def run(args: argparse.Namespace) -> int:
    """Runs ``convert``."""
    source = args.source or detect_kind(args.input)
    target = args.to or _EXTENSIONS.get(os.path.splitext(args.output)[1].lower())
    if target is None:
        kinds = ", ".join(sorted({k for _, k in CONVERTERS}))
        raise common.UsageError(f"--to should name the output kind ({kinds}) when OUTPUT's "
                                f"extension does not, but got OUTPUT={args.output!r}")
    convert = CONVERTERS.get((source, target))
    if convert is None:
        pairs = ", ".join(f"{a} -> {b}" for a, b in CONVERTERS)
        raise common.UsageError(f"cannot convert {source} to {target}; supported: {pairs}")
    count = convert(args)
    print(f"converted {count} sequences: {source} -> {target}")
    return 0
