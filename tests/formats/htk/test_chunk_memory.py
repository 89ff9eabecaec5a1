"""A dropped HTK chunk gives its memory back to the system, also after glibc's dynamic
mmap threshold has risen (benchmarks/htk.py's frame-mode peak RSS grew past its bound:
chunk buffers from NumPy stayed in the heap under later allocations)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np

from minibatcher import _native
from minibatcher.formats.htk import write_htk

CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    from minibatcher import HTKFeatureDeserializer, StreamDef

    def rss_kib():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))

    big = np.ones(40 << 20, np.uint8); del big  # glibc's mmap threshold rises to its maximum
    d = HTKFeatureDeserializer({"x": StreamDef(scp=sys.argv[1], shape=40)})
    grown = []
    for _ in range(3):
        before = rss_kib()
        chunk = d.load_chunk(0)
        pins = [np.ones(64) for _ in range(64)]  # small blocks allocated after the chunk's
        loaded = rss_kib()
        del chunk
        grown.append(rss_kib() - before)
        print(loaded - before, rss_kib() - before, flush=True)
    print("max growth KiB", max(grown))
    sys.exit(0 if max(grown) < 4 << 10 else 1)
""")


def test_a_dropped_chunk_returns_its_memory(tmp_path):
    frames = 60_000  # 9.6 MB of float32 frames, one chunk
    write_htk(tmp_path / "a.htk", np.random.default_rng(0).standard_normal((frames, 40)))
    (tmp_path / "a.scp").write_text(f"u0=a.htk[0,{frames - 1}]\n")
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "a.scp")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mapped_empty_makes_arrays_of_the_dtype():
    a = _native.mapped_empty(3 << 20, "float32")
    assert a.dtype == np.float32 and a.shape == (3 << 20,) and a.flags.writeable
    a[:] = 1
    assert float(a.sum()) == 3 << 20
    assert _native.mapped_empty(0, "int64").shape == (0,)
