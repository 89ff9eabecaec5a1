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
import os
from typing import Any, Mapping

from ..errors import FormatError
from ..formats.small_files import read_json
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
    what = os.path.basename(path)
    try:
        return read_json(path, what)
    except FileNotFoundError:
        raise FileNotFoundError(2, "not a TFDS dataset directory: it has no "
                                f"{os.path.basename(path)}", path) from None


def _count(value: Any, expected: str, field: str) -> int:
    """A count of ``dataset_info.json``: an int or a decimal string (int64 in
    JSON, as TFDS writes it) in ``[0, 2**63)``; anything else is a FormatError
    saying what was ``expected`` and naming the ``field``.

    Example:
        >>> _count("534", "x", "numBytes"), _count(7, "x", "numBytes")
        (534, 7)
        >>> _count(5.7, "info.json: 'shardLengths' should be a list of integers", "shardLengths[0]")
        Traceback (most recent call last):
        ...
        minibatcher.errors.FormatError: info.json: 'shardLengths' should be a list of integers (each >= 0 and < 2**63, a number or a decimal string), but got shardLengths[0]=5.7
    """
    n = value if type(value) is int else (
        int(value) if isinstance(value, str) and value.isascii() and value.isdigit() else None)
    if n is None or not 0 <= n < 1 << 63:
        raise FormatError(f"{expected} (each >= 0 and < 2**63, a number or a decimal string), "
                          f"but got {field}={value!r}")
    return n


def _split(raw: Any, template: ShardedFileTemplate, path: str) -> SplitInfo:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
        raise FormatError(f"{path}: every entry of 'splits' should be an object with a 'name', "
                          f"but got {raw!r}")
    if "shardLengths" not in raw:
        raise FormatError(f"{path}: split {raw['name']!r} has no 'shardLengths' (written by a "
                          "TFDS older than 3.0?); the shard lengths are needed to read it")
    where = f"{path}: split {raw['name']!r}"
    shards = raw["shardLengths"]
    if not isinstance(shards, list):
        raise FormatError(f"{where}: 'shardLengths' should be a list of integers, but got "
                          f"shardLengths={shards!r}")
    expected = f"{where}: 'shardLengths' should be a list of integers"
    lengths = [_count(n, expected, f"shardLengths[{i}]") for i, n in enumerate(shards)]
    try:
        template = template.replace(split=raw["name"], template=raw.get("filepathTemplate") or "")
    except ValueError as e:
        raise FormatError(f"{where}: {e}") from None
    num_bytes = _count(raw.get("numBytes") or 0, f"{where}: 'numBytes' should be an integer",
                       "numBytes")
    return SplitInfo(raw["name"], lengths, num_bytes, template)


def _supervised(raw: Any) -> tuple[str, str] | None:
    if not isinstance(raw, Mapping):
        return None
    if "input" in raw and "output" in raw:
        return (str(raw["input"]), str(raw["output"]))
    items = (raw.get("tuple") or {}).get("items") or []
    keys = [i.get("featureKey") for i in items if isinstance(i, Mapping)]
    return (keys[0], keys[1]) if len(keys) == 2 and all(keys) else None


def _check_name(raw: Any, path: str) -> None:
    """A FormatError unless ``raw`` is a JSON object with a string ``name``, saying what is
    missing.

    Example:
        >>> _check_name({"version": "1.0.0"}, "d/dataset_info.json")
        Traceback (most recent call last):
        ...
        minibatcher.errors.FormatError: d/dataset_info.json: expected the dataset's 'name' (a string, as TFDS writes it), but it has no 'name' (its keys: 'version')
    """
    if not isinstance(raw, Mapping):
        kind = {list: "an array", str: "a string", int: "a number", float: "a number",
                bool: "a boolean"}.get(type(raw), "null")
        raise FormatError(f"{path}: should be a JSON object (TFDS's DatasetInfo), but it is "
                          f"{kind}")
    if "name" not in raw:
        keys = ", ".join(repr(k) for k in list(raw)[:8]) or "none"
        raise FormatError(f"{path}: expected the dataset's 'name' (a string, as TFDS writes it), "
                          f"but it has no 'name' (its keys: {keys})")
    if not isinstance(raw["name"], str):
        raise FormatError(f"{path}: 'name' should be a string (the dataset's name), but got "
                          f"name={raw['name']!r}")


def load_info(data_dir: str | os.PathLike) -> DatasetInfo:
    """Reads ``dataset_info.json`` (and ``features.json`` when present)."""
    data_dir = os.fspath(data_dir)
    path = os.path.join(data_dir, "dataset_info.json")
    raw = _read_json(path)
    _check_name(raw, path)
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
