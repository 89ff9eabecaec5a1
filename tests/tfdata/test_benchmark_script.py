"""benchmarks/tfdata.py's tables and measuring loop (no benchmark is run): only a
peer that is absent gives "not measured", a contender that fails fails the run,
and the Pillow map is shown with both executors."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("bench_tfdata", BENCH / "tfdata.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module, sys.modules["_tfdata_table"]
    finally:
        sys.path.remove(str(BENCH))


OURS = {"ours: pipeline": 200e3, "ours: vectorized": 300e3, "ours: records": 3e6,
        "ours: batch(4096)": 4e6, "ours: map npc=1 threads": 10e3,
        "ours: map npc=2 threads": 15e3, "ours: map npc=2 processes": 9e3}


def rows_of(table, med: dict[str, float]) -> dict[str, list[str]]:
    return {r[0]: r[1:] for r in table.target_rows(med, SimpleNamespace(firsts={}))}


def test_an_absent_peer_is_not_measured_and_says_which(bench) -> None:
    _, table = bench
    rows = rows_of(table, {**OURS, "tfrecord package": 1e6})
    assert rows["PipelineDataset(num_workers=2) vs 0"][-1] == "not measured (torch absent)"
    assert rows["vectorized: batch(256).map(parse_example) vs tf.data"][-1] == \
        "not measured (TensorFlow absent)"
    assert rows["TFRecordDataset record by record vs tfrecord package"][2:] == \
        ["3.00x", ">= 3x", "PASS"]


def test_the_pillow_map_is_shown_with_both_executors(bench) -> None:
    _, table = bench
    rows = rows_of(table, OURS)
    target = [v for k, v in rows.items() if k.startswith("Pillow map num_parallel_calls=2") and
              v[3] != "-"]
    other = [v for k, v in rows.items() if k.startswith("Pillow map num_parallel_calls=2") and
             v[3] == "-"]
    assert len(target) == len(other) == 1
    assert target[0][-1] in ("PASS", "MISS") and other[0][-1] == "(for comparison)"


def test_a_contender_that_fails_fails_the_run(bench, monkeypatch: pytest.MonkeyPatch) -> None:
    # a TypeError inside a contender used to print "not measured" (as if the peer were absent)
    script, _ = bench
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed: its rows are not measured")

    def broken(path: str, workers: int) -> int:
        raise TypeError("a real bug, not an absent peer")

    monkeypatch.setattr(script.ours, "run_loader", broken)
    monkeypatch.setattr(script, "_warm_jpegs", lambda *a: (lambda: (0, None)))
    args = SimpleNamespace(tf_python=None)
    runs = script.contenders(args, [], None, "unused.tfrecord")
    with pytest.raises(TypeError, match="a real bug"):
        script.measure({"ours: PipelineDataset 2 workers":
                        runs["ours: PipelineDataset 2 workers"]}, 1)
