"""tf.data pipelines at native speed (issue 14): minibatcher.tfdata against
TensorFlow 2.21's tf.data, the PyPI ``tfrecord`` package and TFDS with TF, side
by side in one run, on 60,000 MNIST-like ``tf.train.Example`` s (784 raw bytes
+ an int64 label) in 16 shards written by TensorFlow.

TensorFlow runs from its own interpreter (``--tf-python``, default
``/work/tfvenv/bin/python``) in a fresh process per measurement
(``_tfdata_tf.py``); without it the data is written by minibatcher and every
TensorFlow row says "not measured"; a peer package that is not installed
(``tfrecord``, ``torch``) gives "not measured" rows too. Contenders alternate
over --rounds (every contender but TensorFlow's, which times itself in its own
process, repeats its pass for at least half a second per round); the tables show
medians of examples (or records, images) per second to NumPy. Every contender's imports happen before the timings (as
TensorFlow's are outside its own). The ``map`` rows time a pass over a dataset
built once and read once before (its worker threads or processes started), as
a training loop reads the same dataset every epoch; every other row builds its
dataset inside the timing.

    python benchmarks/tfdata.py            # 60,000 examples, 4,000 JPEGs, 3 rounds
    python benchmarks/tfdata.py --quick    # 6,000 examples, 500 JPEGs, 1 round
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import _common as C
import _tfdata_ours as ours
from _tfdata_table import target_rows, throughput_rows

SHARDS = 16
TF_SCRIPT = C.HERE / "_tfdata_tf.py"


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line; ``--quick`` sets small defaults."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="6,000 examples, 1 round")
    p.add_argument("--examples", type=int, default=None, help="MNIST-like examples (60,000)")
    p.add_argument("--jpegs", type=int, default=None, help="JPEGs for the map rows (4,000)")
    p.add_argument("--rounds", type=int, default=None, help="alternating rounds (3)")
    p.add_argument("--data-dir", type=Path, default=C.HERE / "data")
    p.add_argument("--tf-python", default=os.environ.get("MINIBATCHER_TF_PYTHON",
                                                         "/work/tfvenv/bin/python"))
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    args.examples = args.examples or (6_000 if args.quick else 60_000)
    args.jpegs = args.jpegs or (500 if args.quick else 4_000)
    args.rounds = args.rounds or (1 if args.quick else 3)
    if not (os.path.exists(args.tf_python) and _tf_works(args.tf_python)):
        args.tf_python = None
    return args


def _tf_works(python: str) -> bool:
    proc = subprocess.run([python, "-c", "import tensorflow, tensorflow_datasets"],
                          capture_output=True, env=_tf_env())
    return proc.returncode == 0


def _tf_env() -> dict[str, str]:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("PYTHONPATH", None)
    return env


def tf_task(python: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Runs one task of ``_tfdata_tf.py`` under TensorFlow's interpreter."""
    proc = subprocess.run([python, str(TF_SCRIPT), json.dumps(spec)], capture_output=True,
                          text=True, env=_tf_env())
    if proc.returncode != 0:
        raise RuntimeError(f"TensorFlow task {spec['task']} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def ensure_data(args: argparse.Namespace) -> tuple[list[str], str | None, str]:
    """The 16 shards (by TF when at hand), the TFDS folder (by TFDS) and a
    note on who wrote them; cached under --data-dir."""
    writer = "TensorFlow" if args.tf_python else "minibatcher"
    folder = args.data_dir / f"tfdata-v1-{args.examples}-{args.seed}-{writer}"
    paths = [str(folder / f"mnist_like.tfrecord-{i:05d}-of-{SHARDS:05d}") for i in range(SHARDS)]
    if not all(os.path.exists(p) for p in paths):
        folder.mkdir(parents=True, exist_ok=True)
        spec = {"task": "shards", "paths": paths, "count": args.examples, "seed": args.seed}
        if args.tf_python:
            tf_task(args.tf_python, spec)
        else:
            _write_shards_ourselves(spec)
    tfds_dir = None
    if args.tf_python:
        root = folder / "tfds"
        tfds_dir = str(root / "mnist_like" / "1.0.0")
        if not os.path.exists(os.path.join(tfds_dir, "features.json")):
            tf_task(args.tf_python, {"task": "tfds", "root": str(root), "count": args.examples,
                                     "seed": args.seed})
    return paths, tfds_dir, f"shards written by {writer}"


def _write_shards_ourselves(spec: dict[str, Any]) -> None:
    import numpy as np

    from _tfdata_tf import mnist_like
    from minibatcher.formats.tfrecord import TFRecordWriter, encode_example

    images, labels = mnist_like(spec["count"], spec["seed"])
    for k, path in enumerate(spec["paths"]):
        with TFRecordWriter(path) as w:
            w.write_many(encode_example({"image": [images[i].tobytes()],
                                         "label": np.array([labels[i]])})
                         for i in range(k, spec["count"], len(spec["paths"])))


# -- contenders: name -> (function returning (items, seconds or None), unit) ----------------------

def contenders(args: argparse.Namespace, paths: list[str], tfds_dir: str | None, jpegs: str
               ) -> dict[str, Callable[[], tuple[int, float | None]]]:
    """Every measurement of this run, by name (TF and peers only when installed)."""
    firsts: dict[str, Any] = {}
    args.firsts = firsts

    def records(vectorized: bool, key: str) -> tuple[int, None]:
        n, firsts[key] = ours.run_records(paths, vectorized)
        return n, None

    runs: dict[str, Callable[[], tuple[int, float | None]]] = {
        "ours: pipeline": lambda: records(False, "ours: pipeline"),
        "ours: vectorized": lambda: records(True, "ours: vectorized"),
        "ours: records": lambda: (_count(_ours_records(paths)), None),
        "ours: batch(4096)": lambda: (sum(len(b) for b in _ours_batches(paths)), None),
    }
    cpus = len(os.sched_getaffinity(0))
    for n in [1] + [n for n in (2, 4, 8, 16) if n <= cpus]:
        for executor in ("threads", "processes") if n > 1 else ("threads",):
            runs[f"ours: map npc={n} {executor}"] = _warm_jpegs(jpegs, n, executor)
    if importlib.util.find_spec("torch") is not None:
        for n in [0] + [n for n in (2, 4, 8, 16) if n <= cpus]:
            runs[f"ours: PipelineDataset {n} workers"] = \
                lambda n=n: ours.run_loader(jpegs, n)
    if C.peer_module("tfrecord.reader") is not None:
        runs["tfrecord package"] = lambda: (_count(_peer_records(paths)), None)
    if args.tf_python:
        runs["ours: tfds"] = lambda: (ours.run_tfds(tfds_dir), None)
        for kind in ("pipeline", "vectorized", "tfds"):
            runs[f"tf.data: {kind}"] = _tf_run(args, kind, paths, tfds_dir, firsts)
    return runs


def _tf_run(args: argparse.Namespace, kind: str, paths: list[str], tfds_dir: str | None,
            firsts: dict[str, Any]) -> Callable[[], tuple[int, float | None]]:
    def run() -> tuple[int, float | None]:
        r = tf_task(args.tf_python, {"task": "time", "kind": kind, "paths": paths,
                                     "folder": tfds_dir})
        firsts[f"tf.data: {kind}"] = r["first"]
        return r["examples"], r["seconds"]
    return run


def _warm_jpegs(path: str, parallel: int, executor: str
                ) -> Callable[[], tuple[int, float | None]]:
    """A pass over one JPEG pipeline, built once and read once untimed here (its
    workers started), as a training loop reads the same dataset every epoch."""
    ds = ours.jpeg_pipeline(path, parallel, executor)
    ours.count_images(ds)
    return lambda: (ours.count_images(ds), None)


def _ours_records(paths: list[str]) -> Any:
    from minibatcher import tfdata

    return iter(tfdata.TFRecordDataset(paths))


def _ours_batches(paths: list[str]) -> Any:
    from minibatcher import tfdata

    return iter(tfdata.TFRecordDataset(paths).batch(4096))


def _peer_records(paths: list[str]) -> Any:
    reader = C.peer_module("tfrecord.reader")
    for p in paths:
        yield from reader.tfrecord_iterator(p)


def _count(iterator: Any) -> int:
    n = 0
    for _ in iterator:
        n += 1
    return n


MIN_SECONDS = 0.5  # a contender timed here repeats its pass for at least this long per round


def measure(runs: dict[str, Callable[[], tuple[int, float | None]]], rounds: int
            ) -> dict[str, float]:
    """Median rate (items/s) of each contender over ``rounds`` alternating
    rounds. A contender timed here repeats its pass until ``MIN_SECONDS`` have
    passed (a pass over 60,000 records takes tens of milliseconds: one
    scheduling hiccup of a shared machine would be its whole figure); one
    that times itself (TensorFlow's, in its own process) runs once."""
    rates: dict[str, list[float]] = {k: [] for k in runs}
    for _ in C.rounds_of(rounds):
        for name, fn in runs.items():
            items, t0 = 0, time.perf_counter()
            while True:
                n, seconds = fn()
                items += n
                if seconds is not None or time.perf_counter() - t0 >= MIN_SECONDS:
                    break
            seconds = time.perf_counter() - t0 if seconds is None else seconds
            rates[name].append(items / seconds if seconds > 0 else -1.0)
    return {k: C.median(v) for k, v in rates.items()}


def main(argv: list[str] | None = None) -> int:
    """Generates (or reuses) the data, measures, prints the tables."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    paths, tfds_dir, note = ensure_data(args)
    jpegs = str(ours.ensure_jpegs(args.data_dir, args.jpegs, args.seed))
    C.warm_page_cache(*map(Path, paths), Path(jpegs))
    ours.warm_imports()
    load = C.LoadMonitor()
    med = measure(contenders(args, paths, tfds_dir, jpegs), args.rounds)
    print(f"\n{C.code_version()}; {args.examples} MNIST-like examples in {SHARDS} {note}; "
          f"{args.jpegs} 64x64 JPEGs; {len(os.sched_getaffinity(0))} CPUs; median of "
          f"{args.rounds} rounds")
    C.print_table(["contender", "rate"], throughput_rows(med), "Throughput")
    C.print_table(["row", "value", "peer", "ratio", "target", "status"],
                  target_rows(med, args), "Issue 14: done when")
    print(f"\n{load.describe()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
