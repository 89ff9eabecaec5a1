"""The cases of ``tools/tf_io_golden.py``, as JSON data (no TensorFlow needed to read them).

Records: ``{key: [kind, values]}`` with kind ``i`` (int64_list), ``f`` (float_list),
``b`` (bytes_list, values as latin-1 text) or ``n`` (a Feature with no list); or
``{"hex": ...}`` for hand-made bytes. Specs: ``{key: {"t": "fixed"|"var"|"seq"|"ragged",
"dtype", "shape", "default", "allow_missing", "value_key", "partitions": [[kind, key or
length]], "splits", "validate"}}``. ``match``: how the tests compare an error (``message``
exactly, the default; ``type`` only, with ``why``); ``ours``: a deliberate difference (the
tests check our documented behaviour instead, see docs/tfdata.md).
"""

from __future__ import annotations

import random
from typing import Any


def _fixed(shape: list[int | None], dtype: str = "int64", default: Any = None) -> dict[str, Any]:
    d: dict[str, Any] = {"t": "fixed", "shape": shape, "dtype": dtype}
    if default is not None:
        d["default"] = default
    return d


def _seq(shape: list[int], dtype: str = "int64", default: Any = None,
         allow_missing: bool = True) -> dict[str, Any]:
    d: dict[str, Any] = {"t": "seq", "shape": shape, "dtype": dtype, "allow_missing": allow_missing}
    if default is not None:
        d["default"] = default
    return d


def _var(dtype: str = "int64") -> dict[str, Any]:
    return {"t": "var", "dtype": dtype}


def _ragged(dtype: str = "int64", value_key: str | None = None, partitions: Any = (),
            splits: str = "int32", validate: bool = False) -> dict[str, Any]:
    return {"t": "ragged", "dtype": dtype, "value_key": value_key, "partitions": list(partitions),
            "splits": splits, "validate": validate}


def _sparse(index_key: Any, value_key: str, size: Any, dtype: str = "float32",
            already_sorted: bool = False) -> dict[str, Any]:
    return {"t": "sparse_feature", "index_key": index_key, "value_key": value_key,
            "dtype": dtype, "size": size, "already_sorted": already_sorted}


def _both(name: str, records: list[Any], spec: dict[str, Any], **kw: Any) -> list[dict[str, Any]]:
    """The case in both modes (single uses the first record)."""
    return [dict(name=f"{name} single", mode="single", records=records[:1], spec=spec, **kw),
            dict(name=f"{name} batch", mode="batch", records=records, spec=spec, **kw)]


I1, I3, F1, B2 = ["i", [1]], ["i", [1, 2, 3]], ["f", [1.5]], ["b", ["x", "yz"]]
GOOD = {"a": ["i", [1, 2]], "f": ["f", [0.5, -2.25]], "s": ["b", ["x", ""]]}


def _dense_cases() -> list[dict[str, Any]]:
    c: list[dict[str, Any]] = []
    c += _both("fixed scalar/vector/matrix", [GOOD, {"a": ["i", [3, 4]], "f": ["f", [1, 2]],
                                                     "s": ["b", ["p", "q"]]}],
               {"a": _fixed([2]), "a2": _fixed([1, 2], default=[[7, 8]]),
                "f": _fixed([2], "float32"), "s": _fixed([2], "string")})
    c += _both("defaults fill missing", [{}, GOOD],
               {"a": _fixed([2], default=[5, 6]), "q": _fixed([], "string", default="zz"),
                "r": _fixed([2, 2], "float32", default=[1, 2, 3, 4]),
                "z": _fixed([], "float32", default=1)})
    c += _both("missing required", [GOOD, {}], {"q": _fixed([])})
    c += _both("missing required second", [GOOD, {"f": F1}], {"a": _fixed([2])})
    c += _both("too many values", [GOOD], {"a": _fixed([1])})
    c += _both("too few float values", [GOOD], {"f": _fixed([3], "float32")})
    c += _both("too few bytes values", [GOOD], {"s": _fixed([3], "string")})
    c += _both("empty list is not missing", [{"a": ["i", []]}], {"a": _fixed([], default=7)})
    c += _both("empty list shape [0]", [{"a": ["i", []]}], {"a": _fixed([0])})
    c += _both("kindless feature is missing", [{"a": ["n", []]}], {"a": _fixed([], default=3)})
    c += _both("kindless feature required", [{"a": ["n", []]}], {"a": _fixed([])})
    return c + _dense_error_cases()


def _dense_error_cases() -> list[dict[str, Any]]:
    c: list[dict[str, Any]] = []
    c += _both("wrong kind", [GOOD], {"a": _fixed([2], "float32")})
    c += _both("wrong kind string", [GOOD], {"a": _fixed([2], "string")})
    c += _both("empty list of another kind", [{"a": ["f", []]}], {"a": _fixed([], default=3)})
    c += _both("scalar default for shape [2]", [{}], {"a": _fixed([2], default=3)})
    c += _both("default of wrong size", [{}], {"a": _fixed([2], default=[1, 2, 3])})
    c += _both("int default 1.5", [{}], {"a": _fixed([], default=1.5)})
    c += _both("int default string", [{}], {"a": _fixed([], default="x")})
    c += _both("string default int", [{}], {"a": _fixed([], "string", default=3)})
    c += _both("unknown first dim", [GOOD], {"a": _fixed([None])})
    c += _both("unknown inner dim", [GOOD], {"a": _fixed([2, None])})
    c += _both("negative dim", [GOOD], {"a": _fixed([-2])})
    c += _both("shape [3,0]", [{"a": ["i", []]}], {"a": _fixed([3, 0])})
    c += _both("int32 is refused", [GOOD], {"a": _fixed([2], "int32")},
               match="type", why="TF's message is a dump of its op signature")
    c += _both("large ints", [{"a": ["i", [2**63 - 1, -2**63, -1, 0]]}], {"a": _fixed([4])})
    c.append(dict(name="example names", mode="batch", records=[GOOD, {}], spec={"a": _fixed([2])},
                  example_names=["first", "second"]))
    c.append(dict(name="example names wrong length", mode="batch", records=[GOOD],
                  spec={"a": _fixed([2])}, example_names=["x", "y"]))
    c.append(dict(name="empty batch", mode="batch", records=[],
                  spec={"a": _fixed([2]), "v": _var(), "s": _seq([2]), "r": _ragged()}))
    return c


def _var_seq_cases() -> list[dict[str, Any]]:
    c: list[dict[str, Any]] = []
    recs = [GOOD, {}, {"a": ["i", [5]], "s": ["b", ["long"]]}, {"a": ["n", []]}]
    c += _both("varlen", recs, {"a": _var(), "s": _var("string"), "f": _var("float32")})
    c += _both("varlen wrong kind", [GOOD], {"a": _var("float32")})
    c += _both("varlen empty other kind", [{"a": ["f", []]}], {"a": _var()})
    c += _both("seq", [{"a": ["i", [1, 2, 3, 4]]}, {}, {"a": ["i", [9, 9]]}],
               {"a": _seq([2], default=-1)})
    c += _both("seq scalar elements", [{"a": I3}, {"a": I1}], {"a": _seq([])})
    c += _both("seq strings", [{"s": B2}, {}], {"s": _seq([], "string")})
    c += _both("seq not a multiple", [{"a": I3}], {"a": _seq([2])})
    c += _both("seq allow_missing False", [GOOD], {"a": _seq([2], allow_missing=False)})
    c += _both("seq default list", [GOOD, {}], {"a": _seq([2], default=[7, 8])})
    c += _both("seq wrong kind", [GOOD], {"a": _seq([], "float32")})
    c += _both("seq unknown dim", [GOOD], {"a": _seq([None])})
    return c


def _ragged_cases() -> list[dict[str, Any]]:
    c: list[dict[str, Any]] = []
    r = {"v": ["i", [1, 2, 3, 4, 5, 6]], "sp": ["i", [0, 2, 6]], "ln": ["i", [2, 0, 4]],
         "id": ["i", [0, 0, 2, 2, 2, 2]], "st": ["i", [0, 2, 2]], "lm": ["i", [2, 2, 6]],
         "ln2": ["i", [2, 0, 1]]}
    r2 = {"v": ["i", [7, 8]], "sp": ["i", [0, 1, 2]], "ln": ["i", [1, 1]], "id": ["i", [0, 1]],
          "st": ["i", [0, 1]], "lm": ["i", [1, 2]]}
    for kind, key in [("row_splits", "sp"), ("row_lengths", "ln"), ("value_rowids", "id"),
                      ("row_starts", "st"), ("row_limits", "lm")]:
        c += _both(f"ragged {kind}", [r, r2, {}], {"r": _ragged(value_key="v",
                                                                partitions=[[kind, key]])})
    c += _both("ragged uniform", [r], {"r": _ragged(value_key="v", partitions=[["uniform", 2]])})
    c += _both("ragged lengths then uniform", [r],
               {"r": _ragged(value_key="v", partitions=[["uniform", 3], ["row_lengths", "ln"]])})
    c.append(dict(name="ragged uniform inner single", mode="single", records=[r],
                  spec={"r": _ragged(value_key="v", partitions=[["row_lengths", "ln2"],
                                                                ["uniform", 2]])}))
    c += _both("ragged no partitions", [r, {}, {"v": ["i", [9]]}], {"v": _ragged(splits="int64")})
    c += _both("ragged strings", [{"s": B2}, {}], {"s": _ragged("string")})
    c += _both("ragged shared values", [r], {"a": _ragged(value_key="v"), "b": _ragged(value_key="v")})
    c += _both("ragged wrong kind", [GOOD], {"a": _ragged("float32")})
    c += _both("ragged partition wrong kind", [{"v": I1, "p": F1}],
               {"r": _ragged(value_key="v", partitions=[["row_lengths", "p"]])})
    bad = {"v": ["i", [1, 2]], "sp": ["i", [0, 3]]}
    c += _both("ragged bad splits validate", [bad],
               {"r": _ragged(value_key="v", partitions=[["row_splits", "sp"]], validate=True)},
               match="type", why="TF's message is an assertion dump")
    c += _both("ragged bad splits unvalidated", [bad],
               {"r": _ragged(value_key="v", partitions=[["row_splits", "sp"]])}, ours="invalid")
    c += _both("ragged conflicting types", [r], {"v": _ragged(), "w": _ragged("float32", "v")})
    c += _both("ragged and varlen share a key", [r], {"v": _var(), "w": _ragged(value_key="v")})
    c += _both("dense and ragged share a key", [r], {"v": _fixed([6]), "w": _ragged(value_key="v")},
               match="type", why="TF formats this message as a tuple")
    c += _both("row_splits_dtype int16", [r], {"v": _ragged(splits="int16")})
    return c


def _malformed_cases() -> list[dict[str, Any]]:
    good = "0a0d0a0b0a016112061a040a020102"  # {"a": int64 [1, 2]}
    spec = {"a": _var()}
    c: list[dict[str, Any]] = []
    for name, hexed in [("truncated", good[:-2]), ("wire type 7", "0f"),
                        ("group field", "1314" + good)]:
        c += _both(f"malformed {name}", [{"hex": hexed}, {"hex": good}], spec, match="prefix")
    c += _both("unknown varint field", [{"hex": "1005" + good}], spec)
    c += _both("empty record", [{"hex": ""}], spec)
    for name, hexed in [("truncated outer", "0a05"),
                        ("truncated inner list", "0a0c0a0a0a016112051a030a0201"),
                        ("good then truncated", good + "0a05")]:
        c += _both(f"malformed {name}", [{"hex": hexed}], spec, ours="malformed")
    dup = good + "0a0b0a090a016112041a020807"  # a second entry for "a": [7]; the last wins
    c += _both("duplicate key last wins", [{"hex": dup}], {"a": _var(), "b": _fixed([1], default=[0])})
    c += _both("features falsy", [GOOD], {})
    return c


def _sparse_feature_cases() -> list[dict[str, Any]]:
    e1 = {"ix": ["i", [3, 1]], "v": ["f", [0.5, 1.5]]}
    e2 = {"ix": ["i", [0]], "v": ["f", [2.5]]}
    two = {"a": ["i", [1, 0, 1]], "b": ["i", [2, 2, 0]], "v": ["f", [1, 2, 3]]}
    c: list[dict[str, Any]] = []
    c += _both("sparse feature", [e1, e2, {}], {"s": _sparse("ix", "v", 5)})
    c += _both("sparse feature sorted", [e1, e2], {"s": _sparse("ix", "v", 5, already_sorted=True)})
    c += _both("sparse feature 2-D", [two, e2], {"s": _sparse(["a", "b"], "v", [3, 4])})
    c += _both("sparse feature strings", [{"ix": ["i", [2, 0]], "w": ["b", ["p", "q"]]}],
               {"s": _sparse(["ix"], "w", [3], "string")})
    c += _both("sparse feature lengths differ", [{"ix": ["i", [1, 2]], "v": ["f", [1]]}],
               {"s": _sparse("ix", "v", 5)})
    c += _both("sparse feature values only", [{"v": ["f", [1]]}], {"s": _sparse("ix", "v", 5)})
    c += _both("sparse feature out of range", [{"ix": ["i", [7, -1]], "v": ["f", [1, 2]]}],
               {"s": _sparse("ix", "v", 5)})
    c += _both("sparse feature duplicate index", [{"ix": ["i", [1, 1]], "v": ["f", [1, 2]]}],
               {"s": _sparse("ix", "v", 5)})
    c += _both("sparse feature size None", [e1], {"s": _sparse("ix", "v", None)})
    c += _both("sparse feature size mismatch", [e1], {"s": _sparse(["ix"], "v", [5, 6])})
    c += _both("sparse feature index kind", [{"ix": ["f", [1]], "v": ["f", [1]]}],
               {"s": _sparse("ix", "v", 5)})
    c += _both("sparse feature and varlen", [e1], {"s": _sparse("ix", "v", 5), "v": _var("float32")})
    c += _both("sparse feature and fixed", [e1], {"s": _sparse("ix", "v", 5),
                                                  "v": _fixed([2], "float32")})
    return c


def example_cases() -> list[dict[str, Any]]:
    """The hand-written parse_single_example / parse_example cases."""
    return (_dense_cases() + _var_seq_cases() + _ragged_cases() + _malformed_cases()
            + _sparse_feature_cases())


def _random_feature(rng: random.Random) -> list[Any]:
    kind = rng.choice("iiffbbn")
    n = rng.choice([0, 1, 1, 2, 2, 3, 4])
    if kind == "i":
        return ["i", [rng.randint(-5, 5) for _ in range(n)]]
    if kind == "f":
        return ["f", [rng.randint(-8, 8) / 4 for _ in range(n)]]
    if kind == "b":
        return ["b", ["".join(rng.choice("ab\x00\xff") for _ in range(rng.randint(0, 3)))
                      for _ in range(n)]]
    return ["n", []]


def _random_spec(rng: random.Random, key: str) -> dict[str, Any]:
    dtype = rng.choice(["int64", "float32", "string"])
    t = rng.choice(["fixed", "fixed", "var", "seq", "ragged"])
    zero = {"int64": 0, "float32": 0.5, "string": "d"}[dtype]
    if t == "fixed":
        shape = rng.choice([[], [1], [2], [1, 2]])
        size = 1 if not shape else shape[0] * (shape[1] if len(shape) > 1 else 1)
        default = rng.choice([None, [zero] * size if shape else zero])
        return _fixed(shape, dtype, default)
    if t == "seq":
        return _seq(rng.choice([[], [2]]), dtype, rng.choice([None, zero]))
    if t == "ragged":
        return _ragged(dtype, splits=rng.choice(["int32", "int64"]))
    return _var(dtype)


def random_example_cases(seed: int, count: int = 240) -> list[dict[str, Any]]:
    """Random records (keys a-d, random kinds and lengths) against random specs."""
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        keys = rng.sample("abcd", rng.randint(1, 3))
        spec = {k: _random_spec(rng, k) for k in keys}
        n = 1 if i % 2 == 0 else rng.randint(1, 4)
        records = [{k: _random_feature(rng) for k in rng.sample("abcd", rng.randint(0, 4))}
                   for _ in range(n)]
        cases.append(dict(name=f"random {i}", mode="single" if i % 2 == 0 else "batch",
                          records=records, spec=spec))
    return cases


def sequence_cases() -> list[dict[str, Any]]:
    """parse_single_sequence_example / parse_sequence_example cases (tools/tf_io_seq_cases.py)."""
    from tf_io_seq_cases import sequence_cases as cases
    return cases()
