"""``map(..., executor="processes")``: a pool process killed with SIGKILL is a
``WorkerDied`` naming it, its signal and the map function (PyTorch's wording);
the iterator stays where it was, reading on starts a new pool, and the state
taken before restores the exact rest (also when the process computed a block
ahead of the reads); states taken with work in flight on the processes restore
exactly."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from minibatcher import WorkerDied
from minibatcher.tfdata import Dataset

from .resume import assert_resumes_exactly, snapshot
from .process_fns import kill_once, square


def pipelines(fn: Any, processes: int | None = 2) -> dict[str, Any]:
    """The map over a view and over an iterator (``processes=None``: in this process)."""
    kw: dict[str, Any] = {"num_parallel_calls": processes, "executor": "processes"}
    return {
        "over a view": lambda: Dataset.range(40).shuffle(8, seed=1).map(fn, **kw).batch(3),
        "over a view read ahead": lambda: Dataset.range(40).map(fn, **kw).batch(3),
        "over an iterator": lambda: Dataset.range(40).filter(lambda x: x % 4 != 1)
            .map(fn, **kw),
    }


@pytest.mark.parametrize("name", ["over a view", "over a view read ahead", "over an iterator"])
def test_a_killed_pool_process_is_named_and_nothing_is_lost(tmp_path: Path, name: str) -> None:
    expected = [snapshot(x) for x in pipelines(square, None)[name]()]
    marker = tmp_path / "kill"
    marker.touch()
    make = pipelines(functools.partial(kill_once, str(marker)))[name]
    it = iter(make())
    got, state = [], None
    with pytest.raises(WorkerDied) as info:
        while True:
            state = json.loads(json.dumps(it.get_state()))
            got.append(snapshot(next(it)))
    message = str(info.value)
    assert "killed by signal 9 (SIGKILL)" in message and "pid " in message
    assert "'kill_once'" in message and "executor='processes'" in message
    assert it.get_state() == state  # the failed read consumed nothing
    rest = [snapshot(x) for x in it]  # reading on: a new pool
    assert got + rest == expected and not marker.exists()
    fresh = iter(make())
    fresh.set_state(state)
    assert got + [snapshot(x) for x in fresh] == expected


def test_resume_is_exact_with_work_in_flight_on_processes() -> None:
    """The map over an iterator hands out a block mapped ahead on the processes;
    a state taken between its elements restores exactly (a view reads no
    further than its elements, tested above)."""
    assert assert_resumes_exactly(pipelines(square)["over an iterator"], max_steps=16,
                                  stride=5) == 16
