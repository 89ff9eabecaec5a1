"""Our side of ``benchmarks/tfdata.py``: the pipelines, written as a TensorFlow
user writes them with only the imports changed, and the data files that only
we write (the JPEG shard). A module of its own so that DataLoader-style worker
processes can import the pipeline makers.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import numpy as np

SHUFFLE, BATCH, TFDS_BATCH = 10_000, 256, 128


def warm_imports() -> None:
    """Imports what our contenders use, so that no measurement pays for them
    (TensorFlow's imports are outside its timings too)."""
    import importlib

    for name in ("minibatcher.tfdata", "minibatcher.tfdata.io", "minibatcher.tfds", "PIL.Image",
                 "torch.utils.data", "minibatcher.torch"):
        try:
            importlib.import_module(name)
        except ImportError:  # torch is optional: its rows say "not measured"
            pass


def records_pipeline(paths: list[str], vectorized: bool) -> Any:
    """The issue's pipeline (TF's code with ``tf`` -> ``tfdata``): parse per
    example, or batch first and ``parse_example``."""
    from minibatcher import tfdata
    from minibatcher.tfdata import io as tfio

    spec = {"image": tfio.FixedLenFeature([], tfdata.string),
            "label": tfio.FixedLenFeature([], tfdata.int64)}
    ds = tfdata.TFRecordDataset(paths, num_parallel_reads=4).shuffle(SHUFFLE, seed=1)
    if vectorized:
        return ds.batch(BATCH).map(lambda r: tfio.parse_example(r, spec)).map(
            lambda ex: (np.reshape(tfio.decode_raw(ex["image"], tfdata.uint8), (-1, 28, 28)),
                        ex["label"]))
    return ds.map(lambda r: tfio.parse_single_example(r, spec)).map(
        lambda ex: (np.reshape(tfio.decode_raw(ex["image"], tfdata.uint8), (28, 28)),
                    ex["label"])).batch(BATCH)


def run_records(paths: list[str], vectorized: bool) -> tuple[int, list[int]]:
    """One pass: examples read and the first batch's labels."""
    n, first = 0, None
    for _, labels in records_pipeline(paths, vectorized):
        first = labels.tolist() if first is None else first
        n += len(labels)
    return n, first or []


def run_tfds(folder: str) -> int:
    """TFDS ``as_dataset("train", shuffle_files=True).shuffle(10_000).batch(128)``."""
    from minibatcher import tfds

    ds = tfds.builder_from_directory(folder).as_dataset("train", shuffle_files=True)
    return sum(len(b["label"]) for b in ds.shuffle(SHUFFLE).batch(TFDS_BATCH))


def decode_jpeg(data: bytes) -> np.ndarray:
    """A CPU-bound map function: Pillow decodes one JPEG to an RGB array."""
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def jpeg_pipeline(path: str, parallel: int, executor: str = "threads") -> Any:
    """JPEG records decoded by a ``map`` with ``num_parallel_calls=parallel``
    (on ``executor``), batched by 32."""
    from minibatcher import tfdata

    return tfdata.TFRecordDataset(path).map(decode_jpeg, num_parallel_calls=parallel,
                                            executor=executor).batch(32)


def count_images(dataset: Any) -> int:
    """One pass of a :func:`jpeg_pipeline` dataset: images decoded."""
    return sum(len(b) for b in dataset)


_LOADERS: dict[tuple[str, int], Any] = {}


def run_loader(path: str, workers: int) -> tuple[int, float]:
    """One epoch of ``PipelineDataset(jpeg_pipeline, num_workers=workers)`` in a
    DataLoader, in steady state as a training job runs it: the dataset (and
    its worker processes) made once and kept across epochs (``set_epoch``), the
    clock started after the epoch's first batch. Images after the first batch
    and seconds."""
    import functools
    import time

    from torch.utils.data import DataLoader

    from minibatcher.torch import PipelineDataset

    key = (path, workers)
    if key not in _LOADERS:
        make = functools.partial(jpeg_pipeline, path, 1)
        _LOADERS[key] = [PipelineDataset(make, num_workers=workers), 0]
    ds, epoch = _LOADERS[key]
    ds.set_epoch(epoch)
    _LOADERS[key][1] = epoch + 1
    batches = iter(DataLoader(ds, batch_size=None))
    next(batches)
    t0 = time.perf_counter()
    n = sum(len(b) for b in batches)
    return n, time.perf_counter() - t0


def ensure_jpegs(data_dir: Path, count: int, seed: int) -> Path:
    """One TFRecord shard of ``count`` 64x64 RGB JPEGs (quality 90; cached)."""
    from PIL import Image

    from minibatcher.formats.tfrecord import TFRecordWriter

    path = data_dir / f"jpegs-v1-{count}-{seed}.tfrecord"
    if path.exists():
        return path
    rng = np.random.default_rng([seed, 64])
    data_dir.mkdir(parents=True, exist_ok=True)
    blobs = []
    for _ in range(count):
        pixels = np.cumsum(rng.integers(0, 12, (64, 64, 3)), axis=1).astype(np.uint8)
        out = io.BytesIO()
        Image.fromarray(pixels).save(out, format="JPEG", quality=90)
        blobs.append(out.getvalue())
    with TFRecordWriter(str(path) + ".tmp") as w:
        w.write_many(blobs)
    os.replace(str(path) + ".tmp", path)
    return path
