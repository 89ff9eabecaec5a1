"""Hypothesis: the single-record fast path of parse_single_example, the columnar path and
parse_example agree on random records and specs (values, dtypes, or the same TF error)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from minibatcher.formats.tfrecord import wire
from minibatcher.tfdata import RaggedTensor, SparseTensor, io
from minibatcher.tfdata.io.messages import Where
from minibatcher.tfdata.io.plan import plan_for

R = io.RaggedFeature
SPECS = [io.FixedLenFeature([], "int64"), io.FixedLenFeature([2], "float32", [0.5, 1.5]),
         io.FixedLenFeature([], "string", "d"), io.FixedLenFeature([1, 2], "int64"),
         io.VarLenFeature("int64"), io.VarLenFeature("string"),
         io.FixedLenSequenceFeature([2], "float32", allow_missing=True),
         io.FixedLenSequenceFeature([], "string", allow_missing=True, default_value="p"),
         R("int64"), R("float32", row_splits_dtype="int64")]


@st.composite
def records(draw: st.DrawFn) -> bytes:
    entries = []
    for key in draw(st.lists(st.sampled_from("abc"), max_size=4)):
        kind = draw(st.integers(0, 3))
        n = draw(st.integers(0, 4))
        values: Any = {1: [b"x" * i for i in range(n)], 2: np.arange(n, dtype=np.float32),
                       3: np.arange(n, dtype=np.int64)}.get(kind)
        feature = wire.encode_feature(values) if kind and n else (wire._len(kind, b"") if kind
                                                                  else b"")
        entries.append(wire._len(1, wire._len(1, key.encode()) + wire._len(2, feature)))
    return wire._len(1, b"".join(entries)) if entries else b""


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (SparseTensor, RaggedTensor)):
        return a == b
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def _outcome(fn: Any) -> tuple[str, Any]:
    try:
        return "ok", fn()
    except ValueError as e:
        return "error", str(e)


@settings(max_examples=300, deadline=None)
@given(st.lists(records(), min_size=1, max_size=4),
       st.dictionaries(st.sampled_from("abc"), st.sampled_from(range(len(SPECS))), min_size=1))
def test_paths_agree(recs: list[bytes], choice: dict[str, int]) -> None:
    spec = {k: SPECS[i] for k, i in choice.items()}
    for rec in recs:
        fast = _outcome(lambda: io.parse_single_example(rec, spec))
        slow = _outcome(lambda: {k: c.row(0) for k, c in plan_for(spec).run(
            [rec], 1, Where(True, None), lambda i: rec).items()})
        assert fast[0] == slow[0], (fast, slow)
        if fast[0] == "ok":
            assert fast[1].keys() == slow[1].keys()
            assert all(_same(fast[1][k], slow[1][k]) for k in spec)
        else:
            assert fast[1] == slow[1]
    batch = _outcome(lambda: io.parse_example(recs, spec))
    singles = [_outcome(lambda r=r: io.parse_single_example(r, spec)) for r in recs]
    assert (batch[0] == "ok") == all(s[0] == "ok" for s in singles)
