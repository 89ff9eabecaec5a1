"""JAX: global batches (one process here; two processes with a local coordinator) and
Grain's random-access protocol."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from minibatcher import CTFDeserializer, MinibatchSource, StreamDef  # noqa: E402
from minibatcher.adapters.position import Layout  # noqa: E402
from minibatcher.adapters.rank_reader import RankReader  # noqa: E402
from minibatcher.errors import ConfigError  # noqa: E402
from minibatcher.jax import GlobalBatches, ctf_data_source, pad_local  # noqa: E402

from .helpers import factory, write_ctf  # noqa: E402
from .test_torch_ddp import free_port  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_ctf(tmp_path_factory.mktemp("jax") / "d.ctf", sequences=120, seed=5, sparse=True)


def expected_global(data, epoch, world=2, size=16):
    """Each step's global batch from every rank's stream, read locally."""
    parts = []
    for rank in range(world):
        rr = RankReader(factory(data), Layout(world, rank, size, True))
        rr.set_epoch(epoch)
        parts.append([pad_local(mb, {"x": size // world}, False) for mb in rr.minibatches()])
    assert len(parts[0]) == len(parts[1])
    return [{k: np.concatenate([p[t][k] for p in parts]).tolist() for k in parts[0][t]}
            for t in range(len(parts[0]))]


def test_two_processes_assemble_the_global_batches(data, tmp_path):
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO), XLA_FLAGS="--xla_force_host_platform_device_count=2")
    outs = [tmp_path / f"p{i}.json" for i in range(2)]
    procs = [subprocess.Popen([sys.executable, "-m", "tests.adapters.jax_job", str(data), str(port),
                               str(i), str(outs[i])], cwd=REPO, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for i in range(2)]
    try:
        logs = [p.communicate(timeout=180)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert all(p.returncode == 0 for p in procs), "\n".join(log[-3000:] for log in logs)
    expected = expected_global(data, epoch=1)
    results = [json.loads(o.read_text()) for o in outs]
    for r in results:
        assert r["steps"] == expected and r["count"] == len(expected)
        assert r["resumed"] == expected[3:]


@pytest.mark.threads_in_process
def test_one_process_batches_padding_and_resume(data):
    batches = GlobalBatches(factory(data), 12)
    batches.set_epoch(2)
    got = [{k: np.asarray(v) for k, v in b.items()} for b in batches]
    rr = RankReader(factory(data), Layout(1, 0, 12, True))
    rr.set_epoch(2)
    want = list(rr.minibatches())
    assert len(got) == len(want) == len(batches)
    for g, w in zip(got, want):
        n = w["x"].num_samples
        assert g["x"].shape == (12, 2) and (g["x"][:n] == w["x"].values).all() and not g["x"][n:].any()
        assert (g["x_segment_ids"][:n] == np.repeat(np.arange(1, len(w["x"].lengths) + 1),
                                                    w["x"].lengths)).all()
        assert not g["x_segment_ids"][n:].any()
    assert "y" not in got[0]
    batches.set_epoch(2)
    it = iter(batches)
    next(it), next(it)
    state = batches.get_state()
    fresh = GlobalBatches(factory(data), 12)
    fresh.set_state(state)
    assert [np.asarray(b["x"]).tolist() for b in fresh] == [g["x"].tolist() for g in got[2:]]


@pytest.mark.threads_in_process
def test_sparse_streams_need_densify_and_long_sequences_need_rows(data):
    sparse = GlobalBatches(factory(data, sparse=True), 12)
    with pytest.raises(ConfigError, match="densify_sparse=True"):
        next(iter(sparse))
    dense = next(iter(GlobalBatches(factory(data, sparse=True), 12, densify_sparse=True)))
    assert dense["y"].shape == (12, 5)
    with pytest.raises(ConfigError, match="has 3 samples in this minibatch, but rows"):
        next(iter(GlobalBatches(factory(data, randomize=False), 2)))
    with pytest.raises(ConfigError, match="multiple of the process count 2"):
        GlobalBatches(factory(data), 15, process_index=0, process_count=2)


def test_grain_data_source_reads_every_sequence_by_index(data, tmp_path):
    streams = {"x": StreamDef(shape=2), "y": StreamDef(shape=5, is_sparse=True)}
    source = ctf_data_source(data, streams)
    whole = CTFDeserializer(str(data), streams).load_chunk(0)
    assert len(source) == whole.num_sequences == 120
    for i in [0, 1, 57, 119, -1, 3, 57]:
        record, j = source[i], i % 120
        rows = whole.streams[0].sequence_slice(j)
        assert record["key"] == j and (record["x"] == whole.streams[0].values[rows]).all()
        y = record["y"]
        assert y.shape == (rows.stop - rows.start, 5)
        assert y.toarray()[:, :].nonzero()[1].tolist() == [(j + r) % 5 for r in range(len(y.indptr) - 1)]
    clone = pickle.loads(pickle.dumps(source))
    assert clone[57]["x"].tolist() == source[57]["x"].tolist()
    with pytest.raises(IndexError, match="record_key should be in"):
        source[120]
    sequential = MinibatchSource(CTFDeserializer(str(data), streams), randomize=False, max_sweeps=1)
    keys = [int(k) for mb in sequential.minibatches(50) for k in mb["x"].keys]
    assert keys == [source[i]["key"] for i in range(len(source))]
