"""MLF grammar (cntk-htk-mlf-and-randomizer.md §5, DECISIONS 12), native and reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from minibatcher import HTKFeatureDeserializer, HTKMLFDeserializer, MinibatchSource, StreamDef
from minibatcher.errors import ConfigError, ErrorBudgetExceeded, FormatError
from minibatcher.formats.htk import write_htk
from minibatcher.formats.htk.backend import backend

from .helpers import AN4, mlf_labels, scp_ranges
from ...conftest import SHARED

MLF_DATA = Path(__file__).resolve().parents[2] / "data" / "mlf"
STATES = ["sil", "a", "b"]


def parse(impl, text: str, states=STATES, dim=3) -> dict:
    return backend(impl).parse_mlf(text.encode(), states, dim)


def labels(r, entry: int = 0) -> list[int]:
    ends = [0] + r["run_ends"].tolist()
    a, b = ends[entry], ends[entry + 1]
    return np.repeat(r["run_class"][a:b], r["run_length"][a:b]).tolist()


def test_an4_mlf_equals_an_independent_parse(impl):
    r = backend(impl).parse_mlf((AN4 / "glob_0000.mlf").read_bytes(),
                                (AN4 / "state.list").read_text().split(), 132)
    assert r["header_ok"] and len(r["keys"]) == 948 and not r["issues"].any()
    keys, starts, ends = scp_ranges()
    assert r["frames"].tolist() == (ends - starts + 1).tolist()  # lengths equal the SCP ranges
    truth = mlf_labels(AN4 / "glob_0000.mlf", AN4 / "state.list")
    assert all(labels(r, i) == truth[k].tolist() for i, k in enumerate(keys))


def test_times_or_frames_decided_per_line(impl):
    # 100 ns units when end - start >= 99999 (rounded), else frame indices (truncated);
    # AN4's "43300000 62800001" rounds to frames 433..628.
    r = parse(impl, '#!MLF!#\n"u.lab"\n0 43300000 sil\n43300000 62800001 a\n628 630.9 b\n.\n')
    assert labels(r) == [0] * 433 + [1] * 195 + [2] * 2 and r["frames"].tolist() == [630]


def test_separators_keys_and_structure(impl):
    text = ('#!MLF!#\r\n"*/dir/u1.rec"\r\n0\t\t200000   sil  -1.5 sil\r\n\r\n.\r\n'
            '#!MLF!#\n"u2.x.lab"\n0 100000 a\n.\n')
    r = parse(impl, text)
    ends = [0] + r["key_ends"].tolist()
    names = [r["key_text"][a:b].decode() for a, b in zip(ends[:-1], ends[1:])]
    assert names == ["dir/u1", "u2.x"] and labels(r, 0) == [0, 0] and labels(r, 1) == [1]


def test_four_column_format_without_a_state_list(impl):
    r = parse(impl, '#!MLF!#\n"u.lab"\n0 2 x 1\n2 3 y 0\n.\n', states=None, dim=2)
    assert labels(r) == [1, 1, 0]


@pytest.mark.parametrize("body, issue", [
    ("0 100000 sil\n200000 300000 a", 6),     # gap
    ("0 200000 sil\n100000 300000 a", 7),     # overlap
    ("100000 200000 sil", 8),                 # first frame not 0
    ("0 100000 zzz", 9),                      # unknown label
    ("0 100000", 3),                          # too few columns
    ("x 100000 sil", 4),                      # bad time
    ("-0 100000 sil", 4),                     # negative
    ("3 1 sil", 5),                           # end before start
    ("", 13),                                 # no label lines
])
def test_invalid_entries(impl, body, issue):
    r = parse(impl, f'#!MLF!#\n"u.lab"\n{body}\n.\n"v.lab"\n0 100000 b\n.\n')
    assert r["issues"].tolist() == [issue, 0] and labels(r, 1) == [2]


def test_class_id_limits_and_structure_errors(impl):
    assert parse(impl, '#!MLF!#\n"u.lab"\n0 1 x 7\n.\n', states=None, dim=5)["issues"].tolist() == [11]
    assert parse(impl, '#!MLF!#\n"u.lab"\n0 1 x\n.\n', states=None, dim=5)["issues"].tolist() == [3]
    assert parse(impl, '#!MLF!#\n"u.lab"\n0 1 x y\n.\n', states=None, dim=5)["issues"].tolist() == [10]
    r = parse(impl, '#!MLF!#\nu.lab\n0 1 sil\n.\n"v.lab"\n0 1 a\n"w.lab"\n0 1 b\n')
    assert r["issues"].tolist() == [2, 14, 14] and labels(r, 1) == []
    assert not parse(impl, 'MLF\n"u.lab"\n0 1 sil\n.\n')["header_ok"]


def test_real_unittest_mlf(impl):
    states = (MLF_DATA / "unittest.statelist").read_text().split()
    r = backend(impl).parse_mlf((MLF_DATA / "unittest.mlf").read_bytes(), states, len(states))
    assert len(r["keys"]) == 8 and not r["issues"].any() and r["frames"].min() > 0


def text_entries(path: Path, states: list[str]) -> dict[str, list[int]]:
    """An independent reading of a CNTK-style MLF (times in 100 ns): key -> class per frame."""
    entries, key = {}, None
    for line in path.read_text().splitlines()[1:]:
        parts = line.split()
        if not parts:
            continue
        if parts[0].startswith('"'):
            key = parts[0].strip('"').rsplit(".", 1)[0]
            entries[key] = []
        elif parts[0] != ".":
            start, end = round(int(parts[0]) / 1e5), round(int(parts[1]) / 1e5)
            assert start == len(entries[key])
            entries[key] += [states.index(parts[2])] * (end - start)
    return entries


def keys_of(r) -> list[str]:
    ends = [0] + r["key_ends"].tolist()
    return [r["key_text"][a:b].decode() for a, b in zip(ends, ends[1:])]


def test_timit_mlfs(impl):
    # The first 3 entries of CNTK's TIMIT alignments, shipped in tests/data/mlf (PROVENANCE.md).
    states = (MLF_DATA / "TIMIT.statelist").read_text().split()
    assert len(states) == 183
    path = MLF_DATA / "TIMIT.core.align_cistate.head3.mlf.cntk"
    r = backend(impl).parse_mlf(path.read_bytes(), states, len(states))
    want = text_entries(path, states)
    assert keys_of(r) == list(want) == ["test-dr1-felc0-si1386", "test-dr1-felc0-si2016",
                                        "test-dr1-felc0-si756"]
    assert not r["issues"].any() and r["frames"].tolist() == [len(v) for v in want.values()]
    assert [labels(r, i) for i in range(3)] == list(want.values())
    # the HTK-named original uses s2/s3/s4 states that the CNTK state list does not have
    r = backend(impl).parse_mlf((MLF_DATA / "TIMIT.core.align_cistate.head3.mlf").read_bytes(),
                                states, 183)
    assert keys_of(r) == ["TEST/dr1/felc0/si1386", "TEST/dr1/felc0/si2016", "TEST/dr1/felc0/si756"]
    assert (r["issues"] == 9).all()


@pytest.mark.skipif(not (SHARED / "mlf").is_dir(), reason="../shared/data/mlf is absent")
def test_timit_mlfs_whole_files(impl):
    folder = SHARED / "mlf"
    states = (folder / "TIMIT.statelist").read_text().split()
    path = folder / "TIMIT.core.align_cistate.mlf.cntk"
    r = backend(impl).parse_mlf(path.read_bytes(), states, len(states))
    want = text_entries(path, states)
    assert len(r["keys"]) == len(want) == 192 and not r["issues"].any()
    assert r["frames"].tolist() == [len(v) for v in want.values()]
    r = backend(impl).parse_mlf((folder / "TIMIT.core.align_cistate.mlf").read_bytes(), states, 183)
    assert (r["issues"] == 9).all()


def test_mlf_with_no_matching_utterance(tmp_path, impl):
    # CNTK's glob_00001.mlf: one entry "nonexistent.lab" with HVite's extra score/word columns.
    states = ["sil[2]", "sil[3]"]
    r = backend(impl).parse_mlf((MLF_DATA / "glob_00001.mlf").read_bytes(), states, 2)
    assert keys_of(r) == ["nonexistent"] and not r["issues"].any()
    assert labels(r) == [0] + [1] * 54
    write_htk(tmp_path / "a.htk", np.zeros((55, 2), np.float32))
    (tmp_path / "a.scp").write_text("existent.mfc=a.htk[0,54]\n")
    (tmp_path / "s.list").write_text("\n".join(states) + "\n")
    features = HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "a.scp"), shape=2)},
                                      base_dir=tmp_path, trace_level=0, impl=impl)
    mlf = HTKMLFDeserializer(str(tmp_path / "s.list"), {"y": StreamDef(
        mlf=str(MLF_DATA / "glob_00001.mlf"), shape=2)}, trace_level=0, impl=impl)
    with pytest.raises(ErrorBudgetExceeded, match=r"utterance 'existent' \(.*a\.scp:1\) has no "
                                                   r"labels in .*glob_00001\.mlf"):
        MinibatchSource([features, mlf], randomize=False)


def deserializer(tmp_path, text: str, max_errors: int = 0, **kw) -> HTKMLFDeserializer:
    (tmp_path / "s.list").write_text("\n".join(STATES) + "\n")
    (tmp_path / "l.mlf").write_text(text)
    return HTKMLFDeserializer(str(tmp_path / "s.list"), {"y": StreamDef(mlf=str(tmp_path / "l.mlf"),
                                                                        shape=3)},
                              max_errors=max_errors, trace_level=0, **kw)


def test_errors_name_file_and_line_and_skip_within_budget(tmp_path, impl):
    text = '#!MLF!#\n"u.lab"\n0 100000 sil\n200000 300000 a\n.\n"v.lab"\n0 100000 b\n.\n"v.lab"\n0 1 a\n.\n'
    with pytest.raises(ErrorBudgetExceeded, match=r"l\.mlf:4: entry 'u' \(line 2\): labels are not "
                                                   r"consecutive: .* starts at frame 2, .* ended at "
                                                   r"frame 1 \(a gap\)"):
        deserializer(tmp_path, text, impl=impl)
    d = deserializer(tmp_path, text, max_errors=2, impl=impl)
    assert d.table().num_sequences == 1 and d.stats.errors == 2 and d.stats.duplicates == 1
    with pytest.raises(FormatError, match="expected the MLF header"):
        deserializer(tmp_path, '"u.lab"\n0 1 a\n.\n', impl=impl)


def test_phone_boundaries_mark_line_starts(tmp_path, impl):
    d = deserializer(tmp_path, '#!MLF!#\n"u.lab"\n0 200000 sil\n200000 300000 a\n.\n',
                     impl=impl, phone_boundaries=True)
    chunk = d.load_chunk(0).streams[0]
    assert chunk.values.tolist() == [2, 1, 2] and chunk.indices.tolist() == [0, 0, 1]


def test_state_list_errors(tmp_path):
    (tmp_path / "s.list").write_text("a\nb\na\n")
    (tmp_path / "l.mlf").write_text('#!MLF!#\n"u.lab"\n0 1 a\n.\n')
    with pytest.raises(ConfigError, match=r"s\.list:3: label 'a' was already listed at line 1"):
        HTKMLFDeserializer(str(tmp_path / "s.list"), {"y": StreamDef(mlf=str(tmp_path / "l.mlf"),
                                                                     shape=2)})
