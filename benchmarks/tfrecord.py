"""TFRecord reading throughput: our batch interface, our one-record iterator,
tfdata.TFRecordDataset (sequential and interleaved) and TFDS as_dataset,
against the PyPI ``tfrecord`` package and TensorFlow (when installed); plus
tf.train.Example decoding (ours vs the protobuf library).

Generates (once, cached under --data-dir) 16 shards of seeded 100-byte
records and a shard of small Examples. Every reader of ours verifies CRCs;
the ``tfrecord`` package checks none. Contenders alternate over --rounds in
this process; the table shows medians.

Targets (issue 8; tf.data reads 1.18 M 100-byte records/s sequential and
0.45 M/s with interleave 16 on this machine): batch interface >= 4x tf.data
sequential; one-record iterator >= 3x the ``tfrecord`` package.

    python benchmarks/tfrecord.py            # 2 M records (~230 MB)
    python benchmarks/tfrecord.py --quick    # 200 k records, a few seconds
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import _common as C

TF_DATA_SEQUENTIAL = 1.18e6   # records/s, measured with TF 2.21 on this machine (issue 8)
TF_DATA_INTERLEAVED = 0.45e6
SHARDS = 16
RECORD_BYTES = 100


def ensure_shards(data_dir: Path, records: int, seed: int) -> list[Path]:
    """16 shards of ``records`` 100-byte records in all (cached)."""
    from minibatcher.formats.tfrecord import TFRecordWriter

    folder = data_dir / f"tfrecord-v1-{records}-{seed}"
    paths = [folder / f"bench.tfrecord-{i:05d}-of-{SHARDS:05d}" for i in range(SHARDS)]
    if all(p.exists() for p in paths):
        return paths
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    per = records // SHARDS
    for p in paths:
        blob = rng.integers(0, 256, (per, RECORD_BYTES), dtype=np.uint8)
        tmp = p.with_suffix(".tmp")
        with TFRecordWriter(tmp) as w:
            for start in range(0, per, 65536):
                w.write_many(bytes(r) for r in blob[start:start + 65536])
        tmp.rename(p)
    return paths


def ensure_examples(data_dir: Path, count: int, seed: int) -> Path:
    """One shard of Examples: an int64 label, 16 floats, a short string."""
    from minibatcher.formats.tfrecord import TFRecordWriter, encode_example

    path = data_dir / f"examples-v1-{count}-{seed}.tfrecord"
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    data_dir.mkdir(parents=True, exist_ok=True)
    with TFRecordWriter(path.with_suffix(".tmp")) as w:
        w.write_many(encode_example({"label": np.array([i % 1000]),
                                     "x": rng.random(16, dtype=np.float32),
                                     "name": [b"example-%08d" % i]}) for i in range(count))
    path.with_suffix(".tmp").rename(path)
    return path


# -- contenders: each returns the number of records (or examples) it read ------------------------


def ours_batch(paths: list[Path]) -> int:
    """Our batch interface: ``RecordBatch``es of 8192 records per native call."""
    from minibatcher.formats.tfrecord import TFRecordFile

    return sum(len(b) for p in paths for b in TFRecordFile(p).batches(batch_records=8192,
                                                                      batch_bytes=4 << 20))


def ours_iterator(paths: list[Path]) -> int:
    """Our one-record-at-a-time iterator (``bytes``), file after file."""
    from minibatcher.formats.tfrecord import TFRecordFile

    n = 0
    for p in paths:
        for _ in TFRecordFile(p):
            n += 1
    return n


def ours_dataset(paths: list[Path], parallel: int | None = None) -> int:
    """``tfdata.TFRecordDataset``: sequential, or tf.data's interleave of
    ``parallel`` files (cycle ``parallel``, block 1)."""
    from minibatcher.tfdata import TFRecordDataset

    n = 0
    for _ in TFRecordDataset([str(p) for p in paths], num_parallel_reads=parallel):
        n += 1
    return n


def _peer_reader(module: str = "tfrecord.reader") -> Any:
    """A module of the PyPI ``tfrecord`` package, or None (:func:`_common.peer_module`)."""
    return C.peer_module(module)


def peer_tfrecord(paths: list[Path]) -> int:
    """The ``tfrecord`` package's ``tfrecord_iterator``, file after file (it
    checks no CRC and yields views of one reused buffer)."""
    tfrecord_iterator = _peer_reader().tfrecord_iterator
    n = 0
    for p in paths:
        for _ in tfrecord_iterator(str(p)):
            n += 1
    return n


def peer_tfrecord_mixed(paths: list[Path]) -> int:
    """The ``tfrecord`` package's way to read several files at once:
    ``iterator_utils.sample_iterators`` over one ``tfrecord_iterator`` per
    file with equal ratios (a random mix drawn per record, what its
    ``multi_tfrecord_loader`` does; it has no cycle/block interleave)."""
    reader, utils = _peer_reader(), _peer_reader("tfrecord.iterator_utils")
    makers = [lambda p=str(p): reader.tfrecord_iterator(p) for p in paths]
    n = 0
    for _ in utils.sample_iterators(makers, [1] * len(makers), infinite=False):
        n += 1
    return n


def peer_tf_child(paths: list[Path], parallel: int | None = None) -> tuple[int, float]:
    """:func:`peer_tf` in a fresh process: TensorFlow and the tfrecord package cannot
    share one (both register ``tensorflow.BytesList`` with protobuf). Returns
    ``(records, seconds)`` timed in the child (TF's import not included)."""
    spec = json.dumps({"paths": [str(p) for p in paths], "parallel": parallel})
    out = subprocess.run([sys.executable, __file__, "--tf-child", spec], check=True,
                         capture_output=True, text=True).stdout
    n, seconds = json.loads(out.strip().splitlines()[-1])
    return int(n), float(seconds)


def tf_child_main(spec: str) -> int:
    """The child of :func:`peer_tf_child`: imports TF, then times one read."""
    import tensorflow  # noqa: F401  (imported before the clock starts)

    args = json.loads(spec)
    t0 = time.perf_counter()
    n = peer_tf([Path(p) for p in args["paths"]], args["parallel"])
    print(json.dumps([n, time.perf_counter() - t0]))
    return 0


def peer_tf(paths: list[Path], parallel: int | None = None) -> int:
    """TensorFlow's ``tf.data.TFRecordDataset``, sequential or interleaved."""
    import tensorflow as tf

    files = [str(p) for p in paths]
    if parallel:
        ds = tf.data.Dataset.from_tensor_slices(files).interleave(
            tf.data.TFRecordDataset, cycle_length=parallel, block_length=1)
    else:
        ds = tf.data.TFRecordDataset(files)
    # Batched iteration is tf.data's fast path (ds.reduce ran at ~40k records/s here).
    return sum(int(b.shape[0]) for b in ds.batch(8192))


def decode_ours(path: Path) -> int:
    """Our batch Example decoder over the Example shard (3 features)."""
    from minibatcher.formats.tfrecord import ExampleDecoder, TFRecordFile

    dec = ExampleDecoder({"label": "int64", "x": "float", "name": "bytes"})
    n = 0
    for batch in TFRecordFile(path).batches(batch_records=8192, batch_bytes=4 << 20):
        cols = dec.decode(batch)
        n += len(cols["label"].counts)
    return n


def decode_protobuf(path: Path) -> int:
    """The protobuf library: ``Example.FromString`` and NumPy per record."""
    sys.path.insert(0, str(C.HERE.parent / "tests" / "formats" / "tfrecord"))
    from protos import example_class  # the runtime-built Example class of the tests

    from minibatcher.formats.tfrecord import TFRecordFile

    cls, n = example_class(), 0
    for rec in TFRecordFile(path):
        ex = cls.FromString(rec)
        f = ex.features.feature
        np.asarray(f["label"].int64_list.value, np.int64)
        np.asarray(f["x"].float_list.value, np.float32)
        list(f["name"].bytes_list.value)
        n += 1
    return n


def tfds_decoded(folder: Path) -> int:
    """TFDS ``as_dataset`` of a small folder: decoded feature dicts."""
    from minibatcher import tfds

    n = 0
    for _ in tfds.builder_from_directory(folder).as_dataset("train"):
        n += 1
    return n


def ensure_tfds(data_dir: Path, count: int, seed: int) -> Path:
    """A TFDS folder of ``count`` examples in 8 shards (cached)."""
    from minibatcher.tfds.testing import features_dict, tensor_feature, write_dataset

    root = data_dir / f"tfds-v1-{count}-{seed}"
    folder = root / "toy" / "1.0.0"
    if (folder / "features.json").exists():
        return folder
    feats = features_dict({"label": tensor_feature("int64", [], scalar=True),
                           "x": tensor_feature("float32", [16])})
    rng = np.random.default_rng(seed)
    return write_dataset(root, {"train": [count // 8] * 8}, features=feats,
                         example=lambda s, k: {"label": np.array([k]),
                                               "x": rng.random(16, dtype=np.float32)})


BATCH = "ours: batch interface (native, 8192/call)"
ITERATOR = "ours: record iterator (bytes, one at a time)"
INTERLEAVED = "ours: tfdata.TFRecordDataset interleave 16"
PEER = "tfrecord package: tfrecord_iterator (no CRC)"
PEER_MIXED = "tfrecord package: sample_iterators over 16 files (no CRC)"
PROTOBUF = "protobuf: FromString + NumPy per Example"
TF_SEQUENTIAL = "TensorFlow: tf.data.TFRecordDataset"
TF_INTERLEAVED = "TensorFlow: interleave 16"
MISSING_PEER = "not measured (tfrecord not installed: pip install 'minibatcher[bench]')"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line; ``--quick`` sets small defaults."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="200 k records; a few seconds")
    p.add_argument("--records", type=int, default=None, help="records in all (default 2 M)")
    p.add_argument("--rounds", type=int, default=None, help="alternating rounds (default 3)")
    p.add_argument("--data-dir", type=Path, default=C.HERE / "data")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    args.records = args.records or (200_000 if args.quick else 2_000_000)
    args.rounds = args.rounds or (2 if args.quick else 3)
    return args


def contenders(paths: list[Path], examples: Path, folder: Path
               ) -> dict[str, tuple[Callable[[], int], str]]:
    """Every reader to measure, by table label: (function, unit); the peers
    only when installed."""
    runs: dict[str, tuple[Callable[[], int], str]] = {
        BATCH: (lambda: ours_batch(paths), "records"),
        ITERATOR: (lambda: ours_iterator(paths), "records"),
        "ours: tfdata.TFRecordDataset sequential": (lambda: ours_dataset(paths), "records"),
        INTERLEAVED: (lambda: ours_dataset(paths, 16), "records"),
        "ours: Example batch decode (3 features)": (lambda: decode_ours(examples), "examples"),
        "ours: tfds as_dataset, decoded dicts": (lambda: tfds_decoded(folder), "examples"),
    }
    if _peer_reader() is not None:
        runs[PEER] = (lambda: peer_tfrecord(paths), "records")
        runs[PEER_MIXED] = (lambda: peer_tfrecord_mixed(paths), "records")
    if _importable("google.protobuf"):
        runs[PROTOBUF] = (lambda: decode_protobuf(examples), "examples")
    if _importable("tensorflow"):
        runs[TF_SEQUENTIAL] = (lambda: peer_tf_child(paths), "records")
        runs[TF_INTERLEAVED] = (lambda: peer_tf_child(paths, 16), "records")
    return runs


def measure(runs: dict[str, tuple[Callable[[], Any], str]], rounds: int) -> dict[str, float]:
    """Median rate (items/s) of each contender, alternating over ``rounds`` (a
    contender returns its item count, or ``(count, seconds)`` timed elsewhere)."""
    rates: dict[str, list[float]] = {k: [] for k in runs}
    for _ in C.rounds_of(rounds):
        for name, (fn, _) in runs.items():
            t0 = time.perf_counter()
            n = fn()
            n, seconds = n if isinstance(n, tuple) else (n, time.perf_counter() - t0)
            rates[name].append(n / seconds)
    return {k: C.median(v) for k, v in rates.items()}


def main(argv: list[str] | None = None) -> int:
    """Generates (or reuses) the data, measures, prints the tables."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--tf-child"]:
        return tf_child_main(argv[1])
    args = parse_args(argv)
    paths = ensure_shards(args.data_dir, args.records, args.seed)
    examples = ensure_examples(args.data_dir, args.records // 10, args.seed)
    folder = ensure_tfds(args.data_dir, args.records // 20, args.seed)
    C.warm_page_cache(*paths, examples)
    load = C.LoadMonitor()
    runs = contenders(paths, examples, folder)
    med = measure(runs, args.rounds)
    rows = [[k, unit, f"{med[k] / 1e6:.3f} M/s"] for k, (_, unit) in runs.items()]
    print(f"\n{C.code_version()}; {args.records} records of {RECORD_BYTES} bytes in {SHARDS} "
          f"shards, CRCs verified by ours; median of {args.rounds} rounds")
    C.print_table(["reader", "unit", "rate"], rows, "Throughput")
    C.print_table(["ratio", "value", "target", "verdict", "peer figure"], target_rows(med),
                  "Targets")
    print(f"\n{load.describe()}")
    return 0


def target_rows(med: dict[str, float]) -> list[list[str]]:
    """The issue's targets and the other ratios; a peer that is not installed
    gets a "not measured" row instead of none."""
    tf_seq = med.get(TF_SEQUENTIAL, TF_DATA_SEQUENTIAL)
    src = "measured now" if TF_SEQUENTIAL in med else "1.18 M/s quoted in issue 8"
    rows = [_ratio("batch interface vs tf.data sequential", med[BATCH], tf_seq, 4.0, src)]
    if PEER in med:
        rows.append(_ratio("record iterator vs tfrecord package", med[ITERATOR], med[PEER], 3.0,
                           "measured now"))
        rows.append(_ratio("TFRecordDataset interleave 16 vs tfrecord package mix",
                           med[INTERLEAVED], med[PEER_MIXED], None, "measured now"))
    else:
        rows.append(["record iterator vs tfrecord package", MISSING_PEER, ">= 3x", "-", "-"])
        rows.append(["TFRecordDataset interleave 16 vs tfrecord package mix", MISSING_PEER,
                     "-", "-", "-"])
    tf_int = med.get(TF_INTERLEAVED, TF_DATA_INTERLEAVED)
    rows.append(_ratio("TFRecordDataset interleave 16 vs tf.data", med[INTERLEAVED], tf_int, None,
                       "measured now" if TF_INTERLEAVED in med else "0.45 M/s quoted in issue 8"))
    if PROTOBUF in med:
        rows.append(_ratio("Example decode vs protobuf library",
                           med["ours: Example batch decode (3 features)"], med[PROTOBUF], None,
                           "measured now"))
    return rows


def _ratio(label: str, ours: float, peer: float, target: float | None, source: str) -> list[str]:
    """One row of the targets table (``target`` None: no target, no verdict)."""
    if target is None:
        return [label, f"{ours / peer:.1f}x", "-", "-", source]
    return [label, f"{ours / peer:.1f}x", f">= {target:g}x", C.verdict(ours / peer, target),
            source]


def _importable(name: str) -> bool:
    """Whether module ``name`` can be imported (without importing it)."""
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


if __name__ == "__main__":
    sys.exit(main())
