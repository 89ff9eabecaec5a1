"""Feature connectors for writing TFDS folders: ``tfds.features.FeaturesDict``,
``Tensor``, ``Scalar``, ``ClassLabel``, ``Text`` and ``Sequence`` by TFDS's names.

Each connector says what ``features.json`` holds for it (:meth:`to_json`, the
proto-JSON TFDS 4.9 writes and reads) and how one example's value becomes the
flat ``tf.train.Example`` keys TFDS stores (:meth:`encode`: nested dicts joined
by ``/``, integers and bools as int64 lists, floats as float lists, strings as
bytes). Readers parse ``features.json`` with :mod:`minibatcher.tfds.features`.

Example:
    >>> f = FeaturesDict({"x": Tensor(shape=(None, 2), dtype="float32"),
    ...                   "label": ClassLabel(names=["cat", "dog"])})
    >>> sorted(f.encode({"x": [[1, 2], [3, 4]], "label": "dog"}).items())
    [('label', array([1])), ('x', array([1., 2., 3., 4.], dtype=float32))]
    >>> f.to_json()["featuresDict"]["features"]["label"]["classLabel"]
    {'numClasses': '2'}
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping

import numpy as np

from ..errors import ConfigError, FormatError

_CLS = "tensorflow_datasets.core.features."
_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "string")


def _dtype_name(dtype: Any) -> str:
    name = "string" if dtype in (str, bytes, object, "str", "bytes", "string") else \
        np.dtype(dtype).name
    if name not in _DTYPES:
        raise ConfigError(f"dtype should be one of {', '.join(_DTYPES)}, but got dtype={dtype!r}")
    return name


@dataclasses.dataclass(frozen=True)
class Tensor:
    """``tfds.features.Tensor(shape=..., dtype=...)``; ``None`` in ``shape`` is
    an unknown dimension (at most one, stored flat and reshaped on read).

    Example:
        >>> Tensor(shape=(None, 3), dtype="float32").encode([[1, 2, 3]], "x")
        {'x': array([1., 2., 3.], dtype=float32)}
    """

    shape: tuple[int | None, ...] = ()
    dtype: Any = "float32"
    encoding: str = "none"
    _class = "tensor_feature.Tensor"

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", tuple(None if d is None or d < 0 else int(d)
                                                for d in self.shape))
        object.__setattr__(self, "dtype", _dtype_name(self.dtype))
        if self.encoding != "none":
            raise ConfigError(f"encoding should be 'none' (the only one written), but got "
                              f"encoding={self.encoding!r}")
        if sum(d is None for d in self.shape) > 1:
            raise ConfigError(f"shape should have at most one unknown dimension (None), but got "
                              f"shape={self.shape}; nested sequences need tfds.features.Sequence")

    def to_json(self) -> dict[str, Any]:
        """The connector's entry of features.json."""
        shape = {"dimensions": [str(-1 if d is None else d) for d in self.shape]} \
            if self.shape else {}
        return {"pythonClassName": _CLS + self._class,
                "tensor": {"dtype": self.dtype, "encoding": self.encoding, "shape": shape}}

    def flat(self, value: Any, key: str) -> Any:
        """``value`` as the flat list the Example stores (shape checked)."""
        if self.dtype == "string":
            items = [value] if isinstance(value, (str, bytes)) else list(np.ravel(
                np.asarray(value, dtype=object)))
            out = [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in items]
            _check_shape(key, self.shape, (len(out),) if self.shape else ())
            return out
        array = np.asarray(value)
        _check_shape(key, self.shape, array.shape)
        kind = np.float32 if np.dtype(self.dtype).kind == "f" else np.int64
        return array.astype(kind).reshape(-1)

    def encode(self, value: Any, key: str = "") -> dict[str, Any]:
        """``{key: flat values}`` of one example."""
        return {key: self.flat(value, key)}


@dataclasses.dataclass(frozen=True)
class Scalar(Tensor):
    """``tfds.features.Scalar(dtype)``: a Tensor of shape ``()``.

    Example:
        >>> Scalar("int64").encode(7, "id")
        {'id': array([7])}
    """

    _class = "scalar.Scalar"

    def __init__(self, dtype: Any = "int64") -> None:
        super().__init__(shape=(), dtype=dtype)


@dataclasses.dataclass(frozen=True)
class ClassLabel:
    """``tfds.features.ClassLabel(num_classes=... or names=[...])``: an int64
    class id (a name is encoded as its index).

    Example:
        >>> ClassLabel(num_classes=3).encode(2, "label"), ClassLabel(names=["a", "b"]).num_classes
        ({'label': array([2])}, 2)
    """

    num_classes: int | None = None
    names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.names is not None:
            object.__setattr__(self, "names", tuple(str(n) for n in self.names))
            if self.num_classes not in (None, len(self.names)):
                raise ConfigError(f"num_classes should equal len(names) = {len(self.names)}, but "
                                  f"got num_classes={self.num_classes}")
            object.__setattr__(self, "num_classes", len(self.names))
        if self.num_classes is None:
            raise ConfigError("ClassLabel needs num_classes=N or names=[...]")

    def to_json(self) -> dict[str, Any]:
        """The connector's entry of features.json."""
        return {"classLabel": {"numClasses": str(self.num_classes)},
                "pythonClassName": _CLS + "class_label_feature.ClassLabel"}

    def index(self, value: Any, key: str) -> int:
        """The class id of ``value`` (an id or a name)."""
        if isinstance(value, (str, bytes)) and self.names is not None:
            name = value.decode() if isinstance(value, bytes) else value
            if name not in self.names:
                raise FormatError(f"feature {key!r}: label {name!r} is not one of the "
                                  f"{self.num_classes} class names")
            return self.names.index(name)
        i = int(value)
        if not 0 <= i < int(self.num_classes):
            raise FormatError(f"feature {key!r}: class id {i} should be in [0, "
                              f"{self.num_classes})")
        return i

    def flat(self, value: Any, key: str) -> np.ndarray:
        """The class id as a one-value int64 array."""
        return np.array([self.index(value, key)], np.int64)

    def encode(self, value: Any, key: str = "") -> dict[str, Any]:
        """``{key: [class id]}``."""
        return {key: self.flat(value, key)}

    def save_metadata(self, data_dir: str | os.PathLike, feature_name: str) -> None:
        """Writes ``<feature_name>.labels.txt`` (one name per line) when names are known."""
        if self.names is not None:
            path = os.path.join(os.fspath(data_dir), f"{feature_name}.labels.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("".join(f"{n}\n" for n in self.names))


@dataclasses.dataclass(frozen=True)
class Text:
    """``tfds.features.Text()``: a UTF-8 string (bytes are kept as they are).

    Example:
        >>> Text().encode("héllo", "t")
        {'t': [b'h\\xc3\\xa9llo']}
    """

    def to_json(self) -> dict[str, Any]:
        """The connector's entry of features.json."""
        return {"pythonClassName": _CLS + "text_feature.Text", "text": {}}

    def flat(self, value: Any, key: str) -> list[bytes]:
        """The text as a one-item bytes list."""
        return [value.encode("utf-8") if isinstance(value, str) else bytes(value)]

    def encode(self, value: Any, key: str = "") -> dict[str, Any]:
        """``{key: [utf-8 bytes]}``."""
        return {key: self.flat(value, key)}


@dataclasses.dataclass(frozen=True)
class Sequence:
    """``tfds.features.Sequence(feature)``: a variable number of ``feature``
    values (a Tensor, Scalar, ClassLabel or Text), stored flat.

    Example:
        >>> Sequence(ClassLabel(num_classes=5)).encode([4, 0, 4], "labels")
        {'labels': array([4, 0, 4])}
    """

    feature: Any
    length: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.feature, (Sequence, FeaturesDict)) or isinstance(self.feature, Mapping):
            raise ConfigError("Sequence of a Sequence or of a dict is not written; use a Tensor "
                              "with one unknown dimension, or a FeaturesDict of Sequences")
        if isinstance(self.feature, Tensor) and None in self.feature.shape:
            raise ConfigError("Sequence of a Tensor with an unknown dimension is ragged and is not "
                              "written; give the inner Tensor a fixed shape")

    def to_json(self) -> dict[str, Any]:
        """The connector's entry of features.json."""
        return {"pythonClassName": _CLS + "sequence_feature.Sequence",
                "sequence": {"feature": self.feature.to_json(),
                             "length": str(-1 if self.length is None else self.length)}}

    def flat(self, value: Any, key: str) -> Any:
        """Every item's flat values back to back."""
        items = list(value)
        if self.length is not None and len(items) != self.length:
            raise FormatError(f"feature {key!r}: a Sequence of length {self.length} got "
                              f"{len(items)} items")
        if isinstance(self.feature, ClassLabel):
            return np.array([self.feature.index(v, key) for v in items], np.int64)
        parts = [self.feature.flat(v, key) for v in items]
        if isinstance(self.feature, Text) or (isinstance(self.feature, Tensor)
                                              and self.feature.dtype == "string"):
            return [b for p in parts for b in p]
        kind = np.float32 if isinstance(self.feature, Tensor) and \
            np.dtype(self.feature.dtype).kind == "f" else np.int64
        return np.concatenate(parts).astype(kind) if parts else np.zeros(0, kind)

    def encode(self, value: Any, key: str = "") -> dict[str, Any]:
        """``{key: flat values}`` of one example."""
        return {key: self.flat(value, key)}


@dataclasses.dataclass(frozen=True)
class FeaturesDict:
    """``tfds.features.FeaturesDict({name: connector or nested dict})``.

    Example:
        >>> FeaturesDict({"a": {"b": Scalar("int64")}}).encode({"a": {"b": 3}})
        {'a/b': array([3])}
    """

    features: Mapping[str, Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", {str(k): to_feature(v)
                                              for k, v in dict(self.features).items()})

    def to_json(self) -> dict[str, Any]:
        """The connector's entry of features.json (TFDS writes the names sorted)."""
        return {"featuresDict": {"features": {k: self.features[k].to_json()
                                              for k in sorted(self.features)}},
                "pythonClassName": _CLS + "features_dict.FeaturesDict"}

    def encode(self, value: Mapping[str, Any], key: str = "") -> dict[str, Any]:
        """The flat Example keys of one example (``a/b`` for nested dicts)."""
        if not isinstance(value, Mapping):
            raise FormatError(f"feature {key or '<root>'!r}: expected a dict of "
                              f"{sorted(self.features)}, but got {type(value).__name__}")
        missing = [k for k in self.features if k not in value]
        extra = [k for k in value if k not in self.features]
        if missing or extra:
            raise FormatError(f"feature {key or '<root>'!r}: the example's keys should be "
                              f"{sorted(self.features)}, but "
                              + (f"{missing} are missing" if missing else f"{extra} are unknown"))
        out: dict[str, Any] = {}
        for name, feature in self.features.items():
            out.update(feature.encode(value[name], f"{key}/{name}" if key else name))
        return out

    def serialize_example(self, value: Mapping[str, Any]) -> bytes:
        """One example as a serialized ``tf.train.Example`` (TFDS's method).

        Example:
            >>> from minibatcher.formats.tfrecord import decode_example
            >>> decode_example(FeaturesDict({"id": Scalar("int64")}).serialize_example({"id": 1}))
            {'id': array([1])}
        """
        from ..formats.tfrecord import encode_example

        return encode_example(self.encode(value))

    def save_metadata(self, data_dir: str | os.PathLike, prefix: str = "") -> None:
        """Writes the label files of the ClassLabel features (TFDS's file names)."""
        for name, feature in self.features.items():
            inner = feature.feature if isinstance(feature, Sequence) else feature
            full = f"{prefix}-{name}" if prefix else name
            if isinstance(inner, (ClassLabel, FeaturesDict)):
                inner.save_metadata(data_dir, full)


def to_feature(value: Any) -> Any:
    """A connector, or a nested dict of connectors as a :class:`FeaturesDict`.

    Example:
        >>> to_feature({"x": Text()})
        FeaturesDict(features={'x': Text()})
    """
    if isinstance(value, Mapping):
        return FeaturesDict(value)
    if isinstance(value, (Tensor, ClassLabel, Text, Sequence, FeaturesDict)):
        return value
    raise ConfigError(f"features should be FeaturesDict, Tensor, Scalar, ClassLabel, Text or "
                      f"Sequence connectors (or dicts of them), but got {value!r}")


def _check_shape(key: str, expected: tuple[int | None, ...], got: tuple[int, ...]) -> None:
    if len(expected) != len(got) or any(e is not None and e != g for e, g in zip(expected, got)):
        want = tuple(-1 if d is None else d for d in expected)
        raise FormatError(f"feature {key!r}: expected a value of shape {want} (-1: any), but "
                          f"got shape {tuple(got)}")


def from_json(spec: Mapping[str, Any]) -> Any:
    """The connector of a features.json entry (the classes above; others are
    a ``FormatError`` naming the supported ones).

    Example:
        >>> from_json(Sequence(ClassLabel(num_classes=4)).to_json())
        Sequence(feature=ClassLabel(num_classes=4, names=None), length=None)
    """
    cls = str(spec.get("pythonClassName", "")).rsplit(".", 1)[-1]
    if cls == "FeaturesDict":
        return FeaturesDict({k: from_json(v) for k, v in
                             spec.get("featuresDict", {}).get("features", {}).items()})
    if cls in ("Tensor", "Scalar"):
        body = spec.get("tensor", {})
        dims = tuple(int(d) for d in (body.get("shape") or {}).get("dimensions", []))
        return Scalar(body.get("dtype")) if cls == "Scalar" else \
            Tensor(shape=dims, dtype=body.get("dtype"))
    if cls == "ClassLabel":
        return ClassLabel(num_classes=int(spec["classLabel"]["numClasses"]))
    if cls == "Text":
        return Text()
    if cls == "Sequence":
        length = int(spec["sequence"].get("length", -1))
        return Sequence(from_json(spec["sequence"]["feature"]), None if length < 0 else length)
    raise FormatError(f"features.json: the connector {spec.get('pythonClassName')!r} is not "
                      "written by minibatcher; supported: FeaturesDict, Tensor, Scalar, "
                      "ClassLabel, Text, Sequence")


__all__ = ["ClassLabel", "FeaturesDict", "Scalar", "Sequence", "Tensor", "Text", "from_json",
           "to_feature"]
