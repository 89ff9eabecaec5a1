"""``tfds.folder_dataset.write_metadata``: make a folder of TFRecord shards a TFDS dataset.

For users who write their own shards (named by TFDS's template,
``{DATASET}-{SPLIT}.{FILEFORMAT}-{SHARD_X_OF_Y}``): ``write_metadata`` finds
them, counts each shard's examples (``split_infos=None``) and writes
``dataset_info.json`` and ``features.json`` as TFDS 4.9 writes them (proto-JSON,
sorted keys), so that ``tfds.builder_from_directory`` opens the folder, in
TensorFlow and in minibatcher alike.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher import tfds
    >>> from minibatcher.formats.tfrecord import TFRecordWriter
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "toy" / "1.0.0"; d.mkdir(parents=True)
    >>> features = tfds.features.FeaturesDict({"id": tfds.features.Scalar("int64")})
    >>> for i, ids in enumerate([[0, 1], [2]]):
    ...     with TFRecordWriter(d / f"toy-train.tfrecord-{i:05d}-of-00002") as w:
    ...         w.write_many(features.serialize_example({"id": k}) for k in ids)
    >>> write_metadata(data_dir=d, features=features)
    >>> [int(ex["id"]) for ex in tfds.builder_from_directory(d).as_dataset("train")]
    [0, 1, 2]
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import ConfigError, FormatError
from .connectors import FeaturesDict, to_feature
from .naming import DEFAULT_FILENAME_TEMPLATE, ShardedFileTemplate
from .split_info import SplitInfo

_INFO_KEYS = {"description": "description", "homepage": "homepage", "citation": "citation",
              "disable_shuffling": "disableShuffling", "release_notes": "releaseNotes",
              "supervised_keys": "supervisedKeys"}


def find_shards(data_dir: str | os.PathLike, template: str = DEFAULT_FILENAME_TEMPLATE
                ) -> tuple[str, dict[str, list[str]]]:
    """The dataset name and the shard files of each split in ``data_dir`` (sorted).

    Example:
        >>> find_shards("/no/such/dir")
        Traceback (most recent call last):
        ...
        FileNotFoundError: [Errno 2] No such file or directory: '/no/such/dir'
    """
    pattern = ShardedFileTemplate(Path(data_dir), template=template)
    found: dict[str, list[str]] = {}
    names = set()
    for name in sorted(os.listdir(data_dir)):
        info = pattern.parse_filename_info(name)
        if info is not None and info.filetype_suffix == "tfrecord":
            found.setdefault(str(info.split), []).append(name)
            names.add(info.dataset_name)
    if not found:
        raise FileNotFoundError(2, f"no TFRecord shard in the folder matches the template "
                                f"{template!r}", os.fspath(data_dir))
    if len(names) != 1 or None in names:
        raise FormatError(f"{data_dir}: the shards should name one dataset, but they name "
                          f"{sorted(str(n) for n in names)}")
    return names.pop(), found


def compute_split_info(data_dir: str | os.PathLike,
                       template: str = DEFAULT_FILENAME_TEMPLATE) -> list[SplitInfo]:
    """Every split's shard lengths and bytes, by reading every shard's index."""
    from ..formats.tfrecord import TFRecordFile

    dataset, shards = find_shards(data_dir, template)
    infos = []
    for split, names in sorted(shards.items()):
        lengths, total = [], 0
        for name in names:
            f = TFRecordFile(os.path.join(data_dir, name))
            lengths.append(len(f))
            total += f.file_size - 16 * len(f)
            f.close()
        infos.append(SplitInfo(split, lengths, total, ShardedFileTemplate(
            Path(data_dir), template=template, dataset_name=dataset, split=split,
            filetype_suffix="tfrecord")))
    return infos


def dataset_info_json(name: str, version: str, splits: Sequence[SplitInfo],
                      **info: Any) -> dict[str, Any]:
    """``dataset_info.json``'s content, as TFDS writes it (empty fields left out).

    Example:
        >>> dataset_info_json("toy", "1.0.0", [SplitInfo("train", [2], 30)])["splits"]
        [{'filepathTemplate': '{DATASET}-{SPLIT}.{FILEFORMAT}-{SHARD_X_OF_Y}', 'name': 'train', 'numBytes': '30', 'shardLengths': ['2']}]
    """
    unknown = sorted(set(info) - set(_INFO_KEYS))
    if unknown:
        raise TypeError(f"write_metadata() got unknown dataset info arguments {unknown}; "
                        f"supported: {sorted(_INFO_KEYS)}")
    out: dict[str, Any] = {"fileFormat": "tfrecord", "name": name, "version": version,
                           "splits": [_split_json(s) for s in splits]}
    for key, value in info.items():
        if key == "supervised_keys" and value:
            value = {"tuple": {"items": [{"featureKey": k} for k in value]}}
        if value:
            out[_INFO_KEYS[key]] = value
    return dict(sorted(out.items()))


def _split_json(split: SplitInfo) -> dict[str, Any]:
    proto = split.to_proto()
    return {"filepathTemplate": proto.filepath_template, "name": proto.name,
            "numBytes": str(proto.num_bytes), "shardLengths": [str(n) for n in proto.shard_lengths]}


def write_json(data_dir: str | os.PathLike, features: FeaturesDict, info: Mapping[str, Any]
               ) -> None:
    """Writes dataset_info.json, features.json and the ClassLabel name files."""
    folder = Path(data_dir)
    (folder / "dataset_info.json").write_text(json.dumps(info, indent=2, sort_keys=True),
                                              encoding="utf-8")
    (folder / "features.json").write_text(json.dumps(features.to_json(), indent=4,
                                                     sort_keys=True), encoding="utf-8")
    features.save_metadata(folder)


def write_metadata(*, data_dir: str | os.PathLike, features: Any,
                   split_infos: Sequence[SplitInfo] | None = None, version: str | None = None,
                   filename_template: str | None = None, check_data: bool = True,
                   **ds_info_kwargs: Any) -> None:
    """``tfds.folder_dataset.write_metadata``: writes the JSON files that make
    ``data_dir``'s shards a TFDS dataset.

    ``features`` is a FeaturesDict (or a dict of connectors); ``split_infos``
    ``None`` counts every shard; ``version`` defaults to the folder's name when
    it is one (``1.0.0``), else 1.0.0; ``check_data`` reads the first example back.
    ``ds_info_kwargs``: description, homepage, citation, disable_shuffling,
    release_notes, supervised_keys.
    """
    template = filename_template or DEFAULT_FILENAME_TEMPLATE
    name, shards = find_shards(data_dir, template)
    infos = list(split_infos) if split_infos is not None else compute_split_info(data_dir, template)
    if sorted(s.name for s in infos) != sorted(shards):
        raise ConfigError(f"split_infos should describe the splits of the shards found "
                          f"({sorted(shards)}), but got splits {sorted(s.name for s in infos)}")
    folder = Path(data_dir)
    if version is None:
        version = folder.name if re.fullmatch(r"\d+\.\d+\.\d+", folder.name) else "1.0.0"
    feature = to_feature(features)
    if not isinstance(feature, FeaturesDict):
        raise ConfigError(f"features should be a FeaturesDict (or a dict of connectors), but got "
                          f"{feature!r}")
    write_json(folder, feature, dataset_info_json(name, version, infos, **ds_info_kwargs))
    if check_data:
        from .builder import builder_from_directory

        builder = builder_from_directory(folder)
        next(iter(builder.as_dataset(f"{next(iter(builder.info.splits))}[:1]")), None)


__all__ = ["compute_split_info", "dataset_info_json", "find_shards", "write_json",
           "write_metadata"]
