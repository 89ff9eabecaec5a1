"""JAX global batches from a tfdata pipeline per process (GlobalBatches.from_pipeline):
a TFDS read split per process (split_for_jax_process) assembled over two processes,
and, in one process, the pipeline's own batches with a state before every batch that
restores exactly with any number of worker processes."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from minibatcher import tfds  # noqa: E402
from minibatcher.errors import ConfigError  # noqa: E402
from minibatcher.jax import GlobalBatches, PipelineGlobalBatches  # noqa: E402
from minibatcher.tfds.testing import write_dataset  # noqa: E402

from .test_torch_ddp import free_port  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def tfds_pipeline(folder: str, process_index: int | None, process_count: int | None,
                  local_batch: int = 4) -> object:
    """This process's part of a shuffled TFDS read, batched (the same on every process)."""
    split = tfds.split_for_jax_process("train", process_index=process_index,
                                      process_count=process_count, drop_remainder=True)
    rc = tfds.ReadConfig(shuffle_seed=3, interleave_cycle_length=2)
    return tfds.builder_from_directory(folder).as_dataset(
        split, shuffle_files=True, read_config=rc).shuffle(5, seed=1).batch(
        local_batch, drop_remainder=True)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> str:
    return str(write_dataset(tmp_path_factory.mktemp("jaxpipe"), {"train": [9, 4, 0, 11, 8]}))


def local(make, epoch: int) -> list:
    """The pipeline's own batches of iteration ``epoch``, read in this process."""
    pipeline = make()
    for _ in range(epoch):
        iter(pipeline)
    return [{k: v.tolist() for k, v in b.items()} for b in pipeline]


def test_two_processes_assemble_their_splits(folder, tmp_path):
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO), XLA_FLAGS="--xla_force_host_platform_device_count=2")
    outs = [tmp_path / f"p{i}.json" for i in range(2)]
    procs = [subprocess.Popen([sys.executable, "-m", "tests.adapters.jax_pipeline_job", folder,
                               str(port), str(i), str(outs[i])], cwd=REPO, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for i in range(2)]
    try:
        logs = [p.communicate(timeout=240)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert all(p.returncode == 0 for p in procs), "\n".join(log[-3000:] for log in logs)
    parts = [local(functools.partial(tfds_pipeline, folder, i, 2), 1) for i in range(2)]
    assert len(parts[0]) == len(parts[1]) > 3
    expected = [{k: p0[k] + p1[k] for k in p0} for p0, p1 in zip(*parts)]
    for r in (json.loads(o.read_text()) for o in outs):
        assert r["steps"] == expected and r["resumed"] == expected[2:]


@pytest.mark.threads_in_process
@pytest.mark.parametrize("workers", [0, 2])
def test_one_process_gives_the_pipeline_s_batches_and_resumes_before_every_batch(folder,
                                                                                 workers):
    make = functools.partial(tfds_pipeline, folder, 0, 1)
    batches = GlobalBatches.from_pipeline(make, num_workers=workers)
    others = {n: GlobalBatches.from_pipeline(make, num_workers=n) for n in (0, 1)}
    try:
        assert isinstance(batches, PipelineGlobalBatches)
        batches.set_epoch(2)
        states, got = [], []
        it = iter(batches)
        while True:
            states.append(json.loads(json.dumps(batches.get_state())))
            try:
                b = next(it)
            except StopIteration:
                break
            assert isinstance(b["id"], jax.Array) and b["id"].shape == (4,)
            got.append({k: np.asarray(v).tolist() for k, v in b.items()})
        assert got == local(make, 2) and len(got) == 8
        for k, state in enumerate(states):
            other = others[k % 2]
            other.set_state(state)
            assert [{n: np.asarray(v).tolist() for n, v in b.items()} for b in other] == got[k:]
    finally:
        batches.close()
        for o in others.values():
            o.close()


@pytest.mark.threads_in_process
def test_strings_and_scalars_are_refused_by_name(folder):
    def ids():
        rc = tfds.ReadConfig(add_tfds_id=True)
        return tfds.builder_from_directory(folder).as_dataset("train", read_config=rc).batch(2)

    with pytest.raises(ConfigError, match=r"\['tfds_id'\] holds strings"):
        next(iter(GlobalBatches.from_pipeline(ids)))
    scalars = GlobalBatches.from_pipeline(functools.partial(lambda: tfds.builder_from_directory(
        folder).as_dataset("train")))
    with pytest.raises(ConfigError, match="scalar; global batches need a leading batch axis"):
        next(iter(scalars))
