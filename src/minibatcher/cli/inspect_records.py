"""``minibatcher inspect`` of TFRecord shards and TFDS dataset folders.

A TFRecord report gives per file its size, record count and record sizes, the
record-size histogram, and the features found in a sample of the records (when
they are ``tf.train.Example`` s). A TFDS report gives the dataset's name,
version, splits (examples, shards and their sizes), features, the classes of
every ClassLabel feature (counted over the first ``max_examples`` examples of
each split), and with ``verify`` checks every shard against ``shardLengths``.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.tfds.testing import write_dataset
    >>> d = write_dataset(pathlib.Path(tempfile.mkdtemp()), {"train": [2, 1]})
    >>> r = collect_tfds(d, verify=True)
    >>> r["name"], r["splits"][0]["num_examples"], r["problems"], r["labels"]["train"]["label"]
    ('toy', 3, 0, {'0': 1, '1': 1, '2': 1})
    >>> collect_tfrecord([d / "toy-train.tfrecord-00000-of-00002"], None)["records"]
    2
"""

from __future__ import annotations

import glob
import os
from typing import Any, Sequence

import numpy as np

from ..errors import ErrorBudgetExceeded, FormatError
from ..formats.tfrecord import ExampleDecoder, TFRecordFile, decode_example
from ..tfds.features import FeatureTree, Leaf
from ..tfds.info import load_info
from . import common
from .inspect_ctf import histogram
from .problems import Problems, ReadOptions, RecordingBudget

SAMPLE = 200
#: Examples per split whose ClassLabel features ``inspect`` counts by default.
MAX_EXAMPLES = 100_000


def expand(paths: Sequence[str]) -> list[str]:
    """Paths with shell-style patterns expanded (sorted), others as given.

    Example:
        >>> expand(["/no/such/*.tfrecord", "a.tfrecord"])
        ['/no/such/*.tfrecord', 'a.tfrecord']
    """
    out: list[str] = []
    for p in paths:
        hits = sorted(glob.glob(p)) if any(c in p for c in "*?[") else [p]
        out.extend(hits or [p])
    return out


def _features(records: list[bytes]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for rec in records:
        try:
            ex = decode_example(rec)
        except FormatError:
            return []
        for name, values in ex.items():
            kind = ("bytes" if isinstance(values, list) else
                    "float" if values.dtype == np.float32 else "int64")
            s = seen.setdefault(name, {"name": name, "kind": kind, "min": len(values),
                                       "max": len(values), "records": 0})
            s["min"], s["max"] = min(s["min"], len(values)), max(s["max"], len(values))
            s["records"] += 1
    return sorted(seen.values(), key=lambda s: s["name"])


def _one_file(p: str | os.PathLike, compression: str | None, budget: RecordingBudget,
              verify_crc: bool) -> dict[str, Any]:
    """One file's entry: its records (framed by the index), record sizes and the features of
    the first records (a record whose data CRC does not match is a problem, left out)."""
    f = TFRecordFile(p, common.compression_of(p, compression), verify_crc=verify_crc,
                     budget=budget)
    try:
        n, before = len(f), budget.count
        sample = f.read_list(0, min(n, SAMPLE))
        if f.compression_type:
            sizes = np.array([len(r) for r in sample], np.int64)
        else:  # every record's size, from the index
            sizes = np.diff(np.append(f.frames, f.file_size)) - 16
        return {"file": str(p), "size": f.file_size, "compression": f.compression_type,
                "records": n, "min_bytes": int(sizes.min()) if len(sizes) else 0,
                "max_bytes": int(sizes.max()) if len(sizes) else 0,
                "features": _features(sample), "sampled": len(sample),
                "crc_checked": min(n, SAMPLE) if verify_crc else 0,
                "corrupted": budget.count - before, "sizes": sizes}
    finally:
        f.close()


def collect_tfrecord(paths: Sequence[str | os.PathLike], compression: str | None,
                     reading: ReadOptions = ReadOptions(10**9)) -> dict:
    """The report of one or more TFRecord files (a file that cannot be framed and a record
    whose data CRC does not match are problems; ``error`` when no file can be read; past
    ``reading.max_errors`` problems, ``ErrorBudgetExceeded``)."""
    problems, files, sizes = Problems(), [], []
    budget = RecordingBudget(reading.max_errors, ", ".join(map(os.fspath, paths)), problems)
    for p in paths:
        try:
            entry = _one_file(p, compression, budget, reading.verify_crc)
        except ErrorBudgetExceeded:
            raise
        except FormatError as e:
            budget.charge(("file", os.fspath(p)), str(e), advice="")
            continue
        sizes.append(entry.pop("sizes"))
        files.append(entry)
    all_sizes = np.concatenate(sizes) if sizes else np.zeros(0, np.int64)
    report = {"format": "tfrecord", "files": files, "records": sum(f["records"] for f in files),
              "bytes": sum(f["size"] for f in files),
              "features": files[0]["features"] if files else [],
              "histogram": histogram(all_sizes) if len(all_sizes) else [],
              "histogram_of": "record bytes" + (" (sampled in compressed files)" if any(
                  f["compression"] for f in files) else ""),
              **problems.as_json()}
    if not files:
        report["error"] = "no TFRecord file could be read: " + "; ".join(problems.first(3))
    return report


def _describe(tree: FeatureTree | Leaf | None, prefix: str = "") -> list[dict[str, Any]]:
    if tree is None:
        return []
    if isinstance(tree, FeatureTree):
        return [d for k, v in tree.children.items() for d in _describe(v, f"{prefix}{k}/")]
    shape = ["?" if d is None else d for d in ((None,) * tree.sequence_rank + tree.shape)]
    return [{"name": prefix.rstrip("/"), "connector": tree.connector,
             "dtype": "string" if tree.dtype == object else tree.dtype.name, "shape": shape}]


def _verify_shard(path: str, name: str, expected: int, problems: Problems) -> int | None:
    if not os.path.exists(path):
        problems.add(f"{name}: missing ({expected} examples expected)")
        return None
    try:
        f = TFRecordFile(path)
        got, size = len(f), f.file_size
        f.close()
    except (FormatError, OSError) as e:
        problems.add(f"{name}: {e}")
        return None
    if got != expected:
        problems.add(f"{name}: {got} records, but shardLengths says {expected}")
    return size


def add_counts(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``counts`` plus the histogram of the non-negative ``values`` (grown as needed).

    Example:
        >>> add_counts(np.array([1, 0]), np.array([2, 0, -1])).tolist()
        [2, 0, 1]
    """
    values = np.asarray(values, np.int64)
    new = np.bincount(values[values >= 0], minlength=len(counts))
    if len(new) > len(counts):
        counts = np.pad(counts, (0, len(new) - len(counts)))
    counts[:len(new)] += new
    return counts


def _class_leaves(info: Any) -> list[Leaf]:
    tree = info.features
    leaves = tree.leaves() if isinstance(tree, FeatureTree) else [tree] if tree else []
    return [leaf for leaf in leaves if leaf.connector == "ClassLabel"]


def _named(counts: np.ndarray, names: list[str] | None) -> dict[str, int]:
    """``{class: count}`` of the classes seen, by name where ``names`` has one.

    Example:
        >>> _named(np.array([2, 0, 5]), ["sil", "ah", "eh"]), _named(np.array([0, 1]), None)
        ({'sil': 2, 'eh': 5}, {'1': 1})
    """
    return {(names[i] if names is not None and i < len(names) else str(i)): int(c)
            for i, c in enumerate(counts.tolist()) if c}


def _class_counts(folder: str, info: Any, split: str, limit: int,
                  budget: RecordingBudget, verify_crc: bool) -> dict[str, dict[str, int]]:
    """Classes of every ClassLabel leaf over the first ``limit`` examples of ``split``, named
    as the folder's ``<feature>.labels.txt`` files name them."""
    from ..convert.sources import class_names

    leaves = _class_leaves(info)
    if not leaves:
        return {}
    decoder = ExampleDecoder({leaf.key: "int64" for leaf in leaves})
    counts = {leaf.key: np.zeros(0, np.int64) for leaf in leaves}
    left = limit
    for name, n in zip(info.splits[split].filenames, info.splits[split].shard_lengths):
        path = os.path.join(folder, name)
        if left <= 0 or not n or not os.path.exists(path):
            continue
        f = TFRecordFile(path, verify_crc=verify_crc, budget=budget)
        take = min(left, len(f))
        cols = decoder.decode(f.read(0, take), lambda i: f"{path} record {i}")
        f.close()
        left -= take
        for key in counts:
            counts[key] = add_counts(counts[key], cols[key].values)
    names = {leaf.key: class_names(folder, "-".join(leaf.path)) for leaf in leaves}
    return {k: _named(v, names[k]) for k, v in counts.items()}


def collect_tfds(folder: str | os.PathLike, verify: bool, max_examples: int = MAX_EXAMPLES,
                 reading: ReadOptions = ReadOptions(10**9)) -> dict[str, Any]:
    """The dataset's description, shard sizes, ClassLabel counts (class names from the
    folder's ``labels.txt`` files), and shard problems when ``verify``; ``error`` when it has
    no split to read."""
    info, problems = load_info(folder), Problems()
    budget = RecordingBudget(reading.max_errors, os.fspath(folder), problems)
    splits, labels = [], {}
    for s in info.splits.values():
        sizes = []
        for name, expected in zip(s.filenames, s.shard_lengths):
            path = os.path.join(info.data_dir, name)
            size = _verify_shard(path, name, expected, problems) if verify else (
                os.path.getsize(path) if os.path.exists(path) else None)
            sizes.append(size)
        splits.append({"name": s.name, "num_examples": s.num_examples, "num_shards": s.num_shards,
                       "shard_lengths": list(s.shard_lengths), "shard_bytes": sizes})
        try:
            labels[s.name] = _class_counts(info.data_dir, info, s.name, max_examples, budget,
                                           reading.verify_crc)
        except ErrorBudgetExceeded:
            raise
        except (FormatError, OSError) as e:
            problems.add(f"split {s.name}: the ClassLabel features could not be counted: {e}")
    report = {"folder": str(folder), "format": "tfds", "name": info.name,
              "version": info.version, "file_format": info.file_format, "splits": splits,
              "features": _describe(info.features),
              "supervised_keys": list(info.supervised_keys or []), "verified": verify,
              "labels": labels, "labels_counted_per_split": max_examples, **problems.as_json()}
    if not splits:
        report["error"] = (f"{os.path.join(folder, 'dataset_info.json')}: no split to read: "
                           "'splits' is missing or empty (expected a list of splits, each with "
                           "a 'name' and 'shardLengths')")
    return report


def print_tfrecord(r: dict[str, Any]) -> None:
    """Prints a :func:`collect_tfrecord` report."""
    from .inspect_ctf import histogram_items, print_bars, print_problems

    for f in r["files"]:
        comp = f", {f['compression']}" if f["compression"] else ""
        print(f"file:      {f['file']} ({f['size']} B{comp})")
        bad = (f"; {f['corrupted']} of the first {f['crc_checked']} with a bad data CRC"
               if f["corrupted"] else "")
        print(f"records:   {f['records']} ({f['min_bytes']}..{f['max_bytes']} bytes each{bad})")
        if f["features"]:
            print(f"features (tf.train.Example, the first {f['sampled']} readable records):")
            for s in f["features"]:
                seen = "" if s["records"] == f["sampled"] else f" (in {s['records']} records)"
                print(f"  {s['name']:<24} {s['kind']:<6} {s['min']}..{s['max']} values{seen}")
        elif f["records"]:
            print("features:  the records are not tf.train.Examples")
    if len(r["files"]) > 1:
        print(f"total:     {r['records']} records in {len(r['files'])} files ({r['bytes']} B)")
    print_bars(f"{r['histogram_of']}:", histogram_items(r["histogram"]))
    print_problems(r)


def print_tfds(r: dict[str, Any]) -> None:
    """Prints a :func:`collect_tfds` report."""
    from .inspect_ctf import print_bars, print_problems

    print(f"dataset:   {r['name']} {r['version']} ({r['file_format']}) in {r['folder']}")
    for s in r["splits"]:
        print(f"split:     {s['name']:<12} {s['num_examples']:>10} examples in "
              f"{s['num_shards']} shards")
    print("features:")
    for f in r["features"]:
        shape = "(" + ", ".join(str(d) for d in f["shape"]) + ("," if len(f["shape"]) == 1 else "")
        print(f"  {f['name']:<24} {f['connector']:<10} {f['dtype']:<8} {shape})")
    if r["supervised_keys"]:
        print(f"supervised: {tuple(r['supervised_keys'])}")
    for split, features in r["labels"].items():
        for key, counts in features.items():
            print_bars(f"classes of {key!r} in {split} (first {r['labels_counted_per_split']} "
                       "examples at most):", list(counts.items())[:50])
    if r["verified"]:
        print("shards:    " + ("all present, lengths match shardLengths" if not r["problems"]
                               else f"{r['problems']} problem(s)"))
    print_problems(r)
    if r.get("error"):
        print(f"error: {r['error']}")


__all__ = ["MAX_EXAMPLES", "add_counts", "collect_tfds", "collect_tfrecord", "expand",
           "print_tfds", "print_tfrecord"]
