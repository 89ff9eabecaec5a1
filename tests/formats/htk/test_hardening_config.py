"""Issue 15 items 4 and 11 (HTK parts): a truncation longer than the corpus and a context window
of 99999999999 frames are configuration errors at construction, never a hang or a petabyte
allocation at the first minibatch."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher import HTKFeatureDeserializer, MinibatchSource, StreamDef
from minibatcher.errors import ConfigError
from minibatcher.formats.htk import write_htk

MLF = '#!MLF!#\n"u.lab"\n0 300000 a\n300000 500000 b\n.\n"v.lab"\n0 300000 b\n.\n'


@pytest.fixture
def folder(tmp_path):
    write_htk(tmp_path / "a.htk", np.arange(16, dtype=np.float32).reshape(8, 2))
    (tmp_path / "l.scp").write_text("u.mfc=a.htk[0,4]\nv.mfc=a.htk[5,7]\n")
    (tmp_path / "l.mlf").write_text(MLF)
    (tmp_path / "s.list").write_text("a\nb\n")
    return tmp_path


def legacy(folder, extra: str = "", features: str = "dim = 2") -> MinibatchSource:
    (folder / "c.cntk").write_text(
        f'r = [ reader = [ readerType = "HTKMLFReader"; frameMode = false; {extra}\n'
        f'features = [ scpFile = "l.scp"; {features} ]\n'
        'labels = [ mlfFile = "l.mlf"; labelMappingFile = "s.list"; labelDim = 2 ] ] ]')
    return MinibatchSource.from_config(folder / "c.cntk", "r")


def features(folder, **stream) -> HTKFeatureDeserializer:
    return HTKFeatureDeserializer({"x": StreamDef(scp=str(folder / "l.scp"), **stream)},
                                  base_dir=folder, trace_level=0)


def test_a_truncation_longer_than_the_corpus_is_refused(folder):
    with pytest.raises(ConfigError, match=r"option truncation_length should be at most the samples "
                                          r"of one sweep \(8\), but got "
                                          r"truncation_length=999999999999"):
        legacy(folder, "truncated = true; truncationLength = 999999999999")
    with pytest.raises(ConfigError, match=r"truncation_length=10000000;"):
        MinibatchSource(features(folder, shape=2), truncation_length=10**7)


def test_a_truncation_within_the_corpus_still_reads(folder):
    source = MinibatchSource(features(folder, shape=2), truncation_length=8, randomize=False)
    mb = source.next_minibatch(8)
    assert mb["x"].values.reshape(-1, 2)[:, 0].tolist() == list(range(0, 16, 2))
    assert legacy(folder, "truncated = true; truncationLength = 3").next_minibatch(3)


@pytest.mark.parametrize("window, given", [("99999999999", "49999999999:49999999999"),
                                           ("0:10001", "0:10001")])
def test_a_huge_context_window_is_a_config_error(folder, window, given):
    with pytest.raises(ConfigError, match=rf"option contextWindow \(.*c\.cntk.*\) should be at most "
                                          rf"10000 frames on each side, but got "
                                          rf"contextWindow={given}"):
        legacy(folder, features=f"dim = 2; contextWindow = {window}")


def test_a_huge_context_is_refused_by_the_api(folder):
    with pytest.raises(ConfigError, match=r"option context should be at most 10000 frames on each "
                                          r"side, but got context=\(99999999999, 0\)"):
        features(folder, shape=2, context=(99999999999, 0))
    with pytest.raises(ConfigError, match=r"but got shape=400042 \(200021 frames of 2 values\)"):
        features(folder, shape=400042)
    assert features(folder, shape=2, context=(10000, 10000)).streams[0].dim == 2 * 20001
