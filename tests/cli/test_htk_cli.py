"""``minibatcher inspect`` for HTK/SCP/MLF files and ``convert`` HTK + MLF -> CTF."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from minibatcher import CTFDeserializer, StreamDef
from minibatcher.cli import main
from minibatcher.formats.htk import read_htk, write_htk

AN4 = Path(__file__).resolve().parents[1] / "data" / "an4"
SUBSET = AN4 / "subset"


def run_json(capsys, *argv: str) -> dict:
    assert main(["inspect", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_inspect_htk_scp_and_mlf(capsys, tmp_path):
    r = run_json(capsys, str(SUBSET / "an4_subset.htk"))
    assert (r["format"], r["kind"], r["dim"], r["frames"], r["byte_order"]) == (
        "htk", "USER", 33, 1918, "big")
    r = run_json(capsys, str(SUBSET / "an4_subset.scp"))
    assert (r["utterances"], r["frames"], r["archives"], r["problems"]) == (6, 1918, 1, 0)
    r = run_json(capsys, str(AN4 / "glob_0000.mlf"), "--labels", str(AN4 / "state.list"))
    assert (r["entries"], r["valid_entries"], r["frames"]) == (948, 948, 252734)
    write_htk(tmp_path / "a.htk", np.ones((4, 2), np.float32), kind="MFCC_E_D_K")
    (tmp_path / "l.scp").write_text("a.x=a.htk[0,3]\nb.x=a.htk[2,9]\nc.x=gone.htk[0,1]\nd.x=a.htk[2\n")
    r = run_json(capsys, str(tmp_path / "l.scp"))
    assert (r["utterances"], r["problems"]) == (1, 3)
    assert any("l.scp:2: frames [2,9] end past the end" in p for p in r["first_problems"])
    r = run_json(capsys, str(tmp_path / "a.htk"))
    assert (r["kind"], r["checksum"], r["problem"]) == ("MFCC_E_D_K", True, None)
    assert main(["inspect", str(tmp_path / "a.htk")]) == 0
    assert "kind: MFCC_E_D_K" in capsys.readouterr().out


def test_convert_to_ctf_reads_back_equal(capsys, tmp_path):
    out = tmp_path / "subset.ctf"
    assert main(["convert", str(SUBSET / "an4_subset.scp"), str(out), "--mlf",
                 str(SUBSET / "an4_subset.mlf"), "--labels", str(AN4 / "state.list")]) == 0
    assert capsys.readouterr().out.strip() == "converted 6 sequences: scp -> ctf"
    ctf = CTFDeserializer(str(out), {"features": StreamDef(shape=33),
                                     "labels": StreamDef(shape=132, is_sparse=True)})
    chunk = ctf.load_chunk(0)
    frames, _ = read_htk(SUBSET / "an4_subset.htk")
    assert np.array_equal(chunk.streams[0].values, frames)  # float32 written exactly
    assert chunk.streams[0].sequence_offsets.tolist() == [0, 368, 806, 1224, 1692, 1770, 1918]
    assert out.read_text().splitlines()[0].endswith("|# An4/71/71/cen5-fjam-b")
    assert np.array_equal(chunk.streams[1].values, np.ones(1918, np.float32))
