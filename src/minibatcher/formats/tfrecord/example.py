"""``tf.train.Example`` to NumPy and back, without TensorFlow or protobuf.

:class:`ExampleDecoder` decodes a whole batch of serialized Examples in one
native call into flat per-feature columns (values + per-record counts);
:func:`decode_example` decodes one record generically (every feature) and
:func:`encode_example` writes one (keys sorted, so output is deterministic).
docs/design/tfrecord-crc-and-example.md compares this with the protobuf
library.

Example:
    >>> blob = encode_example({"ids": np.array([3, -1]), "w": np.array([0.5], np.float32)})
    >>> cols = ExampleDecoder({"ids": "int64", "w": "float"}).decode([blob, blob])
    >>> cols["ids"].values.tolist(), cols["ids"].counts.tolist(), cols["w"].row(1).tolist()
    ([3, -1, 3, -1], [2, 2], [0.5])
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ...errors import ConfigError, FormatError
from . import wire

_KIND_NAMES = {1: "bytes_list", 2: "float_list", 3: "int64_list"}


class FeatureKind(enum.IntEnum):
    """The three list kinds of a ``tf.train.Feature``.

    Example:
        >>> FeatureKind.parse("int64"), FeatureKind.parse(np.float32)
        (<FeatureKind.INT64: 3>, <FeatureKind.FLOAT: 2>)
    """

    BYTES = 1
    FLOAT = 2
    INT64 = 3

    @classmethod
    def parse(cls, value: Any) -> "FeatureKind":
        """A kind from a kind, a name ("bytes", "float", "int64") or a NumPy dtype."""
        if isinstance(value, FeatureKind):
            return value
        if isinstance(value, str) and value.lower() in ("bytes", "string", "str", "float", "int64"):
            return {"float": cls.FLOAT, "int64": cls.INT64}.get(value.lower(), cls.BYTES)
        try:
            k = np.dtype(value).kind
        except TypeError:
            k = ""
        if k in "biuf" and k:
            return cls.FLOAT if k == "f" else cls.INT64
        if k in ("S", "U", "O"):
            return cls.BYTES
        raise ConfigError(f"a feature kind should be 'bytes', 'float', 'int64' or a NumPy dtype, "
                          f"but got {value!r}")


@dataclasses.dataclass(frozen=True)
class Column:
    """One feature of a decoded batch: ``values`` of all records back to back,
    ``counts[i]`` values in record i (-1 when the record lacks the feature);
    bytes values are ``values[byte_ends[j-1]:byte_ends[j]]``.

    Example:
        >>> c = Column(FeatureKind.INT64, np.array([1, 2, 3]), np.array([2, -1, 1]))
        >>> c.row(0), c.row(1), c.row(2)
        (array([1, 2]), None, array([3]))
    """

    kind: FeatureKind
    values: np.ndarray
    counts: np.ndarray
    byte_ends: np.ndarray | None = None
    starts: np.ndarray = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:  # index of each record's first value
        n = np.maximum(self.counts, 0)
        object.__setattr__(self, "starts", np.concatenate([[0], np.cumsum(n)[:-1]]).astype(
            np.int64) if len(n) else n.astype(np.int64))

    def row(self, i: int) -> np.ndarray | list[bytes] | None:
        """Record i's values (a list of bytes for BYTES), None when absent."""
        count = int(self.counts[i])
        if count < 0:
            return None
        start = int(self.starts[i])
        if self.kind != FeatureKind.BYTES:
            return self.values[start:start + count]
        ends, data = self.byte_ends, memoryview(self.values)
        lo = int(ends[start - 1]) if start else 0
        out = []
        for j in range(start, start + count):
            hi = int(ends[j])
            out.append(bytes(data[lo:hi]))
            lo = hi
        return out


def _as_flat(records: Any) -> tuple[np.ndarray, np.ndarray]:
    if hasattr(records, "data") and hasattr(records, "ends"):
        return np.asarray(records.data, np.uint8), np.asarray(records.ends, np.int64)
    parts = [bytes(r) for r in records]
    return (np.frombuffer(b"".join(parts), np.uint8),
            np.cumsum([len(p) for p in parts], dtype=np.int64))


class ExampleDecoder:
    """Decodes batches of serialized Examples into :class:`Column` s.

    ``features`` maps feature names to kinds; other features are ignored.
    ``where(i)`` (optional) names record i in error messages.

    Example:
        >>> ExampleDecoder({"x": "int64"}).decode([b"\\x0a\\x05"])
        Traceback (most recent call last):
        ...
        minibatcher.errors.FormatError: record 0: not a valid tf.train.Example (malformed ...)
    """

    def __init__(self, features: Mapping[str, Any], impl: str = "native") -> None:
        self.names = list(features)
        self.kinds = [FeatureKind.parse(k) for k in features.values()]
        if impl == "native":
            from ... import _native

            self._decode: Callable[..., dict] = _native.example_decode
        elif impl == "python":
            from . import example_reference

            self._decode = example_reference.decode
        else:
            raise ConfigError(f"impl should be 'native' or 'python', but got impl={impl!r}")

    def decode(self, records: Any, where: Callable[[int], str] | None = None) -> dict[str, Column]:
        """Columns of ``records`` (a RecordBatch, or a sequence of bytes)."""
        data, ends = _as_flat(records)
        r = self._decode(data, ends, self.names, [int(k) for k in self.kinds])
        if r["error"]:
            raise FormatError(self._message(r, where))
        return {name: Column(kind, f["values"], f["counts"], f.get("byte_ends"))
                for name, kind, f in zip(self.names, self.kinds, r["features"])}

    def _message(self, r: dict, where: Callable[[int], str] | None) -> str:
        i = int(r["error_record"])
        at = where(i) if where else f"record {i}"
        if r["error"] == 1:
            feature = (f" in feature {self.names[r['error_feature']]!r}"
                       if r["error_feature"] >= 0 else "")
            return f"{at}: not a valid tf.train.Example (malformed protobuf wire data{feature})"
        k = int(r["error_feature"])
        return (f"{at}: feature {self.names[k]!r} holds a {_KIND_NAMES[int(r['error_kind'])]}, "
                f"but a {_KIND_NAMES[int(self.kinds[k])]} was expected")


def encode_example(features: Mapping[str, Any]) -> bytes:
    """A serialized ``tf.train.Example``: integer/bool arrays become int64
    lists, floats float lists (float32), bytes/str bytes lists.

    Example:
        >>> encode_example({"a": [1]}).hex()
        '0a0c0a0a0a016112051a030a0101'
    """
    try:
        return wire.encode_features(features)
    except ValueError as e:
        raise ConfigError(f"cannot encode the example: {e}") from None


def decode_example(record: bytes | memoryview) -> dict[str, Any]:
    """Every feature of one Example: int64/float32 arrays, lists of bytes.

    Example:
        >>> decode_example(encode_example({"f": np.array([1.5], np.float32), "b": [b"x"]}))
        {'b': [b'x'], 'f': array([1.5], dtype=float32)}
    """
    buf = bytes(record)
    try:
        entries = wire.parse_entries(buf)
        out: dict[str, Any] = {}
        for name, (kind, spans) in entries.items():
            values = wire.list_values(buf, spans, kind) if kind else []
            if kind == wire.BYTES or not kind:
                out[str(name)] = values
            else:
                out[str(name)] = np.array(values, np.float32 if kind == wire.FLOAT else np.int64)
        return out
    except wire.WireError as e:
        raise FormatError(f"not a valid tf.train.Example: {e}") from None


__all__: Sequence[str] = ["Column", "ExampleDecoder", "FeatureKind", "decode_example",
                          "encode_example"]
