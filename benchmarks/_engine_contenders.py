"""The contenders of benchmarks/engine.py: ``prepare(spec) -> work()``, each run
in a fresh subprocess (``engine.py --child``). ``prepare`` imports and sets up
(not measured); ``work()`` does the measured work and returns its timings.

Throughput consumers sum every value of every minibatch (a checksum that the
report compares between contenders); the in-memory delivery runs measure the
delivery alone, and report the summing consumer as a diagnostic.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import time
from typing import Any, Callable

import numpy as np

MB_SIZE = 256
SPARSE_DIM = 1_000_000


def stream_defs(kind: str) -> dict[str, Any]:
    """The streams of the MNIST-like and sparse files (imports minibatcher: children only)."""
    from minibatcher import StreamDef

    if kind == "mnist":
        return {"labels": StreamDef(shape=10), "features": StreamDef(shape=784)}
    return {"y": StreamDef(shape=10, is_sparse=True), "x": StreamDef(shape=SPARSE_DIM, is_sparse=True)}


def checksum(mb: Any) -> tuple[int, float]:
    """``(samples, sum of every value)`` of one minibatch (dense or sparse streams)."""
    total, samples = 0.0, 0
    for data in mb.values():
        values = data.values
        total += float(values.data.sum() if data.is_sparse else values.sum())
        samples = max(samples, values.shape[0])
    return samples, total


def drain(source: Any, consume: Callable[[Any], tuple[int, float]] = checksum,
          limit: int | None = None, observe: Callable[[], None] = lambda: None) -> tuple[int, float]:
    """Reads ``source`` until the epoch ends (or ``limit`` samples were read);
    returns the samples read and the sum of ``consume`` over the minibatches."""
    samples, total = 0, 0.0
    while limit is None or samples < limit:
        mb = source.next_minibatch(MB_SIZE)
        if not mb:
            break
        n, s = consume(mb)
        samples, total = samples + n, total + s
        observe()
    return samples, total


def delivered(mb: Any) -> tuple[int, float]:
    """Pure delivery: the minibatch's sample count, no work on the values."""
    return mb["features"].values.shape[0], 0.0


class ResidentChunks:
    """Diagnostic: the most parsed chunks (and their decoded bytes) the source's
    chunk cache held at once. Reads a private attribute; reports None if it moved."""

    def __init__(self, source: Any) -> None:
        self.futures = getattr(getattr(source, "_cache", None), "_futures", None)
        self.chunks = self.bytes = 0

    def __call__(self) -> None:
        if not isinstance(self.futures, dict):
            return
        done = [f.result() for f in list(self.futures.values()) if f.done() and not f.cancelled()]
        self.chunks = max(self.chunks, len(done))
        self.bytes = max(self.bytes, sum(c.nbytes for c in done))

    def result(self) -> dict:
        """``{"resident_chunks", "resident_bytes"}`` (None when not observable)."""
        ok = isinstance(self.futures, dict)
        return {"resident_chunks": self.chunks if ok else None,
                "resident_bytes": self.bytes if ok else None}


def parse_all(d: Any) -> list:
    """Every chunk of ``d``, parsed by one thread per CPU (what the engine's pool does)."""
    with cf.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        return list(pool.map(d.load_chunk, range(d.table().num_chunks)))


def chunk_sum(chunks: list) -> float:
    """The sum of every value of every stream of parsed chunks (checksum of parse-only)."""
    return sum(float(s.values.sum()) for c in chunks for s in c.streams)


# -- ours -------------------------------------------------------------------------------------


def prepare_parse(spec: dict[str, Any]) -> Callable[[], dict]:
    """Parse-only: index, then every chunk on a thread pool (no engine at all)."""
    import minibatcher._native  # noqa: F401  (import cost is not parse time)
    from minibatcher import CTFDeserializer

    def work() -> dict:
        started = time.perf_counter()
        d = CTFDeserializer(spec["path"], stream_defs(spec["kind"]),
                            chunk_size_in_bytes=spec["chunk_size"])
        index_s = time.perf_counter() - started
        chunks = parse_all(d)
        parse_s = time.perf_counter() - started - index_s
        return {"seconds": parse_s, "index_s": index_s, "chunks": len(chunks),
                "samples": sum(c.streams[0].num_samples for c in chunks),
                "checksum": chunk_sum(chunks)}
    return work


def prepare_ours(spec: dict[str, Any]) -> Callable[[], dict]:
    """MinibatchSource(CTFDeserializer(...), randomization_seed=0, max_sweeps=1): end to end."""
    import minibatcher._native  # noqa: F401
    from minibatcher import CTFDeserializer, MinibatchSource

    def work() -> dict:
        started = time.perf_counter()
        d = CTFDeserializer(spec["path"], stream_defs(spec["kind"]),
                            chunk_size_in_bytes=spec["chunk_size"])
        index_s = time.perf_counter() - started
        source = MinibatchSource(d, randomization_seed=0, max_sweeps=1, **spec["options"])
        tracker = ResidentChunks(source) if spec.get("track") else None
        samples, total = drain(source, observe=tracker or (lambda: None))
        seconds = time.perf_counter() - started
        source.close()
        return {"seconds": seconds, "index_s": index_s, "samples": samples, "checksum": total,
                "chunks": d.table().num_chunks, **(tracker.result() if tracker else {})}
    return work


def prepare_memory(spec: dict[str, Any]) -> Callable[[], dict]:
    """keep_data_in_memory=True: sweep 1 parses (not timed), sweep 2 is pure delivery,
    sweep 3 delivers to a consumer that sums every value (diagnostic)."""
    import minibatcher._native  # noqa: F401
    from minibatcher import CTFDeserializer, MinibatchSource

    d = CTFDeserializer(spec["path"], stream_defs("mnist"), chunk_size_in_bytes=spec["chunk_size"],
                        keep_data_in_memory=True)
    source = MinibatchSource(d, randomization_seed=0, max_sweeps=3)
    drain(source, delivered, limit=source.sweep_size)

    def work() -> dict:
        sweep = source.sweep_size
        stamps = [time.perf_counter()]
        samples, _ = drain(source, delivered, limit=sweep,
                           observe=lambda: stamps.append(time.perf_counter()))
        seconds = stamps[-1] - stamps[0]
        summed_samples, total = drain(source, limit=sweep)
        summed_s = time.perf_counter() - stamps[-1]
        return {"seconds": seconds, "samples": samples, "summed_s": summed_s,
                "summed_samples": summed_samples, "checksum": total,
                "median_mb_s": float(np.median(np.diff(stamps)))}
    return work


class FrameTable:
    """A deserializer of ``count`` one-frame sequences, ``per_chunk`` per chunk
    (what HTK's frame mode gives the engine); built in the child."""

    @staticmethod
    def make(count: int, per_chunk: int) -> Any:
        from minibatcher.deserializer import ChunkData, Deserializer, SequenceTable, StreamChunk
        from minibatcher.streams import StreamInformation

        starts = np.append(np.arange(0, count, per_chunk), count).astype(np.int64)

        class Frames(Deserializer):
            name = "frames"

            @property
            def streams(self) -> list[StreamInformation]:
                return [StreamInformation("x", 0, 1, False, np.dtype(np.float32))]

            def table(self) -> SequenceTable:
                return SequenceTable(np.arange(count, dtype=np.uint64), np.ones(count, np.int32),
                                     starts)

            def fingerprint(self) -> dict:
                return {"frames": count, "per_chunk": per_chunk}

            def load_chunk(self, chunk_id: int) -> ChunkData:
                first, stop = int(starts[chunk_id]), int(starts[chunk_id + 1])
                values = np.arange(first, stop, dtype=np.float32)[:, None]
                return ChunkData((StreamChunk.dense(values, np.arange(stop - first + 1)),))

        return Frames()


def prepare_planning(spec: dict[str, Any]) -> Callable[[], dict]:
    """Planning and enumerating ``frames`` one-frame sequences (frame mode, default window)."""
    import minibatcher._native  # noqa: F401
    from minibatcher import MinibatchSource
    from minibatcher.engine.enumerator import EpochConfig, make_enumerator
    from minibatcher.engine.order import BlockRandomOrder

    d = FrameTable.make(spec["frames"], spec["per_chunk"])

    def work() -> dict:
        out, table = {}, d.table()
        started = time.perf_counter()
        BlockRandomOrder(128, False).plan(table, 0, 0)
        out["plan_s"] = time.perf_counter() - started
        e = make_enumerator(table, BlockRandomOrder(128, False), 0)
        e.start_epoch(EpochConfig(epoch_size=table.num_samples))
        started = time.perf_counter()
        while not e.next_sequences(MB_SIZE, MB_SIZE).end_of_epoch:
            pass
        out["enumerate_s"] = time.perf_counter() - started
        started = time.perf_counter()
        source = MinibatchSource(d, frame_mode=True, max_sweeps=1)
        source.next_minibatch(MB_SIZE)
        out["first_s"] = time.perf_counter() - started
        samples = MB_SIZE + drain(source)[0]
        out["sweep_s"] = time.perf_counter() - started
        source.close()
        out.update(samples=samples, seconds=out["sweep_s"])
        return out
    return work


# -- peers ------------------------------------------------------------------------------------


def prepare_pandas(spec: dict[str, Any]) -> Callable[[], dict]:
    """pandas read_csv of the whole twin, then 256-row slices."""
    import pandas as pd

    def work() -> dict:
        started = time.perf_counter()
        data = pd.read_csv(spec["path"], sep=" ", header=None, dtype=np.float32,
                           engine="c").to_numpy()
        total = 0.0
        for i in range(0, len(data), MB_SIZE):
            batch = data[i:i + MB_SIZE]
            total += float(batch[:, 10:].sum()) + float(batch[:, :10].sum())
        return {"seconds": time.perf_counter() - started, "samples": len(data),
                "checksum": total}
    return work


def prepare_sklearn(spec: dict[str, Any]) -> Callable[[], dict]:
    """scikit-learn's load_svmlight_file of the whole twin, then 256-row slices."""
    from sklearn.datasets import load_svmlight_file

    def work() -> dict:
        started = time.perf_counter()
        x, y = load_svmlight_file(spec["path"], n_features=SPARSE_DIM, zero_based=True)
        total = 0.0
        for i in range(0, x.shape[0], MB_SIZE):
            batch = x[i:i + MB_SIZE]
            total += float(batch.data.sum()) + float(len(y[i:i + MB_SIZE]))  # + one-hot labels
        return {"seconds": time.perf_counter() - started, "samples": x.shape[0],
                "checksum": total}
    return work


def prepare_torch(spec: dict[str, Any]) -> Callable[[], dict]:
    """A DataLoader over a TensorDataset already in memory (loading not timed): delivery only."""
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    from minibatcher import CTFDeserializer

    chunks = parse_all(CTFDeserializer(spec["path"], stream_defs("mnist"),
                                       chunk_size_in_bytes=spec["chunk_size"]))
    features = np.concatenate([c.streams[1].values for c in chunks])
    labels = np.concatenate([c.streams[0].values for c in chunks])
    del chunks
    dataset = TensorDataset(torch.from_numpy(features), torch.from_numpy(labels))

    def work() -> dict:
        loader = DataLoader(dataset, batch_size=MB_SIZE, shuffle=True, num_workers=0,
                            generator=torch.Generator().manual_seed(0))
        started, samples = time.perf_counter(), 0
        for x, _ in loader:
            samples += len(x)
        return {"seconds": time.perf_counter() - started, "samples": samples}
    return work


def prepare_empty(spec: dict[str, Any]) -> Callable[[], dict]:
    """Baseline: an interpreter with numpy and minibatcher imported, doing nothing."""
    import minibatcher._native  # noqa: F401
    from minibatcher import CTFDeserializer, MinibatchSource  # noqa: F401

    return dict


def prepare_probe(spec: dict[str, Any]) -> Callable[[], dict]:
    """Samples, chunk counts and index bytes, for choosing windows and bounds."""
    from minibatcher import CTFDeserializer

    def work() -> dict:
        out = {}
        for chunk_size in spec["chunk_sizes"]:
            d = CTFDeserializer(spec["path"], stream_defs("mnist"), chunk_size_in_bytes=chunk_size)
            out[str(chunk_size)] = d.table().num_chunks
        out["samples"] = int(d.index.rows.sum())
        out["index_bytes"] = sum(a.nbytes for a in d.index.arrays().values())
        return out
    return work


CONTENDERS = {"parse": prepare_parse, "ours": prepare_ours, "memory": prepare_memory,
              "planning": prepare_planning, "pandas": prepare_pandas, "sklearn": prepare_sklearn,
              "torch": prepare_torch, "empty": prepare_empty, "probe": prepare_probe}
