"""num_parallel_calls and prefetch: the same elements and states as one worker in
the consuming thread, exact resume with work in flight, worker errors raised at
their element with their origin, threads that stop."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
import time
from typing import Any

import numpy as np
import pytest

from minibatcher.tfdata import AUTOTUNE, Dataset, random_seed_scope
from minibatcher.tfdata.parallel import Workers, schedulable_cpus

from .resume import assert_resumes_exactly, snapshot


def square(x: Any) -> Any:
    """A picklable map function (process workers)."""
    return x * x


def fail_on_seven(x: Any) -> Any:
    if int(x) == 7:
        raise ValueError("seven")
    return x + 1


def run(ds: Dataset, limit: int = 100) -> tuple[list[Any], list[str]]:
    it = iter(ds)
    out, states = [], []
    for _ in range(limit):
        states.append(json.dumps(it.get_state(), sort_keys=True))
        try:
            out.append(snapshot(next(it)))
        except ValueError as e:
            out.append(("error", str(e)))
        except StopIteration:
            break
    return out, states


@pytest.mark.parametrize("executor", ["threads", "processes"])
@pytest.mark.parametrize("npc", [1, 2, 3, 4])
def test_map_workers_give_the_elements_and_states_of_one(npc: int, executor: str) -> None:
    def make(n: int | None) -> Dataset:
        base = Dataset.range(40).shuffle(9, seed=3)
        over_view = base.map(square, num_parallel_calls=n, executor=executor).batch(3)
        over_iter = base.filter(lambda x: x % 5 != 0).map(square, num_parallel_calls=n,
                                                           executor=executor)
        return Dataset.zip((over_view, over_iter.batch(3)))

    assert run(make(npc)) == run(make(None))


@pytest.mark.parametrize("npc", [2, 3])
def test_a_worker_error_is_raised_at_its_element_with_its_origin(npc: int) -> None:
    for ds in (Dataset.range(12).map(fail_on_seven, num_parallel_calls=npc),
               Dataset.range(12).filter(lambda x: x >= 0).map(fail_on_seven,
                                                              num_parallel_calls=npc)):
        it = iter(ds)
        head = [int(next(it)) for _ in range(7)]
        with pytest.raises(ValueError, match="seven") as info:
            next(it)
        assert head == list(range(1, 8)) and [int(x) for x in it] == list(range(9, 13))
        assert "worker" in "".join(getattr(info.value, "__notes__", []))


FAILING_INSIDE = {
    "a map above": lambda n, ex: Dataset.range(12).map(fail_on_seven, num_parallel_calls=n,
                                                       executor=ex).map(square),
    "a batch above": lambda n, ex: Dataset.range(12).map(fail_on_seven, num_parallel_calls=n,
                                                         executor=ex).batch(3),
    "a map and a batch above": lambda n, ex: Dataset.range(14).map(
        fail_on_seven, num_parallel_calls=n, executor=ex).map(square).batch(4),
    "an interleave above": lambda n, ex: Dataset.range(3).interleave(
        lambda k: Dataset.range(k * 5, k * 5 + 5).map(fail_on_seven, num_parallel_calls=n,
                                                      executor=ex),
        cycle_length=2, block_length=2).batch(2),
}


@pytest.mark.parametrize("executor", ["threads", "processes"])
@pytest.mark.parametrize("name", sorted(FAILING_INSIDE))
def test_a_failure_on_the_workers_is_raised_through_the_ops_above(name: str,
                                                                  executor: str) -> None:
    """A map on workers hands the ops above a block that ends with its failing
    element's error: a map, a batch or an interleave above raises it where one
    worker does (they dropped it, and the elements after it, silently)."""
    expected = run(FAILING_INSIDE[name](None, executor))
    assert ("error", "seven") in expected[0]
    assert run(FAILING_INSIDE[name](2, executor)) == expected


@pytest.mark.parametrize("npc", [2, 3])
def test_every_thread_works_until_the_work_runs_out(npc: int) -> None:
    # each call waits for a call on every other thread: a split that leaves a thread
    # idle while another still has items of its own breaks the barrier
    barrier = threading.Barrier(npc, timeout=10)

    def meet(x: Any) -> Any:
        barrier.wait()
        return threading.get_ident()

    workers = Workers(npc, "threads")
    try:
        idents = workers.map(meet, list(range(8 * npc)))
    finally:
        workers.close()
    assert sorted(idents.count(t) for t in set(idents)) == [8] * npc


def test_a_worker_process_error_carries_the_worker_traceback() -> None:
    it = iter(Dataset.range(12).map(fail_on_seven, num_parallel_calls=2, executor="processes"))
    with pytest.raises(ValueError, match="seven") as info:
        list(it)
    assert "process" in "".join(info.value.__notes__)


def test_autotune_is_the_schedulable_cpu_count() -> None:
    ds = Dataset.range(3).map(square, num_parallel_calls=AUTOTUNE)
    assert ds._workers is None or ds._workers.n == schedulable_cpus() == len(
        os.sched_getaffinity(0))
    with pytest.raises(ValueError, match="num_parallel_calls"):
        Dataset.range(3).map(square, num_parallel_calls=0)
    with pytest.raises(Exception, match="executor"):
        Dataset.range(3).map(square, num_parallel_calls=2, executor="fibers")


def pf(ds: Dataset, n: int, on: bool) -> Dataset:
    return ds.prefetch(n) if on else ds


PREFETCHED = {
    "view, map on workers": lambda on=True: pf(Dataset.range(50).shuffle(8, seed=2)
        .map(square, num_parallel_calls=3).batch(4), 2, on),
    "iterator: shuffle over a filter": lambda on=True: pf(
        Dataset.range(60).filter(lambda x: x % 3 != 1).shuffle(7, seed=5), 3, on)
        .map(lambda x: x * 2).batch(3),
    "repeat of a shuffle (iterations started ahead)": lambda on=True: pf(
        Dataset.range(6).shuffle(6, seed=1).repeat(4).batch(4), AUTOTUNE, on),
    "interleave on workers": lambda on=True: pf(Dataset.range(5).interleave(
        lambda n: Dataset.range(n * 10, n * 10 + n + 2), cycle_length=3, num_parallel_calls=3),
        4, on).batch(2),
}


@pytest.mark.parametrize("name", sorted(PREFETCHED))
def test_resume_is_exact_with_work_in_flight(name: str) -> None:
    with random_seed_scope(None):
        assert assert_resumes_exactly(PREFETCHED[name]) > 2


@pytest.mark.parametrize("name", sorted(PREFETCHED))
def test_prefetch_changes_no_element_state_or_next_epoch(name: str) -> None:
    def observe(on: bool) -> Any:
        with random_seed_scope(None):
            ds = PREFETCHED[name](on)
            elements, states = run(ds)
            plan_free = [json.loads(s)["iterator"] for s in states]
            return elements, plan_free, [snapshot(x) for x in ds]

    assert observe(True) == observe(False)


def test_the_seed_count_follows_the_elements_handed_out() -> None:
    def started(prefetch: bool) -> list[Any]:
        ds = Dataset.range(3).shuffle(3, seed=1).repeat(5)
        ds = ds.prefetch(8) if prefetch else ds
        it = iter(ds)
        out = []
        for _ in range(7):
            next(it)
            time.sleep(0.01)  # let the thread run ahead
            out.append(it.get_state()["shuffles"])
        return out

    assert started(True) == started(False)


def _prefetch_threads() -> int:
    return sum(t.name.startswith("tfdata-prefetch") for t in threading.enumerate())


def test_prefetch_threads_stop_with_their_iterators() -> None:
    before = _prefetch_threads()
    for _ in range(5):
        it = iter(Dataset.range(100).filter(lambda x: x > 0).prefetch(2))
        next(it)
    del it
    for _ in range(100):  # the threads notice within a fraction of a second
        gc.collect()
        if _prefetch_threads() <= before:
            break
        time.sleep(0.05)
    assert _prefetch_threads() <= before


def test_the_interpreter_exits_with_work_in_flight() -> None:
    code = ("from minibatcher.tfdata import Dataset\n"
            "it = iter(Dataset.range(10**6).filter(lambda x: x >= 0).map(abs,"
            " num_parallel_calls=2).prefetch(64))\n"
            "it2 = iter(Dataset.range(10**6).map(abs, num_parallel_calls=2,"
            " executor='processes').prefetch(8))\n"
            "print(int(next(it)), int(next(it2)))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "0"] and "leaked" not in proc.stderr
