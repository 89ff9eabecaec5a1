"""benchmarks/htk.py's tables: the kaldiio rows and the peak-RSS check (no benchmark is run)."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"


@pytest.fixture(scope="module")
def htk():
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("htk")
    finally:
        sys.path.remove(str(BENCH))


def test_peers_without_kaldiio_say_not_installed(htk):
    fps = {f"{c}/{m}": 1e6 for m in ("sequence", "frame")
           for c in ("ours", "ours+labels", "numpy", "per_utterance")}
    rows = htk.speed_rows(fps)
    assert ["frame", "kaldiio: frames/s", "not installed", "", ""] in rows
    fps.update({"kaldiio/sequence": 2.5e5, "kaldiio/frame": 5e5})
    rows = htk.speed_rows(fps)
    assert ["sequence", "speedup vs kaldiio", "4.00x", ">= 3x", "PASS"] in rows
    assert ["frame", "speedup vs kaldiio", "2.00x", ">= 3x", "MISS"] in rows


def test_peak_rss_is_checked_against_the_window_bound(htk):
    # Two chunks: 90,001 frames (closes past 90,000), then 500; the largest has 90,001 frames.
    info = {"lengths": [90_001, 500]}
    args = argparse.Namespace(window=2)
    mib = 2**20
    probe = {"index_bytes": 10 * mib, "bytes_per_frame": 160.0}
    res = {"probe ours/frame": [probe], "probe ours+labels/frame": [probe],
           "ours/frame": [{"ahead": 2, "peak_rss": 100 * mib, "baseline_rss": 30 * mib}],
           "ours+labels/frame": [{"ahead": 2, "peak_rss": 300 * mib, "baseline_rss": 30 * mib}]}
    rows = htk.rss_rows(info, args, res)
    bound = 10 * mib + 1.5 * (2 + 2) * 90_001 * 160  # index + 1.5 x (window + ahead) x chunk
    assert rows[0][2:] == ["70.0 MiB", f"<= {bound / mib:.1f} MiB", "PASS"]
    assert rows[1][2:] == ["270.0 MiB", f"<= {bound / mib:.1f} MiB", "MISS"]
