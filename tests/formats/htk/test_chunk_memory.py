"""HTK chunk arrays come from a reader's pool of mapped blocks (``_native.BufferPool``): a
dropped chunk's pages serve the next chunk (a fresh mapping per chunk, a page fault per 4 KiB,
doubled the CPU of a sweep), and they never go into glibc's heap, where later small blocks
pinned them once its dynamic mmap threshold had risen (benchmarks/htk.py's frame-mode peak RSS
grew past its bound)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from minibatcher import HTKFeatureDeserializer, StreamDef, _native
from minibatcher.formats.htk import write_htk

MIB = 1 << 20


def data_pointer(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_empty_makes_writable_arrays_of_each_dtype(dtype):
    pool = _native.BufferPool(2)
    for count in (3 * MIB, 5, 0):  # mapped, from NumPy's heap (small), empty
        a = pool.empty(count, dtype)
        assert a.dtype == np.dtype(dtype) and a.shape == (count,) and a.flags.writeable
        a[:] = 3
        assert int(a.sum()) == 3 * count


def test_empty_and_the_pool_reject_bad_arguments():
    pool = _native.BufferPool(2)
    with pytest.raises(ValueError, match=r"dtype should be one of 'float32', 'float64', 'int32', "
                                         r"'int64', but got dtype='uint8'"):
        pool.empty(4, "uint8")
    with pytest.raises(ValueError, match=r"count should be in \[0, \d+\] for dtype='int64', but "
                                         r"got count=-1"):
        pool.empty(-1, "int64")
    with pytest.raises(ValueError, match=r"but got count=281474976710656"):
        pool.empty(1 << 48, "int32")
    with pytest.raises(ValueError, match=r"keep should be in \[0, 8\], but got keep=9"):
        _native.BufferPool(9)
    assert _native.BufferPool(8).keep == 8


def test_a_block_given_back_serves_the_next_request_of_about_its_size():
    pool = _native.BufferPool(2)
    a = pool.empty(3 * MIB, "float32")
    a[:], where = 7, data_pointer(a)
    del a
    b = pool.empty(3 * MIB, "float32")  # the same block, as left (a fresh mapping is zeros);
    assert data_pointer(b) == where and (b[2:] == 7).all()  # the pool's size in its first bytes
    del b
    c = pool.empty(3 * MIB + 50_000, "float32")  # a slightly larger chunk fits the headroom
    assert data_pointer(c) == where and (c[2:3 * MIB] == 7).all()


def test_a_much_smaller_request_does_not_take_a_larger_block():
    pool = _native.BufferPool(2)
    big = pool.empty(8 * MIB, "float32")  # 32 MiB
    big[:], where = 7, data_pointer(big)
    del big
    small = pool.empty(MIB, "float32")  # 4 MiB: would pin 28 MiB it does not use
    assert data_pointer(small) != where and not (small == 7).any()
    again = pool.empty(8 * MIB, "float32")  # the big block was unmapped, not kept beside small
    assert not (again == 7).any()


def test_a_full_pool_keeps_the_latest_blocks():
    pool = _native.BufferPool(1)
    a, b = pool.empty(MIB, "int32"), pool.empty(MIB, "int32")
    a[:], b[:], where_b = 1, 2, data_pointer(b)
    del a, b  # b replaces a, which is unmapped
    c, d = pool.empty(MIB, "int32"), pool.empty(MIB, "int32")
    assert data_pointer(c) == where_b and (c[2:] == 2).all()
    assert not (d == 1).any() and not (d == 2).any()  # a fresh mapping: zeros


def test_arrays_outlive_their_pool_and_threads_never_share_a_block():
    pool = _native.BufferPool(2)
    kept = pool.empty(MIB, "int64")
    del pool
    kept[:] = 5  # its pool lives on until this array is dropped
    assert int(kept.sum()) == 5 * MIB
    pool, clashes = _native.BufferPool(3), []

    def work(value: int) -> None:
        for _ in range(100):
            a = pool.empty(MIB // 4 + value * 1000, "float32")
            a[:] = value
            if not (a == value).all():
                clashes.append(value)

    threads = [threading.Thread(target=work, args=(v,)) for v in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert clashes == []


def frames_file(tmp_path, frames: int) -> str:
    write_htk(tmp_path / "a.htk", np.random.default_rng(0).standard_normal((frames, 40)))
    (tmp_path / "a.scp").write_text(f"u0=.../a.htk[0,{frames - 1}]\n")
    return str(tmp_path / "a.scp")


def test_every_reader_reuses_its_own_chunk_blocks(tmp_path):
    streams = {"x": StreamDef(scp=frames_file(tmp_path, 10_000), shape=40)}  # 1.6 MB chunks
    one, two = HTKFeatureDeserializer(streams), HTKFeatureDeserializer(streams)
    where = data_pointer(one.load_chunk(0).streams[0].values)  # dropped: kept by one's pool
    assert data_pointer(two.load_chunk(0).streams[0].values) != where
    assert data_pointer(one.load_chunk(0).streams[0].values) == where


CHILD = textwrap.dedent("""
    import gc, json, sys
    import numpy as np
    from minibatcher import HTKFeatureDeserializer, StreamDef

    def rss_kib():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))

    big = np.ones(40 << 20, np.uint8); del big  # glibc's mmap threshold rises to its maximum
    start = rss_kib()
    d = HTKFeatureDeserializer({"x": StreamDef(scp=sys.argv[1], shape=40)})
    pins, loaded, dropped = [], [], []
    for _ in range(6):
        chunk = d.load_chunk(0)
        loaded.append(rss_kib())
        pins += [np.ones(64) for _ in range(64)]  # small blocks allocated after the chunk's
        del chunk
        pins.append(np.ones(64))  # and one where the heap would have the chunk's block free
        dropped.append(rss_kib())
    del d
    gc.collect()
    print(json.dumps({"start": start, "loaded": loaded, "dropped": dropped, "end": rss_kib()}))
""")


def test_loading_and_dropping_chunks_does_not_grow_memory(tmp_path):
    """Load, pin small blocks, drop, six times (a 9.6 MB chunk) in a fresh process: after the
    first load RSS stays put; dropping the reader gives the chunk's pages back."""
    done = subprocess.run([sys.executable, "-c", CHILD, frames_file(tmp_path, 60_000)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    kib = json.loads(done.stdout)
    assert kib["loaded"][0] - kib["start"] >= 9 << 10, kib  # the chunk was resident
    assert max(kib["loaded"] + kib["dropped"]) - kib["loaded"][0] < 3 << 10, kib
    assert kib["end"] - kib["start"] < 3 << 10, kib
