"""Every bad input of issue 7: a clear error naming the file and line (or byte),
or, within ``max_errors``, the utterance skipped and counted; never a crash or
a silent misalignment."""

from __future__ import annotations

import os

import numpy as np
import pytest

from minibatcher import HTKFeatureDeserializer, HTKMLFDeserializer, MinibatchSource, StreamDef
from minibatcher.errors import ConfigError, ErrorBudgetExceeded, FileChangedError, FormatError
from minibatcher.formats.htk import write_htk

SCP = "u1.mfc=arch.htk[0,4]\nu2.mfc=arch.htk[5,9]\nu3.mfc=arch.htk[10,14]\n"
MLF = ('#!MLF!#\n"u1.lab"\n0 500000 a\n.\n"u2.lab"\n0 300000 a\n300000 500000 b\n.\n'
       '"u3.lab"\n0 500000 b\n.\n')


def corpus(tmp_path, scp: str = SCP, mlf: str = MLF, frames: int = 15) -> None:
    write_htk(tmp_path / "arch.htk", np.arange(frames * 2, dtype=np.float32).reshape(frames, 2))
    (tmp_path / "l.scp").write_text(scp)
    (tmp_path / "l.mlf").write_text(mlf)
    (tmp_path / "s.list").write_text("a\nb\n")


def source(tmp_path, impl, max_errors: int = 0, shape: int = 2, **options) -> MinibatchSource:
    f = HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "l.scp"), shape=shape)},
                               base_dir=tmp_path, max_errors=max_errors, trace_level=0, impl=impl)
    y = HTKMLFDeserializer(str(tmp_path / "s.list"), {"y": StreamDef(mlf=str(tmp_path / "l.mlf"),
                                                                     shape=2)},
                           max_errors=max_errors, trace_level=0, impl=impl)
    return MinibatchSource([f, y], randomize=False, max_sweeps=1, **options)


def keys_read(src: MinibatchSource) -> list[str]:
    names = []
    inner = src.deserializer.parts[0]
    while mb := src.next_minibatch(100):
        first = mb["x"].values[mb["x"].offsets[:-1], 0]
        names += [inner.key_name(int(np.flatnonzero(inner.table().keys == k)[0]))
                  for k in mb["x"].keys.tolist()]
        assert first.tolist() == [float(2 * 5 * int(n[1:]) - 10) for n in names[-len(first):]]
    return names


def test_good_corpus(tmp_path, impl):
    corpus(tmp_path)
    assert keys_read(source(tmp_path, impl)) == ["u1", "u2", "u3"]


def test_missing_archive(tmp_path, impl):
    corpus(tmp_path, SCP + "u4.mfc=gone.htk[0,4]\n")
    with pytest.raises(ErrorBudgetExceeded, match=r"l\.scp:4: cannot open archive .*gone\.htk.*: No "
                                                   r"such file or directory; relative archive paths "
                                                   r"resolve against base_dir=.* \(1 utterance"):
        source(tmp_path, impl)
    src = source(tmp_path, impl, max_errors=1)
    assert keys_read(src) == ["u1", "u2", "u3"]
    assert src.deserializer.parts[0].stats.skipped_utterances == 1


def test_truncated_archive(tmp_path, impl):
    corpus(tmp_path)
    raw = (tmp_path / "arch.htk").read_bytes()
    (tmp_path / "arch.htk").write_bytes(raw[:-8 * 4])  # 4 of 15 frames lost
    with pytest.raises(ErrorBudgetExceeded, match=r"l\.scp:1: archive .*arch\.htk.*: the file is "
                                                   r"truncated: its header promises 15 frames, but "
                                                   r"only 11 are present; 1 utterance"):
        source(tmp_path, impl)
    src = source(tmp_path, impl, max_errors=1)
    assert keys_read(src) == ["u1", "u2"]
    assert src.deserializer.parts[0].stats.skipped_utterances == 1


def test_range_past_the_end(tmp_path, impl):
    corpus(tmp_path, SCP.replace("[10,14]", "[10,15]"))
    with pytest.raises(ErrorBudgetExceeded, match=r"l\.scp:3: frames \[10,15\] end past the end of "
                                                   r"archive .*arch\.htk.*, which has 15 frames"):
        source(tmp_path, impl)
    assert keys_read(source(tmp_path, impl, max_errors=1)) == ["u1", "u2"]


def test_wrong_dim(tmp_path, impl):
    # The message names the stream, the archive, the SCP line that uses it, what was expected
    # and what was found, and how to fix it.
    corpus(tmp_path)
    with pytest.raises(ConfigError, match=r"stream 'x': option shape should be 2 \(the values per "
                                          r"frame of archive '.*arch\.htk', used at .*l\.scp:1\) "
                                          r"or 2 x an odd number of frames \(e\.g\. 22 for 5 "
                                          r"frames each side\), but got shape=4; use shape=2 with "
                                          r"context=\(left, right\)"):
        source(tmp_path, impl, shape=4)


@pytest.mark.parametrize("features, found", [
    ("dim = 4", r"or 2 x an odd number of frames .*, but got dim=4; use dim=2 with "
                r"contextWindow=left:right"),
    ("dim = 3; contextWindow = 3", r"when contextWindow=1:1 is given \(the stream then delivers "
                                   r"2 x 3 values\), but got dim=3; use dim=2, or leave out "
                                   r"contextWindow"),
])
def test_wrong_dim_in_a_config_names_the_key(tmp_path, impl, features, found):
    corpus(tmp_path)
    (tmp_path / "c.cntk").write_text(
        'r = [ reader = [ readerType = "HTKMLFReader"\n'
        f'    features = [ scpFile = "l.scp"; {features} ]\n'
        '    labels = [ mlfFile = "l.mlf"; labelMappingFile = "s.list"; labelDim = 2 ] ] ]\n')
    with pytest.raises(ConfigError, match=r"stream 'features': option dim \(r\.reader\.features\."
                                          r"dim at .*c\.cntk:2:\d+\) should be 2 \(the values per "
                                          r"frame of archive '.*arch\.htk', used at .*l\.scp:1\) "
                                          + found):
        MinibatchSource.from_config(tmp_path / "c.cntk", "r")


@pytest.mark.parametrize("bad, what", [
    ('"u2.lab"\n0 300000 a\n400000 500000 b\n', r"l\.mlf:7: entry 'u2' \(line 5\): labels are not "
                                                r"consecutive: .*frame 4, .*frame 3 \(a gap\)"),
    ('"u2.lab"\n0 300000 a\n200000 500000 b\n', r"l\.mlf:7: .*\(an overlap\)"),
    ('"u2.lab"\n0 300000 a\n300000 500000 zz\n', r"l\.mlf:7: entry 'u2' \(line 5\): label 'zz' is "
                                                 r"not in the label mapping file .*s\.list"),
])
def test_bad_mlf_entries(tmp_path, impl, bad, what):
    corpus(tmp_path, mlf=MLF.replace('"u2.lab"\n0 300000 a\n300000 500000 b\n', bad))
    with pytest.raises(ErrorBudgetExceeded, match=what):
        source(tmp_path, impl)
    # within the budget the entry is skipped, then its utterance has no labels: one more error
    src = source(tmp_path, impl, max_errors=2)
    assert keys_read(src) == ["u1", "u3"]
    labels = src.deserializer.parts[1]
    assert labels.stats.errors == 2 and labels.stats.skipped_utterances == 2


def test_label_feature_length_mismatch(tmp_path, impl):
    corpus(tmp_path, mlf=MLF.replace("300000 500000 b", "300000 600000 b"))
    with pytest.raises(ErrorBudgetExceeded, match=r"utterance 'u2' \(.*l\.scp:2\) has 5 frames, but "
                                                   r"its labels at .*l\.mlf:5 cover 6 frames"):
        source(tmp_path, impl)
    assert keys_read(source(tmp_path, impl, max_errors=1)) == ["u1", "u3"]


def test_utterance_missing_from_the_mlf(tmp_path, impl):
    corpus(tmp_path, mlf=MLF.replace('"u3.lab"\n0 500000 b\n.\n', ""))
    with pytest.raises(ErrorBudgetExceeded, match=r"utterance 'u3' \(.*l\.scp:3\) has no labels in "
                                                   r".*l\.mlf; the utterance is skipped"):
        source(tmp_path, impl)
    src = source(tmp_path, impl, max_errors=1)
    assert keys_read(src) == ["u1", "u2"] and src.deserializer.dropped_sequences == 1


def test_frame_mode_never_misaligns_after_skips(tmp_path, impl):
    corpus(tmp_path, mlf=MLF.replace("300000 500000 b", "300000 600000 b"))
    src = source(tmp_path, impl, max_errors=1, frame_mode=True)
    rows = []
    while mb := src.next_minibatch(3):
        rows += list(zip(mb["x"].values[:, 0].tolist(), mb["y"].values.indices.tolist()))
    assert rows == [(float(2 * f), 0) for f in range(5)] + [(float(2 * f), 1) for f in range(10, 15)]


def test_archive_changed_after_indexing(tmp_path, impl):
    corpus(tmp_path)
    src = source(tmp_path, impl)
    write_htk(tmp_path / "arch.htk", np.zeros((15, 2), np.float32))  # same size, new content
    os.utime(tmp_path / "arch.htk", ns=(1, 1))
    with pytest.raises(FileChangedError, match=r"arch\.htk: the HTK archive changed"):
        src.next_minibatch(100)


def test_join_builds_the_primary_table_once(tmp_path, impl):
    # check_join used to rebuild primary.table() (a copy of every length) per missing utterance.
    corpus(tmp_path, mlf='#!MLF!#\n"u1.lab"\n0 500000 a\n.\n')
    f = HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "l.scp"), shape=2)},
                               base_dir=tmp_path, trace_level=0, impl=impl)
    y = HTKMLFDeserializer(str(tmp_path / "s.list"), {"y": StreamDef(mlf=str(tmp_path / "l.mlf"),
                                                                     shape=2)},
                           max_errors=5, trace_level=0, impl=impl)
    calls = []
    table = f.table
    f.table = lambda: calls.append(1) or table()
    links = np.array([0, -1, -1], dtype=np.int64)
    keep = y.join(f, links)
    assert keep.tolist() == [True, False, False] and y.stats.skipped_utterances == 2
    assert len(calls) == 1


def test_nul_byte_in_an_archive_path_is_a_bad_scp_line(tmp_path, impl):
    """A NUL byte in a physical path raised a bare ``ValueError: embedded null byte`` from
    os.open; it is a malformed SCP line now: named, charged to max_errors, skipped."""
    corpus(tmp_path, SCP.replace("u2.mfc=arch.htk", "u2.mfc=ar\0ch.htk"))
    with pytest.raises(ErrorBudgetExceeded, match=r"l\.scp:2: the physical path contains a NUL "
                                                   r"byte \(\\x00\).*\n    u2\.mfc=ar\\x00ch"):
        source(tmp_path, impl)
    src = source(tmp_path, impl, max_errors=1)
    assert keys_read(src) == ["u1", "u3"]
    assert src.deserializer.parts[0].stats.skipped_utterances == 1
    (tmp_path / "l.scp").write_bytes(b"\x8f\x00\xff=\x01\x00[0,1]\n\x00\n")
    with pytest.raises(FormatError, match=r"l\.scp: no utterance to read: every line was "
                                          r"skipped \(2 skipped"):
        HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "l.scp"), shape=2)},
                               base_dir=tmp_path, max_errors=5, trace_level=0, impl=impl)
