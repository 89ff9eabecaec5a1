"""``features.json`` -> decoders from ``tf.train.Example`` to NumPy.

TFDS flattens nested feature dicts into Example keys joined by ``/``;
integers and bools are stored as int64 lists, floats as float lists (float32),
strings and encoded images as bytes lists. A Sequence adds a leading unknown
dimension; nested sequences are stored as ``<key>/ragged_flat_values`` plus
``<key>/ragged_row_lengths_<i>``. Supported connectors: FeaturesDict, Tensor,
Scalar, ClassLabel, Text, Image (PNG/JPEG, decoded with Pillow), Sequence and
Dataset (decoded like a Sequence). Any other connector is a clear error.

Example:
    >>> cls = "tensorflow_datasets.core.features."
    >>> spec = {"pythonClassName": cls + "features_dict.FeaturesDict",
    ...         "featuresDict": {"features": {"label": {
    ...             "pythonClassName": cls + "class_label_feature.ClassLabel",
    ...             "classLabel": {"numClasses": "3"}}}}}
    >>> [(leaf.key, leaf.kind.name, leaf.dtype.name) for leaf in parse_features(spec).leaves()]
    [('label', 'INT64', 'int64')]
"""

from __future__ import annotations

import dataclasses
import io
import zlib
from typing import Any, Mapping

import numpy as np

from ..errors import FormatError
from ..formats.tfrecord.example import FeatureKind

_PREFIX = "tensorflow_datasets.core.features."
SUPPORTED = ("FeaturesDict", "Tensor", "Scalar", "ClassLabel", "Text", "Image", "Sequence",
             "Dataset")
_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "bfloat16", "float32", "float64", "string", "str", "bytes"}


@dataclasses.dataclass(frozen=True)
class Leaf:
    """One Example key: its kind, the decoded dtype and shape (None = unknown),
    the number of sequence levels above it, and how to decode it."""

    path: tuple[str, ...]
    connector: str          # Tensor, ClassLabel, Text or Image
    dtype: np.dtype
    shape: tuple[int | None, ...]
    sequence_rank: int = 0
    encoding: str = "none"  # Tensor: none, bytes or zlib; Image: png, jpeg or ""
    num_classes: int | None = None
    optional: bool = False  # Tensor/Scalar(optional=True): a missing value is the default

    def default(self) -> Any:
        """An optional leaf's value where the record holds none: TFDS's default
        (the dtype's minimum, ``b''`` for strings, False for bools) in the
        stored kind (int64, float32 or bytes), then cast to the leaf's dtype.

        Example:
            >>> Leaf(("opt",), "Tensor", np.dtype("int32"), (), optional=True).default()
            np.int32(-2147483648)
        """
        if self.dtype == object:
            value: Any = b""
        elif self.dtype.kind == "b":
            value = False
        elif self.dtype.kind in "iu":
            value = np.iinfo(self.dtype).min
        else:
            with np.errstate(over="ignore"):
                value = np.float32(np.finfo(self.dtype).min)  # TF parses floats as float32
        if self.dtype == object:
            return value if not self.shape else np.full(self.shape, value, dtype=object)
        return np.full(self.shape, value).astype(self.dtype)[()]

    @property
    def key(self) -> str:
        """The Example key (the path joined by '/')."""
        return "/".join(self.path)

    @property
    def kind(self) -> FeatureKind:
        """The Example list kind the key holds."""
        if self.connector in ("Text", "Image") or self.encoding in ("bytes", "zlib") or \
                self.dtype.kind in "SOU":
            return FeatureKind.BYTES
        return FeatureKind.FLOAT if self.dtype.kind == "f" else FeatureKind.INT64

    def keys(self) -> list[tuple[str, FeatureKind]]:
        """The Example keys of this leaf (several for nested sequences)."""
        if self.sequence_rank < 2:
            return [(self.key, self.kind)]
        return [(f"{self.key}/ragged_flat_values", self.kind)] + [
            (f"{self.key}/ragged_row_lengths_{i}", FeatureKind.INT64)
            for i in range(self.sequence_rank - 1)]


@dataclasses.dataclass(frozen=True)
class FeatureTree:
    """A FeaturesDict: names -> sub-trees or leaves (in features.json order)."""

    children: Mapping[str, "FeatureTree | Leaf"]

    def leaves(self) -> list[Leaf]:
        """Every leaf, depth first."""
        out: list[Leaf] = []
        for child in self.children.values():
            out.extend(child.leaves() if isinstance(child, FeatureTree) else [child])
        return out


def _class_name(spec: Mapping[str, Any], path: tuple[str, ...]) -> str:
    name = spec.get("pythonClassName") if isinstance(spec, Mapping) else None
    if not isinstance(name, str):
        raise FormatError(f"features.json: the feature at {'/'.join(path) or '<root>'} has no "
                          f"pythonClassName")
    return name.rsplit(".", 1)[-1]


def _shape(body: Mapping[str, Any], path: tuple[str, ...]) -> tuple[int | None, ...]:
    dims = (body.get("shape") or {}).get("dimensions", [])
    try:
        return tuple(None if int(d) < 0 else int(d) for d in dims)
    except (TypeError, ValueError):
        raise FormatError(f"features.json: feature {'/'.join(path)}: bad shape {dims!r}") from None


def _dtype(name: Any, path: tuple[str, ...]) -> np.dtype:
    if name not in _DTYPES:
        raise FormatError(f"features.json: feature {'/'.join(path)}: unsupported dtype {name!r}; "
                          f"supported: {sorted(_DTYPES)}")
    return np.dtype(object) if name in ("string", "str", "bytes") else np.dtype(
        "float32" if name == "bfloat16" else name)


def _leaf(cls: str, spec: Mapping[str, Any], path: tuple[str, ...], rank: int) -> Leaf:
    if cls in ("Tensor", "Scalar"):
        body = spec.get("tensor", {})
        encoding = body.get("encoding", "none") or "none"
        if encoding not in ("none", "bytes", "zlib"):
            raise FormatError(f"features.json: feature {'/'.join(path)}: unsupported tensor "
                              f"encoding {encoding!r}; supported: none, bytes, zlib")
        return Leaf(path, "Tensor", _dtype(body.get("dtype", "float32"), path), _shape(body, path),
                    rank, encoding, optional=bool(body.get("optional", False)))
    if cls == "ClassLabel":
        n = spec.get("classLabel", {}).get("numClasses")
        return Leaf(path, "ClassLabel", np.dtype(np.int64), (), rank,
                    num_classes=None if n is None else int(n))
    if cls == "Text":
        return Leaf(path, "Text", np.dtype(object), (), rank)
    body = spec.get("image", {})
    shape = _shape(body, path) or (None, None, 3)
    return Leaf(path, "Image", _dtype(body.get("dtype", "uint8"), path), shape, rank,
                str(body.get("encodingFormat", "") or ""))


def parse_features(spec: Mapping[str, Any], path: tuple[str, ...] = (), rank: int = 0
                   ) -> FeatureTree | Leaf:
    """The feature tree of a features.json document (or part of it)."""
    cls = _class_name(spec, path)
    if cls == "FeaturesDict":
        features = spec.get("featuresDict", {}).get("features")
        if not isinstance(features, Mapping):
            raise FormatError(f"features.json: FeaturesDict at {'/'.join(path) or '<root>'} has "
                              f"no featuresDict.features object")
        return FeatureTree({k: parse_features(v, path + (k,), rank) for k, v in features.items()})
    if cls in ("Sequence", "Dataset"):
        inner = spec.get("sequence", {}).get("feature")
        if not isinstance(inner, Mapping):
            raise FormatError(f"features.json: {cls} at {'/'.join(path)} has no sequence.feature")
        return parse_features(inner, path, rank + 1)
    if cls not in SUPPORTED:
        raise FormatError(f"features.json: feature {'/'.join(path) or '<root>'} has the "
                          f"unsupported type {spec.get('pythonClassName')!r}; supported feature "
                          f"connectors: {', '.join(SUPPORTED)}")
    return _leaf(cls, spec, path, rank)


def decode_image(data: bytes, leaf: Leaf) -> np.ndarray:
    """An encoded PNG/JPEG as an ``(h, w, c)`` array (Pillow)."""
    try:
        from PIL import Image
    except ImportError as e:  # pragma: no cover - the tfds extra installs it
        raise ImportError("Image features need Pillow: pip install 'minibatcher[tfds]'") from e
    with Image.open(io.BytesIO(data)) as img:
        channels = leaf.shape[-1] if leaf.shape else None
        if channels == 1 and img.mode not in ("L", "I;16"):
            img = img.convert("L")
        elif channels == 3 and img.mode != "RGB":
            img = img.convert("RGB")
        elif channels == 4 and img.mode != "RGBA":
            img = img.convert("RGBA")
        array = np.asarray(img)
    if array.ndim == 2:
        array = array[:, :, None]
    return array.astype(leaf.dtype, copy=False)


def _reshape(values: Any, leaf: Leaf, shape: tuple[int | None, ...], where: str) -> Any:
    """Flat values -> the leaf's dtype and shape (one unknown dimension inferred)."""
    if leaf.dtype == object:
        arr = np.array(values if isinstance(values, list) else list(values), dtype=object)
    else:
        arr = np.asarray(values).astype(leaf.dtype, copy=False)
    known = [d for d in shape if d is not None]
    unknown = len(shape) - len(known)
    size = int(np.prod(known)) if known else 1
    if (unknown == 0 and arr.size != size) or (unknown and size and arr.size % size):
        raise FormatError(f"{where}: feature {leaf.key!r} holds {arr.size} values, which do not "
                          f"fit its shape {tuple(-1 if d is None else d for d in shape)}")
    if unknown > 1:
        raise FormatError(f"feature {leaf.key!r}: shapes with more than one unknown dimension "
                          f"need a ragged encoding, which this feature does not use")
    out = arr.reshape(tuple(-1 if d is None else d for d in shape))
    return out[()] if out.ndim == 0 else out  # scalars as NumPy scalars (bytes for strings)


def decode_leaf(leaf: Leaf, values: Any, where: str, skip_decoding: bool = False) -> Any:
    """One record's value of ``leaf`` from its raw list values (None when absent)."""
    shape = (None,) * min(leaf.sequence_rank, 1) + leaf.shape
    if values is None:
        if leaf.optional and None not in shape:
            return leaf.default()
        if None not in shape:  # TF: a FixedLenFeature without default is required
            raise FormatError(f"{where}: feature {leaf.key!r} is required but the record does "
                              f"not hold it")
        # TF: a FixedLenSequenceFeature(allow_missing=True) reads no values
        values = [] if leaf.kind == FeatureKind.BYTES else np.zeros(0, leaf.dtype)
    if leaf.connector == "Image" and not skip_decoding:
        images = [decode_image(v, leaf) for v in values]
        if leaf.sequence_rank:
            return np.stack(images) if images else np.zeros((0,) + tuple(
                0 if d is None else d for d in leaf.shape), leaf.dtype)
        if len(images) != 1:
            raise FormatError(f"{where}: image feature {leaf.key!r} holds {len(images)} values")
        return images[0]
    if leaf.connector == "Image" or leaf.connector == "Text":
        return _reshape(values, dataclasses.replace(leaf, dtype=np.dtype(object)),
                        (None,) * min(leaf.sequence_rank, 1), where)
    if leaf.encoding in ("bytes", "zlib"):
        raw = [zlib.decompress(v) if leaf.encoding == "zlib" else v for v in values]
        arrays = [np.frombuffer(r, dtype=leaf.dtype) for r in raw]
        flat = np.concatenate(arrays) if arrays else np.zeros(0, leaf.dtype)
        return _reshape(flat, leaf, shape, where)
    return _reshape(values, leaf, shape, where)


def unflatten_ragged(flat: Any, row_lengths: list[np.ndarray]) -> list[Any]:
    """Nested lists from ragged flat values and row lengths (outermost first),
    as TFDS's NumPy parser nests them: the innermost rows of scalars are
    arrays, rows of fixed-shape values are lists of arrays.

    Example:
        >>> unflatten_ragged(np.arange(5), [np.array([3, 0, 2])])
        [array([0, 1, 2]), array([], dtype=int64), array([3, 4])]
        >>> unflatten_ragged(np.arange(4).reshape(2, 2), [np.array([0, 2])])
        [[], [array([0, 1]), array([2, 3])]]
    """
    items: Any = flat if isinstance(flat, np.ndarray) and flat.ndim == 1 else list(flat)
    for lengths in reversed(row_lengths):
        ends = np.cumsum(lengths)
        items = [items[int(e - n):int(e)] for n, e in zip(lengths, ends)]
    return items


# The writers' connectors by TFDS's names (``tfds.features.FeaturesDict`` ...); the parsing
# above reads what they write.
from .connectors import (ClassLabel, FeaturesDict, Scalar, Sequence, Tensor,  # noqa: E402,F401
                         Text)
