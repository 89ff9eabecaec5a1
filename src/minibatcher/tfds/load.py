"""``tfds.load``, ``tfds.builder`` and ``tfds.as_numpy`` for datasets already prepared on
disk: ``<data_dir>/<name>[/<config>]/<version>/`` as TFDS writes it. Nothing is downloaded or
generated; a dataset that is not there is a :class:`DatasetNotFoundError` saying where it was
looked for.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.tfds.testing import write_dataset
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = write_dataset(root, {"train": [2, 2]})
    >>> ds, info = load("toy", split="train[:3]", data_dir=root, with_info=True)
    >>> [int(x["id"]) for x in as_numpy(ds)], info.version
    ([0, 1, 2], '1.0.0')
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Mapping

from ..errors import MinibatcherError
from .builder import ReadOnlyBuilder
from .naming import parse_builder_name_kwargs
from .read_config import ReadConfig

_VERSION = re.compile(r"^\d+\.\d+\.\d+$")


class DatasetNotFoundError(MinibatcherError, ValueError):
    """The dataset is not prepared in the data folder (TFDS's name).

    Example:
        >>> issubclass(DatasetNotFoundError, ValueError)
        True
    """


def _data_dir(data_dir: str | os.PathLike | None) -> Path:
    if data_dir is not None:
        return Path(data_dir).expanduser()
    return Path(os.environ.get("TFDS_DATA_DIR") or "~/tensorflow_datasets").expanduser()


def _matches(version: str, wanted: str | None) -> bool:
    return wanted is None or all(w in ("*", v) for v, w in zip(version.split("."),
                                                                wanted.split(".")))


def _latest_version(folder: Path, wanted: str | None) -> Path | None:
    """The highest version folder (holding features.json) that matches ``wanted``
    (``1.2.3``, ``1.*.*``, or None for any)."""
    found = [p for p in folder.iterdir() if p.is_dir() and _VERSION.match(p.name)
             and (p / "features.json").exists() and _matches(p.name, wanted)] \
        if folder.is_dir() else []
    return max(found, key=lambda p: tuple(int(x) for x in p.name.split("."))) if found else None


def find_builder_dir(name: str, data_dir: str | os.PathLike | None = None,
                     **builder_kwargs: Any) -> Path:
    """The folder of ``name`` (``'ds'``, ``'ds/config'``, ``'ds:1.2.*'`` ...) under
    ``data_dir`` (default: ``$TFDS_DATA_DIR`` or ``~/tensorflow_datasets``).

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher.tfds.testing import write_dataset
        >>> root = pathlib.Path(tempfile.mkdtemp()); _ = write_dataset(root, {"train": [1]})
        >>> find_builder_dir("toy:1.*.*", root).relative_to(root).as_posix()
        'toy/1.0.0'
    """
    ds_name, kwargs = parse_builder_name_kwargs(name, **builder_kwargs)
    version, config = kwargs.pop("version", None), kwargs.pop("config", None)
    kwargs.pop("file_format", None)
    if ds_name.namespace or kwargs:
        raise DatasetNotFoundError(
            f"{name}: only prepared folders can be read; namespaces and builder arguments "
            f"({sorted(kwargs)}) need TFDS's dataset code")
    root = _data_dir(data_dir)
    folder = root / ds_name.name / config if config else root / ds_name.name
    found = _latest_version(folder, None if version is None else str(version))
    if found is not None:
        return found
    configs = sorted(p.name for p in folder.iterdir() if p.is_dir() and
                     _latest_version(p, None)) if folder.is_dir() and not config else []
    hint = (f" A folder for {ds_name.name!r} exists with the configs {configs}: name one, e.g. "
            f"'{ds_name.name}/{configs[0]}'.") if configs else ""
    raise DatasetNotFoundError(
        f"Could not find dataset files for: {name} in {root} (looked for a version folder "
        f"{'matching ' + str(version) + ' ' if version else ''}with features.json under "
        f"{folder}).{hint} minibatcher reads prepared datasets only; it does not download or "
        "generate them: prepare it with TensorFlow Datasets (tfds.load(name, download=True) or "
        "`tfds build`), or pass data_dir=")


def builder(name: str, *, data_dir: str | os.PathLike | None = None,
            file_format: Any = None, **builder_kwargs: Any) -> ReadOnlyBuilder:
    """``tfds.builder(name, data_dir=...)``: the prepared folder's builder.

    Example:
        >>> builder("no_such_dataset", data_dir="/nonexistent")
        Traceback (most recent call last):
        ...
        minibatcher.tfds.load.DatasetNotFoundError: Could not find dataset files for: ...
    """
    return ReadOnlyBuilder(find_builder_dir(name, data_dir, **builder_kwargs),
                           file_format=file_format)


def load(name: str, *, split: Any = None, data_dir: str | os.PathLike | None = None,
         batch_size: int | None = None, shuffle_files: bool = False, download: bool = True,
         as_supervised: bool = False, decoders: Mapping[str, Any] | None = None,
         read_config: ReadConfig | None = None, with_info: bool = False,
         builder_kwargs: Mapping[str, Any] | None = None,
         download_and_prepare_kwargs: Mapping[str, Any] | None = None,
         as_dataset_kwargs: Mapping[str, Any] | None = None, try_gcs: bool = False,
         file_format: Any = None) -> Any:
    """``tfds.load``: ``builder(name).as_dataset(split, ...)`` (and the info with
    ``with_info=True``). ``download``, ``try_gcs`` and
    ``download_and_prepare_kwargs`` are accepted; nothing is ever downloaded.

    Example:
        >>> load("mnist", data_dir="/nonexistent")
        Traceback (most recent call last):
        ...
        minibatcher.tfds.load.DatasetNotFoundError: Could not find dataset files for: mnist ...
    """
    b = builder(name, data_dir=data_dir, file_format=file_format, **dict(builder_kwargs or {}))
    ds = b.as_dataset(split=split, batch_size=batch_size, shuffle_files=shuffle_files,
                      as_supervised=as_supervised, decoders=decoders, read_config=read_config,
                      **dict(as_dataset_kwargs or {}))
    return (ds, b.info) if with_info else ds


def as_numpy(dataset: Any) -> Any:
    """``tfds.as_numpy``: datasets here already give NumPy values, so a dataset
    (or a list/dict of them, or of arrays) is returned as it is; iterate it as
    often as needed.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = Dataset.range(3)
        >>> as_numpy(ds) is ds, [int(x) for x in as_numpy(ds)]
        (True, [0, 1, 2])
    """
    return dataset


__all__ = ["DatasetNotFoundError", "as_numpy", "builder", "find_builder_dir", "load"]
