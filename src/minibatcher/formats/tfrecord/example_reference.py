"""The pure-Python reference of ``_native.example_decode`` and
``_native.sequence_example_decode`` (same result dicts; fuzzed against the native decoders).

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

from .wire import BYTES, FLOAT, INT64, WireError, _feature, _fields, list_values, parse_entries

MALFORMED, KIND_MISMATCH = 1, 2


class _Fail(Exception):
    def __init__(self, code: int, feature: int, kind: int, step: int = -1) -> None:
        super().__init__(code)
        self.code, self.feature, self.kind, self.step = code, feature, kind, step


def _column(kind: int, sequence: bool) -> dict[str, list]:
    col: dict[str, list] = {"counts": [], "values": []}
    if sequence:
        col["steps"] = []
    return col


def _finish(cols: list[dict[str, list]], kinds: Sequence[int]) -> list[dict[str, Any]]:
    out = []
    for col, kind in zip(cols, kinds):
        d: dict[str, Any] = {"counts": np.array(col["counts"], dtype=np.int64)}
        if "steps" in col:
            d["steps"] = np.array(col["steps"], dtype=np.int64)
        if kind == BYTES:
            d["values"] = np.frombuffer(b"".join(col["values"]), dtype=np.uint8)
            d["byte_ends"] = np.cumsum([len(v) for v in col["values"]], dtype=np.int64)
        else:
            d["values"] = np.array(col["values"], dtype=np.float32 if kind == FLOAT else np.int64)
        out.append(d)
    return out


def _values(rec: bytes, kind: int, spans: list, want: int, k: int,
            absent: int) -> tuple[int, list]:
    """(count, values) of one merged Feature of kind ``kind`` where ``want`` is wanted, by the
    strict rule: a list of another kind is a mismatch before its contents are read."""
    if not kind:
        return absent, []
    if kind != want:
        raise _Fail(KIND_MISMATCH, k, kind)
    try:
        values = list_values(rec, spans, kind)
    except WireError:
        raise _Fail(MALFORMED, k, kind) from None
    return len(values), values


def _one(rec: bytes, names: Sequence[str], kinds: Sequence[int],
         strict: bool) -> list[tuple[int, list]]:
    """Per feature (count, values) of one Example; raises _Fail."""
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
        if strict and not kind:
            out.append((-1, []))
            continue
        if not strict and kind != want and kind:  # the lenient rule reads the other list
            try:
                other = list_values(rec, spans, kind)
            except WireError:
                raise _Fail(MALFORMED, k, kind) from None
            if other:
                raise _Fail(KIND_MISMATCH, k, kind)
            out.append((0, []))
            continue
        out.append(_values(rec, kind, spans, want, k, 0))
    return out


def _run(data: Any, ends: Any, kinds: Sequence[int], one: Any,
         sequence_from: int | None = None) -> dict[str, Any]:
    buf, start = bytes(data), 0
    cols = [_column(kind, sequence_from is not None and k >= sequence_from)
            for k, kind in enumerate(kinds)]
    result: dict[str, Any] = {"records": 0, "error": 0, "error_record": -1, "error_feature": -1,
                              "error_kind": 0, "error_step": -1}
    for i, end in enumerate(ends):
        rec, start = buf[start:int(end)], int(end)
        try:
            per = one(rec)
        except _Fail as f:
            result.update(error=f.code, error_record=i, error_feature=f.feature,
                          error_kind=f.kind, error_step=f.step)
            break
        for col, item in zip(cols, per):
            if "steps" in col:
                steps = item
                col["steps"].append(-1 if steps is None else len(steps))
                for count, values in steps or []:
                    col["counts"].append(count)
                    col["values"].extend(values)
            else:
                col["counts"].append(item[0])
                col["values"].extend(item[1])
        result["records"] = i + 1
    result["features"] = _finish(cols, kinds)
    return result


def decode(data: Any, ends: Any, names: Sequence[str], kinds: Sequence[int],
           strict: bool = False) -> dict[str, Any]:
    """Decodes Examples ``data[ends[i-1]:ends[i]]`` into per-feature columns."""
    return _run(data, ends, kinds, lambda rec: _one(rec, names, kinds, strict))


def _lists(rec: bytes) -> dict[Any, list[tuple[int, int]]]:
    """Key -> the Feature spans of its steps, for every FeatureLists entry (merged as
    protobuf merges: a later entry replaces, repeated values concatenate)."""
    out: dict[Any, list[tuple[int, int]]] = {}
    for field, wire, a, b, _ in _fields(rec, 0, len(rec)):
        if field != 2 or wire != 2:
            continue
        for f2, w2, c, d, _ in _fields(rec, a, b):
            if f2 != 1 or w2 != 2:
                continue
            key, steps = b"", []
            for f3, w3, e, g, _ in _fields(rec, c, d):
                if f3 == 1 and w3 == 2:
                    key = rec[e:g]
                elif f3 == 2 and w3 == 2:
                    steps.extend((s, t) for f4, w4, s, t, _ in _fields(rec, e, g)
                                 if f4 == 1 and w4 == 2)
            try:
                name: Any = key.decode()
            except UnicodeDecodeError:
                name = key
            out[name] = steps
    return out


def _one_sequence(rec: bytes, cnames: Sequence[str], ckinds: Sequence[int],
                  snames: Sequence[str], skinds: Sequence[int]) -> list[Any]:
    try:
        lists = _lists(rec)
    except WireError:
        raise _Fail(MALFORMED, -1, 0) from None
    out: list[Any] = _one(rec, cnames, ckinds, True)  # parses (and checks) the context
    for k, (name, want) in enumerate(zip(snames, skinds)):
        if name not in lists:
            out.append(None)
            continue
        steps = []
        for t, span in enumerate(lists[name]):
            try:
                kind, spans = _feature(rec, [span])
                steps.append(_values(rec, kind, spans, want, len(cnames) + k, 0))
            except WireError:
                raise _Fail(MALFORMED, len(cnames) + k, 0, t) from None
            except _Fail as f:
                raise _Fail(f.code, f.feature, f.kind, t) from None
        out.append(steps)
    return out


def decode_sequence(data: Any, ends: Any, context_names: Sequence[str],
                    context_kinds: Sequence[int], sequence_names: Sequence[str],
                    sequence_kinds: Sequence[int]) -> dict[str, Any]:
    """Decodes SequenceExamples: context columns, then per-step list columns."""
    kinds = list(context_kinds) + list(sequence_kinds)
    return _run(data, ends, kinds, lambda rec: _one_sequence(
        rec, context_names, context_kinds, sequence_names, sequence_kinds),
        sequence_from=len(context_kinds))


__all__ = ["INT64", "WireError", "decode", "decode_sequence"]
