"""The protobuf wire format of ``tf.train.Example``, in Python: encoding, and
the reference decoder of the native batch decoder (same results).

Decoding follows protobuf's merge rules: repeated ``features`` fields and
repeated map values merge; a later map entry with the same key replaces an
earlier one; a later oneof member replaces another member and merges with the
same member; unknown fields are skipped; groups and wire types 6/7 are
malformed. Only the lists of the features asked for are decoded.

Example:
    >>> blob = encode_features({"x": np.array([1, -2]), "s": [b"ab"]})
    >>> parse_entries(blob)["x"][0]
    3
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

BYTES, FLOAT, INT64 = 1, 2, 3


class WireError(ValueError):
    """Bytes that are not a valid protobuf message."""


def _varint(buf: bytes, i: int, end: int) -> tuple[int, int]:
    value = shift = 0
    for _ in range(10):
        if i >= end:
            raise WireError("truncated varint")
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value & 0xFFFFFFFFFFFFFFFF, i
    raise WireError("varint longer than 10 bytes")


def _fields(buf: bytes, start: int, end: int):
    """Yields (field, wire, value_start, value_end, varint) over one message."""
    i = start
    while i < end:
        tag, i = _varint(buf, i, end)
        field, wire = tag >> 3, tag & 7
        if not 1 <= field <= 0x1FFFFFFF:
            raise WireError(f"invalid field number {field}")
        if wire == 0:
            v, j = _varint(buf, i, end)
            yield field, wire, i, j, v
        elif wire in (1, 5):
            j = i + (8 if wire == 1 else 4)
            if j > end:
                raise WireError("truncated fixed-width field")
            yield field, wire, i, j, 0
        elif wire == 2:
            n, i = _varint(buf, i, end)
            if n > end - i:
                raise WireError("length-delimited field runs past its message")
            j = i + n
            yield field, wire, i, j, n
        else:
            raise WireError(f"unsupported wire type {wire}")
        i = j


def _feature(buf: bytes, spans: list[tuple[int, int]]) -> tuple[int, list[tuple[int, int]]]:
    kind, lists = 0, []
    for s, e in spans:
        for field, wire, a, b, _ in _fields(buf, s, e):
            if 1 <= field <= 3 and wire == 2:
                if field != kind:
                    lists = []
                kind = field
                lists.append((a, b))
    return kind, lists


def parse_entries(record: bytes, positions: dict[bytes | str, int] | None = None
                  ) -> dict[bytes | str, tuple[int, list[tuple[int, int]]]]:
    """Key -> (kind, list spans) of one serialized Example (keys as str when UTF-8).

    ``positions`` (optional) gets each key's place among the map entries in serialized order
    (the entry that counts: the last one).
    """
    buf, out, index = bytes(record), {}, 0
    for field, wire, a, b, _ in _fields(buf, 0, len(buf)):
        if field != 1 or wire != 2:
            continue
        for f2, w2, c, d, _ in _fields(buf, a, b):
            if f2 != 1 or w2 != 2:
                continue
            key, values = b"", []
            for f3, w3, e, g, _ in _fields(buf, c, d):
                if f3 == 1 and w3 == 2:
                    key = buf[e:g]
                elif f3 == 2 and w3 == 2:
                    values.append((e, g))
            try:
                name: bytes | str = key.decode()
            except UnicodeDecodeError:
                name = key
            out[name] = _feature(buf, values)
            if positions is not None:
                positions[name] = index
            index += 1
    return out


def list_values(buf: bytes, spans: list[tuple[int, int]], kind: int) -> list[Any]:
    """The values of a feature's list messages (kind BYTES, FLOAT or INT64); floats
    are ``np.float32`` scalars, bit for bit (a Python float would quiet a signaling NaN)."""
    out: list[Any] = []
    for s, e in spans:
        for field, wire, a, b, v in _fields(buf, s, e):
            if field != 1:
                continue
            if kind == BYTES and wire == 2:
                out.append(buf[a:b])
            elif kind == FLOAT and wire == 2:
                if (b - a) % 4:
                    raise WireError("packed floats are not a multiple of 4 bytes")
                out.extend(np.frombuffer(buf, "<f4", (b - a) // 4, a))
            elif kind == FLOAT and wire == 5:
                out.append(np.frombuffer(buf, "<f4", 1, a)[0])
            elif kind == INT64 and wire == 2:
                i = a
                while i < b:
                    x, i = _varint(buf, i, b)
                    out.append(x - (1 << 64) if x >> 63 else x)
            elif kind == INT64 and wire == 0:
                out.append(v - (1 << 64) if v >> 63 else v)
    return out


def _varint_bytes(x: int) -> bytes:
    x &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while x >= 0x80:
        out.append((x & 0x7F) | 0x80)
        x >>= 7
    out.append(x)
    return bytes(out)


def _encode_varints(values: np.ndarray) -> bytes:
    if len(values) < 64:
        return b"".join(_varint_bytes(int(x)) for x in np.asarray(values).reshape(-1))
    v = values.astype(np.int64).view(np.uint64)
    sizes = np.ones(len(v), np.int64)
    for k in range(1, 10):
        sizes += v >= np.uint64(1 << (7 * k))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    out = np.zeros(int(sizes.sum()), np.uint8)
    for k in range(10):
        m = sizes > k
        byte = ((v[m] >> np.uint64(7 * k)) & np.uint64(0x7F)).astype(np.uint8)
        out[starts[m] + k] = byte | np.where(sizes[m] > k + 1, 0x80, 0).astype(np.uint8)
    return out.tobytes()


def _len(field: int, payload: bytes) -> bytes:
    return _varint_bytes(field << 3 | 2) + _varint_bytes(len(payload)) + payload


def kind_of(values: Any) -> tuple[int, Any]:
    """The list kind of ``values`` and the values normalized for encoding."""
    if isinstance(values, (bytes, str)):
        values = [values]
    if isinstance(values, np.ndarray) and values.dtype.kind in "biuf":
        return (FLOAT if values.dtype.kind == "f" else INT64), values.ravel()
    if isinstance(values, np.ndarray) and values.dtype.kind in "SU" and not values.size:
        return BYTES, []  # a typed empty array of strings: an empty bytes_list
    if not isinstance(values, list):
        values = list(np.asarray(values, dtype=object).ravel())
    if not values:
        raise ValueError("an empty list has no kind: pass a typed NumPy array "
                         "(np.zeros(0, np.int64), np.zeros(0, np.float32) or np.zeros(0, 'S'))")
    if all(isinstance(x, (bytes, str, np.bytes_, np.str_)) for x in values):
        return BYTES, [x.encode() if isinstance(x, str) else bytes(x) for x in values]
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"values should be integers, floats or bytes, but got {values[:3]!r}")
    return (FLOAT if arr.dtype.kind == "f" else INT64), arr


def encode_feature(values: Any) -> bytes:
    """One serialized ``Feature``."""
    kind, vals = kind_of(values)
    if kind == BYTES:
        body = b"".join(_len(1, v) for v in vals)
    elif kind == FLOAT:
        packed = np.asarray(vals, dtype="<f4").tobytes()
        body = _len(1, packed) if packed else b""
    else:
        packed = _encode_varints(np.asarray(vals).astype(np.int64))
        body = _len(1, packed) if packed else b""
    return _len(kind, body)


def encode_features(features: Mapping[str, Any]) -> bytes:
    """A serialized ``Example`` (keys sorted, as deterministic serialization does)."""
    entries = b"".join(
        _len(1, _len(1, k.encode() if isinstance(k, str) else bytes(k))
             + _len(2, encode_feature(v)))
        for k, v in sorted(features.items()))
    return _len(1, entries) if features else b""
