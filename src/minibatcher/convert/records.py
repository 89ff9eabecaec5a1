"""The example source of TFRecord files of ``tf.train.Example`` s.

A first pass over every record finds each key's kind and how many values it
holds: a key that every record holds with the same count ``n`` is a
``Tensor((n,))`` (``()`` for one value), any other a ``Tensor((None,))`` (a
record without it gives an empty list); ``a/b`` keys nest as TFDS flattens
dicts. The second pass decodes and re-encodes, so the output holds every key
in every record, as TFDS needs.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.tfrecord import TFRecordWriter, encode_example
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.tfrecord"
    >>> with TFRecordWriter(p) as w:
    ...     w.write(encode_example({"id": [1], "tok/ids": [4, 5], "name": [b"a"]}))
    ...     w.write(encode_example({"id": [2], "tok/ids": [6], "name": [b"b"]}))
    >>> src = tfrecord_examples([p])
    >>> src.features.to_json()["featuresDict"]["features"]["tok"]["featuresDict"]["features"][
    ...     "ids"]["tensor"]["shape"]
    {'dimensions': ['-1']}
    >>> [ex["tok"]["ids"].tolist() for ex in src]
    [[4, 5], [6]]
"""

from __future__ import annotations

import os
from typing import Any, Iterator, Sequence

import numpy as np

from ..errors import FormatError
from ..formats.tfrecord import TFRecordFile, decode_example
from ..tfds.connectors import FeaturesDict, Tensor
from .examples import ExampleSource, dataset_name

_KIND = {"bytes": "string", "float": "float32", "int64": "int64"}


def _records(paths: Sequence[str], compression: str | None,
             **options: Any) -> Iterator[tuple[str, int, bytes]]:
    from ..formats.sniff import tfrecord_compression

    for path in paths:
        f = TFRecordFile(path, tfrecord_compression(path) if compression is None else compression,
                         **options)
        try:
            for i, record in enumerate(f.iter_records()):
                yield path, i, record
        finally:
            f.close()


def _decode(path: str, i: int, record: bytes) -> dict[str, Any]:
    try:
        return decode_example(record)
    except FormatError as e:
        raise FormatError(f"{path}: record {i}: {str(e).split(': ', 1)[-1]}; only TFRecord files "
                          "of tf.train.Examples can be converted") from None


def _kind(values: Any) -> str:
    return "bytes" if isinstance(values, list) else (
        "float" if np.asarray(values).dtype.kind == "f" else "int64")


def survey(paths: Sequence[str], compression: str | None,
           **options: Any) -> tuple[dict[str, Tensor], int]:
    """Each key's Tensor spec over every record, and the record count."""
    seen: dict[str, list] = {}  # key -> [kind, min count, max count, records holding it]
    count = 0
    for path, i, record in _records(paths, compression, **options):
        count += 1
        for key, values in _decode(path, i, record).items():
            kind, n = _kind(values), len(values)
            entry = seen.setdefault(key, [kind, n, n, 0])
            if entry[0] != kind:
                raise FormatError(f"{path}: record {i}: feature {key!r} holds {kind} values, "
                                  f"but earlier records hold {entry[0]}; a feature needs one kind")
            entry[1], entry[2], entry[3] = min(entry[1], n), max(entry[2], n), entry[3] + 1
    specs = {}
    for key, (kind, low, high, holders) in sorted(seen.items()):
        fixed = low == high and holders == count and low > 0
        shape = () if fixed and low == 1 else (low,) if fixed else (None,)
        specs[key] = Tensor(shape, _KIND[kind])
    return specs, count


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    """``{"a/b": v}`` -> ``{"a": {"b": v}}`` (a key that is also a prefix is an error)."""
    out: dict[str, Any] = {}
    for key, value in flat.items():
        *parents, leaf = key.split("/")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise FormatError(f"feature {key!r}: {part!r} is both a feature and a group of "
                                  "features; TFDS flattens nested dicts with '/' and cannot hold "
                                  "both")
        if leaf in node:
            raise FormatError(f"feature {key!r} is both a feature and a group of features")
        node[leaf] = value
    return out


def _value(spec: Tensor, values: Any) -> Any:
    if values is None:
        return [] if spec.dtype == "string" else np.zeros(0, spec.dtype)
    if spec.shape == ():
        return values[0]
    return values if spec.dtype == "string" else np.asarray(values)


def tfrecord_examples(paths: Sequence[str | os.PathLike], compression: str | None = None, *,
                      verify_crc: bool = True, max_errors: int = 0) -> ExampleSource:
    """One example per record of ``paths`` (read in the order given;
    ``compression`` None: detected per file; ``verify_crc`` and ``max_errors``
    as :class:`~minibatcher.formats.tfrecord.TFRecordFile`)."""
    names = [os.fspath(p) for p in paths]
    options = {"verify_crc": verify_crc, "max_errors": max_errors}
    specs, count = survey(names, compression, **options)
    features = FeaturesDict(_nest(dict(specs)))

    def examples() -> Iterator[dict[str, Any]]:
        for path, i, record in _records(names, compression, **options):
            ex = _decode(path, i, record)
            yield _nest({key: _value(spec, ex.get(key)) for key, spec in specs.items()})

    return ExampleSource(dataset_name(names[0]), features, examples, count, "records")


__all__ = ["survey", "tfrecord_examples"]
