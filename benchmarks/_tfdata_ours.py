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


def parse_io() -> tuple[Any, str]:
    """``minibatcher.tfdata.io`` (TF's ``tf.io`` names; the stand-in below for
    what it lacks) and a note saying which."""
    try:
        from minibatcher import tfdata
        from minibatcher.tfdata import io as tfio
    except ImportError:
        return StandIn, "a stand-in for tfdata.io (ExampleDecoder per call)"
    if hasattr(tfio, "decode_raw"):
        return _Names(tfio, tfdata), "minibatcher.tfdata.io"
    return _Names(tfio, tfdata, decode_raw=StandIn.decode_raw), \
        "minibatcher.tfdata.io (decode_raw: a stand-in)"


class _Names:
    """tfdata.io's functions and tfdata's dtype names in one namespace (TF's tf.io + tf.X)."""

    def __init__(self, tfio: Any, tfdata: Any, **more: Any) -> None:
        self.__dict__.update({k: getattr(tfio, k) for k in dir(tfio) if not k.startswith("_")})
        self.string, self.int64, self.uint8 = tfdata.string, tfdata.int64, tfdata.uint8
        self.__dict__.update(more)


class StandIn:
    """What ``tfdata.io`` offers, built on ``ExampleDecoder`` (a function per call:
    the per-element path a pipeline takes without a native parse)."""

    uint8 = np.uint8
    string, int64 = "bytes", "int64"

    @staticmethod
    def FixedLenFeature(shape: Any, dtype: Any) -> Any:  # noqa: N802 (TF's name)
        return dtype

    @staticmethod
    def parse_example(serialized: Any, features: dict[str, Any]) -> dict[str, Any]:
        from minibatcher.formats.tfrecord import ExampleDecoder

        records = [serialized] if isinstance(serialized, bytes) else list(serialized)
        cols = ExampleDecoder(features).decode(records)
        out: dict[str, Any] = {}
        for name, col in cols.items():
            if features[name] == "bytes":
                values = np.empty(len(records), object)
                values[:] = [col.row(i)[0] for i in range(len(records))]
            else:
                values = col.values
            out[name] = values
        return out

    @staticmethod
    def parse_single_example(serialized: bytes, features: dict[str, Any]) -> dict[str, Any]:
        return {k: v[0] for k, v in StandIn.parse_example(serialized, features).items()}

    @staticmethod
    def decode_raw(value: Any, dtype: Any) -> np.ndarray:
        if isinstance(value, bytes):
            return np.frombuffer(value, dtype)
        return np.stack([np.frombuffer(v, dtype) for v in value])


def records_pipeline(paths: list[str], vectorized: bool) -> Any:
    """The issue's pipeline (TF's code with ``tf`` -> ``tfdata``): parse per
    example, or batch first and ``parse_example``."""
    from minibatcher import tfdata

    tfio, _ = parse_io()
    spec = {"image": tfio.FixedLenFeature([], tfio.string),
            "label": tfio.FixedLenFeature([], tfio.int64)}
    ds = tfdata.TFRecordDataset(paths, num_parallel_reads=4).shuffle(SHUFFLE, seed=1)
    if vectorized:
        return ds.batch(BATCH).map(lambda r: tfio.parse_example(r, spec)).map(
            lambda ex: (np.reshape(tfio.decode_raw(ex["image"], tfio.uint8), (-1, 28, 28)),
                        ex["label"]))
    return ds.map(lambda r: tfio.parse_single_example(r, spec)).map(
        lambda ex: (np.reshape(tfio.decode_raw(ex["image"], tfio.uint8), (28, 28)),
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


def jpeg_pipeline(path: str, parallel: int) -> Any:
    """JPEG records decoded by a ``map`` with ``num_parallel_calls=parallel``,
    batched by 32."""
    from minibatcher import tfdata

    return tfdata.TFRecordDataset(path).map(decode_jpeg, num_parallel_calls=parallel).batch(32)


def run_jpegs(path: str, parallel: int) -> int:
    """One pass of :func:`jpeg_pipeline`: images decoded."""
    return sum(len(b) for b in jpeg_pipeline(path, parallel))


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
