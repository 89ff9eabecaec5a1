"""Dataset names as TFDS writes them: ``namespace:dataset/config:version/kw=value``
(``tfds.load``'s first argument), and its snake/camel case rules. Re-exported by
:mod:`minibatcher.tfds.naming`.

Example:
    >>> parse_builder_name_kwargs("mnist/cfg:3.0.1", data_dir="/data")
    (DatasetName('mnist'), {'config': 'cfg', 'version': '3.0.1', 'data_dir': '/data'})
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Any, Mapping

_NAME_CLASS = r"[a-zA-Z][\w]*"
_NAME_RE = re.compile(
    r"^(?P<dataset_name>([\w\-]+:)?" + _NAME_CLASS + r")"
    r"(/(?P<config>[\w\+\-\.]+))?"
    r"(:(?P<version>(\d+|\*)(\.(\d+|\*)){2}))?"
    r"(/(?P<kwargs>(\w+=[^,]+,?)+))?$")
_FORMAT_HELP = """\
The builder name string must be of the following format:
  dataset_name[/config_name][:version][/kwargs]
  (e.g. my_dataset, my_dataset:1.2.*, my_dataset/config1:1.*.*,
  my_dataset/config1/arg1=val1,arg2=val2)"""


@dataclasses.dataclass(eq=True, order=True, frozen=True)
class DatasetName:
    """A dataset name with its optional namespace (``'ns:name'``).

    Example:
        >>> DatasetName("kaggle:ds").namespace, str(DatasetName(name="ds"))
        ('kaggle', 'ds')
    """

    namespace: str | None
    name: str

    def __init__(self, namespace_name: str | None = None, *, namespace: str | None = None,
                 name: str | None = None) -> None:
        if namespace_name and (namespace or name):
            raise ValueError("Name should be defined by `DatasetName('ns:name')` or "
                             "`DatasetName(namespace='ns', name='name'). Mixing args and kwargs "
                             "is invalid.")
        if namespace_name:
            namespace, name = namespace_name.split(":") if ":" in namespace_name else \
                (None, namespace_name)
        object.__setattr__(self, "namespace", namespace)
        object.__setattr__(self, "name", name)

    def __str__(self) -> str:
        return f"{self.namespace}:{self.name}" if self.namespace else str(self.name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


def is_valid_dataset_name(name_str: str) -> bool:
    """Whether ``name_str`` parses as a dataset name (with config, version...).

    Example:
        >>> is_valid_dataset_name("dataset123_abc"), is_valid_dataset_name("dataset.old")
        (True, False)
    """
    return bool(_NAME_RE.match(name_str))


def is_valid_dataset_and_class_name(name_str: str) -> bool:
    """Whether ``name_str`` is a plain Python-identifier-like name.

    Example:
        >>> is_valid_dataset_and_class_name("MyDataset"), is_valid_dataset_and_class_name("a/b")
        (True, False)
    """
    return bool(re.match(r"^" + _NAME_CLASS + r"$", name_str))


def _cast(value: str) -> Any:
    bools = {"True": True, "False": False}
    if value in bools:
        return bools[value]
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


def _dataset_name_and_kwargs_from_name_str(name_str: str) -> tuple[str, dict[str, Any]]:
    """The (snake-cased) name and the config/version/kwargs of a name string."""
    m = _NAME_RE.match(name_str)
    if not m:
        raise ValueError(f"Parsing builder name string {name_str} failed.\n{_FORMAT_HELP}")
    name = camelcase_to_snakecase(m["dataset_name"])
    kwargs = {}
    for item in (m["kwargs"] or "").split(",") if m["kwargs"] else []:
        key, value = item.split("=")
        kwargs[key] = _cast(value)
    for attr in ("config", "version"):
        if m[attr] is None:
            continue
        if attr in kwargs:
            raise ValueError(f"Dataset {name}: cannot pass {attr} twice.\n{_FORMAT_HELP}")
        kwargs[attr] = m[attr]
    return name, kwargs


def parse_builder_name_kwargs(name: str, **builder_kwargs: Any
                              ) -> tuple[DatasetName, dict[str, Any]]:
    """A name string split into its :class:`DatasetName` and the builder
    keyword arguments it carries, merged with ``builder_kwargs`` (a keyword
    given twice is a TypeError, as in a call)."""
    ds_name, parsed = _dataset_name_and_kwargs_from_name_str(name)
    return DatasetName(ds_name), dict(**parsed, **builder_kwargs)


_FIRST_CAP = re.compile("(.)([A-Z][a-z0-9]+)")
_ALL_CAP = re.compile("([a-z0-9])([A-Z])")


def camelcase_to_snakecase(name: str) -> str:
    """``'FooBARBaz'`` -> ``'foo_bar_baz'`` (snake case is left as it is).

    Example:
        >>> camelcase_to_snakecase("FooBar123Baz")
        'foo_bar123_baz'
    """
    return _ALL_CAP.sub(r"\1_\2", _FIRST_CAP.sub(r"\1_\2", name)).lower()


def snake_to_camelcase(name: str) -> str:
    """``'hello_world'`` -> ``'HelloWorld'``.

    Example:
        >>> snake_to_camelcase("foo_bar123")
        'FooBar123'
    """
    return "".join(part.capitalize() for part in name.split("_"))


@dataclasses.dataclass(order=True)
class DatasetReference:
    """A dataset named by name, namespace, config, version and (optionally) the
    data folder holding it, as TFDS's dataset collections refer to datasets.

    Example:
        >>> ref = DatasetReference.from_tfds_name("ds/cfg:1.2.3", data_dir="/data")
        >>> ref.tfds_name(), str(ref.dataset_dir())
        ('ds/cfg:1.2.3', '/data/ds/cfg/1.2.3')
    """

    dataset_name: str
    namespace: str | None = None
    config: str | None = None
    version: str | None = None
    data_dir: Any = None
    split_mapping: Mapping[str, str] | None = None
    info_filenames: set[str] | None = None

    def __post_init__(self) -> None:
        if self.version is not None and not isinstance(self.version, str):
            self.version = str(self.version)

    def tfds_name(self, include_version: bool = True) -> str:
        """``namespace:name/config:version`` (parts that are set)."""
        name = f"{self.namespace}:{self.dataset_name}" if self.namespace else self.dataset_name
        name += f"/{self.config}" if self.config else ""
        return name + (f":{self.version}" if self.version and include_version else "")

    def get_split(self, split: str) -> str:
        """The dataset's name for a split of the collection."""
        return (self.split_mapping or {}).get(split, split)

    def dataset_dir(self, data_dir: Any = None) -> Path:
        """``<data_dir>/<name>[/<config>]/<version>``."""
        data_dir = data_dir or self.data_dir
        if data_dir is None:
            raise ValueError("No data dir was specified!")
        if self.version is None:
            raise ValueError("Version wasn't specified and is needed to get the dataset dir!")
        folder = Path(data_dir) / self.dataset_name
        return (folder / self.config if self.config else folder) / str(self.version)

    def replace(self, **kwargs: Any) -> "DatasetReference":
        """A copy with some fields changed."""
        return dataclasses.replace(self, **kwargs)

    @classmethod
    def from_tfds_name(cls, tfds_name: str, split_mapping: Mapping[str, str] | None = None,
                       data_dir: Any = None) -> "DatasetReference":
        """From a name such as ``'ns:ds/config:1.2.3'``."""
        name, kwargs = parse_builder_name_kwargs(tfds_name)
        return cls(name.name, name.namespace, kwargs.get("config"), kwargs.get("version"),
                   data_dir, split_mapping)

    @classmethod
    def from_path(cls, dataset_dir: Any, root_data_dir: Any) -> "DatasetReference":
        """From a dataset folder ``<root>/<name>[/<config>]/<version>``."""
        dataset_dir, root = os.fspath(dataset_dir), os.fspath(root_data_dir)
        if not dataset_dir.startswith(root):
            raise ValueError(f"dataset_dir={dataset_dir!r} does not start with "
                             f"root_data_dir={root!r}!")
        relative = dataset_dir.removeprefix(root).removeprefix("/").removesuffix("/")
        parts = relative.split("/")
        if len(parts) not in (2, 3):
            raise ValueError(f"Invalid relative_path={relative!r} for root_data_dir={root!r} "
                             f"and dataset_dir={dataset_dir!r}")
        config = parts[1] if len(parts) == 3 else None
        return cls(parts[0], config=config, version=parts[-1], data_dir=root.removesuffix("/"))


def references_for(name_to_tfds_name: Mapping[str, str]) -> dict[str, DatasetReference]:
    """A :class:`DatasetReference` per name (``{'wiki': 'wikipedia/20201201.it:1.0.0'}``).

    Example:
        >>> references_for({"two": "ds2:1.0.0"})["two"].version
        '1.0.0'
    """
    return {name: DatasetReference.from_tfds_name(n) for name, n in name_to_tfds_name.items()}


def reference_for(tfds_name: str) -> DatasetReference:
    """``DatasetReference.from_tfds_name(tfds_name)``.

    Example:
        >>> reference_for("ds/config:1.2.3").config
        'config'
    """
    return DatasetReference.from_tfds_name(tfds_name)
