"""``minibatcher cat`` of record formats: one JSON line per example, with its name.

* TFRecord: ``{"index", "name": "FILE:RECORD", "features": {...}}`` for a
  ``tf.train.Example`` (else ``"bytes"``: the record's size and ``"base64"``);
* TFDS: ``{"index", "name": tfds_id, "features": {...}}`` of ``--split``, in TFDS's
  order (the id names the shard and the position in it);
* text: ``{"index", "name": "FILE:LINE", "text"}``;
* an HTK file: ``{"index", "name": "FILE:FRAME", "values"}`` per frame.

Values: arrays as (nested) lists, bytes as text when they are UTF-8, else
``{"base64": ...}``.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.txt"; _ = p.write_text("ein\\nzwei\\n")
    >>> main = __import__("minibatcher.cli", fromlist=["main"]).main
    >>> main(["cat", str(p), "--count", "1"])  # doctest: +ELLIPSIS
    {"index": 0, "name": ".../c.txt:1", "text": "ein"}
    0
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
from pathlib import Path
from typing import Any, Iterator

import numpy as np


def plain(value: Any) -> Any:
    """A decoded value as JSON-able data.

    Example:
        >>> plain({"a": np.arange(3), "b": [b"x", b"\\xff"]})
        {'a': [0, 1, 2], 'b': ['x', {'base64': '/w=='}]}
    """
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain(list(value)) if value.dtype == object else value.tolist()
    if isinstance(value, (bytes, np.bytes_)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, np.generic):
        return value.item()
    return value


def _tfrecord(path: Path, args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    from ..errors import FormatError
    from ..formats.tfrecord import TFRecordFile, decode_example

    from . import common

    f = TFRecordFile(path, common.compression_of(path, getattr(args, "compression", None)),
                     verify_crc=getattr(args, "verify_crc", True),
                     max_errors=getattr(args, "max_errors", None) or 0)
    for batch in f.batches():  # positions: a skipped corrupted record keeps its number
        for position, view in zip(batch.positions.tolist(), batch):
            record = bytes(view)
            try:
                body: dict[str, Any] = {"features": plain(decode_example(record))}
            except FormatError:
                body = {"bytes": len(record), "base64": base64.b64encode(record).decode("ascii")}
            yield {"name": f"{path}:{position}", **body}
    f.close()


def _tfds(path: Path, args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    from ..tfds import ReadConfig, builder_from_directory

    config = ReadConfig(add_tfds_id=True, verify_crc=getattr(args, "verify_crc", True),
                        max_errors=getattr(args, "max_errors", None) or 0)
    dataset = builder_from_directory(path).as_dataset(args.split, read_config=config)
    for example in dataset:
        name = example.pop("tfds_id")
        yield {"name": plain(name), "features": plain(example)}


def _text(path: Path, args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    from ..tfdata import TextLineDataset

    for number, line in enumerate(TextLineDataset(str(path)), 1):
        yield {"name": f"{path}:{number}", "text": plain(bytes(line))}


def _htk(path: Path, args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    from ..formats.htk import read_htk

    frames, _ = read_htk(path)
    for t, row in enumerate(frames):
        yield {"name": f"{path}:{t}", "values": [float(v) for v in row.astype(str)]}


_READERS = {"tfrecord": _tfrecord, "tfds": _tfds, "text": _text, "htk": _htk}


def print_examples(kind: str, path: Path, args: argparse.Namespace) -> int:
    """Prints the first ``--count`` examples of a ``tfrecord``, ``tfds``,
    ``text`` or ``htk`` input as JSON lines."""
    examples = itertools.islice(_READERS[kind](path, args), args.count)
    for i, example in enumerate(examples):
        print(json.dumps({"index": i, **example}, ensure_ascii=False))
    return 0


__all__ = ["plain", "print_examples"]
