"""PipelineDataset(num_workers=N): N worker processes of its own give the elements of
num_workers=0 in the same order, a state_dict exact for any N that restores with any
other N, and stay exact when a worker is killed (kill -9)."""

from __future__ import annotations

import functools
import os
import signal

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.utils.data import DataLoader  # noqa: E402

from minibatcher.adapters.pipeline_workers import PipelineReader, WorkerDied  # noqa: E402
from minibatcher.errors import ConfigError  # noqa: E402
from minibatcher.torch import PipelineDataset  # noqa: E402

from .worker_pipelines import pipeline  # noqa: E402

pytestmark = pytest.mark.usefixtures("quiet_loader_warnings")


def elements(ds, limit: int = 10**6) -> list:
    out = []
    for b in DataLoader(ds, batch_size=None):
        out.append(np.asarray(b).tolist())
        if len(out) >= limit:
            break
    return out


@pytest.mark.parametrize("kind, counts", [("iterator", (1, 2, 3)), ("view", (2,))])
def test_every_worker_count_gives_the_same_stream_and_epochs(kind: str, counts: tuple) -> None:
    make = functools.partial(pipeline, kind)
    reference = [elements(PipelineDataset(make)) for _ in range(1)]
    ref0 = PipelineDataset(make)
    ref0.set_epoch(1)
    reference.append(elements(ref0))
    for n in counts:
        ds = PipelineDataset(make, num_workers=n)
        got = [elements(ds)]
        ds.set_epoch(1)
        got.append(elements(ds))
        assert got == reference, f"num_workers={n}"
        assert len(ds.worker_pids()) == n


def test_a_state_taken_with_n_workers_restores_with_any_other_n() -> None:
    make = functools.partial(pipeline, "iterator")
    full = elements(PipelineDataset(make))
    source = PipelineDataset(make, num_workers=2)
    it = iter(source)
    taken = [np.asarray(next(it)).tolist() for _ in range(7)]
    state = source.state_dict()
    assert taken == full[:7]
    for n in (0, 3):
        fresh = PipelineDataset(make, num_workers=n)
        fresh.load_state_dict(state)
        assert elements(fresh) == full[7:], f"restored with num_workers={n}"
    zero = PipelineDataset(make)
    it0 = iter(zero)
    for _ in range(7):
        next(it0)
    assert zero.state_dict() == state  # the same state as reading in the training process


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
