"""TFRecord framing: TensorFlow's check vectors, round trips, compression,
random access, and every kind of bad input (both implementations)."""

from __future__ import annotations

import gzip
import os
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from minibatcher.errors import (ConfigError, ErrorBudgetExceeded, FileChangedError, FormatError,
                                NotARegularFileError)
from minibatcher.formats.tfrecord import (TFRecordFile, TFRecordWriter, crc32c, mask,
                                          masked_crc32c, unmask)
from minibatcher.formats.tfrecord import reference
from minibatcher import _native

HELLO_FRAME = bytes.fromhex("0500000000000000" "eab2043e" "68656c6c6f" "bb1f1c19")


def records(n: int, seed: int = 0) -> list[bytes]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, int(rng.integers(0, 300)), dtype=np.uint8).tobytes()
            for _ in range(n)]


def write(path: Path, recs: list[bytes], compression: str | None = None, impl: str = "native"):
    with TFRecordWriter(path, compression, impl=impl) as w:
        for r in recs:
            w.write(r)
    return path


def test_crc_check_vectors() -> None:
    # The values quoted in the spec (confirmed against tf.io.TFRecordWriter).
    assert crc32c(b"123456789") == 0xE3069283
    assert masked_crc32c(b"123456789") == 0xC78AB0E5
    assert masked_crc32c(b"") == 0xA282EAD8
    assert unmask(mask(0xDEADBEEF)) == 0xDEADBEEF


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 63, 64, 65, 1000, 4097])
def test_hardware_and_portable_crc_agree(n: int) -> None:
    data = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8).tobytes()
    import google_crc32c

    expected = google_crc32c.value(data)
    assert _native.crc32c(data) == expected
    assert _native.crc32c(data, portable=True) == expected
    assert crc32c(data[n // 2:], crc32c(data[:n // 2])) == expected


@pytest.mark.parametrize("impl", ["python", "native"])
def test_frame_matches_tensorflow_bytes(tmp_path: Path, impl: str) -> None:
    assert write(tmp_path / "h", [b"hello"], impl=impl).read_bytes() == HELLO_FRAME
    empty = write(tmp_path / "e", [b""], impl=impl).read_bytes()
    header = bytes(8) + struct.pack("<I", masked_crc32c(bytes(8)))
    assert empty == header + bytes.fromhex("d8ea82a2")


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_round_trip(tmp_path: Path, impl: str, compression: str | None) -> None:
    recs = records(300)
    f = TFRecordFile(write(tmp_path / "r", recs, compression), compression, impl=impl)
    assert list(f) == recs
    assert len(f) == 300
    batches = list(f.batches(batch_records=64))
    assert [bytes(r) for b in batches for r in b] == recs
    assert np.concatenate([b.positions for b in batches]).tolist() == list(range(300))
    assert [bytes(r) for r in f.read(290, 5)] == recs[290:295]
    assert f.record(123) == recs[123]
    assert list(f.iter_records(298)) == recs[298:]
    assert list(f.iter_records(300)) == []


def test_compressed_files_are_real_gzip_and_zlib(tmp_path: Path) -> None:
    recs = records(20)
    plain = write(tmp_path / "p", recs).read_bytes()
    assert gzip.decompress(write(tmp_path / "g", recs, "GZIP").read_bytes()) == plain
    assert zlib.decompress(write(tmp_path / "z", recs, "ZLIB").read_bytes()) == plain
    (tmp_path / "g2").write_bytes(gzip.compress(plain))  # written by another tool
    assert list(TFRecordFile(tmp_path / "g2", "GZIP")) == recs


def test_batches_cross_the_read_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from minibatcher.formats.tfrecord import streams

    monkeypatch.setattr(streams, "BLOCK", 100)  # frames span many windows
    recs = records(50)
    for compression in (None, "GZIP"):
        f = TFRecordFile(write(tmp_path / f"w{compression}", recs, compression), compression)
        assert list(f) == recs
        assert f.frames.tolist() == np.cumsum([0] + [len(r) + 16 for r in recs[:-1]]).tolist()
        assert [bytes(r) for r in f.read(10, 30)] == recs[10:40]


def test_batch_limits(tmp_path: Path, impl: str) -> None:
    f = TFRecordFile(write(tmp_path / "r", [b"x" * 10] * 10), impl=impl)
    assert [len(b) for b in f.batches(batch_records=4)] == [4, 4, 2]
    assert [len(b) for b in f.batches(batch_bytes=25)] == [3, 3, 3, 1]
    assert [len(b) for b in f.batches(2, 5, batch_records=3)] == [3, 2]


def _corrupt(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def test_data_crc_mismatch_names_file_offset_and_record(tmp_path: Path, impl: str) -> None:
    recs = [b"a" * 10, b"b" * 10, b"c" * 10]
    path = write(tmp_path / "r", recs)
    _corrupt(path, 26 + 12 + 3)  # inside record 1's data
    f = TFRecordFile(path, impl=impl)
    got = []
    with pytest.raises(FormatError, match=r"r: corrupted record 1 at byte 26: its data CRC"):
        for r in f:
            got.append(r)
    assert got == [recs[0]]  # the records before it are delivered, as tf.data does
    assert list(TFRecordFile(path, verify_crc=False, impl=impl))[1] == b"b" * 3 + b"c" + b"b" * 6


def test_skip_and_count(tmp_path: Path, impl: str) -> None:
    recs = [bytes([i]) * 10 for i in range(6)]
    path = write(tmp_path / "r", recs)
    _corrupt(path, 26 * 1 + 12)
    _corrupt(path, 26 * 4 + 12)
    f = TFRecordFile(path, max_errors=2, impl=impl)
    assert list(f) == [recs[i] for i in (0, 2, 3, 5)]
    assert f.skipped == 2
    assert f.read().positions.tolist() == [0, 2, 3, 5]  # positions do not shift
    assert f.skipped == 2  # the same records are not charged twice
    with pytest.raises(ErrorBudgetExceeded, match="max_errors=1"):
        list(TFRecordFile(path, max_errors=1, impl=impl))
    with pytest.raises(FormatError, match="record 4 at byte 104"):
        TFRecordFile(path, max_errors=2, impl=impl).record(4)


def test_length_crc_mismatch_is_fatal(tmp_path: Path, impl: str) -> None:
    path = write(tmp_path / "r", [b"abc", b"def"])
    _corrupt(path, 19 + 2)  # record 1's length field
    with pytest.raises(FormatError, match=r"corrupted record at byte 19: the CRC of its length"):
        list(TFRecordFile(path, max_errors=5, impl=impl))


@pytest.mark.parametrize("cut", [1, 11, 12, 15, 18])
def test_truncated_record(tmp_path: Path, impl: str, cut: int) -> None:
    path = tmp_path / "r"
    path.write_bytes(HELLO_FRAME + HELLO_FRAME[:cut])
    message = rf"truncated record at byte 21: the file ends {cut} bytes"
    with pytest.raises(FormatError, match=message):
        list(TFRecordFile(path, impl=impl))
    with pytest.raises(FormatError, match="truncated"):
        len(TFRecordFile(path, impl=impl))


def test_truncated_gzip_stream(tmp_path: Path) -> None:
    data = write(tmp_path / "g", records(50), "GZIP").read_bytes()
    (tmp_path / "t").write_bytes(data[: len(data) // 2])
    with pytest.raises(FormatError, match="truncated GZIP stream|truncated record"):
        list(TFRecordFile(tmp_path / "t", "GZIP"))
    (tmp_path / "n").write_bytes(b"not gzip at all")
    with pytest.raises(FormatError, match="corrupt GZIP data"):
        list(TFRecordFile(tmp_path / "n", "GZIP"))


def test_file_changed_underneath(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from minibatcher.formats.tfrecord import streams

    monkeypatch.setattr(streams, "BLOCK", 64)
    path = write(tmp_path / "r", records(40))
    it = TFRecordFile(path).batches(batch_bytes=64)
    next(it)
    with open(path, "ab") as f:  # appended while reading
        f.write(HELLO_FRAME)
    os.utime(path, ns=(1, 1))
    with pytest.raises(FileChangedError, match="size"):
        list(it)


def test_not_a_regular_file_and_bad_options(tmp_path: Path) -> None:
    with pytest.raises(NotARegularFileError, match="TFRecord file is not a regular file but a directory"):
        TFRecordFile(tmp_path)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(NotARegularFileError, match="FIFO"):
        TFRecordFile(tmp_path / "fifo")
    with pytest.raises(ConfigError, match="compression_type should be"):
        TFRecordFile(tmp_path / "x", "LZ4")
    with pytest.raises(FileNotFoundError):
        TFRecordFile(tmp_path / "missing")
    f = TFRecordFile(write(tmp_path / "r", [b"a"]))
    with pytest.raises(IndexError, match="record 5 is out of range"):
        f.record(5)


def test_reference_matches_native_on_a_corpus(tmp_path: Path) -> None:
    data = write(tmp_path / "r", records(100, seed=3)).read_bytes()
    for pos in (0, 16 + len(records(1, seed=3)[0])):
        for args in ((-1, -1, True, False), (5, 100, True, True), (-1, -1, False, False)):
            a = _native.tfrecord_read(data, pos, *args)
            b = reference.read(data, pos, *args)
            assert bytes(a["data"]) == bytes(b["data"]) and a["next"] == b["next"]
            assert a["ends"].tolist() == b["ends"].tolist()


@pytest.mark.parametrize("compression", [None, "GZIP"])
def test_empty_file(tmp_path: Path, impl: str, compression: str | None) -> None:
    f = TFRecordFile(write(tmp_path / "e", [], compression), compression, impl=impl)
    assert len(f) == 0 and list(f) == [] and len(f.read()) == 0


def test_open_file_pool_releases_and_reopens(tmp_path: Path) -> None:
    from minibatcher.formats.tfrecord.records import OpenFiles

    pool = OpenFiles(limit=2)
    paths = [write(tmp_path / f"f{i}", [b"%d" % i] * 3) for i in range(5)]
    files = [TFRecordFile(p, pool=pool) for p in paths]
    assert sum(f._opened is not None for f in files) == 2
    assert [f.record(2) for f in files] == [b"0", b"1", b"2", b"3", b"4"]  # reopened
    assert sum(f._opened is not None for f in files) == 2
    files[0].release()
    with open(paths[0], "ab") as out:
        out.write(HELLO_FRAME)
    with pytest.raises(FileChangedError, match="changed since it was indexed"):
        files[0].record(0)


def test_dataset_of_many_files_stays_under_the_descriptor_limit(tmp_path: Path) -> None:
    import resource

    from minibatcher.tfdata import TFRecordDataset

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    paths = [str(write(tmp_path / f"m{i}", [b"x"])) for i in range(300)]
    resource.setrlimit(resource.RLIMIT_NOFILE, (200, hard))
    try:
        assert len(list(TFRecordDataset(paths))) == 300
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_two_files_read_alternately_share_the_read_buffer_safely(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from minibatcher.formats.tfrecord import streams

    monkeypatch.setattr(streams, "BLOCK", 64)
    a, b = records(40, seed=1), records(40, seed=2)
    fa = TFRecordFile(write(tmp_path / "a", a)).batches(batch_records=3, batch_bytes=50)
    fb = TFRecordFile(write(tmp_path / "b", b)).batches(batch_records=2, batch_bytes=70)
    got_a: list[bytes] = []
    got_b: list[bytes] = []
    for x, y in zip(fa, fb):
        got_a += [bytes(r) for r in x]
        got_b += [bytes(r) for r in y]
    got_a += [bytes(r) for x in fa for r in x]
    got_b += [bytes(r) for y in fb for r in y]
    assert got_a == a and got_b == b


@pytest.mark.parametrize("positions", [[2, 3, 4], [0, 1, 2, 3, 4, 5, 6, 7], [4, 3], [3, 5, 3],
                                       [3]])
def test_read_by_position_checks_every_frame(tmp_path: Path, positions: list[int]) -> None:
    # consecutive positions are one read (a fast path), others are sorted into runs: the
    # same records, and a corrupted one is found either way
    recs = records(8, seed=4)
    path = write(tmp_path / "r", recs)
    assert TFRecordFile(path).read_at(positions).records() == [recs[i] for i in positions]
    frame = int(TFRecordFile(path).frames[3])
    data = bytearray(path.read_bytes())
    data[frame + 12] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(ErrorBudgetExceeded, match=f"corrupted record 3 at byte {frame}"):
        TFRecordFile(path).read_at(positions)


@pytest.mark.parametrize("seed", range(3))
def test_check_frames_and_digest_rows_match_the_reference(tmp_path: Path, seed: int) -> None:
    # the native check computes data CRCs in groups, several records at once: the first
    # failing record is still the one the one-by-one reference finds
    rng = np.random.default_rng(seed)
    recs = records(110, seed=seed)
    f = TFRecordFile(write(tmp_path / "r", recs))
    data = bytearray((tmp_path / "r").read_bytes())
    frames, lengths = f.frames.copy(), f._lengths().copy()
    assert _native.tfrecord_digest_rows(bytes(data), frames, lengths) == \
        reference.digest_rows(bytes(data), frames, lengths)
    for i in rng.choice(len(recs), 3, replace=False):  # damage data, a length CRC, a length
        kind = rng.integers(3)
        at = int(frames[i]) + (12 if kind == 0 else 8 if kind == 1 else 0)
        data[at] ^= 0x10
    order = rng.permutation(len(recs))
    for verify in (True, False):
        for pick in (order, np.arange(len(recs)), order[:50]):
            a = _native.tfrecord_check_frames(bytes(data), frames[pick], lengths[pick], verify)
            b = reference.check_frames(bytes(data), frames[pick], lengths[pick], verify)
            assert tuple(a) == tuple(b)
