"""``dataset_info.json`` and ``features.json``: the only files read at open.

Example:
    >>> import json, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "dataset_info.json").write_text(json.dumps({"name": "toy", "splits": [
    ...     {"name": "train", "shardLengths": ["3", "2"]}]}))
    >>> info = load_info(d)
    >>> info.name, info.splits["train"].num_examples, info.splits["train"].filenames[1]
    ('toy', 5, 'toy-train.tfrecord-00001-of-00002')
    >>> info.splits["train"].file_instructions[0].filename == str(d / info.splits[
    ...     "train"].filenames[0])
    True
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Mapping

from ..errors import FormatError
from .features import FeatureTree, Leaf, parse_features
from .naming import ShardedFileTemplate
from .split_info import SplitDict, SplitInfo
from .splits import SplitArg


@dataclasses.dataclass(frozen=True)
class DatasetInfo:
    """What ``dataset_info.json`` and ``features.json`` say.

    Example:
        >>> DatasetInfo("x", "1.0.0", "tfrecord", SplitDict(), None, None, False, "/d").file_format
        'tfrecord'
    """

    name: str
    version: str
    file_format: str
    splits: SplitDict
    features: FeatureTree | Leaf | None
    supervised_keys: tuple[str, str] | None
    disable_shuffling: bool
    data_dir: str
    description: str = ""


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise FileNotFoundError(2, "not a TFDS dataset directory: it has no "
                                f"{os.path.basename(path)}", path) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(f"{path}:{e.lineno}:{e.colno} (byte {e.pos}): malformed JSON: "
                          f"{e.msg}") from None


def _split(raw: Any, template: ShardedFileTemplate, path: str) -> SplitInfo:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
        raise FormatError(f"{path}: every entry of 'splits' should be an object with a 'name', "
                          f"but got {raw!r}")
    if "shardLengths" not in raw:
        raise FormatError(f"{path}: split {raw['name']!r} has no 'shardLengths' (written by a "
                          "TFDS older than 3.0?); the shard lengths are needed to read it")
    try:
        lengths = tuple(int(n) for n in raw["shardLengths"])
    except (TypeError, ValueError):
        raise FormatError(f"{path}: split {raw['name']!r}: 'shardLengths' should be a list of "
                          f"integers, but got {raw['shardLengths']!r}") from None
    if any(n < 0 for n in lengths):
        raise FormatError(f"{path}: split {raw['name']!r}: negative shard length in "
                          f"{list(lengths)}")
    try:
        template = template.replace(split=raw["name"], template=raw.get("filepathTemplate") or "")
    except ValueError as e:
        raise FormatError(f"{path}: split {raw['name']!r}: {e}") from None
    return SplitInfo(raw["name"], list(lengths), int(raw.get("numBytes", 0) or 0), template)


def _supervised(raw: Any) -> tuple[str, str] | None:
    if not isinstance(raw, Mapping):
        return None
    if "input" in raw and "output" in raw:
        return (str(raw["input"]), str(raw["output"]))
    items = (raw.get("tuple") or {}).get("items") or []
    keys = [i.get("featureKey") for i in items if isinstance(i, Mapping)]
    return (keys[0], keys[1]) if len(keys) == 2 and all(keys) else None


def load_info(data_dir: str | os.PathLike) -> DatasetInfo:
    """Reads ``dataset_info.json`` (and ``features.json`` when present)."""
    data_dir = os.fspath(data_dir)
    path = os.path.join(data_dir, "dataset_info.json")
    raw = _read_json(path)
    if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
        raise FormatError(f"{path}: should be a JSON object with a 'name', but got "
                          f"{type(raw).__name__}")
    file_format = raw.get("fileFormat") or "tfrecord"
    if not isinstance(raw.get("splits", []), list):
        raise FormatError(f"{path}: 'splits' should be a list")
    template = ShardedFileTemplate(data_dir, dataset_name=raw["name"], filetype_suffix=file_format)
    infos: dict[str, SplitInfo] = {}
    for s in raw.get("splits", []):
        info = _split(s, template, path)
        if info.name in infos:
            raise FormatError(f"{path}: split {info.name!r} is listed twice")
        infos[info.name] = info
    splits = SplitDict(infos.values())
    features_path = os.path.join(data_dir, "features.json")
    features = parse_features(_read_json(features_path)) if os.path.exists(features_path) else None
    return DatasetInfo(raw["name"], str(raw.get("version", "")), file_format, splits, features,
                       _supervised(raw.get("supervisedKeys")), bool(raw.get("disableShuffling")),
                       data_dir, str(raw.get("description", "")))


__all__ = ["DatasetInfo", "SplitArg", "SplitDict", "load_info"]
