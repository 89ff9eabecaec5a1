"""Worker processes of ours (``PipelineDataset``'s workers and
``map(..., executor="processes")``'s pool, both started by
``process_channel.Channel``) keep the pages their heap frees: a function that
allocates and frees 3.2 MB per call costs its worker no page faults after the
first calls (glibc's default trim threshold returned the 3.2 MB at every call:
about 800 faults per element)."""

from __future__ import annotations

import functools
import os

import pytest

from minibatcher.adapters.pipeline_workers import PipelineReader
from minibatcher.tfdata.process_pool import ProcessPool

from .adapters.worker_pipelines import churn, churning

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"),
                                reason="page-fault counts come from Linux's /proc")

CALLS = 40
MOST_FAULTS_PER_CALL = 50  # kept pages: ~0 per call; handed back: ~800 per call


def minor_faults(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[7])


def test_a_pipeline_worker_keeps_the_pages_its_heap_frees() -> None:
    reader = PipelineReader(functools.partial(churning, CALLS), 1)
    try:
        assert [int(x) for x in reader.read(0, None)] == [200 * i for i in range(CALLS)]
        (pid,) = reader.worker_pids()
        before = minor_faults(pid)
        assert [int(x) for x in reader.read(1, None)] == [200 * i for i in range(CALLS)]
        assert minor_faults(pid) - before < MOST_FAULTS_PER_CALL * CALLS
    finally:
        reader.close()


def test_a_map_pool_process_keeps_the_pages_its_heap_frees() -> None:
    pool = ProcessPool(1)
    try:
        for _ in range(2):  # the first request starts the pool
            faults = minor_faults(pool.pids()[0]) if pool.pids() else None
            # one call per request: the pool sends chunks of elements, each its own message
            results = [pool.map(churn, [i])[0] for i in range(CALLS)]
            assert [int(r) for r in results] == [200 * i for i in range(CALLS)]
        assert minor_faults(pool.pids()[0]) - faults < MOST_FAULTS_PER_CALL * CALLS
    finally:
        pool.close()

