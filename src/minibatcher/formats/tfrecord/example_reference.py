"""The pure-Python reference of ``_native.example_decode`` (same result dict).

Example:
    >>> from .wire import encode_features
    >>> blob = encode_features({"x": np.array([5, 6])})
    >>> r = decode(blob, np.array([len(blob)]), ["x"], [3])
    >>> r["features"][0]["values"].tolist(), r["features"][0]["counts"].tolist(), r["error"]
    ([5, 6], [2], 0)
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .wire import BYTES, FLOAT, INT64, WireError, _fields, list_values, parse_entries

MALFORMED, KIND_MISMATCH = 1, 2


def _empty(kinds: Sequence[int]) -> list[dict[str, list]]:
    return [{"counts": [], "values": [], "byte_ends": []} for _ in kinds]


def _finish(cols: list[dict[str, list]], kinds: Sequence[int]) -> list[dict[str, Any]]:
    out = []
    for col, kind in zip(cols, kinds):
        d: dict[str, Any] = {"counts": np.array(col["counts"], dtype=np.int64)}
        if kind == BYTES:
            d["values"] = np.frombuffer(b"".join(col["values"]), dtype=np.uint8)
            d["byte_ends"] = np.cumsum([len(v) for v in col["values"]], dtype=np.int64)
        else:
            d["values"] = np.array(col["values"], dtype=np.float32 if kind == FLOAT else np.int64)
        out.append(d)
    return out


def _one(rec: bytes, names: Sequence[str], kinds: Sequence[int]) -> list[tuple[int, list]]:
    """Per feature (count, values) of one record; raises (code, feature, kind)."""
    try:
        entries = parse_entries(rec)
    except WireError:
        raise _Fail(MALFORMED, -1, 0) from None
    out = []
    for k, (name, want) in enumerate(zip(names, kinds)):
        if name not in entries:
            out.append((-1, []))
            continue
        kind, spans = entries[name]
        try:
            values = list_values(rec, spans, kind) if kind else []
        except WireError:
            raise _Fail(MALFORMED, k, kind) from None
        if kind and kind != want:
            if values:
                raise _Fail(KIND_MISMATCH, k, kind)
            values = []
        out.append((len(values), values))
    return out


class _Fail(Exception):
    def __init__(self, code: int, feature: int, kind: int) -> None:
        super().__init__(code)
        self.code, self.feature, self.kind = code, feature, kind


def decode(data: Any, ends: Any, names: Sequence[str], kinds: Sequence[int]) -> dict[str, Any]:
    """Decodes records ``data[ends[i-1]:ends[i]]`` into per-feature columns."""
    buf, cols, start = bytes(data), _empty(kinds), 0
    result: dict[str, Any] = {"records": 0, "error": 0, "error_record": -1,
                              "error_feature": -1, "error_kind": 0}
    for i, end in enumerate(ends):
        rec, start = buf[start:int(end)], int(end)
        try:
            per = _one(rec, names, kinds)
        except _Fail as f:
            result.update(error=f.code, error_record=i, error_feature=f.feature, error_kind=f.kind)
            break
        for col, (count, values) in zip(cols, per):
            col["counts"].append(count)
            col["values"].extend(values)
        result["records"] = i + 1
    result["features"] = _finish(cols, kinds)
    return result


__all__ = ["decode", "WireError", "_fields", "INT64"]
