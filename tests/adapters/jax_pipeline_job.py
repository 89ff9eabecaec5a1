"""One JAX process of the two-process pipeline test (test_jax_pipeline.py): global
batches of a TFDS read split per process (``tfds.split_for_jax_process``), gathered
on every process and written as JSON, then a resume from a mid-epoch state."""

from __future__ import annotations

import functools
import json
import sys

import jax

jax.config.update("jax_cpu_collectives_implementation", "gloo")


def main() -> None:
    folder, port, pid, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}", num_processes=2,
                               process_id=pid, initialization_timeout=60)
    from jax.experimental import multihost_utils

    from minibatcher.jax import GlobalBatches
    from tests.adapters.test_jax_pipeline import tfds_pipeline

    make = functools.partial(tfds_pipeline, folder, jax.process_index(), jax.process_count())

    def gathered(batches) -> list:
        out = []
        for batch in batches:
            assert batch["id"].shape == (8,) and len(batch["id"].addressable_shards) == 2
            full = multihost_utils.process_allgather(batch, tiled=True)
            out.append({k: v.tolist() for k, v in full.items()})
        return out

    unsafe = GlobalBatches.from_pipeline(functools.partial(tfds_pipeline, folder, None, None),
                                         num_workers=1)  # asks JAX inside the worker
    try:
        next(iter(unsafe))
    except ValueError as e:
        assert "not JAX processes" in str(e), e
    else:
        raise AssertionError("a worker's pipeline of another split was not refused")
    unsafe.close()
    batches = GlobalBatches.from_pipeline(make, num_workers=pid)  # 0 and 1 workers
    batches.set_epoch(1)
    steps = gathered(batches)
    batches.set_epoch(1)
    it = iter(batches)
    for _ in range(2):
        next(it)
    state = json.loads(json.dumps(batches.get_state()))
    fresh = GlobalBatches.from_pipeline(make, num_workers=1 - pid)
    fresh.set_state(state)
    resumed = gathered(fresh)
    batches.close()
    fresh.close()
    with open(out, "w") as f:
        json.dump({"steps": steps, "resumed": resumed}, f)
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
