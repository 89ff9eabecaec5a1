"""Writing examples to Parquet (pyarrow), for the Hugging Face ``datasets`` world.

One row per example, one column per feature, typed from the feature
connectors: a Scalar is a scalar column, a ``Tensor((None, d))`` a list of
fixed-size lists of d values, a Sequence a list, Text a UTF-8 string, a
ClassLabel an int64 (its names go into the Hugging Face schema metadata, so
``datasets.load_dataset("parquet", ...)`` shows a ``ClassLabel``), a nested dict
a struct. ``pip install "minibatcher[parquet]"`` installs pyarrow.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.tfds.connectors import FeaturesDict, Tensor, Text
    >>> from minibatcher.convert.examples import ExampleSource
    >>> src = ExampleSource("toy", FeaturesDict({"x": Tensor((None, 2)), "t": Text()}),
    ...                     lambda: iter([{"x": [[1, 2]], "t": "a"}, {"x": [], "t": "b"}]), 2)
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "toy.parquet"
    >>> write_parquet(src, p)
    2
    >>> import pyarrow.parquet as pq
    >>> pq.read_table(p).to_pylist()
    [{'t': 'a', 'x': [[1.0, 2.0]]}, {'t': 'b', 'x': []}]
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable

import numpy as np

from ..errors import FormatError
from ..tfds.connectors import ClassLabel, FeaturesDict, Sequence, Text
from .examples import ExampleSource

ROWS_PER_GROUP = 4096


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError as e:
        raise ImportError("writing Parquet needs pyarrow: pip install 'minibatcher[parquet]'"
                          ) from e
    return pyarrow


def arrow_type(feature: Any) -> Any:
    """The Arrow type of a connector.

    Example:
        >>> from minibatcher.tfds.connectors import Tensor
        >>> str(arrow_type(Tensor((None, 3), "float32")))
        'list<item: fixed_size_list<item: float>[3]>'
    """
    pa = _pyarrow()
    if isinstance(feature, FeaturesDict):
        return pa.struct([(k, arrow_type(feature.features[k])) for k in sorted(feature.features)])
    if isinstance(feature, Text):
        return pa.string()
    if isinstance(feature, ClassLabel):
        return pa.int64()
    if isinstance(feature, Sequence):
        inner = arrow_type(feature.feature)
        return pa.list_(inner) if feature.length is None else pa.list_(inner, feature.length)
    out = pa.binary() if feature.dtype == "string" else pa.from_numpy_dtype(np.dtype(feature.dtype))
    for d in reversed(feature.shape):  # (Arrow cannot read back fixed-size lists of size 0)
        out = pa.list_(out) if not d else pa.list_(out, d)
    return out


def _python(feature: Any, value: Any, key: str) -> Any:
    """One value as the Python object Arrow builds the column from."""
    if isinstance(feature, FeaturesDict):
        return {k: _python(f, value[k], f"{key}/{k}") for k, f in feature.features.items()}
    if isinstance(feature, Text):
        raw = value if isinstance(value, (bytes, np.bytes_)) else str(value).encode("utf-8")
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError as e:
            raise FormatError(f"feature {key!r}: byte {e.start} of the text is not UTF-8; "
                              "Parquet strings must be UTF-8 (minibatcher validate lists every "
                              "such line)") from None
    if isinstance(feature, ClassLabel):
        return feature.index(value, key)
    if isinstance(feature, Sequence):
        return [_python(feature.feature, v, key) for v in value]
    if feature.dtype == "string":
        return bytes(value) if not feature.shape else [bytes(v) for v in value]
    shape = tuple(-1 if d is None else d for d in feature.shape)
    try:
        return np.asarray(value, dtype=feature.dtype).reshape(shape).tolist()
    except ValueError:
        raise FormatError(f"feature {key!r}: a value of shape {np.shape(value)} does not fit "
                          f"the feature's shape {shape} (-1: any)") from None


def _hf_feature(feature: Any) -> Any:
    """The feature's entry in the Hugging Face ``datasets`` features metadata."""
    if isinstance(feature, FeaturesDict):
        return {k: _hf_feature(feature.features[k]) for k in sorted(feature.features)}
    if isinstance(feature, ClassLabel):
        names = feature.names or [str(i) for i in range(int(feature.num_classes))]
        return {"names": list(names), "_type": "ClassLabel"}
    if isinstance(feature, Text):
        return {"dtype": "string", "_type": "Value"}
    if isinstance(feature, Sequence):
        return _hf_list(_hf_feature(feature.feature), feature.length)
    out: Any = {"dtype": "binary" if feature.dtype == "string" else feature.dtype, "_type": "Value"}
    for d in reversed(feature.shape):
        out = _hf_list(out, d)
    return out


def _hf_list(inner: Any, length: int | None) -> dict[str, Any]:
    """A list feature in the form every ``datasets`` version reads ("Sequence";
    datasets 4 and later load it as ``List``)."""
    return {"feature": inner, "length": -1 if not length else length, "_type": "Sequence"}


def schema(features: FeaturesDict) -> Any:
    """The Arrow schema of ``features``, with the Hugging Face features metadata."""
    pa = _pyarrow()
    fields = [pa.field(k, arrow_type(features.features[k])) for k in sorted(features.features)]
    meta = {"info": {"features": _hf_feature(features)}}
    return pa.schema(fields, metadata={b"huggingface": json.dumps(meta).encode()})


def write_parquet(source: ExampleSource, path: str | os.PathLike,
                  progress: Callable[[int], None] | None = None,
                  rows_per_group: int = ROWS_PER_GROUP) -> int:
    """Writes every example of ``source`` as a row of a Parquet file; returns the count."""
    pa = _pyarrow()
    table_schema = schema(source.features)
    names = sorted(source.features.features)
    count, rows = 0, []
    with pa.parquet.ParquetWriter(os.fspath(path), table_schema) as writer:
        for example in source:
            rows.append({k: _python(source.features.features[k], example[k], k) for k in names})
            count += 1
            if len(rows) == rows_per_group:
                writer.write_table(pa.Table.from_pylist(rows, schema=table_schema))
                rows = []
            if progress is not None:
                progress(count)
        if rows or count == 0:
            writer.write_table(pa.Table.from_pylist(rows, schema=table_schema))
    return count


__all__ = ["arrow_type", "schema", "write_parquet"]
