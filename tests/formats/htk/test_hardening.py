"""Issue 15 items 3, 5, 11 and 12 (HTK parts): 0-frame utterances, header-only MLF files,
byte order marks, ``_C`` files with a zero scale. Each ends in a clear error or a counted skip,
never a loop, a crash or inf values."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher import HTKFeatureDeserializer, HTKMLFDeserializer, MinibatchSource, StreamDef
from minibatcher.errors import ErrorBudgetExceeded, FormatError
from minibatcher.formats.htk import write_htk
from minibatcher.formats.htk.htkfile import read_htk

MLF = '#!MLF!#\n"u.lab"\n0 300000 a\n300000 500000 b\n.\n"v.lab"\n0 300000 b\n.\n'


def files(tmp_path, scp: str, mlf: str = MLF) -> None:
    write_htk(tmp_path / "z.htk", np.zeros((0, 2), np.float32))
    write_htk(tmp_path / "a.htk", np.arange(10, dtype=np.float32).reshape(5, 2))
    write_htk(tmp_path / "b.htk", -np.arange(6, dtype=np.float32).reshape(3, 2))
    (tmp_path / "l.scp").write_text(scp)
    (tmp_path / "l.mlf").write_text(mlf)
    (tmp_path / "s.list").write_text("a\nb\n")


def features(tmp_path, impl: str, max_errors: int = 0) -> HTKFeatureDeserializer:
    return HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "l.scp"), shape=2)},
                                  base_dir=tmp_path, max_errors=max_errors, trace_level=0,
                                  impl=impl)


def labels(tmp_path, impl: str, mlf=None) -> HTKMLFDeserializer:
    mlf = mlf or str(tmp_path / "l.mlf")
    return HTKMLFDeserializer(str(tmp_path / "s.list"), {"y": StreamDef(mlf=mlf, shape=2)},
                              trace_level=0, impl=impl)


def frames_read(src: MinibatchSource, limit: int = 20) -> list[int]:
    """The frame counts of every minibatch until the end (at most ``limit`` minibatches)."""
    counts = []
    for _ in range(limit):
        mb = src.next_minibatch(2)
        if not mb:
            return counts
        counts.append(int(mb["x"].num_samples))
    raise AssertionError(f"more than {limit} minibatches for 8 frames: {counts}")


@pytest.mark.parametrize("scp", [
    "z.mfc=z.htk\nu.mfc=a.htk\nv.mfc=b.htk\n",   # first
    "u.mfc=a.htk\nz.mfc=z.htk\nv.mfc=b.htk\n",   # mid-list
    "u.mfc=a.htk\nv.mfc=b.htk\nz.mfc=z.htk\n",   # last
])
@pytest.mark.parametrize("joined", [False, True])
@pytest.mark.parametrize("randomize", [False, True])
def test_a_zero_frame_utterance_is_skipped_and_counted(tmp_path, impl, scp, joined, randomize):
    files(tmp_path, scp)
    feat = features(tmp_path, impl, max_errors=1)
    assert feat.table().lengths.tolist() == [5, 3]
    assert (feat.stats.errors, feat.stats.skipped_utterances) == (1, 1)
    parts = [feat, labels(tmp_path, impl)] if joined else feat
    src = MinibatchSource(parts, max_sweeps=1, randomize=randomize)
    assert sum(frames_read(src)) == 8


def test_a_zero_frame_utterance_is_charged_to_the_budget(tmp_path, impl):
    files(tmp_path, "z.mfc=z.htk\nu.mfc=a.htk\n")
    with pytest.raises(ErrorBudgetExceeded, match=r"l\.scp:1: the archive .*z\.htk' has no frames "
                                                  r"\(an utterance of 0 frames is skipped"):
        features(tmp_path, impl)


@pytest.mark.parametrize("order", [("h", "l"), ("l", "h"), ("h", "l", "h")])
def test_a_header_only_mlf_file_in_a_list(tmp_path, impl, order):
    files(tmp_path, "u.mfc=a.htk\nv.mfc=b.htk\n")
    (tmp_path / "h.mlf").write_text("#!MLF!#\n")
    m = labels(tmp_path, impl, [str(tmp_path / f"{name}.mlf") for name in order])
    assert m.table().lengths.tolist() == [5, 3]
    assert m.load_chunk(0).streams[0].indices.tolist() == [0, 0, 0, 1, 1, 1, 1, 1]


def test_a_bom_is_stripped_from_scp_and_mlf_files(tmp_path, impl):
    files(tmp_path, "\ufeffu.mfc=a.htk\nv.mfc=b.htk\n", "\ufeff" + MLF)
    (tmp_path / "l.scp").write_text("\ufeffu.mfc=a.htk\nv.mfc=b.htk\n", encoding="utf-8")
    (tmp_path / "l.mlf").write_text("\ufeff" + MLF, encoding="utf-8")
    (tmp_path / "s.list").write_text("\ufeffa\nb\n", encoding="utf-8")
    feat = features(tmp_path, impl)
    assert [feat.key_name(i) for i in range(2)] == ["u", "v"]
    src = MinibatchSource([feat, labels(tmp_path, impl)], max_sweeps=1, randomize=False)
    assert sum(frames_read(src)) == 8


def zero_scale(tmp_path, value: float = 0.0) -> None:
    """A ``_C`` file whose scale (A) of value 1 is ``value``."""
    write_htk(tmp_path / "a.htk", np.arange(10, dtype=np.float32).reshape(5, 2), kind="USER_C")
    data = bytearray((tmp_path / "a.htk").read_bytes())
    data[16:20] = np.array([value], ">f4").tobytes()  # header (12 bytes), A[0], A[1]
    (tmp_path / "a.htk").write_bytes(bytes(data))
    (tmp_path / "l.scp").write_text("u.mfc=a.htk\n")


@pytest.mark.parametrize("value", [0.0, float("inf"), float("nan")])
def test_a_compressed_file_with_a_zero_scale_is_refused(tmp_path, impl, value):
    zero_scale(tmp_path, value)
    with pytest.raises(ErrorBudgetExceeded, match=r"archive .*a\.htk': the _C \(compressed\) file "
                                                  r"has a scale \(A\) of .* for value 1 of 2"):
        features(tmp_path, impl)
    with pytest.raises(FormatError, match=r"a\.htk: the _C \(compressed\) file has a scale"):
        read_htk(tmp_path / "a.htk", impl=impl)


def test_a_compressed_file_with_good_scales_still_reads(tmp_path, impl):
    zero_scale(tmp_path, 2.0)
    assert np.isfinite(read_htk(tmp_path / "a.htk", impl=impl)[0]).all()
