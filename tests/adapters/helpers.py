"""Shared helpers of the adapter tests: a small CTF data set whose every sample
names its sequence, picklable source factories, and stream snapshots."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Callable

import numpy as np

from minibatcher import CTFDeserializer, MinibatchSource, StreamDef


def write_ctf(path: Path, sequences: int = 300, seed: int = 0, max_len: int = 4,
              sparse: bool = False) -> Path:
    """``sequences`` sequences of 1..max_len rows; stream ``x`` (dim 2) holds
    ``[sequence index, row]`` in every row, ``y`` (sparse, dim 5) one entry."""
    rng = np.random.default_rng(seed)
    lines = []
    for s in range(sequences):
        for row in range(int(rng.integers(1, max_len + 1))):
            y = f" |y {(s + row) % 5}:{row + 1}" if sparse else ""
            lines.append(f"{s} |x {s} {row}{y}\n")
    path.write_text("".join(lines))
    return path


def open_ctf(path: str, sparse: bool = False, chunk: int = 1 << 10, **options: Any) -> MinibatchSource:
    """A source over a file of :func:`write_ctf` (small chunks: many of them)."""
    streams = {"x": StreamDef(shape=2)}
    if sparse:
        streams["y"] = StreamDef(shape=5, is_sparse=True)
    options.setdefault("randomization_window_in_chunks", 4)
    return MinibatchSource(CTFDeserializer(path, streams, chunk_size_in_bytes=chunk), **options)


def factory(path: Path, **options: Any) -> Callable[[], MinibatchSource]:
    """A picklable zero-argument ``make_source``."""
    return functools.partial(open_ctf, str(path), **options)


def batch_key(batch: dict) -> tuple:
    """A comparable snapshot of a tensor minibatch: per stream its bytes (dense)
    or its CSR arrays (sparse)."""
    out = []
    for name in sorted(batch):
        t = batch[name]
        if isinstance(t, tuple):
            out.append((name, tuple(x.numpy().tobytes() for x in t)))
        elif t.layout != __import__("torch").strided:
            out.append((name, t.crow_indices().numpy().tobytes(), t.col_indices().numpy().tobytes(),
                        t.values().numpy().tobytes()))
        else:
            out.append((name, t.numpy().tobytes()))
    return tuple(out)


def sequence_rows(batch: dict) -> list[tuple[int, int]]:
    """``(sequence, row)`` of every sample of a tensor minibatch (stream ``x``)."""
    return [(int(a), int(b)) for a, b in batch["x"].tolist()]
