"""``minibatcher validate`` of TFRecord files and TFDS dataset folders.

TFRecord: every record's framing (length CRC, truncation: the rest of a file
that cannot be framed is not read) and data CRC, and every record that the
first records show to be ``tf.train.Example`` s must decode as one. TFDS: every
shard of every split must exist, hold ``shardLengths`` records with valid CRCs,
and every example must decode as ``features.json`` says.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.tfds.testing import write_dataset
    >>> d = write_dataset(pathlib.Path(tempfile.mkdtemp()), {"train": [2, 1]})
    >>> main = __import__("minibatcher.cli", fromlist=["main"]).main
    >>> main(["validate", str(d)])  # doctest: +ELLIPSIS
    validating ... (TFDS dataset toy 1.0.0)
    <BLANKLINE>
    summary: OK, no errors
      problems  0
      shards    2
      examples  3
    0
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Callable

from ..budget import ErrorBudget
from ..errors import ErrorBudgetExceeded, FormatError
from ..formats.tfrecord import ExampleDecoder, TFRecordFile
from . import common
from .problems import Problems, RecordingBudget, print_summary, verdict
from .wording import say


def _example_kinds(f: TFRecordFile) -> dict[str, str] | None:
    """The features of the first record, when it is a tf.train.Example."""
    from ..formats.tfrecord import decode_example

    first = f.read_list(0, 1)
    try:
        example = decode_example(first[0]) if first else None
    except FormatError:
        return None
    if example is None:
        return None
    return {k: ("bytes" if isinstance(v, list) else "float" if v.dtype.kind == "f" else "int64")
            for k, v in example.items()}


def _check_batch(decode: Callable[[Any], Any], batch: Any, path: str, problems: Problems) -> None:
    """Decodes a batch; on a failure, each record alone to name every bad one."""
    try:
        decode(list(batch))
    except FormatError:
        for record, position in zip(batch, batch.positions.tolist()):
            try:
                decode([record])
            except FormatError as e:
                problems.add(f"{path}: record {position}: {str(e).split(': ', 1)[-1]}")


def check_file(path: str, compression: str | None, budget: ErrorBudget, problems: Problems,
               decode: Callable[[Any], Any] | None = None, verify_crc: bool = True) -> int:
    """Reads every record of one file; returns the records read."""
    try:
        f = TFRecordFile(path, common.compression_of(path, compression), budget=budget,
                         verify_crc=verify_crc)
        count = len(f)
    except FormatError as e:  # cannot be framed: the rest of the file is lost
        if isinstance(e, ErrorBudgetExceeded):
            raise
        problems.add(str(e))
        return 0
    if decode is None:
        kinds = _example_kinds(f)
        decode = ExampleDecoder(kinds).decode if kinds else None
    for batch in f.batches():
        if decode is not None:
            _check_batch(decode, batch, path, problems)
    f.close()
    return count


def _tfds(args: argparse.Namespace, folder: Path, problems: Problems) -> dict[str, Any]:
    from ..tfds.info import load_info
    from ..tfds.reader import ExampleDecoding

    info = load_info(folder)
    say(f"validating {folder} (TFDS dataset {info.name} {info.version})\n")
    decoding = ExampleDecoding(info.features) if info.features is not None else None
    budget = RecordingBudget(args.max_errors, str(folder), problems)
    shards = examples = 0
    if not info.splits:
        problems.add(f"{folder / 'dataset_info.json'}: no split to read: 'splits' is missing or "
                     "empty (expected a list of splits, each with a 'name' and 'shardLengths')")
    for split in info.splits.values():
        for name, expected in zip(split.filenames, split.shard_lengths):
            path = os.path.join(info.data_dir, name)
            shards += 1
            if not os.path.exists(path):
                problems.add(f"{path}: missing shard of split {split.name!r} ({expected} "
                             "examples expected)")
                continue
            where = lambda i, p=path: f"{p} record {i}"  # noqa: E731
            decode = (lambda recs, w=where: decoding.decode(recs, w)) if decoding else None
            got = check_file(path, None, budget, problems, decode, args.verify_crc)
            examples += got
            if got != expected:
                problems.add(f"{path}: {got} records, but shardLengths says {expected}")
    return {"shards": shards, "examples": examples}


def validate(kind: str, args: argparse.Namespace, path: Path) -> int:
    """Validates a ``tfrecord`` file or a ``tfds`` folder; 1 when it has problems."""
    problems, stopped, counts = Problems(echo=True), False, {}
    try:
        if kind == "tfds":
            counts = _tfds(args, path, problems)
        else:
            say(f"validating {path} (TFRecord)\n")
            budget = RecordingBudget(args.max_errors, str(path), problems)
            counts = {"records": check_file(str(path), args.compression, budget, problems,
                                            verify_crc=args.verify_crc)}
    except ErrorBudgetExceeded as e:
        stopped = True
        say(f"stopped: more than --max-errors {args.max_errors} errors\n{e}\n")
    title = (f"summary: reading stopped early; {problems.count} error(s) before that" if stopped
             else verdict(problems.count))
    print_summary(title, {"problems": problems.count, **counts})
    return 1 if stopped or problems.count else 0
