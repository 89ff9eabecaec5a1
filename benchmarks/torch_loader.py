"""Minibatches delivered to a PyTorch training loop: MinibatchDataset through a
DataLoader (0, 1 and 2 workers; torchdata's StatefulDataLoader) against a
DataLoader over an in-memory TensorDataset (per-sample collate, and batched
indexing). webdataset is not on this project's package index: not measured.

Generates (once, cached under --data-dir) the seeded MNIST-like CTF file of
the other benchmarks (784 features + 10 labels per row). Every contender runs
in a fresh subprocess, alternating over --rounds (medians). "In memory": the
CTF data is parsed and kept (keep_data_in_memory=True, persistent workers)
during an untimed first pass; timed passes (at least 1 s, 3 s without
--quick) read it again. The loop touches
every batch (its row count and one value), as a training step would hand it on.
Workers hand minibatches over through MinibatchDataset's shared-memory ring
(the default); a diagnostic row shows the usual per-tensor transfer.

    python benchmarks/torch_loader.py              # ~100 MB
    python benchmarks/torch_loader.py --quick      # ~20 MB, well under a minute
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from typing import Any, Callable

import _common as C

MB_SIZE = 256
TARGET = 1_000_000  # samples/s of 784-dim data, batch 256, in memory, 1 worker


def make_source(path: str) -> Any:
    """The benchmark's source: randomized, data kept in memory once parsed."""
    from minibatcher import CTFDeserializer, MinibatchSource, StreamDef

    streams = {"labels": StreamDef(shape=10), "features": StreamDef(shape=784)}
    return MinibatchSource(CTFDeserializer(path, streams, keep_data_in_memory=True,
                                           chunk_size_in_bytes=4 << 20), randomization_seed=0)


def timed_pass(loader: Any, key: Callable[[Any], Any], min_seconds: float) -> dict:
    """An untimed warm-up pass, then timed passes (at least ``min_seconds``):
    samples per pass, samples and seconds in all, a checksum of the first pass."""
    for _ in loader:
        pass
    started, samples, checksum, passes = time.perf_counter(), 0, 0.0, 0
    while passes == 0 or time.perf_counter() - started < min_seconds:
        for batch in loader:
            x = key(batch)
            samples += x.shape[0]
            checksum += float(x[-1, -1]) if passes == 0 else 0.0
        passes += 1
    return {"seconds": time.perf_counter() - started, "samples": samples,
            "per_pass": samples // passes, "checksum": checksum}


def prepare_ours(spec: dict[str, Any]) -> Callable[[], dict]:
    """MinibatchDataset in a DataLoader (or torchdata's StatefulDataLoader)."""
    import torch  # noqa: F401
    from torch.utils.data import DataLoader

    from minibatcher.torch import MinibatchDataset

    workers = spec["workers"]
    dataset = MinibatchDataset(functools.partial(make_source, spec["path"]), MB_SIZE,
                               worker_ring=spec.get("ring", 8))
    if spec.get("stateful"):
        from torchdata.stateful_dataloader import StatefulDataLoader as Loader
    else:
        Loader = DataLoader
    loader = Loader(dataset, batch_size=None, num_workers=workers,
                    persistent_workers=workers > 0, prefetch_factor=4 if workers else None)
    return lambda: timed_pass(loader, lambda b: b["features"], spec["min_seconds"])


def prepare_source(spec: dict[str, Any]) -> Callable[[], dict]:
    """Diagnostic: the MinibatchSource alone, arrays as torch tensors, no DataLoader."""
    from minibatcher.torch import to_tensor

    source = make_source(spec["path"])

    class Epochs:
        def __iter__(self):
            source.start_epoch(0)
            for mb in source.minibatches(MB_SIZE):
                yield to_tensor(mb["features"].values)

    return lambda: timed_pass(Epochs(), lambda b: b, spec["min_seconds"])


def _tensors(path: str) -> Any:
    import torch

    from minibatcher import CTFDeserializer, StreamDef

    d = CTFDeserializer(path, {"labels": StreamDef(shape=10), "features": StreamDef(shape=784)})
    chunk = d.load_chunk(0) if d.table().num_chunks == 1 else None
    chunks = [chunk] if chunk else [d.load_chunk(c) for c in range(d.table().num_chunks)]
    cat = torch.cat
    return (cat([torch.from_numpy(c.streams[1].values) for c in chunks]),
            cat([torch.from_numpy(c.streams[0].values) for c in chunks]))


def prepare_tensor(spec: dict[str, Any]) -> Callable[[], dict]:
    """A DataLoader over a TensorDataset in memory: per-sample collate, or batched indexing."""
    import torch
    from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset

    dataset = TensorDataset(*_tensors(spec["path"]))
    g, workers = torch.Generator().manual_seed(0), spec["workers"]
    common = {"num_workers": workers, "persistent_workers": workers > 0}
    if spec["batched"]:
        sampler = BatchSampler(RandomSampler(dataset, generator=g), MB_SIZE, drop_last=False)
        loader = DataLoader(dataset, sampler=sampler, batch_size=None, **common)
    else:
        loader = DataLoader(dataset, batch_size=MB_SIZE, shuffle=True, generator=g, **common)
    return lambda: timed_pass(loader, lambda b: b[0], spec["min_seconds"])


def prepare_floor(spec: dict[str, Any]) -> Callable[[], dict]:
    """Diagnostic: the DataLoader's own cost: an IterableDataset handing out ready
    tensors of the same shapes (a fresh copy each, as a reader makes), no reading."""
    import torch
    from torch.utils.data import DataLoader, IterableDataset

    batches, workers = spec["batches"], spec["workers"]

    class Ready(IterableDataset):
        def __iter__(self):
            x, y = torch.ones(MB_SIZE, 784), torch.ones(MB_SIZE, 10)
            for _ in range(batches):
                yield {"features": x.clone(), "labels": y.clone()}

    loader = DataLoader(Ready(), batch_size=None, num_workers=workers,
                        persistent_workers=workers > 0, prefetch_factor=4 if workers else None)
    return lambda: timed_pass(loader, lambda b: b["features"], spec["min_seconds"])


CONTENDERS = {"ours": prepare_ours, "source": prepare_source, "tensor": prepare_tensor,
              "floor": prepare_floor}


def specs_for(path: str, min_seconds: float) -> dict[str, dict]:
    """Every contender's spec, by row name."""
    ours = {"contender": "ours", "path": path, "min_seconds": min_seconds}
    tensor = {"contender": "tensor", "path": path, "min_seconds": min_seconds}
    specs = {
        "ours, DataLoader, 0 workers": {**ours, "workers": 0},
        "ours, DataLoader, 1 worker": {**ours, "workers": 1},
        "ours, DataLoader, 2 workers": {**ours, "workers": 2},
        "diagnostic: ours, 1 worker, worker_ring=0 (usual transfer)": {**ours, "workers": 1,
                                                                       "ring": 0},
        "TensorDataset, per-sample collate, 0 workers": {**tensor, "workers": 0, "batched": False},
        "TensorDataset, per-sample collate, 1 worker": {**tensor, "workers": 1, "batched": False},
        "TensorDataset, batched indexing, 0 workers": {**tensor, "workers": 0, "batched": True},
        "TensorDataset, batched indexing, 1 worker": {**tensor, "workers": 1, "batched": True},
        "diagnostic: MinibatchSource alone (no DataLoader)": {"contender": "source", "path": path,
                                                              "min_seconds": min_seconds},
        "diagnostic: DataLoader floor (ready tensors), 1 worker": {
            "contender": "floor", "workers": 1, "batches": 200, "min_seconds": min_seconds},
    }
    try:
        import torchdata  # noqa: F401

        specs["ours, torchdata StatefulDataLoader, 1 worker"] = {**ours, "workers": 1,
                                                                 "stateful": True}
    except ImportError:
        pass
    return specs


def rows_of(results: dict[str, list[dict]]) -> list[list]:
    """The table: samples/s per contender, ratios, the target."""
    rate = {n: C.median([r["samples"] / r["seconds"] for r in runs]) for n, runs in results.items()}
    best_tensor = max(v for n, v in rate.items() if n.startswith("TensorDataset"))
    rows = []
    for name, value in rate.items():
        target = status = ""
        if name == "ours, DataLoader, 1 worker":
            target, status = f">= {TARGET:,}", C.verdict(value, TARGET)
        rows.append([name, f"{value:,.0f}", f"{value / best_tensor:.2f}x", target, status])
    rows.append(["webdataset", "not measured (not on the package index here)", "", "", ""])
    return rows


def main(argv: list[str] | None = None) -> None:
    """Entry point (also the child entry point with --child)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # children: no intra-op threads fighting the loop
    args = C.finish_common(C.common_parser(__doc__, 100, "the CTF file").parse_args(argv), 100)
    if args.child:
        C.child_main(json.loads(args.child), CONTENDERS)
        return
    ctf, _ = C.ensure_data(args.data_dir, "mnist", args.size_mb, args.seed)
    C.warm_page_cache(ctf)
    load, specs = C.LoadMonitor(), specs_for(str(ctf), 1.0 if args.quick else 3.0)
    results: dict[str, list[dict]] = {name: [] for name in specs}
    for _ in C.rounds_of(args.rounds):
        for name, spec in specs.items():
            results[name].append(C.run_child(__file__, spec))
    samples = {r[0]["per_pass"] for n, r in results.items() if "floor" not in n}
    print(f"\nPyTorch loader benchmark: {args.size_mb:g} MB MNIST-like CTF ({max(samples)} samples, "
          f"784 + 10 floats each), batch {MB_SIZE}, in memory (second pass), {args.rounds} "
          f"alternating rounds (medians), {os.cpu_count()} CPUs, {C.code_version()}")
    C.print_table(["contender (samples/s delivered to the loop)", "samples/s",
                   "vs best TensorDataset", "target", "status"], rows_of(results))
    if len(samples) > 1:
        print(f"note: contenders delivered different sample counts per pass: {sorted(samples)}")
    print(f"\n{load.describe()}")


if __name__ == "__main__":
    sys.exit(main())
