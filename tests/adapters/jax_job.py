"""One JAX process of the two-process test (test_jax.py): global batches of one epoch,
gathered on every process, written as JSON, then a resume from a mid-epoch state."""

from __future__ import annotations

import json
import sys

import jax

jax.config.update("jax_cpu_collectives_implementation", "gloo")


def main() -> None:
    data, port, pid, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}", num_processes=2,
                               process_id=pid, initialization_timeout=60)
    from jax.experimental import multihost_utils

    from minibatcher.jax import GlobalBatches
    from tests.adapters.helpers import factory

    batches = GlobalBatches(factory(data), 16)
    batches.set_epoch(1)

    def gathered(it) -> list:
        out = []
        for batch in it:
            assert batch["x"].shape == (16, 2) and len(batch["x"].addressable_shards) == 2
            full = multihost_utils.process_allgather(batch, tiled=True)
            out.append({k: v.tolist() for k, v in full.items()})
        return out

    steps = gathered(batches)
    batches.set_epoch(1)
    it = iter(batches)
    for _ in range(3):
        next(it)
    state = json.loads(json.dumps(batches.get_state()))
    fresh = GlobalBatches(factory(data), 16)
    fresh.set_state(state)
    resumed = gathered(fresh)
    with open(out, "w") as f:
        json.dump({"steps": steps, "resumed": resumed, "count": len(batches),
                   "process_index": jax.process_index()}, f)
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
