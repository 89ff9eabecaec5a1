"""The record index grown as a TFRecord file is read (formats/tfrecord/framing.py):
a first pass in order reads every byte once, frames and checks as it goes, and
gives the same records, errors, index and content digest as a file indexed
first."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from minibatcher.errors import ErrorBudgetExceeded, FormatError
from minibatcher.formats import guarded_file
from minibatcher.formats.tfrecord import TFRecordFile, TFRecordWriter, framing, reference
from minibatcher.tfdata import TFRecordDataset
from minibatcher.tfdata.errors import DataLossError
from minibatcher.tfdata.block import block_execution


def write(path: Path, recs: list[bytes]) -> Path:
    with TFRecordWriter(path) as w:
        w.write_many(recs)
    return path


def sized(sizes: list[int], seed: int = 0) -> list[bytes]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in sizes]


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Bytes of every ``pread`` from now on."""
    real, sizes = guarded_file._pread_into, []

    def counting(fd, view, offset):
        got = real(fd, view, offset)
        sizes.append(got)
        return got

    monkeypatch.setattr(guarded_file, "_pread_into", counting)
    return sizes


@pytest.mark.parametrize("batch", [None, 700])
def test_a_first_pass_reads_every_byte_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            batch: int | None) -> None:
    # the file used to be read twice: by the index pass, then by the reads
    recs = sized([800] * 6000)
    path = write(tmp_path / "r", recs)
    size = path.stat().st_size
    reads = count_reads(monkeypatch)
    ds = TFRecordDataset(str(path))
    got = list(ds) if batch is None else [r for b in ds.batch(batch) for r in b.tolist()]
    assert got == recs
    # a partial frame at a chunk's end is read again with the next chunk, and the record
    # size is guessed from the first 4 KiB before anything is framed
    assert sum(reads) <= size + framing.PROBE_BYTES + 816 * (size // framing.CHUNK_BYTES + 1)


def test_reads_frame_only_as_far_as_they_go(tmp_path: Path) -> None:
    recs = sized([800] * 6000)
    ds = TFRecordDataset(str(write(tmp_path / "r", recs)))
    it = iter(ds)
    assert [next(it) for _ in range(10)] == recs[:10]
    f = ds.files.open(str(tmp_path / "r"))
    assert 10 <= f.framed < len(recs) // 2  # a chunk or two framed, not the whole file
    assert len(f) == len(recs) and f.framed == len(recs)  # len frames the rest
    assert list(it) == recs[10:]


@pytest.mark.parametrize("blocks", [True, False])
def test_records_larger_than_a_chunk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     blocks: bool) -> None:
    monkeypatch.setattr(framing, "CHUNK_BYTES", 64)  # most records span a chunk
    rng = np.random.default_rng(1)
    recs = sized(rng.integers(0, 300, 200).tolist(), seed=1)
    path = write(tmp_path / "r", recs)
    with block_execution(blocks):
        assert list(TFRecordDataset(str(path))) == recs
        assert [r for b in TFRecordDataset(str(path)).batch(7) for r in b.tolist()] == recs
    f = TFRecordFile(path)
    pick = rng.permutation(len(recs))[:50]
    assert f.read_at(np.arange(5, 60)).records() == recs[5:60]  # framed in order as it goes
    assert f.read_at(pick).records() == [recs[i] for i in pick]
    assert f.read_at(np.arange(0, 200)).records() == recs     # indexed: read in order again
    assert f.frames.tolist() == np.cumsum([0] + [len(r) + 16 for r in recs[:-1]]).tolist()


@pytest.mark.parametrize("chunk", [64, framing.CHUNK_BYTES])
def test_damage_found_while_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    chunk: int) -> None:
    monkeypatch.setattr(framing, "CHUNK_BYTES", chunk)
    recs = sized([100] * 30)
    path = write(tmp_path / "r", recs)
    data = bytearray(path.read_bytes())
    data[116 * 20 + 12 + 5] ^= 1  # record 20's data: its CRC does not match
    (tmp_path / "crc").write_bytes(bytes(data))
    got = []
    with pytest.raises(ErrorBudgetExceeded, match=r"corrupted record 20 at byte 2320: its data "
                                                  r"CRC does not match"):
        for r in TFRecordDataset(str(tmp_path / "crc")):
            got.append(r)
    assert got == recs[:20]
    # a bad length CRC in the middle, a huge length at the end: the records before it,
    # then TF's DataLossError (the file layer stays strict)
    data = bytearray(path.read_bytes())
    data[116 * 12 + 8] ^= 1
    (tmp_path / "len").write_bytes(bytes(data))
    huge = bytearray(path.read_bytes()[:116 * 25])
    huge += reference.frame_many(b"x" * 5000, [5000])[:200]
    (tmp_path / "cut").write_bytes(bytes(huge))
    for name, kept, message in (("len", 12, "corrupted record at byte 1392: the CRC of its "
                                            "length field does not match"),
                                ("cut", 25, "truncated record (25 )?at byte 2900: (its length "
                                            "field says 5000 data bytes, but )?the file ends "
                                            "200 bytes into")):
        it = iter(TFRecordDataset(str(tmp_path / name)))
        assert [next(it) for _ in range(kept)] == recs[:kept]
        with pytest.raises(DataLossError, match=message):
            next(it)
        with pytest.raises(FormatError, match=message):
            len(TFRecordFile(tmp_path / name))


def test_the_content_digest_does_not_depend_on_how_the_file_was_framed(tmp_path: Path) -> None:
    recs = sized([900] * 3000)
    path = write(tmp_path / "r", recs)
    data = path.read_bytes()
    frames = np.cumsum([0] + [len(r) + 16 for r in recs[:-1]])
    lengths = np.array([len(r) for r in recs])
    expected = hashlib.blake2b(reference.digest_rows(data, frames, lengths),
                               digest_size=16).hexdigest()
    assert TFRecordFile(path).content_digest == expected  # framed whole at once
    ds = TFRecordDataset(str(path))
    it = iter(ds)
    _ = [next(it) for _ in range(100)]
    state = it.get_state()  # mid-first-pass: frames the rest of the file
    assert ds.files.open(str(path)).content_digest == expected
    rest = list(it)
    again = iter(TFRecordDataset(str(path)))
    again.set_state(state)
    assert list(again) == rest == recs[100:]


def test_the_pool_never_hands_out_a_buffer_in_use() -> None:
    pool = framing.BufferPool(32, keep=4)
    view = pool.take()[:8]  # a view keeps its buffer in use (NumPy views refer to their base)
    others = [pool.take() for _ in range(3)]
    assert all(o is not view.base for o in others)
    del others
    assert all(pool.take() is not view.base for _ in range(5))  # the free ones, again
    in_use = id(view.base)
    del view
    assert id(pool.take()) == in_use  # free now: the first one is handed out again


@pytest.mark.parametrize("blocks", [True, False])
def test_states_and_resumes_are_those_of_files_indexed_first(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             blocks: bool) -> None:
    from tests.tfdata.resume import assert_resumes_exactly

    monkeypatch.setattr(framing, "CHUNK_BYTES", 256)
    rng = np.random.default_rng(2)
    files = [str(write(tmp_path / f"s{k}", sized(rng.integers(0, 120, n).tolist(), seed=k)))
             for k, n in enumerate([40, 0, 25])]
    pipelines = [lambda ds: ds, lambda ds: ds.batch(3)]
    with block_execution(blocks):
        for parallel in (None, 2):
            for pipeline in pipelines:
                def make(measure: bool = False) -> Any:
                    ds = TFRecordDataset(files, num_parallel_reads=parallel)
                    for source in ds.sources if measure else []:
                        len(source)  # indexed before anything is read
                    return pipeline(ds)
                for k in (0, 1, 5, 17, 40, 66):  # a state taken mid-first-pass, after k elements
                    a, b = iter(make()), iter(make(measure=True))
                    for _ in range(k):
                        x, y = next(a, None), next(b, None)
                        assert np.asarray(x, object).tolist() == np.asarray(y, object).tolist()
                    assert a.get_state() == b.get_state()
                    assert [np.asarray(x, object).tolist() for x in a] == \
                        [np.asarray(y, object).tolist() for y in b]
                assert assert_resumes_exactly(make) > 0


def test_a_file_read_in_order_is_closed_when_dropped(tmp_path: Path) -> None:
    # the index refers to its file weakly: no reference cycle keeps descriptors open until
    # the cyclic garbage collector runs (a dataset of many files ran out of descriptors)
    import gc
    import os

    path = write(tmp_path / "r", sized([50] * 100))
    before = len(os.listdir("/proc/self/fd"))
    gc.disable()
    try:
        for _ in range(20):
            f = TFRecordFile(path)
            assert f.read_at(np.arange(3, 9)).records() == sized([50] * 100)[3:9]
            del f
        assert len(os.listdir("/proc/self/fd")) == before
    finally:
        gc.enable()


@pytest.mark.parametrize("parallel", [None, 2])
@pytest.mark.parametrize("blocks", [False, True])
def test_a_dataset_of_files_is_closed_when_dropped(tmp_path: Path, parallel: int | None,
                                                   blocks: bool) -> None:
    # no reference cycle (a recursive closure over the plan's nodes, an opener bound to the
    # dataset, a pool holding its files) keeps a dropped dataset's descriptors open until
    # the cyclic collector runs: many files in a row ran out of descriptors
    import gc
    import os

    from minibatcher.tfdata.block import block_execution

    files = [str(write(tmp_path / f"s{k}", sized([30] * 40, seed=k))) for k in range(3)]
    before = len(os.listdir("/proc/self/fd"))
    gc.disable()
    try:
        with block_execution(blocks):
            for pipeline in (lambda ds: ds, lambda ds: ds.batch(3)):
                it = iter(pipeline(TFRecordDataset(files, num_parallel_reads=parallel)))
                next(it)
                again = iter(pipeline(TFRecordDataset(files, num_parallel_reads=parallel)))
                again.set_state(it.get_state())
                assert len(list(again)) > 0
                del it, again
                assert len(os.listdir("/proc/self/fd")) == before
    finally:
        gc.enable()


def test_an_interleave_frames_its_files_as_far_as_it_reads_them(tmp_path: Path) -> None:
    # the interleave's order needed every open file's length: each file was framed whole
    # when its slot opened, then read again
    recs = [sized([800] * 3000, seed=k) for k in range(3)]
    files = [str(write(tmp_path / f"s{k}", r)) for k, r in enumerate(recs)]
    ds = TFRecordDataset(files, num_parallel_reads=2)
    it = iter(ds.batch(50))
    first = [r for _ in range(4) for r in next(it).tolist()]
    assert first == [r for pair in zip(recs[0][:100], recs[1][:100]) for r in pair]
    framed = [ds.files.open(f).framed for f in files[:2]]
    assert all(100 <= n < 3000 for n in framed), framed
    rest = [r for b in it for r in b.tolist()]
    assert sorted(first + rest) == sorted(r for rs in recs for r in rs)
