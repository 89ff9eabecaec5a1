"""SequenceExample cases of ``tools/tf_io_golden.py`` (the language of ``tf_io_cases.py``;
records are ``{"context": {key: feature}, "lists": {key: [feature per step]}}``)."""

from __future__ import annotations

from typing import Any

from tf_io_cases import _fixed, _ragged, _seq, _var

S1 = {"context": {"c": ["i", [7]], "name": ["b", ["one"]]},
      "lists": {"s": [["i", [1, 2]], ["i", [3, 4]], ["i", [5, 6]]],
                "v": [["i", [1]], ["i", []], ["i", [2, 3]]],
                "f": [["f", [0.5]], ["f", [1.5]]], "w": [["b", ["a"]], ["b", ["bc"]]]}}
S2 = {"context": {"c": ["i", [8]]}, "lists": {"s": [["i", [9, 9]]], "v": []}}
S3: dict[str, Any] = {}


def _both(name: str, records: list[Any], ctx: Any, seq: Any, **kw: Any) -> list[dict[str, Any]]:
    return [dict(name=f"{name} single", mode="single", records=records[:1], context_spec=ctx,
                 sequence_spec=seq, **kw),
            dict(name=f"{name} batch", mode="batch", records=records, context_spec=ctx,
                 sequence_spec=seq, **kw)]


def _value_cases() -> list[dict[str, Any]]:
    ctx = {"c": _fixed([], default=-1), "name": _fixed([], "string", default="?")}
    c: list[dict[str, Any]] = []
    c += _both("context and lists", [S1, S2, S3], ctx,
               {"s": _seq([2], allow_missing=True), "v": _var(),
                "f": _seq([1], "float32", allow_missing=True),
                "w": _seq([], "string", allow_missing=True)})
    c += _both("ragged lists", [S1, S2, S3], None, {"v": _ragged()})
    c += _both("ragged list with partition",
               [{"lists": {"v": [["i", [1, 2, 3]]], "l": [["i", [1, 2]]]}}], None,
               {"r": _ragged(value_key="v", partitions=[["row_lengths", "l"]])})
    c += _both("ragged context", [S1, S2, S3], {"c": _ragged()}, None)
    c += _both("varlen context", [S1, S3], {"c": _var(), "name": _var("string")}, None)
    return c


def _error_cases() -> list[dict[str, Any]]:
    c: list[dict[str, Any]] = []
    c += _both("list required", [S1, S3], None, {"s": _seq([2], allow_missing=False)})
    c += _both("list step count", [{"lists": {"s": [["i", [1, 2]], ["i", [3]]]}}], None,
               {"s": _seq([2], allow_missing=False)})
    c += _both("list step count divisible", [{"lists": {"s": [["i", [1, 2, 3]], ["i", [4]]]}}],
               None, {"s": _seq([2], allow_missing=False)})
    c += _both("list step kind", [{"lists": {"s": [["i", [1, 2]], ["f", [3, 4]]]}}], None,
               {"s": _seq([2], allow_missing=False)})
    c += _both("list empty step other kind", [{"lists": {"s": [["i", [1, 2]], ["f", []]]}}],
               None, {"s": _var()})
    c += _both("list kindless step", [{"lists": {"s": [["i", [1, 2]], ["n", []]]}}], None,
               {"s": _seq([2], allow_missing=False)})
    c += _both("list kindless step varlen", [{"lists": {"s": [["i", [1, 2]], ["n", []]]}}], None,
               {"s": _var()})
    c += _both("list default refused", [S1], None, {"s": _seq([2], default=[0, 0])})
    return c + _batch_error_cases()


def _batch_error_cases() -> list[dict[str, Any]]:
    c: list[dict[str, Any]] = []
    odd = {"lists": {"s": [["i", [1, 2, 3]]]}}
    kind = {"lists": {"s": [["f", [1, 2]]]}}
    c.append(dict(name="errors: kind before total", mode="batch", records=[odd, kind],
                  context_spec=None, sequence_spec={"s": _seq([2], allow_missing=True)}))
    c.append(dict(name="errors: total over the batch", mode="batch", records=[odd, odd],
                  context_spec=None, sequence_spec={"s": _seq([2], allow_missing=True)}))
    c.append(dict(name="errors: step before missing", mode="batch",
                  records=[{}, {"lists": {"s": [["i", [1, 2, 3]], ["i", [4]]]}}],
                  context_spec=None, sequence_spec={"s": _seq([2], allow_missing=False)}))
    c.append(dict(name="errors: context unexpected", mode="batch",
                  records=[{"context": {"c": ["i", [1, 2]]}}, {"context": {"c": ["i", [1]]}},
                           {}], context_spec={"c": _fixed([2])}, sequence_spec=None))
    c.append(dict(name="errors: context missing with others", mode="batch",
                  records=[{"context": {"c": ["i", [1, 2]]}}, {}],
                  context_spec={"c": _fixed([2])}, sequence_spec=None))
    c.append(dict(name="errors: context empty list", mode="batch",
                  records=[{"context": {"c": ["i", [1]]}}, {"context": {"c": ["i", []]}}],
                  context_spec={"c": _fixed([1], default=[0])}, sequence_spec=None))
    c.append(dict(name="context all missing with default", mode="batch", records=[{}, {}],
                  context_spec={"c": _fixed([2], default=[1, 2])}, sequence_spec=None))
    c.append(dict(name="names", mode="batch", records=[S1, {"context": {"c": ["f", [1.5]]}}],
                  context_spec={"c": _var()}, sequence_spec=None, example_names=["p", "q"]))
    return c


def _spec_cases() -> list[dict[str, Any]]:
    c: list[dict[str, Any]] = []
    c += _both("context missing", [S3, S1], {"c": _fixed([])}, None, match="type",
               why="TF words this by the other records of the batch")
    c += _both("context count", [S1], {"c": _fixed([2])}, None)
    c += _both("context kind", [S1], {"c": _fixed([1], "float32")}, None)
    c += _both("context varlen kind", [S1], {"c": _var("float32")}, None)
    c += _both("list varlen kind", [S1], None, {"v": _var("float32")})
    c += _both("seq feature in context", [S1], {"c": _seq([], allow_missing=True)}, None)
    c += _both("fixed feature in lists", [S1], None, {"s": _fixed([2])})
    c += _both("no features", [S1], None, None)
    c += _both("same key in context and lists", [S1], {"s": _var()}, {"s": _seq([2])})
    c += _both("example as sequence example", [{"hex": "0a0d0a0b0a016112061a040a020102"}],
               {"a": _var()}, None)
    c += _both("malformed", [{"hex": "0a0d0a0b0a016112061a040a0201"}], {"a": _var()}, None,
               match="prefix")
    return c


def sequence_cases() -> list[dict[str, Any]]:
    """Every SequenceExample case."""
    return _value_cases() + _error_cases() + _spec_cases()
