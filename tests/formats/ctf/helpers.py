"""Small helpers shared by the CTF tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from minibatcher import CTFDeserializer, StreamDef


def deserializer(path: Path, streams: dict[str, StreamDef] | None = None, **kw) -> CTFDeserializer:
    """A deserializer with a single dense stream ``a`` (dim 1) unless told otherwise."""
    kw.setdefault("trace_level", 0)
    return CTFDeserializer(str(path), streams or {"a": StreamDef(shape=1)}, **kw)


def read_all(d: CTFDeserializer) -> list[list[np.ndarray]]:
    """Per stream, the list of per-sequence sample arrays (sparse: dense rows)."""
    out: list[list[np.ndarray]] = [[] for _ in d.streams]
    table = d.table()
    for c in range(table.num_chunks):
        chunk = d.load_chunk(c)
        for k, (s, info) in enumerate(zip(chunk.streams, d.streams)):
            for i in range(s.num_sequences):
                rows = s.sequence_slice(i)
                if s.is_sparse:
                    dense = np.zeros((rows.stop - rows.start, info.dim), dtype=s.values.dtype)
                    for r in range(rows.start, rows.stop):
                        lo, hi = s.indptr[r], s.indptr[r + 1]
                        np.add.at(dense[r - rows.start], s.indices[lo:hi], s.values[lo:hi])
                    out[k].append(dense)
                else:
                    out[k].append(s.values[rows])
    return out


def values(d: CTFDeserializer, stream: int = 0) -> list[list[float]]:
    """Flattened values per sequence of one stream."""
    return [seq.ravel().tolist() for seq in read_all(d)[stream]]


def run_python(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs ``code`` in a fresh interpreter (for reproducers that used to kill
    the process with SIGBUS or hang): a crash fails the test, never the run."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout)
