"""The tables of ``benchmarks/tfdata.py``: throughput per contender and issue 14's
"done when" rows (value, peer, ratio, target, status).
"""

from __future__ import annotations

import os
from typing import Any

import _common as C

# The executor docs/design/tfdata-blocks.md recommends for a Pillow decode of small
# images (its Python holds the GIL): the target rows measure it; the other executor's row
# is for comparison.
JPEG_EXECUTOR = "processes"
OTHER_EXECUTOR = "processes" if JPEG_EXECUTOR == "threads" else "threads"

# (row label, ours, peer, target ratio or None, what is missing when a contender is absent)
TARGETS = [
    ("pipeline: shuffle, map(parse_single_example), map(decode_raw), batch(256) vs tf.data",
     "ours: pipeline", "tf.data: pipeline", 8.0, "TF"),
    ("vectorized: batch(256).map(parse_example) vs tf.data",
     "ours: vectorized", "tf.data: vectorized", 5.0, "TF"),
    ("TFRecordDataset record by record vs tfrecord package",
     "ours: records", "tfrecord package", 3.0, "peer"),
    ("TFRecordDataset.batch(4096) vs tfrecord package",
     "ours: batch(4096)", "tfrecord package", 6.0, "peer"),
    ("TFDS as_dataset(shuffle_files).shuffle(10k).batch(128) vs TFDS with TF",
     "ours: tfds", "tf.data: tfds", 3.0, "TF"),
    (f"Pillow map num_parallel_calls=2 vs 1 (executor={JPEG_EXECUTOR!r})",
     f"ours: map npc=2 {JPEG_EXECUTOR}", "ours: map npc=1 threads", 1.7, ""),
    (f"Pillow map num_parallel_calls=2 vs 1 (executor={OTHER_EXECUTOR!r})",
     f"ours: map npc=2 {OTHER_EXECUTOR}", "ours: map npc=1 threads", None, ""),
    ("PipelineDataset(num_workers=2) vs 0", "ours: PipelineDataset 2 workers",
     "ours: PipelineDataset 0 workers", 1.7, "torch"),
]
SCALING = [("Pillow map num_parallel_calls={n} vs 1", f"ours: map npc={{n}} {JPEG_EXECUTOR}",
            "ours: map npc=1 threads", ""),
           ("PipelineDataset(num_workers={n}) vs 0", "ours: PipelineDataset {n} workers",
            "ours: PipelineDataset 0 workers", "torch")]
ABSENT = {"TF": "not measured (TensorFlow absent)", "peer": "not measured (tfrecord absent)",
          "torch": "not measured (torch absent)", "": "not measured (not available)"}


def rate(value: float) -> str:
    """Items per second, in k/s or M/s."""
    if value < 0:
        return "-"
    return f"{value / 1e6:.2f} M/s" if value >= 1e6 else f"{value / 1e3:.1f} k/s"


def throughput_rows(med: dict[str, float]) -> list[list[str]]:
    """One row per contender measured."""
    return [[name, rate(value) if value >= 0 else "not available"] for name, value in med.items()]


def target_rows(med: dict[str, float], args: Any) -> list[list[str]]:
    """Issue 14's rows; a peer that is absent gives "not measured"."""
    rows = [_row(med, *t) for t in TARGETS]
    cpus = len(os.sched_getaffinity(0))
    for n in (4, 8, 16):
        for label, mine, peer, missing in SCALING:
            if cpus < n:
                rows.append([label.format(n=n), "-", "-", "-", f">= {0.8 * n:.1f}x",
                             f"not measured ({cpus} CPUs)"])
            else:
                rows.append(_row(med, label.format(n=n), mine.format(n=n), peer, 0.8 * n,
                                 missing))
    rows.append(["first batch in tf.data's order (pipeline, vectorized)", _same(args, "pipeline"),
                 _same(args, "vectorized"), "-", "same", "-"])
    return rows


def _row(med: dict[str, float], label: str, mine: str, peer: str, target: float | None,
         missing: str) -> list[str]:
    goal = "-" if target is None else f">= {target:g}x"
    if med.get(mine, -1) < 0 or med.get(peer, -1) < 0:
        return [label, rate(med.get(mine, -1)), rate(med.get(peer, -1)), "-", goal,
                ABSENT[missing]]
    ratio = med[mine] / med[peer]
    return [label, rate(med[mine]), rate(med[peer]), f"{ratio:.2f}x", goal,
            "(for comparison)" if target is None else C.verdict(ratio, target)]


def _same(args: Any, kind: str) -> str:
    firsts = getattr(args, "firsts", {})
    theirs, mine = firsts.get(f"tf.data: {kind}"), firsts.get(f"ours: {kind}")
    if theirs is None or mine is None:
        return "not compared"
    return "same" if theirs == mine else "DIFFERENT"
