"""The README's PyTorch DDP and JAX examples: shown verbatim, and they run as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("torchdata")
pytest.importorskip("jax")

from .test_torch_ddp import free_port  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = ["torch_ddp.py", "jax_multiprocess.py"]


@pytest.fixture(scope="module")
def train(tmp_path_factory):
    path = tmp_path_factory.mktemp("examples") / "train.ctf"
    subprocess.run([sys.executable, "examples/make_mnist_like.py", str(path), "1100"], cwd=REPO,
                   check=True, timeout=120)
    return path


def run_all(commands: list[list[str]], env: dict) -> list[str]:
    procs = [subprocess.Popen(c, cwd=REPO, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for c in commands]
    try:
        outputs = [p.communicate(timeout=240)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert all(p.returncode == 0 for p in procs), "\n".join(o[-3000:] for o in outputs)
    return outputs


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_readme_shows_the_example_verbatim(name):
    readme = (REPO / "README.md").read_text()
    block = re.search(rf"<!-- examples/{name} -->\n```python\n(.*?)```", readme, re.S)
    assert block, f"README.md should show examples/{name} after '<!-- examples/{name} -->'"
    assert block.group(1) == (REPO / "examples" / name).read_text()


def test_torch_ddp_example_runs_as_written(train, tmp_path):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
               "examples/torch_ddp.py", str(train), str(tmp_path / "ckpt")]
    out = run_all([command], env)[0]
    lines = re.findall(r"rank (\d) epoch (\d): (\d+) minibatches", out)
    # one 32 MiB chunk: CNTK's split gives rank 0 all 9 minibatches of 128 samples; equal work: 4 each
    assert sorted(lines) == [("0", "0", "4"), ("0", "1", "4"), ("1", "0", "4"), ("1", "1", "4")]
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["rank0.pt", "rank1.pt"]


def test_jax_example_runs_as_written(train):
    coordinator = f"127.0.0.1:{free_port()}"
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2")
    outs = run_all([[sys.executable, "examples/jax_multiprocess.py", str(train), coordinator, "2",
                     str(i)] for i in range(2)], env)
    for i, out in enumerate(outs):
        assert re.findall(rf"process {i} epoch (\d): (\d+) batches", out) == [("0", "4"), ("1", "4")]
