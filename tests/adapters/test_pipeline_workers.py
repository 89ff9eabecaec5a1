"""PipelineDataset(num_workers=N): N worker processes of its own (N = 1..3, for a
pipeline over views and one without random access) give the elements of
num_workers=0 in the same order and epochs; the state_dict before every element
restores the exact rest with any other N; a killed worker (kill -9) is an error and
the state stays exact."""

from __future__ import annotations

import functools
import json
import os
import signal

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.utils.data import DataLoader  # noqa: E402

from minibatcher.adapters.pipeline_workers import PipelineReader, WorkerDied  # noqa: E402
from minibatcher.errors import ConfigError  # noqa: E402
from minibatcher.torch import PipelineDataset  # noqa: E402

from .worker_pipelines import arrays, pipeline  # noqa: E402

pytestmark = pytest.mark.usefixtures("quiet_loader_warnings")


def elements(ds, limit: int = 10**6) -> list:
    out = []
    for b in DataLoader(ds, batch_size=None):
        out.append(np.asarray(b).tolist())
        if len(out) >= limit:
            break
    return out


KINDS = ("view", "iterator")
COUNTS = (0, 1, 2, 3)


@pytest.fixture(scope="module")
def datasets():
    """One PipelineDataset per kind of pipeline and worker count (0..3), kept for
    the module (persistent workers, as a training job keeps them)."""
    made = {(kind, n): PipelineDataset(functools.partial(pipeline, kind), num_workers=n)
            for kind in KINDS for n in COUNTS}
    yield made
    for ds in made.values():
        if ds._reader is not None:
            ds._reader.close()


def epoch(ds, e: int, state=None) -> list:
    ds.set_epoch(e)
    if state is not None:
        ds.load_state_dict(state)
    return elements(ds)


@pytest.mark.parametrize("kind", KINDS)
def test_every_worker_count_gives_the_same_stream_and_epochs(datasets, kind: str) -> None:
    reference = [epoch(datasets[kind, 0], e) for e in (0, 1)]
    assert len(reference[0]) > 5 and reference[0] != reference[1]
    for n in COUNTS[1:]:
        ds = datasets[kind, n]
        assert [epoch(ds, e) for e in (0, 1)] == reference, f"num_workers={n}"
        assert len(ds.worker_pids()) == n


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", COUNTS)
def test_state_before_every_element_restores_exactly_with_any_n(datasets, kind: str,
                                                                n: int) -> None:
    """The state_dict() before every element (read with n workers, JSON round-trip)
    restores the exact rest and the next epoch with every worker count: the
    every-step resume check across N."""
    ds = datasets[kind, n]
    ds.set_epoch(0)
    states, stream = [], []
    loader = iter(DataLoader(ds, batch_size=None))
    while True:
        states.append(json.loads(json.dumps(ds.state_dict())))
        try:
            stream.append(np.asarray(next(loader)).tolist())
        except StopIteration:
            break
    following = epoch(datasets[kind, 0], 1)
    assert len(stream) > 5
    for k, state in enumerate(states):
        other = datasets[kind, COUNTS[(n + k) % len(COUNTS)]]
        other.load_state_dict(state)
        assert elements(other) == stream[k:], f"restored before element {k}"
        assert epoch(other, 1) == following, f"restored before element {k}: the next epoch"


def test_a_state_taken_with_n_workers_equals_the_training_process_state(datasets) -> None:
    datasets["iterator", 2].set_epoch(0)
    datasets["iterator", 0].set_epoch(0)
    it2, it0 = iter(datasets["iterator", 2]), iter(datasets["iterator", 0])
    for _ in range(7):
        assert np.asarray(next(it2)).tolist() == np.asarray(next(it0)).tolist()
    assert datasets["iterator", 2].state_dict() == datasets["iterator", 0].state_dict()


@pytest.mark.parametrize("slot_bytes", [1 << 20, 100_000])
def test_arrays_cross_intact_through_the_ring(slot_bytes: int, monkeypatch) -> None:
    """Elements' arrays go through each worker's shared ring (reused slot after
    slot while the consumer is slow) or whole when they do not fit a slot; every
    element arrives intact."""
    import time

    from minibatcher.adapters import pipeline_workers

    monkeypatch.setattr(pipeline_workers._Pool, "slot_bytes", slot_bytes)
    reader = PipelineReader(functools.partial(arrays, 60), 2)
    try:
        for i, x in enumerate(reader.read(0, None)):
            if i % 10 == 0:
                time.sleep(0.05)  # the workers fill every slot meanwhile
            assert int(x["k"]) == i and (x["big"] == i).all() and (x["grid"] == i).all()
            assert x["strided"].shape == (i % 7 + 1, 100) and (x["strided"] == i).all()
            assert x["big"].flags.writeable and len(x["big"]) == 20_000 + 1000 * (i % 5)
    finally:
        reader.close()


def test_a_killed_worker_is_an_error_and_the_state_stays_exact() -> None:
    make = functools.partial(pipeline, "view")
    full = elements(PipelineDataset(make))
    ds = PipelineDataset(make, num_workers=2)
    it = iter(ds)
    head = [np.asarray(next(it)).tolist() for _ in range(4)]
    os.kill(ds.worker_pids()[1], signal.SIGKILL)
    with pytest.raises(WorkerDied, match="killed by signal 9"):
        for b in it:
            head.append(np.asarray(b).tolist())
    state = ds.state_dict()
    fresh = PipelineDataset(make, num_workers=3)
    fresh.load_state_dict(state)
    assert head + elements(fresh) == full and len(head) >= 4


def test_a_worker_error_is_raised_at_its_element_with_its_origin() -> None:
    ds = PipelineDataset(functools.partial(pipeline, "failing"), num_workers=2)
    it = iter(ds)
    assert [int(next(it)) for _ in range(13)] == list(range(13))
    with pytest.raises(KeyError, match="thirteen") as info:
        next(it)
    assert "PipelineReader worker 1" in "".join(info.value.__notes__)
    assert ds.state_dict()["iterator"]["iterator"]["pos"] == 14  # consumed, as in TF


def test_workers_are_refused_where_they_cannot_work() -> None:
    with pytest.raises(ConfigError, match="num_workers"):
        PipelineDataset(functools.partial(pipeline, "view"), num_workers=-1)
    with pytest.raises(ConfigError, match="positive integer"):
        PipelineReader(functools.partial(pipeline, "view"), 0)
    loader = DataLoader(PipelineDataset(functools.partial(pipeline, "view")), batch_size=None,
                        num_workers=2)
    with pytest.raises(Exception, match=r"PipelineDataset\(make_pipeline, num_workers=2\)"):
        next(iter(loader))
