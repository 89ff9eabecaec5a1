"""SCP grammar (cntk-htk-mlf-and-randomizer.md §2, DECISIONS 11), native and reference."""

from __future__ import annotations

import pytest

from minibatcher.errors import ErrorBudgetExceeded
from minibatcher.formats.htk.backend import backend
from minibatcher.formats.htk.diagnostics import Diagnostics
from minibatcher.formats.htk.scp import load_scp, normalize_prefix


def parse(impl, text: bytes, prefix: str = "", scp_dir: str = "/scp") -> dict:
    return backend(impl).parse_scp(text, normalize_prefix(prefix), scp_dir)


def keys(r) -> list[str]:
    text, ends = r["key_text"], [0] + r["key_ends"].tolist()
    return [text[a:b].decode() for a, b in zip(ends[:-1], ends[1:])]


def test_three_line_forms(impl):
    r = parse(impl, b"An4/71/71/cen5-fjam-b.mfc=arch.chunk[0,367]\nb.mfc=f/b.htk\nd/c.htk\n")
    assert keys(r) == ["An4/71/71/cen5-fjam-b", "b", "d/c"]
    assert r["paths"] == [b"arch.chunk", b"f/b.htk", b"d/c.htk"]
    assert r["starts"].tolist() == [0, -1, -1] and r["ends"].tolist() == [367, -1, -1]
    assert r["issues"].tolist() == [0, 0, 0]


def test_line_endings_blank_lines_and_trailing_blanks(impl):
    r = parse(impl, b"a.x=f[0,1]\r\n\r\n  \nb.x=f[2,3] \t\rc.x=f[4,5]")
    assert keys(r) == ["a", "b", "c"] and r["lines"].tolist() == [1, 4, 5]
    assert r["blank_lines"] == 2 and r["paths"] == [b"f"]


def test_key_strips_the_last_extension_across_slashes(impl):
    # CNTK's Linux/new rule: everything before the last '.', even across '/'
    assert keys(parse(impl, b"a.b/c=f\nnoext=f\nx.y.z=f\n")) == ["a", "noext", "x.y"]


def test_the_first_equals_sign_splits(impl):
    r = parse(impl, b"a.x=b=c.htk[0,1]\n")
    assert keys(r) == ["a"] and r["paths"] == [b"b=c.htk"]


def test_dots_become_the_scp_folder_and_prefixes_go_after_equals(impl):
    assert parse(impl, b".../f1.feat\nk.x=.../f2.feat[0,1]\n", scp_dir="/aaa/bbb")["paths"] == [
        b"/aaa/bbb/f1.feat", b"/aaa/bbb/f2.feat"]
    r = parse(impl, b"k.x=f.htk[0,1]\ng.htk\n", prefix="C:\\data\\\\")
    assert r["paths"] == [b"C:/data/f.htk", b"C:/data/g.htk"]
    assert keys(r) == ["k", "C:/data/g"]  # without '=', the prefix changes the key too (CNTK)


@pytest.mark.parametrize("line, issue", [
    (b"a.x=f[0]", 1), (b"a.x=f[0,1", 2), (b"a.x=f[0,1]x", 3), (b"a.x=f[-1,3]", 4),
    (b"a.x=f[0,z]", 5), (b"a.x=f[5,4]", 6), (b"=f[0,1]", 7), (b"a.x=[0,1]", 8),
    (b"train-images-ubyte", 9), (b"a.x=f[0,2147483648]", 5)])
def test_malformed_lines(impl, line, issue):
    r = parse(impl, line + b"\n")
    assert r["issues"].tolist() == [issue] and r["path_index"].tolist() == [-1]


def test_bad_lines_and_duplicates_are_charged_with_file_and_line(tmp_path, impl):
    scp = tmp_path / "list.scp"
    scp.write_text("a.x=f.htk[0,4]\nb.x=f.htk[5\na.x=f.htk[6,9]\nc.x=f.htk[10,12]\n")
    diag = Diagnostics(str(scp), max_errors=2, trace_level=0)
    rows = load_scp([scp], diag, base_dir=tmp_path, impl=impl)
    assert rows.names() == ["a", "c"] and diag.stats.errors == 2
    assert diag.stats.duplicates == 1 and diag.stats.skipped_utterances == 2
    with pytest.raises(ErrorBudgetExceeded, match=r"list\.scp:2: '\[' without ','"):
        load_scp([scp], Diagnostics(str(scp), max_errors=0, trace_level=0), base_dir=tmp_path,
                 impl=impl)
    with pytest.raises(ErrorBudgetExceeded, match=r"list\.scp:3: utterance 'a' was already listed "
                                                   r"at .*list\.scp:1"):
        load_scp([scp], Diagnostics(str(scp), max_errors=1, trace_level=0), base_dir=tmp_path,
                 impl=impl)


def test_missing_scp_file(tmp_path, impl):
    with pytest.raises(FileNotFoundError, match="SCP file .*nope.scp.* does not exist"):
        load_scp([tmp_path / "nope.scp"], Diagnostics("x", 0, 0), impl=impl)
