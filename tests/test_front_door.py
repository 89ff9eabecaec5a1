"""Issue 16, item 4 and the Python entry: ``minibatcher.open``, sequence names on
minibatches, the warning for a worker without data, and two corrected messages."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

import minibatcher
from minibatcher import (CTFDeserializer, HTKFeatureDeserializer, HTKMLFDeserializer,
                         MinibatchSource, StreamDef)
from minibatcher.errors import ErrorBudgetExceeded
from minibatcher.formats.htk import write_htk

DATA = Path(__file__).resolve().parent / "data"
SUBSET = DATA / "an4" / "subset"


@pytest.fixture
def speech(tmp_path: Path) -> tuple[HTKFeatureDeserializer, HTKMLFDeserializer]:
    write_htk(tmp_path / "a.htk", np.arange(14, dtype=np.float32).reshape(7, 2))
    (tmp_path / "a.scp").write_text("spk/u1.mfc=a.htk[0,2]\nspk/u2.mfc=a.htk[3,4]\nu3=a.htk[5,6]\n")
    (tmp_path / "a.mlf").write_text('#!MLF!#\n"*/spk/u1.lab"\n0 3 s 0\n.\n"spk/u2.lab"\n0 2 s 1\n'
                                    '.\n"u3.lab"\n0 2 s 0\n.\n')
    return (HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "a.scp"), shape=2)},
                                   base_dir=tmp_path),
            HTKMLFDeserializer(None, {"y": StreamDef(mlf=str(tmp_path / "a.mlf"), shape=2)}))


@pytest.mark.parametrize("mode", [{}, {"frame_mode": True}, {"truncation_length": 2}])
def test_minibatches_carry_the_utterance_names(speech, mode: dict) -> None:
    source = MinibatchSource(list(speech), randomize=False, max_sweeps=1, **mode)
    names = {"x": [], "y": []}
    for mb in source.minibatches(3):
        for stream in names:
            assert len(mb[stream].names) == len(mb[stream].keys)
            names[stream] += mb[stream].names
    assert names["x"] == names["y"]
    assert list(dict.fromkeys(names["x"])) == ["spk/u1", "spk/u2", "u3"]


def test_key_names_and_a_clear_error_for_a_key_given_to_key_name(speech) -> None:
    features, _ = speech
    keys = features.table().keys
    assert features.key_names(keys[::-1]) == ["u3", "spk/u2", "spk/u1"]
    assert features.key_name(1) == "spk/u2"
    with pytest.raises(IndexError, match=r"key_name takes a sequence index in \[0, 3\), but got "
                                         r"\d+; for the name of a key .* use key_names\(\[key\]\)"):
        features.key_name(int(keys[0]))  # was: cannot fit 'int' into an index-sized integer


def test_readers_whose_keys_are_names_give_none(tmp_path: Path) -> None:
    (tmp_path / "d.ctf").write_text("7 |x 1\n9 |x 2\n")
    source = MinibatchSource(CTFDeserializer(tmp_path / "d.ctf", {"x": StreamDef(shape=1)}),
                             randomize=False, max_sweeps=1)
    mb = source.next_minibatch(2)
    assert mb["x"].names is None and mb["x"].keys.tolist() == [7, 9]


def test_a_worker_without_data_is_warned_with_the_fix(tmp_path: Path, caplog) -> None:
    (tmp_path / "one.ctf").write_text("".join(f"|x {i}\n" for i in range(6)))  # one chunk

    def first(rank: int, **options) -> dict:
        d = CTFDeserializer(tmp_path / "one.ctf", {"x": StreamDef(shape=1)}, **options)
        return MinibatchSource(d, num_workers=2, worker_rank=rank, max_sweeps=1).next_minibatch(6)

    with caplog.at_level(logging.WARNING, logger="minibatcher"):
        assert first(0) and not caplog.records
        assert first(1) == {}
    (record,) = caplog.records
    assert record.levelname == "WARNING" and record.name.startswith("minibatcher")
    assert "worker_rank=1 of num_workers=2 gets no data in sweep 0" in record.message
    assert "(0 of 6 samples; the largest share is 6)" in record.message
    assert "Use smaller chunks (chunk_size_in_bytes=" in record.message
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="minibatcher"):
        assert first(1, chunk_size_in_bytes=8)  # several chunks: every worker has a share
    assert not caplog.records


def test_the_cli_prints_warnings_in_its_words(tmp_path: Path, capsys) -> None:
    from minibatcher.cli import main

    write_htk(tmp_path / "a.htk", np.ones((4, 2), np.float32))
    (tmp_path / "a.scp").write_text("u1=a.htk[0,3]\nu2=a.htk[2,9]\n")
    assert main(["cat", str(tmp_path / "a.scp"), "--base-dir", str(tmp_path), "--max-errors",
                 "1"]) == 0
    err = capsys.readouterr().err
    assert "minibatcher: WARNING: " in err and "frames [2,9] end past the end" in err
    assert "(error 1 of --max-errors 1; skipped)" in err and "max_errors" not in err


def test_missing_archive_error_has_no_max_errors_advice(tmp_path: Path) -> None:
    (tmp_path / "l.scp").write_text("u1=feats/a.htk[0,3]\n")
    with pytest.raises(ErrorBudgetExceeded) as e:
        HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "l.scp"), shape=2)},
                               trace_level=0)
    assert "cannot open archive" in str(e.value) and "max_errors" not in str(e.value)
    write_htk(tmp_path / "b.htk", np.ones((4, 2), np.float32))  # other problems keep the advice
    (tmp_path / "m.scp").write_text("u1=b.htk[0,9]\n")
    with pytest.raises(ErrorBudgetExceeded, match="Use max_errors=N with a larger N"):
        HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "m.scp"), shape=2)},
                               base_dir=tmp_path, trace_level=0)


def test_config_base_dir_message_names_its_origin(tmp_path: Path) -> None:
    """Issue 16: "base_dir=... (given as base_dir)" when the user gave none."""
    (tmp_path / "l.scp").write_text("u1=feats/a.htk[0,3]\n")
    (tmp_path / "c.cntk").write_text(
        'r = [ reader = [ readerType = "HTKMLFReader"; readMethod = "none"\n'
        '  features = [ scpFile = "l.scp"; dim = 2 ]\n'
        '  labels = [ mlfFile = "l.mlf"; labelDim = 1 ] ] ]\n')
    (tmp_path / "l.mlf").write_text('#!MLF!#\n"u1.lab"\n0 4 s 0\n.\n')
    with pytest.raises(ErrorBudgetExceeded) as e:
        MinibatchSource.from_config(tmp_path / "c.cntk", "r")
    assert f"resolve against {tmp_path} (the config file's folder); pass base_dir=DIR" in \
        str(e.value)
    assert "base_dir=" + str(tmp_path) not in str(e.value) and "CLI" not in str(e.value)
    with pytest.raises(ErrorBudgetExceeded, match=rf"resolve against base_dir={tmp_path}; pass "
                       "another base_dir=DIR"):
        MinibatchSource.from_config(tmp_path / "c.cntk", "r", base_dir=tmp_path)


def test_open_gives_each_formats_reader(tmp_path: Path) -> None:
    assert type(minibatcher.open(SUBSET / "an4_subset.scp", base_dir=SUBSET)).__name__ == \
        "HTKFeatureDeserializer"
    labels = minibatcher.open(SUBSET / "an4_subset.mlf", labels=DATA / "an4" / "state.list")
    assert labels.table().num_sequences == 6 and labels.streams[0].dim == 132
    frames, info = minibatcher.open(SUBSET / "an4_subset.htk")
    assert frames.shape == (1918, 33) and info.kind_name == "USER"
    gz = minibatcher.open(DATA / "tf_golden/tfrecord/records.gzip.tfrecord")  # found: GZIP
    assert list(gz) == list(minibatcher.open(DATA / "tf_golden/tfrecord/records.tfrecord"))
    builder = minibatcher.open(DATA / "tfds_golden/text/text/1.0.0")
    assert builder.info.splits["train"].num_examples == 15
    lines = list(minibatcher.open(DATA / "tfds_golden/text.txt"))
    assert lines[:2] == [b"ein kleiner Satz", b""]
    assert minibatcher.detect_format(DATA / "tfds_golden/ctf.ctf").format == "ctf"
    with pytest.raises(minibatcher.ConfigError, match="an MLF needs labels="):
        minibatcher.open(SUBSET / "an4_subset.mlf")
