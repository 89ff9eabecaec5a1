"""The TensorFlow side of ``benchmarks/tfdata.py``: writes the data with TensorFlow
and TFDS, and times tf.data's pipelines. It runs under TensorFlow's interpreter
(``/work/tfvenv/bin/python``) in a fresh process per task, and never imports
minibatcher; the task is a JSON object on the command line, the answer one
JSON line on stdout.

    python _tfdata_tf.py '{"task": "shards", "folder": "...", "count": 60000, ...}'
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _importlib_resources() -> None:
    """TFDS's builders import ``importlib_resources`` (a backport); where it is
    not installed, the standard library's ``importlib.resources`` stands in."""
    try:
        import importlib_resources  # noqa: F401
    except ImportError:
        import importlib.resources
        import importlib.resources.abc

        sys.modules["importlib_resources"] = importlib.resources


def mnist_like(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` 28x28 uint8 images (about 80% zeros) and int64 labels 0..9 (seeded).

    Example:
        >>> images, labels = mnist_like(3, 0); images.shape, labels.dtype
        ((3, 28, 28), dtype('int64'))
    """
    rng = np.random.default_rng([seed, 14])
    images = rng.integers(1, 256, (count, 28, 28), dtype=np.uint8)
    images[rng.random((count, 28, 28)) < 0.8] = 0
    return images, rng.integers(0, 10, count).astype(np.int64)


def write_shards(spec: dict[str, Any]) -> dict[str, Any]:
    """The MNIST-like records (784 raw bytes "image" + int64 "label") in
    ``spec["shards"]`` TFRecord files, written by ``tf.io.TFRecordWriter``."""
    import tensorflow as tf

    images, labels = mnist_like(spec["count"], spec["seed"])
    paths = spec["paths"]
    for k, path in enumerate(paths):
        with tf.io.TFRecordWriter(path + ".tmp") as w:
            for i in range(k, spec["count"], len(paths)):
                feature = {
                    "image": tf.train.Feature(bytes_list=tf.train.BytesList(
                        value=[images[i].tobytes()])),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(
                        value=[int(labels[i])]))}
                w.write(tf.train.Example(features=tf.train.Features(
                    feature=feature)).SerializeToString())
        os.replace(path + ".tmp", path)
    return {"written": len(paths)}


def write_tfds(spec: dict[str, Any]) -> dict[str, Any]:
    """An MNIST-like TFDS folder (Image (28, 28, 1) PNG + ClassLabel(10)) written
    by TFDS itself (``store_as_tfds_dataset``)."""
    import tensorflow as tf
    import tensorflow_datasets as tfds

    _importlib_resources()
    images, labels = mnist_like(spec["count"], spec["seed"])
    features = tfds.features.FeaturesDict({
        "image": tfds.features.Image(shape=(28, 28, 1)),
        "label": tfds.features.ClassLabel(num_classes=10)})
    data = tf.data.Dataset.from_tensor_slices({"image": images[..., None], "label": labels})
    builder = tfds.dataset_builders.store_as_tfds_dataset(
        name="mnist_like", version="1.0.0", features=features,
        split_datasets={"train": data}, data_dir=spec["root"])
    return {"folder": str(builder.data_dir)}


def _spec(tf: Any) -> dict[str, Any]:
    return {"image": tf.io.FixedLenFeature([], tf.string),
            "label": tf.io.FixedLenFeature([], tf.int64)}


def pipeline(tf: Any, paths: list[str], vectorized: bool) -> Any:
    """The issue's pipeline: per-example parsing, or batch first and parse_example."""
    spec = _spec(tf)
    ds = tf.data.TFRecordDataset(paths, num_parallel_reads=4).shuffle(10_000, seed=1)
    if vectorized:
        return ds.batch(256).map(lambda r: tf.io.parse_example(r, spec)).map(
            lambda ex: (tf.reshape(tf.io.decode_raw(ex["image"], tf.uint8), (-1, 28, 28)),
                        ex["label"]))
    return ds.map(lambda r: tf.io.parse_single_example(r, spec)).map(
        lambda ex: (tf.reshape(tf.io.decode_raw(ex["image"], tf.uint8), (28, 28)),
                    ex["label"])).batch(256)


def time_pipeline(spec: dict[str, Any]) -> dict[str, Any]:
    """Times one full pass of a pipeline to NumPy: examples, seconds, and the
    first batch's labels (to check the order against ours)."""
    import tensorflow as tf

    if spec["kind"] == "tfds":
        import tensorflow_datasets as tfds

        _importlib_resources()

        ds = tfds.builder_from_directory(spec["folder"]).as_dataset(
            "train", shuffle_files=True).shuffle(10_000).batch(128)
        key = "label"
    else:
        ds = pipeline(tf, spec["paths"], spec["kind"] == "vectorized")
        key = 1
    t0 = time.perf_counter()
    n, first = 0, None
    for batch in ds.as_numpy_iterator():
        labels = batch[key]
        first = labels.tolist() if first is None else first
        n += len(labels)
    return {"examples": n, "seconds": time.perf_counter() - t0, "first": first}


TASKS = {"shards": write_shards, "tfds": write_tfds, "time": time_pipeline}


def main() -> int:
    """Runs the task named on the command line; prints its JSON answer."""
    spec = json.loads(sys.argv[1])
    print(json.dumps(TASKS[spec["task"]](spec)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
