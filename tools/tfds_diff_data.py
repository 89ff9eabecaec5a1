"""Writes the small TFDS dataset folders of the TFDS differential suite with real TFDS.

``tests/data/tfds_diff/`` holds three folders, each written by TensorFlow Datasets 4.9.10 itself
(needs /work/tfvenv or ``pip install tensorflow-cpu tensorflow-datasets==4.9.10``)::

    TF_CPP_MIN_LOG_LEVEL=3 python tools/tfds_diff_data.py tests/data/tfds_diff

* ``diff_gen/1.0.0``: a ``GeneratorBasedBuilder`` (TFDS's writer: examples placed in shards by
  the hash of their key), 4 shards per split; features ``id`` (int64), ``label`` (ClassLabel),
  ``tokens`` (int32, variable length), ``text`` (Text), ``opt`` (optional int32, absent in every
  third example); supervised keys ``(id, label)``.
* ``uneven/1.0.0``: shards of the given (uneven, some empty) lengths written with
  ``tf.io.TFRecordWriter`` from TFDS's own example serializer, metadata by
  ``tfds.folder_dataset.write_metadata`` (which counts the records of every shard).
* ``ordered/1.0.0``: a builder with ``disable_shuffling = True`` (read in order, cycle length 1).

The expected outputs are written by ``tools/tfds_diff_gen.py``.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any, Iterator

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tensorflow_datasets as tfds  # noqa: E402

SPLITS = {"train": 37, "test": 13, "validation": 6}
UNEVEN = {"train": [5, 0, 3, 9, 1, 4, 7, 2, 6, 6], "test": [4, 0, 4, 1]}
ORDERED = {"train": 17, "test": 7}


def _features() -> tfds.features.FeaturesDict:
    return tfds.features.FeaturesDict({
        "id": tfds.features.Scalar(np.int64),
        "label": tfds.features.ClassLabel(num_classes=4),
        "tokens": tfds.features.Tensor(shape=(None,), dtype=np.int32),
        "text": tfds.features.Text(),
        "opt": tfds.features.Scalar(np.int32, optional=True),
    })


def _example(split: str, k: int) -> dict[str, Any]:
    base = {"train": 0, "test": 1000, "validation": 2000}[split] + k
    return {"id": base, "label": base % 4,
            "tokens": np.arange(base % 5, dtype=np.int32) + 7 * (base % 3),
            "text": f"{split}-{k}" * (1 + k % 2),
            "opt": None if k % 3 == 0 else k * 11}


def _examples(split: str, n: int) -> Iterator[tuple[str, dict[str, Any]]]:
    for k in range(n):
        yield f"{split}-{k:04d}", _example(split, k)


class DiffGen(tfds.core.GeneratorBasedBuilder):
    """Written by TFDS's own writer (hashed example order)."""

    VERSION = tfds.core.Version("1.0.0")

    def _info(self) -> tfds.core.DatasetInfo:
        return tfds.core.DatasetInfo(builder=self, features=_features(),
                                     supervised_keys=("id", "label"))

    def _split_generators(self, dl_manager: Any) -> dict[str, Any]:
        return {s: _examples(s, n) for s, n in SPLITS.items()}

    def _generate_examples(self, **kw: Any) -> Any:  # pragma: no cover - unused
        raise NotImplementedError


class Ordered(tfds.core.GeneratorBasedBuilder):
    """An ordered dataset (``disable_shuffling``)."""

    VERSION = tfds.core.Version("1.0.0")

    def _info(self) -> tfds.core.DatasetInfo:
        return tfds.core.DatasetInfo(builder=self, features=_features(), disable_shuffling=True)

    def _split_generators(self, dl_manager: Any) -> dict[str, Any]:
        return {s: _examples(s, n) for s, n in ORDERED.items()}

    def _generate_examples(self, **kw: Any) -> Any:  # pragma: no cover - unused
        raise NotImplementedError


def _write_uneven(root: Path) -> None:
    folder = root / "uneven" / "1.0.0"
    folder.mkdir(parents=True)
    features = _features()
    for split, lengths in UNEVEN.items():
        k = 0
        for i, n in enumerate(lengths):
            path = folder / f"uneven-{split}.tfrecord-{i:05d}-of-{len(lengths):05d}"
            with tf.io.TFRecordWriter(str(path)) as w:
                for _ in range(n):
                    w.write(features.serialize_example(_example(split, k)))
                    k += 1
    tfds.folder_dataset.write_metadata(data_dir=str(folder), features=features,
                                       supervised_keys=("id", "label"))


def main(out: str) -> None:
    root = Path(out)
    for name in ("diff_gen", "uneven", "ordered"):
        shutil.rmtree(root / name, ignore_errors=True)
    config = tfds.download.DownloadConfig(num_shards=4)
    for cls in (DiffGen, Ordered):
        cls(data_dir=str(root)).download_and_prepare(download_config=config)
    _write_uneven(root)
    shutil.rmtree(root / "downloads", ignore_errors=True)
    for leftover in root.rglob("*"):
        if leftover.name.startswith(".") or leftover.suffix == ".lock":
            leftover.unlink()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tfds_diff")
