"""``minibatcher convert`` to CTF: tf.train.Examples in the CTF layout back to
CNTK text format (the ``--stream`` specs say which keys hold which stream).

The layout, one Example per CTF sequence: ``sequence_id`` (int64, the CTF
key); a dense stream ``x`` of dimension d is ``x`` (float_list, samples x d
values, row-major); a sparse stream ``y`` is ``y/indices`` (int64), ``y/values``
(float) and ``y/lengths`` (int64, the non-zeros of each sample).

Example:
    >>> _number(0.1), _number(3.0)
    ('0.1', '3')
"""

from __future__ import annotations

import argparse

import numpy as np

from ..formats.tfrecord import ExampleDecoder, TFRecordFile
from ..streams import StreamDefs
from . import common


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
    path = common.existing_file(args.input, "INPUT")
    f = TFRecordFile(path, common.compression_of(path, None),
                     verify_crc=getattr(args, "verify_crc", True),
                     max_errors=getattr(args, "max_errors", 0))
    count = 0
    with open(args.output, "w", encoding="utf-8") as out, \
            common.progress_bar(len(f), "convert", unit="ex") as update:
        for batch in f.batches():
            cols = decoder.decode(batch, lambda i: f"{args.input} record {batch.positions[i]}")
            for i in range(len(batch)):
                ids = cols["sequence_id"].row(i)
                key = int(ids[0]) if ids is not None and len(ids) else int(batch.positions[i])
                out.writelines(line + "\n" for line in _lines(key, cols, i, defs))
                count += 1
            update(int(batch.positions[-1]) + 1 if len(batch) else count)
    f.close()
    return count
