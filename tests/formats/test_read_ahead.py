"""line_blocks_ahead gives blocks of whole lines, as GuardedFile.line_blocks, read by a
helper thread."""

from __future__ import annotations

import os
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minibatcher import FileChangedError
from minibatcher.formats.guarded_file import GuardedFile
from minibatcher.formats.read_ahead import line_blocks, line_blocks_ahead

_lines = st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=40)


@settings(max_examples=200, deadline=None)
@given(lines=_lines, newline_at_end=st.booleans(), block=st.integers(1, 64))
def test_the_blocks_are_whole_lines_in_order(tmp_path_factory, lines, newline_at_end, block):
    data = b"\n".join(lines) + (b"\n" if newline_at_end and lines else b"")
    path = tmp_path_factory.mktemp("ra") / "f.txt"
    path.write_bytes(data)
    with GuardedFile(path) as f:
        got = [(o, bytes(b)) for o, b in line_blocks_ahead(f, block)]
        if max(map(len, data.split(b"\n"))) < block:  # no long line: the very same blocks
            assert got == [(o, bytes(b)) for o, b in line_blocks(f, block)]
    assert b"".join(b for _, b in got) == data
    assert [o for o, _ in got] == [sum(len(b) for _, b in got[:i]) for i in range(len(got))]
    assert all(b.endswith(b"\n") and b for _, b in got[:-1])


def _helpers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "minibatcher-read-ahead"]


def test_stopping_early_ends_the_helper(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(b"0123456789\n" * 1000)
    with GuardedFile(path) as f:
        blocks = line_blocks_ahead(f, 64)
        assert next(blocks)[0] == 0 and _helpers()
        blocks.close()
    assert not _helpers()


def test_a_file_that_shrinks_is_an_error_on_the_callers_thread(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(b"0123456789\n" * 1000)
    with GuardedFile(path) as f:
        blocks = line_blocks_ahead(f, 1100)
        next(blocks)
        os.truncate(path, 500)  # the helper reads at most two blocks more before this
        with pytest.raises(FileChangedError, match="f.txt: the file changed after it was opened"):
            list(blocks)
    assert not _helpers()
