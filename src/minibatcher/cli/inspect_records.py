"""``minibatcher inspect`` of TFRecord shards and TFDS dataset folders.

A TFRecord report gives per file its size, record count and record sizes,
and the features found in a sample of its records (when they are
``tf.train.Example`` s). A TFDS report gives the dataset's name, version,
splits (examples, shards), features (connector, dtype, shape) and, with
``--verify``, checks every shard against ``shardLengths``.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.tfds.testing import write_dataset
    >>> d = write_dataset(pathlib.Path(tempfile.mkdtemp()), {"train": [2, 1]})
    >>> r = collect_tfds(d, verify=True)
    >>> r["name"], r["splits"][0]["num_examples"], r["problems"]
    ('toy', 3, [])
    >>> collect_tfrecord([d / "toy-train.tfrecord-00000-of-00002"], None)[0]["records"]
    2
"""

from __future__ import annotations

import glob
import os
import struct
import zlib
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import FormatError
from ..formats.tfrecord import TFRecordFile, decode_example
from ..formats.tfrecord.crc import masked_crc32c
from ..tfds.features import FeatureTree, Leaf
from ..tfds.info import load_info

SAMPLE = 200


def is_tfds_dir(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a folder with a dataset_info.json."""
    return os.path.isdir(path) and os.path.exists(os.path.join(path, "dataset_info.json"))


def looks_like_tfrecord(path: str | os.PathLike) -> bool:
    """Whether ``path`` starts with a valid TFRecord frame header, plain or
    GZIP/ZLIB compressed (or is empty and named like a shard).

    Example:
        >>> looks_like_tfrecord("/no/such/file")
        False
    """
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 12)
    except OSError:
        return False
    if head[:2] == b"\x1f\x8b" or (len(head) > 1 and head[0] == 0x78 and
                                    (head[0] << 8 | head[1]) % 31 == 0):
        try:  # GZIP or ZLIB: look at the start of the inflated stream
            head = zlib.decompressobj(47).decompress(head, 12)
        except zlib.error:
            return False
    head = head[:12]
    if len(head) < 12:
        return not head and ".tfrecord" in os.path.basename(path)
    return struct.unpack("<I", head[8:])[0] == masked_crc32c(head[:8])


def expand(paths: Sequence[str]) -> list[str]:
    """Paths with shell-style patterns expanded (sorted), others as given."""
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


def collect_tfrecord(paths: Sequence[str | os.PathLike], compression: str | None) -> list[dict]:
    """One report per file."""
    out = []
    for p in paths:
        f = TFRecordFile(p, compression)
        n = len(f)
        sample = f.read_list(0, min(n, SAMPLE))
        if f.compression_type:
            sizes = [len(r) for r in sample]
        else:  # every record's size, from the index
            sizes = (np.diff(np.append(f.frames, f.file_size)) - 16).tolist()
        out.append({"file": str(p), "size": f.file_size, "compression": f.compression_type,
                    "records": n, "min_bytes": int(min(sizes)) if sizes else 0,
                    "max_bytes": int(max(sizes)) if sizes else 0,
                    "features": _features(sample), "sampled": len(sample)})
        f.close()
    return out


def _describe(tree: FeatureTree | Leaf | None, prefix: str = "") -> list[dict[str, Any]]:
    if tree is None:
        return []
    if isinstance(tree, FeatureTree):
        return [d for k, v in tree.children.items() for d in _describe(v, f"{prefix}{k}/")]
    shape = ["?" if d is None else d for d in ((None,) * tree.sequence_rank + tree.shape)]
    return [{"name": prefix.rstrip("/"), "connector": tree.connector,
             "dtype": "string" if tree.dtype == object else tree.dtype.name, "shape": shape}]


def collect_tfds(folder: str | os.PathLike, verify: bool) -> dict[str, Any]:
    """The dataset's description (and shard problems when ``verify``)."""
    info = load_info(folder)
    problems: list[str] = []
    splits = []
    for s in info.splits.values():
        splits.append({"name": s.name, "num_examples": s.num_examples, "num_shards": s.num_shards})
        if verify:
            for name, expected in zip(s.filenames, s.shard_lengths):
                path = os.path.join(info.data_dir, name)
                if not os.path.exists(path):
                    problems.append(f"{name}: missing ({expected} examples expected)")
                    continue
                try:
                    got = len(TFRecordFile(path))
                except (FormatError, OSError) as e:
                    problems.append(f"{name}: {e}")
                    continue
                if got != expected:
                    problems.append(f"{name}: {got} records, but shardLengths says {expected}")
    return {"folder": str(folder), "name": info.name, "version": info.version,
            "file_format": info.file_format, "splits": splits,
            "features": _describe(info.features),
            "supervised_keys": list(info.supervised_keys or []), "verified": verify,
            "problems": problems}


def print_tfrecord(reports: list[dict[str, Any]]) -> None:
    """Prints :func:`collect_tfrecord` reports."""
    for r in reports:
        comp = f", {r['compression']}" if r["compression"] else ""
        print(f"file:      {r['file']} ({r['size']} B{comp})")
        print(f"records:   {r['records']} ({r['min_bytes']}..{r['max_bytes']} bytes each)")
        if r["features"]:
            print(f"features (tf.train.Example, first {r['sampled']} records):")
            for s in r["features"]:
                seen = "" if s["records"] == r["sampled"] else f" (in {s['records']} records)"
                print(f"  {s['name']:<24} {s['kind']:<6} {s['min']}..{s['max']} values{seen}")
        elif r["records"]:
            print("features:  the records are not tf.train.Examples")


def print_tfds(r: dict[str, Any]) -> None:
    """Prints a :func:`collect_tfds` report."""
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
    if r["verified"]:
        print("shards:    " + ("all present, lengths match shardLengths" if not r["problems"]
                               else f"{len(r['problems'])} problem(s)"))
        for p in r["problems"]:
            print(f"  {p}")


__all__ = ["collect_tfds", "collect_tfrecord", "expand", "is_tfds_dir", "looks_like_tfrecord",
           "print_tfds", "print_tfrecord", "Path"]
