"""``map(..., executor="processes")``: array results cross as columns and give the
elements and batches of one worker; what does not pickle is an error at its
element (the function: when the map is made); big chunks cross whole; a view
read ahead on the processes stays exact, also when a worker is killed between
reads."""

from __future__ import annotations

import functools
import json
import os
import signal
import threading
from typing import Any

import numpy as np
import pytest

from minibatcher import WorkerDied
from minibatcher.errors import ConfigError
from minibatcher.tfdata import Dataset
from minibatcher.tfdata.block import ColumnBlock
from minibatcher.tfdata.process_pool import ProcessPool

from . import process_fns as fns
from .resume import assert_resumes_exactly, snapshot

PROCESSES = {"num_parallel_calls": 2, "executor": "processes"}


def elements(ds: Dataset) -> list[Any]:
    """Every element (snapshots, dict key orders) or error, in order."""
    out: list[Any] = []
    it = iter(ds)
    while True:
        try:
            x = next(it)
        except StopIteration:
            return out
        except Exception as e:  # noqa: BLE001 - compared with the one-worker run's
            out.append(("error", type(e).__name__, str(e).split(";")[0]))
            continue
        out.append((snapshot(x), list(x) if isinstance(x, dict) else None))


@pytest.mark.parametrize("fn", ["image", "pair", "record", "point", "unsorted", "ragged"])
def test_results_give_the_elements_and_batches_of_one_worker(fn: str) -> None:
    """Results of one layout cross as columns (the block is a column block),
    others as elements; elements, batches (and their errors) are the same."""
    f = getattr(fns, fn)
    for make in (lambda kw: Dataset.range(70).map(f, **kw),
                 lambda kw: Dataset.range(70).map(f, **kw).batch(8),
                 lambda kw: Dataset.range(70).shuffle(9, seed=2).map(f, **kw).batch(5)):
        assert elements(make(PROCESSES)) == elements(make({})), fn
    view = Dataset.range(70).map(f, **PROCESSES)._make_view(None)
    block = view.block(0, 40)
    columns = fn in ("image", "pair", "record", "point")
    assert isinstance(block, ColumnBlock) == columns and len(block) == 40


def test_an_element_that_does_not_pickle_is_an_error_at_its_element() -> None:
    ds = Dataset.range(6).map(lambda x: threading.Lock() if x == 2 else x).map(
        fns.identity, **PROCESSES)
    got = elements(ds)
    assert [g[0] for g in got] == [snapshot(np.int64(k)) for k in (0, 1)] + ["error"] + \
        [snapshot(np.int64(k)) for k in (3, 4, 5)]
    assert got[2][1] == "TypeError" and "does not pickle" in got[2][2]


def test_a_result_that_does_not_pickle_is_an_error_at_its_element() -> None:
    got = elements(Dataset.range(6).map(fns.lock_at_three, **PROCESSES))
    assert got[3][:2] == ("error", "RuntimeError") and "does not pickle" in got[3][2]
    assert [g[0] for g in got[:3] + got[4:]] == [snapshot(np.int64(k)) for k in (0, 1, 2, 4, 5)]


def test_a_function_that_does_not_pickle_is_refused_when_the_map_is_made() -> None:
    with pytest.raises(ConfigError, match="should pickle.*use executor='threads'"):
        Dataset.range(3).map(lambda x: x, **PROCESSES)
    Dataset.range(3).map(lambda x: x, num_parallel_calls=2)  # threads take any function


def test_chunks_and_results_larger_than_a_slot_cross_whole(monkeypatch) -> None:
    monkeypatch.setattr(ProcessPool, "slot_bytes", 4096)
    big = functools.partial(np.full, (3000,))  # 24 kB results
    ds = Dataset.range(40).map(lambda x: bytes(5000) + bytes([int(x)]))  # 5 kB elements

    def make(kw: dict[str, Any]) -> Dataset:
        return ds.map(len, **kw).map(big, **kw).batch(7)

    assert elements(make(PROCESSES)) == elements(make({}))


def test_a_pool_serves_requests_in_order_and_drops_cancelled_ones() -> None:
    pool = ProcessPool(2)
    try:
        first, dropped = pool.submit(abs, [-1, -2, -3]), pool.submit(abs, [-9] * 50)
        dropped.cancel()
        last = pool.submit(fns.image, [1, 2], block=True)
        assert pool.result(first) == [1, 2, 3]
        block = pool.result(last)
        assert isinstance(block, ColumnBlock) and block.batch(0, 2).shape == (2, 4, 5, 3)
        assert pool.map(fns.image, [], block=True) == []
    finally:
        pool.close()


def test_a_prefetch_around_a_process_map_changes_nothing() -> None:
    """A prefetch thread and the consumer both read the map's view (the read
    ahead is shared between them); elements are one worker's."""
    for make in (lambda kw: Dataset.range(300).map(fns.image, **kw).batch(7).prefetch(2),
                 lambda kw: Dataset.range(300).map(fns.square, **kw).prefetch(3).batch(7)):
        assert elements(make(PROCESSES)) == elements(make({}))


VIEWS = {
    "batches": lambda: Dataset.range(300).map(fns.square, **PROCESSES).batch(7),
    "skip, take": lambda: Dataset.range(300).map(fns.image, **PROCESSES).skip(5).take(200)
        .batch(9),
    "prefetched": lambda: Dataset.range(300).map(fns.image, **PROCESSES).batch(7).prefetch(2),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_a_view_read_ahead_on_processes_resumes_exactly(name: str) -> None:
    assert assert_resumes_exactly(VIEWS[name], max_steps=40, stride=9) > 20


def test_a_worker_killed_between_reads_is_named_once_and_nothing_is_lost() -> None:
    """The read that needs a dead worker raises WorkerDied (the block computing
    ahead may have finished before the kill: then a later read notices);
    reading on gives exactly the rest."""
    expected = [snapshot(x) for x in VIEWS["batches"]()]
    ds = VIEWS["batches"]()
    it = iter(ds)
    got = [snapshot(next(it)) for _ in range(5)]
    os.kill(ds._parent._workers.pool().pids()[1], signal.SIGKILL)
    deaths, state = [], None
    while True:
        state = json.dumps(it.get_state())
        try:
            got.append(snapshot(next(it)))
        except StopIteration:
            break
        except WorkerDied as e:
            deaths.append(str(e))
            assert json.dumps(it.get_state()) == state  # the failed read consumed nothing
    assert got == expected and len(deaths) == 1 and "killed by signal 9" in deaths[0]
