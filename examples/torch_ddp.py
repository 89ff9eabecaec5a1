# torchrun --standalone --nproc_per_node=2 examples/torch_ddp.py train.ctf checkpoints/
import functools, os, sys

import torch
import torch.distributed as dist
from torchdata.stateful_dataloader import StatefulDataLoader

from minibatcher import CTFDeserializer, MinibatchSource, StreamDef
from minibatcher.torch import MinibatchDataset


def make_source(path):  # runs in every process that reads (each DataLoader worker)
    streams = {"features": StreamDef(shape=784), "labels": StreamDef(shape=10)}
    return MinibatchSource(CTFDeserializer(path, streams, cache_index=True), randomization_seed=0)


def main(path, checkpoint_dir, epochs=2):
    dist.init_process_group("gloo")  # "nccl" on GPUs
    checkpoint = os.path.join(checkpoint_dir, f"rank{dist.get_rank()}.pt")
    dataset = MinibatchDataset(functools.partial(make_source, path), minibatch_size_in_samples=256)
    loader = StatefulDataLoader(dataset, batch_size=None, num_workers=2)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(784, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    state = torch.load(checkpoint) if os.path.exists(checkpoint) else None  # resume after a kill
    if state:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
    for epoch in range(state["epoch"] if state else 0, epochs):
        dataset.set_epoch(epoch)  # a sweep of the data; every rank gets as many minibatches
        if state:
            loader.load_state_dict(state.pop("loader"))  # continues exactly where it was
        for step, batch in enumerate(loader):
            loss = torch.nn.functional.cross_entropy(model(batch["features"] / 255),
                                                     batch["labels"].argmax(1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 20 == 0:
                os.makedirs(checkpoint_dir, exist_ok=True)
                torch.save({"epoch": epoch, "loader": loader.state_dict(), "model": model.state_dict(),
                            "optimizer": optimizer.state_dict()}, checkpoint + ".tmp")
                os.replace(checkpoint + ".tmp", checkpoint)
        print(f"rank {dist.get_rank()} epoch {epoch}: {step + 1} minibatches, loss {loss.item():.3f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
