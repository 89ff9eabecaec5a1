# python examples/jax_multiprocess.py train.ctf 127.0.0.1:12355 2 0 &   # process 0 of 2
# python examples/jax_multiprocess.py train.ctf 127.0.0.1:12355 2 1     # process 1 of 2
import functools, sys

import jax
import jax.numpy as jnp

from minibatcher import CTFDeserializer, MinibatchSource, StreamDef
from minibatcher.jax import GlobalBatches


def make_source(path):
    streams = {"features": StreamDef(shape=784), "labels": StreamDef(shape=10)}
    return MinibatchSource(CTFDeserializer(path, streams, cache_index=True), randomization_seed=0)


@jax.jit
def train_step(params, batch):
    def loss_fn(params):
        logits = batch["features"] / 255 @ params["w"] + params["b"]
        mask = batch["features_segment_ids"] > 0  # padding rows (the last minibatch) are 0
        losses = -jnp.sum(jax.nn.log_softmax(logits) * batch["labels"], axis=-1)
        return jnp.sum(losses * mask) / jnp.maximum(mask.sum(), 1)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), loss


def main(path, coordinator, num_processes, process_id, epochs=2):
    jax.config.update("jax_cpu_collectives_implementation", "gloo")  # CPU only
    jax.distributed.initialize(coordinator, int(num_processes), int(process_id))
    batches = GlobalBatches(functools.partial(make_source, path), minibatch_size_in_samples=256)
    params = {"w": jnp.zeros((784, 10)), "b": jnp.zeros(10)}
    for epoch in range(epochs):
        batches.set_epoch(epoch)  # each process reads its share; the same count everywhere
        for batch in batches:  # global jax.Arrays (256 rows) sharded over every device
            params, loss = train_step(params, batch)
        print(f"process {jax.process_index()} epoch {epoch}: {len(batches)} batches, "
              f"loss {float(loss):.3f}")
    jax.distributed.shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:5])
