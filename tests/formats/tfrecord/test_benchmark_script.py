"""benchmarks/tfrecord.py's target table (no benchmark is run): a peer that is
not installed still gets its row, saying so."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("bench_tfrecord", BENCH / "tfrecord.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(BENCH))


def ours(bench) -> dict[str, float]:
    return {bench.BATCH: 5e6, bench.ITERATOR: 3e6, bench.INTERLEAVED: 2e6,
            "ours: Example batch decode (3 features)": 1e6}


def test_without_the_tfrecord_package_the_target_row_says_not_measured(bench) -> None:
    rows = bench.target_rows(ours(bench))
    row = [r for r in rows if r[0] == "record iterator vs tfrecord package"]
    assert row == [["record iterator vs tfrecord package",
                    "not measured (tfrecord not installed: pip install 'minibatcher[bench]')",
                    ">= 3x", "-", "-"]]
    assert rows[0][:4] == ["batch interface vs tf.data sequential", "4.2x", ">= 4x", "PASS"]


def test_with_the_tfrecord_package_both_ratios_are_shown(bench) -> None:
    med = {**ours(bench), bench.PEER: 1.5e6, bench.PEER_MIXED: 0.5e6}
    rows = {r[0]: r[1:] for r in bench.target_rows(med)}
    assert rows["record iterator vs tfrecord package"] == ["2.0x", ">= 3x", "MISS",
                                                           "measured now"]
    assert rows["TFRecordDataset interleave 16 vs tfrecord package mix"][0] == "4.0x"


def test_the_peer_readers_read_every_record(bench, tmp_path: Path) -> None:
    if bench._peer_reader() is None:
        pytest.skip("the tfrecord package is not installed")
    from minibatcher.formats.tfrecord import TFRecordWriter

    paths = []
    for i in range(3):
        paths.append(tmp_path / f"f{i}.tfrecord")
        with TFRecordWriter(paths[-1]) as w:
            w.write_many([b"x" * k for k in range(5 + i)])
    assert bench.peer_tfrecord(paths) == bench.peer_tfrecord_mixed(paths) == 18
    assert bench.ours_dataset(paths, 16) == bench.ours_iterator(paths) == 18
