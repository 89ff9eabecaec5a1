"""TF's error for one bad record, found again with the pure-Python wire reader.

The native pass finds the first bad record of a block; which of its problems TF reports
depends on the order of its map entries: TF walks a record's features from the last
serialized entry to the first and stops at the first value that does not fit (a list of
another kind, a wrong count), and only then checks for missing required features. This
module re-reads that one record (the error path only) and picks the same problem.

Example:
    >>> from minibatcher.formats.tfrecord import encode_example
    >>> from .features import FixedLenFeature
    >>> from .plan import plan_for
    >>> plan = plan_for({"a": FixedLenFeature([], "float32"), "b": FixedLenFeature([], "string")})
    >>> rec = encode_example({"a": [1], "b": [2]})      # both wrong; "b" is serialized last
    >>> diagnose(plan, rec, 0, Where(True, None), None).message
    "Key: b.  Data types don't match. Data type: int64 but expected type: string"
"""

from __future__ import annotations

from typing import Any

from ...formats.tfrecord import wire
from .features import type_name
from .handlers import FixedHandler, Problem, SequenceHandler
from .messages import Where
from .raw import KIND_WORD


def _value_problem(h: Any, key: str, kind: int, count: int, index: int,
                   where: Where) -> str | None:
    if kind != h.requests[0][1] or key != h.key:
        return None
    word = type_name(h.feature.dtype)
    if isinstance(h, FixedHandler) and count != h.size:
        return where.fixed_count(key, word, count, h.shape, index)
    if isinstance(h, SequenceHandler) and count % h.stride:
        return where.stride(key, word, count, h.shape, index)
    return None


def _in_loop(plan: Any, record: bytes, entries: dict, positions: dict, index: int,
             where: Where) -> list[tuple[int, Problem]]:
    found = []
    for h in plan.handlers:
        for key, want in h.requests:
            kind, spans = entries.get(key, (0, []))
            if key not in entries or kind == 0:
                continue
            if kind != want:
                say = where.fixed_kind if h.style == "fixed" else where.var_kind
                message = say(key, KIND_WORD[kind], KIND_WORD[want], index)
            else:
                count = len(wire.list_values(record, spans, kind))
                message = _value_problem(h, key, kind, count, index, where)
            if message is not None:
                found.append((positions[key], Problem(index, 0, key, message)))
    return found


def diagnose(plan: Any, record: bytes, index: int, where: Where,
             fallback: Problem | None) -> Problem:
    """The problem TF reports for ``record`` (record ``index`` of the batch)."""
    positions: dict[Any, int] = {}
    try:
        entries = wire.parse_entries(record, positions)
        found = _in_loop(plan, record, entries, positions, index, where)
    except wire.WireError:
        return Problem(index, 0, "", where.malformed(record, index))
    if found:
        return max(found, key=lambda f: f[0])[1]  # the last serialized entry is seen first
    for h in sorted(plan.handlers, key=lambda h: h.key):
        if isinstance(h, FixedHandler) and h.default is None and \
                entries.get(h.key, (0, []))[0] == 0:
            return Problem(index, 1, h.key, where.missing(h.key, type_name(h.feature.dtype),
                                                          index))
    if fallback is None:
        raise RuntimeError(f"record {index} was reported bad, but no problem was found in it")
    return fallback


__all__ = ["diagnose"]
