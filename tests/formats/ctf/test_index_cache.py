"""The index cache: reused only when valid, rebuilt with a warning otherwise, written atomically."""

from __future__ import annotations

import logging
import os
import shutil

import numpy as np
import pytest

from minibatcher import StreamDef
from minibatcher.formats.ctf.index_cache import cache_candidates

from .helpers import deserializer, run_python, values

TEXT = "".join(f"{i} |a {i}\n{i} |a {i + 0.5}\n" for i in range(50))


def caches(path) -> list:
    return sorted(path.parent.glob(path.name + ".*.mbidx"))


def test_cache_is_written_next_to_the_file_and_reused(write, monkeypatch):
    path = write(TEXT)
    first = deserializer(path, cache_index=True)
    assert len(caches(path)) == 1
    import minibatcher.formats.ctf.deserializer as module

    monkeypatch.setattr(module, "index_file", lambda *a, **k: pytest.fail("index rebuilt"))
    second = deserializer(path, cache_index=True)
    assert np.array_equal(second.index.offsets, first.index.offsets)
    assert values(second) == values(first)


def test_other_index_options_use_another_cache(write):
    path = write(TEXT)
    deserializer(path, cache_index=True)
    d = deserializer(path, cache_index=True, skip_sequence_ids=True)
    assert len(caches(path)) == 2 and d.index.num_sequences == 100


@pytest.mark.parametrize("damage", ["stale", "truncated", "corrupt", "foreign"])
def test_invalid_caches_are_ignored_with_a_warning_and_rebuilt(write, caplog, damage):
    path = write(TEXT)
    deserializer(path, cache_index=True)
    cache = caches(path)[0]
    if damage == "stale":
        path.write_text(TEXT + "99 |a 1\n")
    elif damage == "truncated":
        cache.write_bytes(cache.read_bytes()[:-9])
    elif damage == "corrupt":
        raw = bytearray(cache.read_bytes())
        raw[-3] ^= 0xFF
        cache.write_bytes(bytes(raw))
    else:
        other = write(TEXT.replace("|a 1\n", "|a 7\n"), "other.ctf")
        deserializer(other, cache_index=True)
        cache.write_bytes(caches(other)[0].read_bytes())
    with caplog.at_level(logging.WARNING, logger="minibatcher"):
        d = deserializer(path, cache_index=True)
    assert "ignoring the index cache" in caplog.text
    assert d.index.num_sequences == (51 if damage == "stale" else 50)
    with caplog.at_level(logging.WARNING, logger="minibatcher"):
        caplog.clear()
        deserializer(path, cache_index=True)  # the rebuilt cache is valid again
    assert "ignoring" not in caplog.text


def test_unwritable_folder_falls_back_to_the_user_cache_dir(write, tmp_path, monkeypatch):
    path = write(TEXT)
    options = {"format": "ctf", "indexer": 1, "skip_sequence_ids": False, "main_alias": ""}
    next_to_data = cache_candidates(path, options)[0]
    next_to_data.mkdir()  # occupied by a folder: the atomic rename fails
    monkeypatch.setenv("MINIBATCHER_CACHE_DIR", str(tmp_path / "user-cache"))
    deserializer(path, {"a": StreamDef()}, cache_index=True)
    assert (tmp_path / "user-cache").is_dir()
    assert len(list((tmp_path / "user-cache").glob("*.mbidx"))) == 1
    assert not [p for p in path.parent.iterdir() if p.suffix == ".tmp"]
    assert os.stat(next(iter((tmp_path / "user-cache").glob("*.mbidx")))).st_mode & 0o444


def test_without_xxhash_the_cache_uses_crc32_and_an_xxh3_cache_is_rebuilt(write, caplog, monkeypatch):
    path = write(TEXT)
    deserializer(path, cache_index=True)  # written with xxh3 (xxhash is a test dependency)
    monkeypatch.setitem(__import__("sys").modules, "xxhash", None)  # as if not installed
    with caplog.at_level(logging.WARNING, logger="minibatcher"):
        d = deserializer(path, cache_index=True)
    assert "checksummed with xxh3 and xxhash is not installed" in caplog.text
    assert values(d)[:2] == [[0.0, 0.5], [1.0, 1.5]]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="minibatcher"):
        deserializer(path, cache_index=True)  # now a CRC-32 cache, valid without xxhash
    assert "ignoring" not in caplog.text


def _big_text(n: int = 20_000) -> str:
    return "".join(f"{i} |a {i % 1000:04d}\n" for i in range(n))  # > 2 x 64 KiB


def test_an_edit_outside_the_hashed_head_and_tail_with_the_old_mtime_is_caught(write, caplog):
    """Same size, same modification time, bytes changed in the middle (beyond
    the 64 KiB head/tail digest): the inode's ctime moved, so the cache is stale."""
    text = _big_text()
    path = write(text)
    assert len(text) > 3 * (64 << 10)
    deserializer(path, cache_index=True)
    st = os.stat(path)
    edited = text.replace("\n10000 |a 0000\n", "\n10000 |a 9999\n")
    assert len(edited) == len(text) and edited != text
    assert (64 << 10) < text.index("\n10000 |a") < len(text) - (64 << 10)
    with open(path, "r+") as f:
        f.write(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_mtime_ns == st.st_mtime_ns and os.stat(path).st_size == st.st_size
    with caplog.at_level(logging.WARNING, logger="minibatcher"):
        d = deserializer(path, cache_index=True)
    assert "ignoring the index cache" in caplog.text and "ctime_ns" in caplog.text
    assert values(d)[10000] == [9999.0]


def test_a_copy_made_with_cp_p_rebuilds_its_cache(write, tmp_path, caplog):
    """``cp -p`` (or tar) keeps the size and modification time but not the
    inode: the copied cache is not trusted; a new one is written next to the copy."""
    path = write(_big_text(100))
    deserializer(path, cache_index=True)
    copy_dir = tmp_path / "copy"
    copy_dir.mkdir()
    for source in [path] + caches(path):
        target = copy_dir / source.name
        shutil.copy2(source, target)  # cp -p
    copied = copy_dir / path.name
    assert os.stat(copied).st_mtime_ns == os.stat(path).st_mtime_ns
    with caplog.at_level(logging.WARNING, logger="minibatcher"):
        d = deserializer(copied, cache_index=True)
    assert "ignoring the index cache" in caplog.text
    assert values(d) == values(deserializer(path))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="minibatcher"):
        deserializer(copied, cache_index=True)  # the rebuilt cache is reused
    assert "ignoring" not in caplog.text


def test_a_cache_rewritten_in_place_while_in_use_cannot_crash_the_reader(write):
    """The cache used to be mapped: truncating it in place (cp, rsync --inplace)
    while a reader held the index killed the process with SIGBUS."""
    path = write(_big_text())
    code = f"""
import os, numpy as np
from minibatcher import CTFDeserializer, StreamDef
path = {str(path)!r}
CTFDeserializer(path, {{"a": StreamDef()}}, cache_index=True, trace_level=0)
d = CTFDeserializer(path, {{"a": StreamDef()}}, cache_index=True, trace_level=0,
                    chunk_size_in_bytes=4096)
cache = [p for p in os.listdir(os.path.dirname(path)) if p.endswith(".mbidx")][0]
os.truncate(os.path.join(os.path.dirname(path), cache), 0)
idx = d.index
total = int(sum(int(np.asarray(getattr(idx, n), dtype=np.int64).sum())
                for n in ("keys", "offsets", "sizes", "rows", "lines")))
chunks = d.table().num_chunks
for c in range(chunks):
    d.load_chunk(c)
print("ok", chunks, total > 0)
"""
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1].split()
    assert last[0] == "ok" and int(last[1]) > 10
