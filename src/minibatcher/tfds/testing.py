"""Small TFDS dataset folders for tests and examples, written by our
TFRecord writer with ``dataset_info.json``/``features.json`` in TFDS's real
format (proto-JSON: camelCase keys, int64 as strings).

Example:
    >>> import tempfile, pathlib, json
    >>> d = write_dataset(pathlib.Path(tempfile.mkdtemp()), {"train": [3, 0, 2]})
    >>> sorted(p.name for p in d.iterdir())[:2]
    ['dataset_info.json', 'features.json']
    >>> json.loads((d / "dataset_info.json").read_text())["splits"][0]["shardLengths"]
    ['3', '0', '2']
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from ..formats.tfrecord import TFRecordWriter, encode_example
from .naming import DEFAULT_FILENAME_TEMPLATE, ShardedFileTemplate

_CLS = "tensorflow_datasets.core.features."


def tensor_feature(dtype: str, shape: list[int], scalar: bool = False) -> dict[str, Any]:
    """A Tensor (or Scalar) entry of features.json."""
    cls = "scalar.Scalar" if scalar else "tensor_feature.Tensor"
    return {"pythonClassName": _CLS + cls, "tensor": {
        "shape": {"dimensions": [str(d) for d in shape]} if shape else {}, "dtype": dtype,
        "encoding": "none"}}


def features_dict(features: Mapping[str, Any]) -> dict[str, Any]:
    """A FeaturesDict entry."""
    return {"pythonClassName": _CLS + "features_dict.FeaturesDict",
            "featuresDict": {"features": dict(features)}}


DEFAULT_FEATURES = features_dict({
    "id": tensor_feature("int64", [], scalar=True),
    "label": {"pythonClassName": _CLS + "class_label_feature.ClassLabel",
              "classLabel": {"numClasses": "10"}},
})


def _default_example(split: str, global_index: int) -> dict[str, Any]:
    return {"id": np.array([global_index]), "label": np.array([global_index % 10])}


def write_dataset(root: Path, shard_lengths: Mapping[str, list[int]], *, name: str = "toy",
                  features: Mapping[str, Any] = DEFAULT_FEATURES,
                  example: Callable[[str, int], Mapping[str, Any]] = _default_example,
                  extra_info: Mapping[str, Any] | None = None) -> Path:
    """Writes ``root/<name>/1.0.0`` with the given splits and shard lengths;
    example ``k`` of a split (its global index) is ``example(split, k)``
    (flattened Example keys -> values)."""
    folder = Path(root) / name / "1.0.0"
    folder.mkdir(parents=True, exist_ok=True)
    splits = []
    for split, lengths in shard_lengths.items():
        k = 0
        template = ShardedFileTemplate(folder, dataset_name=name, split=split,
                                       filetype_suffix="tfrecord")
        for i, n in enumerate(lengths):
            path = template.sharded_filepath(shard_index=i, num_shards=len(lengths))
            with TFRecordWriter(path) as w:
                w.write_many(encode_example(example(split, k + j)) for j in range(n))
            k += n
        splits.append({"filepathTemplate": DEFAULT_FILENAME_TEMPLATE, "name": split,
                       "numBytes": "0", "shardLengths": [str(n) for n in lengths]})
    info = {"citation": "", "description": "A test dataset.", "fileFormat": "tfrecord",
            "moduleName": f"{name}.{name}", "name": name, "releaseNotes": {"1.0.0": "Initial."},
            "splits": splits, "version": "1.0.0", **(extra_info or {})}
    (folder / "dataset_info.json").write_text(json.dumps(info, indent=2), encoding="utf-8")
    (folder / "features.json").write_text(json.dumps(features, indent=4), encoding="utf-8")
    return folder
