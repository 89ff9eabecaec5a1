"""Files that change underneath a reader: an error naming the file, never a crash or mixed data.

The reproducers that used to kill the interpreter with SIGBUS run in a child
process, so that a regression fails the test instead of the test run.
"""

from __future__ import annotations

import os

import pytest

from minibatcher import CTFDeserializer, FileChangedError, MinibatchSource, StreamDef

from .helpers import deserializer, run_python, values

LINES = 20_000
TEXT = "".join(f"|a {i % 997}\n" for i in range(LINES))  # about 160 KB, many pages


def _last_line(done) -> list[str]:
    assert done.returncode == 0, f"child died with {done.returncode}: {done.stderr[-2000:]}"
    return done.stdout.splitlines()[-1].split(" ", 1)


def test_truncated_while_the_index_is_built(tmp_path):
    """The indexer walked a mapping of the file: truncating it between two
    progress reports made the next page access a SIGBUS."""
    path = tmp_path / "big.ctf"
    path.write_bytes(b"|a 1 2 3 4\n" * 300_000)  # 3.3 MB: several 1 MiB blocks
    code = f"""
import os
from minibatcher import CTFDeserializer, StreamDef, FileChangedError
path = {str(path)!r}
def progress(done, total):
    if done < total:
        os.truncate(path, 1000)
try:
    CTFDeserializer(path, {{"a": StreamDef(shape=4)}}, progress=progress, trace_level=0)
    print("no error")
except FileChangedError as e:
    print("FileChangedError", e)
"""
    kind, message = _last_line(run_python(code))
    assert kind == "FileChangedError"
    assert "big.ctf: the CTF file changed after it was opened" in message
    assert "ends at byte 1000 now" in message and "size 3300000 -> 1000 bytes" in message


def test_shrinking_after_indexing_while_an_excerpt_is_shown(tmp_path):
    """A repeated sequence id near the end is reported (with an excerpt of its
    line) right after indexing; the file shrank in between: the excerpt touched
    the stale mapping (SIGBUS). Now the change is caught when indexing ends
    (excerpts are read with pread in any case)."""
    path = tmp_path / "ids.ctf"
    path.write_text("".join(f"{i} |a {i}\n" for i in range(LINES)) + "7 |a 7\n")
    code = f"""
import os
from minibatcher import CTFDeserializer, StreamDef, FileChangedError
path = {str(path)!r}
def progress(done, total):
    if done == total:
        os.truncate(path, 10)
try:
    d = CTFDeserializer(path, {{"a": StreamDef()}}, max_errors=5, progress=progress, trace_level=0)
    d.load_chunk(0)
    print("no error")
except FileChangedError as e:
    print("FileChangedError", e)
"""
    kind, message = _last_line(run_python(code))
    assert kind == "FileChangedError"
    assert "ids.ctf: the CTF file changed" in message and "-> 10 bytes" in message


def test_excerpts_of_a_file_that_shrank_are_short_not_fatal(tmp_path):
    """Messages show the line of an issue; that line may be past the file's new end."""
    path = tmp_path / "d.ctf"
    path.write_text(TEXT)
    code = f"""
import os
from minibatcher import CTFDeserializer, StreamDef
d = CTFDeserializer({str(path)!r}, {{"a": StreamDef()}}, trace_level=0)
os.truncate({str(path)!r}, 10)
print("ok", d._diag.where(100_000, 14_000)[0])
"""
    kind, head = _last_line(run_python(code))
    assert kind == "ok" and head.startswith(f"{path}:14000:") and "byte offset 100000" in head


def test_shrinking_after_indexing_fails_every_chunk_load(tmp_path):
    path = tmp_path / "d.ctf"
    path.write_text(TEXT)
    d = deserializer(path, chunk_size_in_bytes=4096)
    d.load_chunk(0)
    os.truncate(path, 5000)
    for chunk in (0, 1, d.table().num_chunks - 1):  # inside and beyond the new end
        with pytest.raises(FileChangedError, match=r"d\.ctf: the CTF file changed .*size \d+ -> 5000"):
            d.load_chunk(chunk)


def test_a_file_replaced_by_rename_keeps_being_read_as_it_was_indexed(tmp_path):
    """Chunks were re-read by path: a new file renamed over the old one was
    parsed with the old index, so numbers cut at stale range ends were accepted."""
    path = tmp_path / "d.ctf"
    path.write_text(TEXT)
    d = deserializer(path, chunk_size_in_bytes=4096)
    expected = values(deserializer(path, chunk_size_in_bytes=4096))
    replacement = tmp_path / "new.ctf"
    replacement.write_text(TEXT.replace("|a ", "|a 1"))  # other values, other line lengths
    os.replace(replacement, path)
    assert values(d) == expected


@pytest.mark.parametrize("change", ["same size", "appended", "truncated"])
def test_a_file_changed_in_place_is_an_error_never_mixed_data(tmp_path, change):
    path = tmp_path / "d.ctf"
    path.write_text(TEXT)
    d = deserializer(path, chunk_size_in_bytes=4096)
    chunks = d.table().num_chunks
    d.load_chunk(0)
    st = os.stat(path)
    with open(path, "r+b") as f:
        if change == "same size":
            f.seek(len(TEXT) // 2)
            f.write(b"9")
        elif change == "appended":
            f.seek(0, os.SEEK_END)
            f.write(b"|a 5\n")
        else:
            f.truncate(len(TEXT) - 4)
    if change == "same size":  # make sure the clock moved (coarse timestamps)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    for chunk in (0, chunks // 2, chunks - 1):
        with pytest.raises(FileChangedError, match=r"d\.ctf: the CTF file changed after it was opened"):
            d.load_chunk(chunk)


def test_a_changed_file_stops_the_minibatch_source_with_the_cause(tmp_path):
    path = tmp_path / "d.ctf"
    path.write_text(TEXT)
    source = MinibatchSource(CTFDeserializer(path, {"a": StreamDef()}, trace_level=0,
                                             chunk_size_in_bytes=4096),
                             randomize=False, max_sweeps=1, num_threads=1, prefetch_chunks=1)
    assert source.next_minibatch(10)["a"].num_samples == 10
    with open(path, "ab") as f:
        f.write(b"|a 1\n")
    # Linux updates the modification time of an append before its size: a background read
    # that checks between the two sees the time change alone.
    with pytest.raises(FileChangedError,
                       match=r"d\.ctf: the CTF file changed .*(size|modification time)"):
        for _ in source.minibatches(1000):
            pass
    source.close()
