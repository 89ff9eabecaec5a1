"""One rank of a small DDP training job (gloo, CPU), run by test_torch_ddp.py.

Logs every step's samples, checkpoints (model, optimizer, loader) after every
step as JSON, and with ``--pause-at N`` stops after step ``N``'s checkpoint and
waits to be killed. A rerun with the same output folder resumes from the checkpoint.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader

from minibatcher.torch import MinibatchDataset
from tests.adapters.helpers import factory


def save(path: Path, payload: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(payload))
    os.replace(tmp, path)


def build(args: argparse.Namespace) -> tuple:
    dataset = MinibatchDataset(factory(args.data), args.size)
    if args.loader == "stateful":
        from torchdata.stateful_dataloader import StatefulDataLoader as Loader
    else:
        Loader = DataLoader
    loader = Loader(dataset, batch_size=None, num_workers=args.workers)
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 1))
    return dataset, loader, model, torch.optim.SGD(model.parameters(), lr=0.01)


def restore(args, dataset, loader, model, checkpoint: Path) -> tuple[int, int]:
    state = json.loads(checkpoint.read_text())
    model.load_state_dict({k: torch.tensor(v) for k, v in state["model"].items()})
    if args.loader == "stateful":
        dataset.set_epoch(state["epoch"])
        loader.load_state_dict(state["loader"])
    else:
        dataset.load_state_dict(state["loader"])
    return state["epoch"], state["global_step"]


def main() -> None:
    p = argparse.ArgumentParser()
    for name, kind in (("--data", str), ("--out", Path), ("--workers", int), ("--size", int),
                       ("--epochs", int), ("--pause-at", int), ("--loader", str)):
        p.add_argument(name, type=kind, required=True)
    args = p.parse_args()
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    rank = dist.get_rank()
    dataset, loader, model, optimizer = build(args)
    checkpoint, log = args.out / f"ckpt{rank}.json", open(args.out / f"log{rank}.jsonl", "a")
    first, step = restore(args, dataset, loader, model, checkpoint) if checkpoint.exists() else (0, 0)
    for epoch in range(first, args.epochs):
        if epoch != first or not checkpoint.exists():
            dataset.set_epoch(epoch)
        consumed = 0
        for batch in loader:
            x = batch["x"]
            loss = model(x / 100).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            consumed, step = consumed + 1, step + 1
            log.write(json.dumps({"epoch": epoch, "step": step, "rows": x.int().tolist()}) + "\n")
            log.flush()
            state = loader.state_dict() if args.loader == "stateful" else dataset.state_dict(consumed)
            save(checkpoint, {"epoch": epoch, "global_step": step, "loader": state,
                              "model": {k: v.tolist() for k, v in model.state_dict().items()}})
            if step == args.pause_at:
                print("PAUSED", flush=True)
                time.sleep(600)
    save(args.out / f"final{rank}.json", {k: v.tolist() for k, v in model.state_dict().items()})
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
