"""Two-rank DDP training (gloo, CPU) with DataLoader workers 0, 2 and 3, killed and resumed.

(torchdata's StatefulDataLoader under DDP: tests/adapters/test_examples.py runs the README's
example; its resume is tested in one process in test_torch_dataset.py.)"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("torch")

from minibatcher.adapters.balance import dropped  # noqa: E402

from .helpers import open_ctf, write_ctf  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SIZE, EPOCHS, WORLD, TIMEOUT = 24, 2, 2, 120


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_ctf(tmp_path_factory.mktemp("ddp") / "d.ctf", sequences=160, seed=3)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(data: Path, out: Path, workers: int, loader: str, pause_at: int = -1) -> list:
    out.mkdir(exist_ok=True)
    port, procs = free_port(), []
    for rank in range(WORLD):
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                   WORLD_SIZE=str(WORLD), LOCAL_RANK=str(rank), PYTHONPATH=str(REPO),
                   GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
        cmd = [sys.executable, "-m", "tests.adapters.ddp_job", "--data", str(data), "--out", str(out),
               "--workers", str(workers), "--size", str(SIZE), "--epochs", str(EPOCHS),
               "--pause-at", str(pause_at), "--loader", loader]
        procs.append(subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True, start_new_session=True))
    return procs


def kill(procs: list) -> None:
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # the rank and its DataLoader workers
        except ProcessLookupError:
            pass
    for p in procs:
        p.wait(timeout=30)


def finish(procs: list) -> None:
    try:
        outputs = [p.communicate(timeout=TIMEOUT)[0] for p in procs]
    except subprocess.TimeoutExpired:
        kill(procs)
        pytest.fail("the DDP job did not finish in time")
    if any(p.returncode for p in procs):
        kill(procs)
        pytest.fail("a rank failed:\n" + "\n".join(o[-3000:] for o in outputs))


def pause_and_kill(procs: list) -> None:
    """Waits until every rank paused after its checkpoint, then SIGKILLs them all."""
    try:
        for p in procs:
            deadline = time.monotonic() + TIMEOUT
            while (line := p.stdout.readline()) and "PAUSED" not in line:
                if time.monotonic() > deadline:
                    pytest.fail("a rank did not reach the pause")
            assert line, "a rank ended before its pause"
    finally:
        kill(procs)


def steps(out: Path, rank: int) -> dict[int, dict]:
    """The log of a rank by global step (a rerun after a kill overwrites the steps it redoes)."""
    lines = (out / f"log{rank}.jsonl").read_text().splitlines()
    return {e["step"]: e for e in map(json.loads, lines)}


def final(out: Path) -> list:
    return [json.loads((out / f"final{r}.json").read_text()) for r in range(WORLD)]


@pytest.fixture(scope="module")
def reference(data, tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "w0"
    finish(start(data, out, workers=0, loader="plain"))
    return out


def test_every_sample_once_per_epoch_and_equal_batches(data, reference):
    logs = [steps(reference, r) for r in range(WORLD)]
    assert logs[0].keys() == logs[1].keys()  # equal minibatch counts (the job also did not hang)
    for epoch in range(EPOCHS):
        source = open_ctf(str(data))
        partitions = []
        for rank in range(WORLD):
            source.start_epoch(epoch, num_data_partitions=WORLD, partition_index=rank)
            partitions.append([tuple(map(tuple, mb["x"].values.astype(int).tolist()))
                               for mb in iter(lambda: source.next_minibatch(SIZE, None, None, WORLD,
                                                                            rank), {})])
        assert len(partitions[0]) != len(partitions[1]), "CNTK's split should be unequal here"
        seen = Counter(tuple(map(tuple, e["rows"])) for log in logs for e in log.values()
                       if e["epoch"] == epoch)
        lost = Counter(partitions[p][i] for p, i in dropped([len(q) for q in partitions]))
        assert seen + lost == Counter(mb for q in partitions for mb in q)


def test_kill_and_resume_with_other_workers_gives_the_same_training(data, reference, tmp_path):
    """Two DataLoader workers, killed in the second epoch; a fresh job with three workers
    restores every rank from its dataset state: the same minibatches, the same model."""
    out = tmp_path / "killed"
    pause_at = len(steps(reference, 0)) * 2 // 3
    pause_and_kill(start(data, out, 2, "plain", pause_at=pause_at))
    assert json.loads((out / "ckpt0.json").read_text())["global_step"] == pause_at
    finish(start(data, out, 3, "plain"))  # a fresh job restoring from the checkpoints
    for rank in range(WORLD):
        assert steps(out, rank) == steps(reference, rank)
    assert final(out) == final(reference)
