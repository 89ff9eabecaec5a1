"""A compiled SequenceExample spec: context handlers (those of Examples), feature-list
handlers, one native call, and TF's checks in TF's order.

``ParseSequenceExampleV2`` checks in three passes, and so does :meth:`SequencePlan.run`:
(1) every record parses and every list has the wanted kind (malformed records, kind
mismatches); (2) over the batch: each dense context feature's largest count equals its size
(or is 0 with a default), each FixedLenSequenceFeature's total of a record is a multiple of
its element size; (3) record by record: required context features and lists present, counts
of dense context features and of steps right.

Example:
    >>> from .features import FixedLenSequenceFeature, VarLenFeature
    >>> p = SequencePlan({"c": VarLenFeature("int64")},
    ...                  {"s": FixedLenSequenceFeature([], "float32")}, single=True)
    >>> p.context_names, p.list_names, p.list_kinds
    (['c'], ['s'], [2])
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ... import _native
from ..errors import InvalidArgumentError
from ..ragged_tensor import RaggedTensor
from .columns import Column, RaggedColumn, RecordBlock, SequenceColumn, SequenceSparseColumn
from .features import (FixedLenFeature, FixedLenSequenceFeature, RaggedFeature,
                       VarLenFeature, type_name)
from .handlers import FixedHandler, VarLenHandler, _size
from .messages import SeqWhere, Where
from .plan import _intersections
from .ragged_parse import RaggedHandler
from .raw import KIND_OF, KIND_WORD, Raw


class ListHandler:
    """A feature list: FixedLenSequenceFeature, VarLenFeature or RaggedFeature over steps."""

    def __init__(self, key: str, f: Any) -> None:
        self.key = self.out_key = key
        self.feature = f
        if isinstance(f, FixedLenSequenceFeature) and f.default_value is not None:
            raise ValueError(f"Value feature_list.dense_defaults[{key}] must be None")
        self.ragged = RaggedHandler(key, f) if isinstance(f, RaggedFeature) else None
        if self.ragged is not None:
            self.requests = self.ragged.requests
        else:
            inner = (VarLenHandler(key, f) if isinstance(f, VarLenFeature) else
                     FixedHandler(key, FixedLenFeature(f.shape, f.dtype)))
            self.requests = inner.requests
        self.dense = isinstance(f, FixedLenSequenceFeature)
        if self.dense:
            self.shape = tuple(int(d) for d in f.shape)
            self.stride = _size(self.shape)

    def check_steps(self, raws: dict[str, Raw]) -> None:
        """A ragged list's value and partition lists need the same steps in every record."""
        steps = [np.maximum(raws[key].steps, 0) for key, _ in self.requests]
        for key, s in zip([k for k, _ in self.requests][1:], steps[1:]):
            bad = np.flatnonzero(s != steps[0])
            if len(bad):
                raise InvalidArgumentError(
                    f"feature list {key!r} has {int(s[bad[0]])} steps in example {int(bad[0])}, "
                    f"but the values {self.requests[0][0]!r} of RaggedFeature {self.out_key!r} "
                    f"have {int(steps[0][bad[0]])}")

    def column(self, raws: dict[str, Raw], n: int) -> Column:
        raw = raws[self.requests[0][0]]
        records = raw.step_splits()
        values = raw.typed_values()
        if self.dense:
            pad = b"" if self.feature.dtype.name == "string" else 0
            return SequenceColumn(values.reshape((-1, *self.shape)), records, pad)
        if self.ragged is None:
            return SequenceSparseColumn(values, raw.splits, records)
        steps = self.ragged.column(raws, len(raw.counts)).ragged
        splits = records.astype(steps.row_splits.dtype)
        return RaggedColumn(RaggedTensor(steps, splits, validate=False))


def _context_handler(key: str, f: Any) -> Any:
    if isinstance(f, FixedLenFeature):
        return FixedHandler(key, f)
    if isinstance(f, VarLenFeature):
        return VarLenHandler(key, f)
    if isinstance(f, RaggedFeature):
        return RaggedHandler(key, f)
    raise ValueError(f"Unsupported {type(f).__name__} {f!r} for key '{key}'")


def _list_handler(key: str, f: Any) -> ListHandler:
    if not isinstance(f, (FixedLenSequenceFeature, VarLenFeature, RaggedFeature)):
        raise ValueError(f"Unsupported {type(f).__name__} {f!r} for key '{key}'")
    return ListHandler(key, f)


def _requests(handlers: list[Any]) -> tuple[list[str], list[int]]:
    names: list[str] = []
    kinds: list[int] = []
    for h in handlers:
        for key, kind in h.requests:
            if key in names and kinds[names.index(key)] != kind:
                raise ValueError(f"Conflicting type for feature {key}.")
            if key not in names:
                names.append(key)
                kinds.append(kind)
    return names, kinds


class SequencePlan:
    """The handlers of a (context, sequence) spec pair and their native columns."""

    def __init__(self, context: Mapping[str, Any] | None, lists: Mapping[str, Any] | None,
                 single: bool) -> None:
        if not context and not lists:
            raise ValueError("Both context_features and sequence_features are None, but at least "
                             "one should have values." if single else "Both `context_features` "
                             "and `sequence_features` argument are None, but at least one should "
                             "have values.")
        context, lists = dict(context or {}), dict(lists or {})
        _intersections(context)
        _intersections(lists)
        self.context = [_context_handler(k, f) for k, f in context.items()]
        self.lists = [_list_handler(k, f) for k, f in lists.items()]
        self.context_names, self.context_kinds = _requests(self.context)
        self.list_names, self.list_kinds = _requests(self.lists)

    def decode(self, records: Any) -> dict[str, Any]:
        """One native call over a RecordBlock or a list of bytes."""
        args = (self.context_names, self.context_kinds, self.list_names, self.list_kinds)
        if isinstance(records, RecordBlock):
            data, ends = records.data_and_ends()
            return _native.sequence_example_decode(data, ends, *args)
        return _native.sequence_example_decode_records(records, *args)

    def run(self, records: Any, n: int, names: Any) -> tuple[dict[str, Column], dict[str, Column]]:
        """Context and list columns of ``n`` records, or TF's error."""
        where = SeqWhere(names)
        result = self.decode(records)
        if result["error"]:
            raise InvalidArgumentError(self._native_message(result, where))
        feats = [Raw.from_native(d) for d in result["features"]]
        k = len(self.context_names)
        ctx = dict(zip(self.context_names, feats[:k]))
        lists = dict(zip(self.list_names, feats[k:]))
        for h in self.lists:
            if h.ragged is not None:
                h.check_steps(lists)
        message = _batch_checks(self, ctx, lists, n, where) or \
            _record_checks(self, ctx, lists, n, where)
        if message:
            raise InvalidArgumentError(message)
        return ({h.out_key: h.column(ctx, n) for h in self.context},
                {h.out_key: h.column(lists, n) for h in self.lists})

    def _native_message(self, result: dict[str, Any], where: SeqWhere) -> str:
        i = int(result["error_record"])
        if result["error"] == 1:
            return where.malformed(i)
        f = int(result["error_feature"])
        names = self.context_names + self.list_names
        kinds = self.context_kinds + self.list_kinds
        expected = KIND_WORD[kinds[f]]
        if f < len(self.context_names):
            return where.context_kind(names[f], expected, i)
        return where.list_kind(names[f], expected, i, int(result["error_step"]))


def _batch_checks(plan: SequencePlan, ctx: dict[str, Raw], lists: dict[str, Raw], n: int,
                  where: SeqWhere) -> str | None:
    for h in plan.context:
        if isinstance(h, FixedHandler):
            most = int(ctx[h.key].lengths.max()) if n else h.size
            if most != h.size and not (most == 0 and h.default is not None):
                return where.inconsistent(h.key, h.size, most)
    for h in plan.lists:
        if h.dense:
            raw = lists[h.key]
            records = raw.step_splits()
            totals = raw.splits[records[1:]] - raw.splits[records[:-1]]
            bad = np.flatnonzero(totals % h.stride)
            if len(bad):
                return where.list_total(h.key, int(totals[bad[0]]), h.shape)
    return None


def _record_checks(plan: SequencePlan, ctx: dict[str, Raw], lists: dict[str, Raw], n: int,
                   where: SeqWhere) -> str | None:
    found: list[tuple[int, int, str]] = []
    for h in plan.context:
        if isinstance(h, FixedHandler):
            counts = ctx[h.key].counts
            missing = np.flatnonzero(counts < 0) if h.default is None else np.zeros(0, int)
            if len(missing):
                found.append((int(missing[0]), 0, Where(True, None).missing(
                    h.key, type_name(h.feature.dtype), 0)))
            wrong = np.flatnonzero((counts >= 0) & (counts != h.size))
            if len(wrong):
                found.append((int(wrong[0]), 0, where.unexpected(int(wrong[0]))))
        elif isinstance(h, RaggedHandler) and (p := h.problem(ctx, n, Where(False, None))):
            found.append((p.record, 2, p.message))
    for h in plan.lists:
        if h.dense:
            found.extend(_list_record_problems(h, lists[h.key], where))
        elif h.ragged is not None:
            raw = lists[h.ragged.key]
            p = h.ragged.problem(lists, len(raw.counts), Where(True, None))
            if p is not None:  # p.record is a step: name the record that holds it
                record = int(np.searchsorted(raw.step_splits(), p.record, side="right") - 1)
                found.append((record, 2, p.message))
    return min(found)[2] if found else None


def _list_record_problems(h: ListHandler, raw: Raw, where: SeqWhere) -> list[tuple[int, int, str]]:
    out = []
    if not h.feature.allow_missing:
        missing = np.flatnonzero(raw.steps < 0)
        if len(missing):
            out.append((int(missing[0]), 1, where.list_missing(h.key, int(missing[0]))))
    bad = np.flatnonzero(raw.counts != h.stride)
    if len(bad):
        splits = raw.step_splits()
        record = int(np.searchsorted(splits, bad[0], side="right") - 1)
        step = int(bad[0] - splits[record])
        out.append((record, 1, where.step_count(h.key, int(raw.counts[bad[0]]), h.shape, record,
                                                step)))
    return out


__all__ = ["ListHandler", "SequencePlan"]
