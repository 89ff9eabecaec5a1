"""``minibatcher inspect`` for HTK/SCP/MLF files and ``convert`` HTK + MLF -> CTF."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from minibatcher import CTFDeserializer, StreamDef
from minibatcher.cli import main
from minibatcher.formats.htk import read_htk, write_htk

AN4 = Path(__file__).resolve().parents[1] / "data" / "an4"
SUBSET = AN4 / "subset"


def run_json(capsys, *argv: str) -> dict:
    assert main(["inspect", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_inspect_htk_scp_and_mlf(capsys, tmp_path, monkeypatch):
    r = run_json(capsys, str(SUBSET / "an4_subset.htk"))
    assert (r["format"], r["kind"], r["dim"], r["frames"], r["byte_order"]) == (
        "htk", "USER", 33, 1918, "big")
    r = run_json(capsys, str(SUBSET / "an4_subset.scp"), "--base-dir", str(SUBSET))
    assert (r["utterances"], r["frames"], r["archives"], r["problems"]) == (6, 1918, 1, 0)
    r = run_json(capsys, str(AN4 / "glob_0000.mlf"), "--labels", str(AN4 / "state.list"))
    assert (r["entries"], r["valid_entries"], r["frames"]) == (948, 948, 252734)
    write_htk(tmp_path / "a.htk", np.ones((4, 2), np.float32), kind="MFCC_E_D_K")
    (tmp_path / "l.scp").write_text("a.x=a.htk[0,3]\nb.x=a.htk[2,9]\nc.x=gone.htk[0,1]\nd.x=a.htk[2\n")
    monkeypatch.chdir(tmp_path)  # relative archive paths resolve against the working directory
    r = run_json(capsys, "l.scp")
    assert (r["utterances"], r["problems"]) == (1, 3)
    assert any("l.scp:2: frames [2,9] end past the end" in p for p in r["first_problems"])
    r = run_json(capsys, str(tmp_path / "a.htk"))
    assert (r["kind"], r["checksum"], r["problem"]) == ("MFCC_E_D_K", True, None)
    assert main(["inspect", str(tmp_path / "a.htk")]) == 0
    assert "kind: MFCC_E_D_K" in capsys.readouterr().out


def test_convert_to_ctf_reads_back_equal(capsys, tmp_path):
    out = tmp_path / "subset.ctf"
    assert main(["convert", str(SUBSET / "an4_subset.scp"), str(out), "--mlf",
                 str(SUBSET / "an4_subset.mlf"), "--labels", str(AN4 / "state.list"),
                 "--base-dir", str(SUBSET)]) == 0
    assert capsys.readouterr().out.strip() == "converted 6 sequences: scp -> ctf"
    ctf = CTFDeserializer(str(out), {"features": StreamDef(shape=33),
                                     "labels": StreamDef(shape=132, is_sparse=True)})
    chunk = ctf.load_chunk(0)
    frames, _ = read_htk(SUBSET / "an4_subset.htk")
    assert np.array_equal(chunk.streams[0].values, frames)  # float32 written exactly
    assert chunk.streams[0].sequence_offsets.tolist() == [0, 368, 806, 1224, 1692, 1770, 1918]
    assert out.read_text().splitlines()[0].endswith("|# An4/71/71/cen5-fjam-b")
    assert np.array_equal(chunk.streams[1].values, np.ones(1918, np.float32))


def test_relative_archive_paths_follow_one_rule(capsys, tmp_path, monkeypatch):
    # exp/lists/train.scp names feats/a.htk (relative) and .../b.htk (next to the SCP).
    # Relative paths resolve against base_dir: the config file's folder for a config, else the
    # working directory (CNTK's rule) in the Python API and the CLI alike.
    from minibatcher import HTKFeatureDeserializer, MinibatchSource
    from minibatcher.errors import ErrorBudgetExceeded

    exp = tmp_path / "exp"
    (exp / "lists").mkdir(parents=True)
    (exp / "feats").mkdir()
    write_htk(exp / "feats" / "a.htk", np.zeros((3, 2), np.float32))
    write_htk(exp / "lists" / "b.htk", np.ones((2, 2), np.float32))
    (exp / "lists" / "train.scp").write_text("a.x=feats/a.htk[0,2]\nb.x=.../b.htk[0,1]\n")
    (exp / "lists" / "train.mlf").write_text('#!MLF!#\n"a.lab"\n0 3 s 0\n.\n"b.lab"\n0 2 s 0\n.\n')
    (exp / "c.cntk").write_text(
        'r = [ reader = [ readerType = "HTKMLFReader"; readMethod = "none"\n'
        '  features = [ scpFile = "lists/train.scp"; dim = 2 ]\n'
        '  labels = [ mlfFile = "lists/train.mlf"; labelDim = 1 ] ] ]\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def python_api() -> list[int]:
        f = HTKFeatureDeserializer({"x": StreamDef(scp="lists/train.scp", shape=2)},
                                   trace_level=0)
        return f.table().lengths.tolist()

    monkeypatch.chdir(exp)
    assert python_api() == [3, 2]
    assert run_json(capsys, "lists/train.scp")["frames"] == 5
    assert main(["convert", "lists/train.scp", str(tmp_path / "o.ctf"), "--mlf",
                 "lists/train.mlf", "--label-dim", "1"]) == 0
    capsys.readouterr()
    monkeypatch.chdir(elsewhere)  # the config still reads from its own folder
    assert MinibatchSource.from_config(exp / "c.cntk", "r").sweep_size == 5
    r = run_json(capsys, str(exp / "lists" / "train.scp"))
    assert (r["frames"], r["problems"], r["base_dir"]) == (2, 1, str(elsewhere))
    assert f"relative archive paths resolve against {elsewhere} (the working directory" in \
        r["first_problems"][0] and "--base-dir DIR to change it" in r["first_problems"][0]
    assert run_json(capsys, str(exp / "lists" / "train.scp"), "--base-dir", str(exp))["frames"] == 5
    with pytest.raises(ErrorBudgetExceeded, match=r"cannot open archive .*feats/a\.htk.*; relative "
                                                   r"archive paths resolve against .*"
                                                   r"elsewhere \(the working directory.*"
                                                   r"pass base_dir=DIR to change it"):
        HTKFeatureDeserializer({"x": StreamDef(scp=str(exp / "lists" / "train.scp"), shape=2)},
                               trace_level=0)
    f = HTKFeatureDeserializer({"x": StreamDef(scp=str(exp / "lists" / "train.scp"), shape=2)},
                               base_dir="../exp", trace_level=0)  # '...' stays the SCP's folder
    assert f.table().lengths.tolist() == [3, 2]
