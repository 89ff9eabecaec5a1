"""GuardedFile: byte-range reads without mappings, change detection, regular files only."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minibatcher.errors import ConfigError, FileChangedError, NotARegularFileError
from minibatcher.formats.guarded_file import FileIdentity, GuardedFile
from minibatcher.formats.read_ahead import line_blocks


def test_reads_byte_ranges_into_a_reused_buffer(tmp_path: Path) -> None:
    p = tmp_path / "f"
    p.write_bytes(bytes(range(256)) * 4)
    with GuardedFile(p) as f:
        a = f.read(10, 20)
        assert a.tolist() == list(range(10, 20))
        b = f.read(0, 3)
        assert b.tolist() == [0, 1, 2]
        assert np.shares_memory(a, b)  # one buffer per thread, no allocation per read
        out = np.empty(4, np.uint8)
        f.read_into(out, 1020)
        assert out.tolist() == [252, 253, 254, 255]
        with pytest.raises(FileChangedError, match="ends at byte 1024 now, but bytes up to 1025 were needed"):
            f.read_into(np.empty(5, np.uint8), 1020)


def test_a_file_that_shrank_is_a_clear_error_naming_it(tmp_path: Path) -> None:
    p = tmp_path / "data.bin"
    p.write_bytes(b"x" * 1000)
    f = GuardedFile(p, what="data file")
    os.truncate(p, 100)
    with pytest.raises(FileChangedError, match=r"data\.bin: the data file changed .*ends at byte 100 now"):
        f.read(50, 500)
    with pytest.raises(FileChangedError, match=r"size 1000 -> 100 bytes"):
        f.check()
    assert f.read_excerpt(90, 200) == b"x" * 10  # best effort for messages


def test_in_place_changes_are_detected(tmp_path: Path) -> None:
    p = tmp_path / "f"
    p.write_bytes(b"abcdef")
    f = GuardedFile(p)
    f.check()
    st0 = os.stat(p)
    with open(p, "r+b") as out:  # same size
        out.write(b"ABC")
    os.utime(p, ns=(st0.st_atime_ns, st0.st_mtime_ns + 1))
    with pytest.raises(FileChangedError, match=r"f: the file changed .*\(modification time changed"):
        f.check()


def test_metadata_changes_alone_are_not_content_changes(tmp_path: Path) -> None:
    """chmod, a rename or an unlink change st_ctime but not what the open
    descriptor reads: check() stays quiet (the identity still records ctime)."""
    p = tmp_path / "f"
    p.write_bytes(b"abcdef")
    f = GuardedFile(p)
    os.chmod(p, 0o600)
    os.rename(p, tmp_path / "g")
    os.unlink(tmp_path / "g")
    f.check()
    assert bytes(f.read(0, 6)) == b"abcdef"
    assert FileIdentity.of(os.fstat(f.fileno())).ctime_ns != f.identity.ctime_ns


def test_a_renamed_replacement_does_not_change_what_is_read(tmp_path: Path) -> None:
    p = tmp_path / "f"
    p.write_bytes(b"old contents\n")
    f = GuardedFile(p)
    new = tmp_path / "new"
    new.write_bytes(b"NEW CONTENTS, longer\n")
    os.replace(new, p)
    f.check()  # the open file itself did not change
    assert bytes(f.read(0, 13)) == b"old contents\n"


def test_only_regular_files(tmp_path: Path) -> None:
    with pytest.raises(NotARegularFileError, match="is not a regular file but a directory"):
        GuardedFile(tmp_path)
    with pytest.raises(ConfigError, match="non-empty path"):
        GuardedFile("")
    with pytest.raises(FileNotFoundError):
        GuardedFile(tmp_path / "missing")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code = textwrap.dedent(f"""
        from minibatcher.formats.guarded_file import GuardedFile
        from minibatcher.errors import NotARegularFileError
        try:
            GuardedFile({str(fifo)!r}, what="data file")
        except NotARegularFileError as e:
            print(e)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "is not a regular file but a FIFO (named pipe)" in done.stdout, done.stderr
    assert issubclass(NotARegularFileError, OSError) and issubclass(NotARegularFileError, ValueError)


def test_pickling_reopens_and_verifies_the_identity(tmp_path: Path) -> None:
    p = tmp_path / "f"
    p.write_bytes(b"abc\n")
    f = GuardedFile(p)
    copy = pickle.loads(pickle.dumps(f))
    assert copy.identity == f.identity and copy.fileno() != f.fileno()
    blob = pickle.dumps(f)
    p.write_bytes(b"abcdef\n")
    with pytest.raises(FileChangedError):
        pickle.loads(blob)


def test_close_is_idempotent(tmp_path: Path) -> None:
    p = tmp_path / "f"
    p.write_bytes(b"a")
    f = GuardedFile(p)
    f.close()
    f.close()
    assert f.closed


def test_identity_differences_name_every_change() -> None:
    a = FileIdentity(1, 2, 3, 4, 5)
    assert a.differences(a) == []
    assert a.differences(FileIdentity(1, 9, 3, 4, 5)) == [
        "it is another file now (device/inode changed)"]


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=30),
       trailing_newline=st.booleans(), block=st.integers(1, 64))
def test_line_blocks_split_after_newlines_and_cover_the_file(tmp_path_factory, lines, trailing_newline,
                                                             block) -> None:
    longest = max((len(line) for line in lines), default=0)
    data = b"\n".join(lines) + (b"\n" if trailing_newline and lines else b"")
    p = tmp_path_factory.mktemp("lb") / "f"
    p.write_bytes(data)
    with GuardedFile(p) as f:
        parts = [(offset, bytes(view)) for offset, view in line_blocks(f, block)]
    assert b"".join(b for _, b in parts) == data
    at = 0
    for i, (offset, chunk) in enumerate(parts):
        assert offset == at and chunk
        if i + 1 < len(parts):
            assert chunk.endswith(b"\n")
        assert len(chunk) <= max(block, 2 * (longest + 1))  # grows only for a long line
        at += len(chunk)


@pytest.mark.parametrize("missing", [("preadv",), ("preadv", "pread")],
                         ids=["no preadv", "no pread (Windows)"])
def test_platforms_without_preadv_read_the_same(tmp_path: Path, monkeypatch, missing) -> None:
    p = tmp_path / "f"
    p.write_bytes(b"0123456789\n" * 1000)
    with GuardedFile(p) as f:
        for name in missing:
            if hasattr(os, name):
                monkeypatch.delattr(os, name)
        assert bytes(f.read(5, 27)) == (b"0123456789\n" * 3)[5:27]
        assert [o for o, _ in line_blocks(f, 100)][:3] == [0, 99, 198]
        assert f.read_excerpt(10_994, 11_100) == b"56789\n"
        with pytest.raises(FileChangedError, match="ends at byte 11000 now"):
            f.read(10_990, 11_001)


def test_a_file_that_shrank_during_a_read_names_the_bytes_it_lacks(tmp_path: Path,
                                                                   monkeypatch) -> None:
    """A read that completed before the file shrank (a helper reading ahead) is
    reported as the short read it would have been a moment later."""
    import minibatcher.formats.guarded_file as gf

    path = tmp_path / "f.bin"
    path.write_bytes(bytes(range(200)))
    read = gf._pread_into

    def read_then_truncate(fd, view, offset):
        got = read(fd, view, offset)
        os.truncate(path, 50)
        return got
    monkeypatch.setattr(gf, "_pread_into", read_then_truncate)
    with GuardedFile(path) as f, pytest.raises(FileChangedError) as e:
        f.read_into(np.empty(100, np.uint8), 60)
    assert "it ends at byte 50 now, but bytes up to 160 were needed" in str(e.value)
    assert "size 200 -> 50 bytes" in str(e.value)
