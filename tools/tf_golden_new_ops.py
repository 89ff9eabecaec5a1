"""Writes TensorFlow 2.21's answers for the tf.data methods added in issue 13.10.

Each case is a Python expression over ``D`` (``tf.data.Dataset`` here,
``minibatcher.tfdata.Dataset`` in the tests), ``np``, the dtype names ``i32``, ``i64``,
``f32``, ``f64``, ``TS`` (``TensorSpec``), ``FLR`` (``FixedLengthRecordDataset``) and ``DIR``
(a folder holding the case's ``files``). The expression is evaluated once (under
``tf.random.set_seed(G)`` when the case has a ``global_seed``) and the dataset iterated
``iterations`` times; what is recorded is the
elements (each leaf with its dtype), the cardinality, and any error (its class, and whether it
was raised when building or when iterating). An expression that is not a dataset is recorded
as a ``value`` (``reduce``, ``get_single_element``). ``tests/tfdata/test_new_ops_golden.py``
evaluates the same expressions with minibatcher and compares. Regenerate with::

    /work/tfvenv/bin/python tools/tf_golden_new_ops.py tests/data/tf_golden
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

FILES = {
    "a.txt": "a", "b.txt": "b", "B.txt": "B", "a1.txt": "a1", ".hidden.txt": "h", "c.dat": "c",
    "[x].txt": "x", "sub/x.txt": "sx", "sub/y.dat": "sy",
    "rec.bin": "HH" + "".join(chr(65 + i) * 3 for i in range(5)) + "FFF",
    "odd.bin": "ab", "two.bin": "0123456789",
}

CASES: list[dict[str, Any]] = [
    # unbatch
    {"name": "unbatch", "expr": "D.range(7).batch(3).unbatch()"},
    {"name": "unbatch drop", "expr": "D.range(7).batch(3, drop_remainder=True).unbatch()"},
    {"name": "unbatch tuple",
     "expr": "D.from_tensors((np.arange(3), np.array([b'a', b'b', b'c']))).unbatch()"},
    {"name": "unbatch dict",
     "expr": "D.from_tensors({'a': np.arange(2), 'b': np.ones((2, 2))}).unbatch()"},
    {"name": "unbatch 3d",
     "expr": "D.from_tensor_slices(np.arange(12).reshape(2, 2, 3)).unbatch()"},
    {"name": "unbatch empty rows", "expr": "D.from_tensors(np.zeros((0, 2))).unbatch()"},
    {"name": "unbatch scalar", "expr": "D.range(3).unbatch()"},
    {"name": "unbatch mismatch", "expr": "D.from_tensors((np.arange(3), np.arange(2))).unbatch()"},
    {"name": "unbatch shuffled",
     "expr": "D.range(10).shuffle(4, seed=5).batch(3).unbatch()", "iterations": 2},
    {"name": "unbatch infinite",
     "expr": "D.from_tensors(np.zeros((4, 3))).repeat().unbatch()", "limit": 5},
    # rebatch
    {"name": "rebatch", "expr": "D.range(10).batch(4).rebatch(3)"},
    {"name": "rebatch drop", "expr": "D.range(10).batch(4).rebatch(3, drop_remainder=True)"},
    {"name": "rebatch list", "expr": "D.range(10).batch(4).rebatch([1, 2])"},
    {"name": "rebatch list drop",
     "expr": "D.range(10).batch(4).rebatch([1, 2], drop_remainder=True)"},
    {"name": "rebatch zero", "expr": "D.range(10).batch(4).rebatch([0, 2])"},
    {"name": "rebatch tuple",
     "expr": "D.from_tensor_slices((np.arange(5), np.arange(5) * 10)).batch(2).rebatch(3)"},
    {"name": "rebatch 2d",
     "expr": "D.from_tensor_slices(np.arange(12).reshape(6, 2)).batch(4).rebatch(3)"},
    {"name": "rebatch scalar", "expr": "D.range(10).rebatch(2)"},
    {"name": "rebatch infinite", "expr": "D.range(10).batch(4).repeat().rebatch(3)", "limit": 5},
    # window
    {"name": "window", "expr": "D.range(7).window(3)"},
    {"name": "window shift", "expr": "D.range(7).window(3, shift=2)"},
    {"name": "window stride", "expr": "D.range(10).window(3, shift=1, stride=3)"},
    {"name": "window drop",
     "expr": "D.range(10).window(3, shift=2, stride=2, drop_remainder=True)"},
    {"name": "window big shift", "expr": "D.range(10).window(2, shift=4)"},
    {"name": "window big shift drop", "expr": "D.range(9).window(2, shift=4, drop_remainder=True)"},
    {"name": "window filtered", "expr": "D.range(12).filter(lambda x: x % 5 != 2).window(3, 2, 2)"},
    {"name": "window filtered big shift",
     "expr": "D.range(12).filter(lambda x: x % 5 != 2).window(2, 5)"},
    {"name": "window tuple",
     "expr": "D.from_tensor_slices((np.arange(3), np.arange(3) * 2)).window(2)"},
    {"name": "window dict", "expr": "D.from_tensor_slices({'a': np.arange(3)}).window(2)"},
    {"name": "window zero size", "expr": "D.range(3).window(0)"},
    {"name": "window zero shift", "expr": "D.range(3).window(2, shift=0)"},
    {"name": "window zero stride", "expr": "D.range(3).window(2, stride=0)"},
    {"name": "window empty", "expr": "D.range(0).window(2)"},
    {"name": "window infinite", "expr": "D.range(3).repeat().window(2)", "limit": 4},
    {"name": "window flat_map",
     "expr": "D.range(7).window(3, 2, 1, True).flat_map(lambda w: w.batch(3))"},
    {"name": "window shuffled",
     "expr": "D.range(10).shuffle(10, seed=3).window(3, 2).flat_map(lambda w: w.batch(3))",
     "iterations": 2},
    {"name": "window zip",
     "expr": "D.from_tensor_slices((np.arange(5), "
             "np.arange(5) * 2)).window(2).flat_map(lambda a, b: D.zip((a.batch(2), b.batch(2))))"},
    # flat_map
    {"name": "flat_map", "expr": "D.range(4).flat_map(lambda x: D.range(x))"},
    {"name": "flat_map tuple",
     "expr": "D.from_tensor_slices((np.arange(2), np.arange(2))).flat_map(lambda a, "
             "b: D.from_tensors(a + b))"},
    {"name": "flat_map shuffled",
     "expr": "D.range(5).shuffle(5, seed=2).flat_map(lambda x: D.range(x).shuffle(3, seed=1))",
     "iterations": 2},
    {"name": "flat_map infinite",
     "expr": "D.range(3).repeat().flat_map(lambda x: D.range(2))", "limit": 5},
    # scan / reduce
    {"name": "scan", "expr": "D.range(5).scan(0, lambda s, x: (s + 1, s))"},
    {"name": "scan int64", "expr": "D.range(5).scan(np.int64(0), lambda s, x: (s + x, s * 10))"},
    {"name": "scan struct",
     "expr": "D.range(4).scan((np.int64(0), {'c': np.int64(1)}), lambda s, x: ((s[0] + x, "
             "{'c': s[1]['c'] * 2}), (s[0], s[1]['c'])))"},
    {"name": "scan tuple element",
     "expr": "D.from_tensor_slices((np.arange(3), np.arange(3) * 10)).scan(np.int64(0), "
             "lambda s, e: (s + e[0] + e[1], s))"},
    {"name": "scan string",
     "expr": "D.from_tensor_slices(['a', 'b', 'c']).scan('', lambda s, x: (s + x, s))"},
    {"name": "scan empty", "expr": "D.range(0).scan(0, lambda s, x: (s, x))"},
    {"name": "scan float",
     "expr": "D.range(4).scan(np.float32(0.5), lambda s, x: (s * np.float32(1.5), s))"},
    {"name": "scan infinite",
     "expr": "D.range(3).repeat().scan(np.int64(0), lambda s, x: (s + x, s))", "limit": 7},
    {"name": "reduce", "expr": "D.range(5).reduce(np.int64(0), lambda s, x: s + x)"},
    {"name": "reduce empty", "expr": "D.range(0).reduce(np.int64(7), lambda s, x: s + x)"},
    {"name": "reduce struct",
     "expr": "D.range(5).reduce((np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, s[1] * 2))"},
    {"name": "reduce tuple element",
     "expr": "D.from_tensor_slices((np.arange(3), np.arange(3))).reduce(np.int64(0), lambda s, "
             "e: s + e[0] + e[1])"},
    {"name": "reduce string",
     "expr": "D.from_tensor_slices(['a', 'b']).reduce('', lambda s, x: s + x)"},
    {"name": "reduce dtype change", "expr": "D.range(5).reduce(0, lambda s, x: s + x)"},
    # take_while / unique / get_single_element
    {"name": "take_while", "expr": "D.range(10).take_while(lambda x: x < 5)"},
    {"name": "take_while stops for good",
     "expr": "D.from_tensor_slices([1, 2, 7, 1, 2]).take_while(lambda x: x < 5)"},
    {"name": "take_while tuple",
     "expr": "D.from_tensor_slices(([1, 2, 7], [1, 1, 1])).take_while(lambda a, b: a < 5)"},
    {"name": "take_while non-bool", "expr": "D.range(3).take_while(lambda x: x)"},
    {"name": "take_while infinite",
     "expr": "D.range(3).repeat().take_while(lambda x: True)", "limit": 4},
    {"name": "unique", "expr": "D.from_tensor_slices([1, 2, 2, 3, 1, 4]).unique()"},
    {"name": "unique strings", "expr": "D.from_tensor_slices(['a', 'b', 'a', 'c']).unique()"},
    {"name": "unique vectors", "expr": "D.from_tensor_slices([[1, 2], [1, 2], [2, 1]]).unique()"},
    {"name": "unique float", "expr": "D.from_tensor_slices([1.0, 2.0]).unique()"},
    {"name": "unique tuple", "expr": "D.from_tensor_slices(([1, 2], [1, 2])).unique()"},
    {"name": "unique shuffled",
     "expr": "D.range(12).map(lambda x: x % 5).shuffle(12, seed=4).unique()", "iterations": 2},
    {"name": "get_single_element", "expr": "D.range(1).get_single_element()"},
    {"name": "get_single_element struct",
     "expr": "D.from_tensors((1, {'a': 'x'})).get_single_element()"},
    {"name": "get_single_element empty", "expr": "D.range(0).get_single_element()"},
    {"name": "get_single_element two", "expr": "D.range(2).get_single_element()"},
    # random / counter
    {"name": "random", "expr": "D.random(seed=42)", "limit": 6, "iterations": 2},
    {"name": "random rerandomize",
     "expr": "D.random(seed=42, rerandomize_each_iteration=True)", "limit": 4, "iterations": 3},
    {"name": "random global seed",
     "expr": "D.random()", "global_seed": 7, "limit": 4, "iterations": 2},
    {"name": "random seeds 0 0", "expr": "D.random(seed=0)", "global_seed": 0, "limit": 3},
    {"name": "random op seed only", "expr": "D.random(seed=3)", "limit": 3},
    {"name": "counter", "expr": "D.counter(5, 3)", "limit": 4},
    {"name": "counter default", "expr": "D.counter()", "limit": 3},
    {"name": "counter negative step", "expr": "D.counter(-2, -5)", "limit": 3},
    {"name": "counter int64 wraps", "expr": "D.counter(2**63 - 2, 1)", "limit": 3},
    {"name": "counter int32", "expr": "D.counter(2**31 - 2, 1, dtype=i32)", "limit": 3},
    {"name": "counter float32", "expr": "D.counter(0.5, 0.1, dtype=f32)", "limit": 4},
    # sample_from_datasets / choose_from_datasets
    {"name": "sample uniform",
     "expr": "D.sample_from_datasets([D.range(i * 100, i * 100 + 10) for i in range(3)], seed=42)"},
    {"name": "sample weights",
     "expr": "D.sample_from_datasets([D.range(i * 100, i * 100 + 10) for i in range(3)], "
             "weights=[0.5, 0.3, 0.2], seed=7)"},
    {"name": "sample stop on empty",
     "expr": "D.sample_from_datasets([D.range(i * 100, i * 100 + 10) for i in range(3)], "
             "weights=[0.5, 0.3, 0.2], seed=7, stop_on_empty_dataset=True)"},
    {"name": "sample zero weight",
     "expr": "D.sample_from_datasets([D.range(i * 100, i * 100 + 10) for i in range(3)], "
             "weights=np.array([0.5, 0.0, 0.2]), seed=7)"},
    {"name": "sample negative weight",
     "expr": "D.sample_from_datasets([D.range(i * 100, i * 100 + 10) for i in range(3)], "
             "weights=[-1.0, 1.0, 1.0], seed=2)"},
    {"name": "sample int weights",
     "expr": "D.sample_from_datasets([D.range(3), D.range(3)], weights=[1, 2], seed=7)"},
    {"name": "sample all zero",
     "expr": "D.sample_from_datasets([D.range(3), D.range(5)], weights=[0.0, 0.0], seed=1)"},
    {"name": "sample one dataset", "expr": "D.sample_from_datasets([D.range(4)], seed=1)"},
    {"name": "sample float64 weights",
     "expr": "D.sample_from_datasets([D.from_tensors(i).repeat() for i in range(7)], "
             "weights=np.array([.1, .2, .05, .3, .15, .1, .1]), seed=123)", "limit": 40},
    {"name": "sample many",
     "expr": "D.sample_from_datasets([D.from_tensors(i).repeat() for i in range(7)], "
             "weights=[.1, .2, .05, .3, .15, .1, .1], seed=123)", "limit": 40},
    {"name": "sample rerandomize",
     "expr": "D.sample_from_datasets([D.range(i * 100, i * 100 + 10) for i in range(3)], seed=3, "
             "rerandomize_each_iteration=True)", "limit": 8, "iterations": 2},
    {"name": "sample fixed",
     "expr": "D.sample_from_datasets([D.range(i * 100, i * 100 + 10) for i in range(3)], seed=3)",
     "limit": 8, "iterations": 2},
    {"name": "sample global seed",
     "expr": "D.sample_from_datasets([D.range(i * 100, i * 100 + 10) for i in range(3)])",
     "global_seed": 5, "limit": 10},
    {"name": "sample weights dataset",
     "expr": "D.sample_from_datasets([D.range(i * 100, i * 100 + 10) for i in range(3)], "
             "weights=D.from_tensor_slices([[0.9, 0.1, 0.0], [0.1, 0.1, 0.8]]).repeat(), seed=11)",
     "limit": 12},
    {"name": "sample shuffled inputs",
     "expr": "D.sample_from_datasets([D.range(6).shuffle(6, seed=1), D.range(10, 16).shuffle(6, "
             "seed=2)], seed=9)", "iterations": 2},
    {"name": "sample infinite",
     "expr": "D.sample_from_datasets([D.range(3).repeat(), D.range(3).repeat()], seed=1)",
     "limit": 3},
    {"name": "sample one infinite",
     "expr": "D.sample_from_datasets([D.range(3).repeat(), D.range(3)], seed=1)", "limit": 3},
    {"name": "sample empty list", "expr": "D.sample_from_datasets([])"},
    {"name": "sample weights length",
     "expr": "D.sample_from_datasets([D.range(3), D.range(3)], weights=[1.0])"},
    {"name": "choose",
     "expr": "D.choose_from_datasets([D.range(i * 100, i * 100 + 10) for i in range(3)], "
             "D.from_tensor_slices(np.array([0, 1, 2, 0, 0, 2, 1])))"},
    {"name": "choose out of range",
     "expr": "D.choose_from_datasets([D.range(3), D.range(3)], D.from_tensor_slices(np.array([0, "
             "3])))"},
    {"name": "choose stop",
     "expr": "D.choose_from_datasets([D.range(2), D.range(10, 15)], "
             "D.from_tensor_slices(np.array([0, 0, 0, 1, 1])))"},
    {"name": "choose no stop",
     "expr": "D.choose_from_datasets([D.range(2), D.range(10, 15)], "
             "D.from_tensor_slices(np.array([0, 0, 0, 1, 1])), stop_on_empty_dataset=False)"},
    {"name": "choose infinite",
     "expr": "D.choose_from_datasets([D.range(2).repeat(), D.range(3).repeat()], "
             "D.range(2).repeat())", "limit": 4},
    {"name": "choose empty list", "expr": "D.choose_from_datasets([], D.range(2))"},
    # cache (in memory; cache(filename) and partial iterations: tests/tfdata/test_cache.py)
    {"name": "cache below a shuffle", "expr": "D.range(6).cache().shuffle(6, seed=1)",
     "iterations": 3},
    {"name": "shuffle below a cache", "expr": "D.range(6).shuffle(6, seed=1).cache()",
     "iterations": 3},
    {"name": "cache then repeat", "expr": "D.range(6).shuffle(6, seed=1).cache().repeat(2)",
     "iterations": 2},
    {"name": "cache never completed", "expr": "D.range(6).shuffle(6, seed=1).cache().take(2)",
     "iterations": 3},
    {"name": "cache infinite", "expr": "D.range(3).repeat().cache()", "limit": 4},
    {"name": "cache empty", "expr": "D.range(0).cache()", "iterations": 2},
    # ragged_batch (dense or ragged by static shape) and element_spec
    {"name": "ragged_batch of vectors", "expr": "D.range(7).batch(3).ragged_batch(2)"},
    {"name": "ragged_batch of fixed vectors",
     "expr": "D.range(6).batch(3, drop_remainder=True).ragged_batch(2)"},
    {"name": "ragged_batch of scalars", "expr": "D.range(5).ragged_batch(2)"},
    {"name": "ragged_batch drop", "expr": "D.range(7).batch(3).ragged_batch(2, True)"},
    {"name": "ragged_batch int32 splits",
     "expr": "D.range(7).batch(3).ragged_batch(2, row_splits_dtype=i32)"},
    {"name": "ragged_batch of matrices",
     "expr": "D.from_tensor_slices(np.arange(30).reshape(5, 3, 2)).batch(2).ragged_batch(2)"},
    {"name": "ragged_batch of a tuple",
     "expr": "D.zip((D.range(7).batch(3), D.range(3))).ragged_batch(2)"},
    {"name": "ragged_batch of windows",
     "expr": "D.range(10).window(3, 2).flat_map(lambda w: w.batch(3)).ragged_batch(2)"},
    {"name": "ragged_batch twice", "expr": "D.range(9).batch(2).ragged_batch(2).ragged_batch(2)"},
    {"name": "spec of padded_batch",
     "expr": "D.range(7).batch(3).padded_batch(2, padded_shapes=[4])"},
    {"name": "spec of enumerate", "expr": "D.from_tensor_slices(['a', 'b']).enumerate(3)"},
    {"name": "spec of a generator",
     "expr": "D.from_generator(lambda: iter([[1, 2], [3]]), output_signature=TS([None], i32))"},
    {"name": "spec of concatenate", "expr": "D.range(5).batch(2).concatenate(D.range(3).batch(3))"},
    {"name": "spec of a map", "expr": "D.range(5).map(lambda x: (x, [x, x])).batch(2)"},
    # list_files / FixedLengthRecordDataset (DIR holds FILES)
    {"name": "list_files sorted",
     "expr": "D.list_files(DIR + '/*.txt', shuffle=False)", "files": True},
    {"name": "list_files ?", "expr": "D.list_files(DIR + '/?.txt', shuffle=False)", "files": True},
    {"name": "list_files class",
     "expr": "D.list_files(DIR + '/[ab].txt', shuffle=False)", "files": True},
    {"name": "list_files negated class",
     "expr": "D.list_files(DIR + '/[!a].txt', shuffle=False)", "files": True},
    {"name": "list_files caret class",
     "expr": "D.list_files(DIR + '/[^a].txt', shuffle=False)", "files": True},
    {"name": "list_files escaped",
     "expr": "D.list_files(DIR + '/\\\\[x\\\\].txt', shuffle=False)", "files": True},
    {"name": "list_files dir wildcard",
     "expr": "D.list_files(DIR + '/*/*', shuffle=False)", "files": True},
    {"name": "list_files everything",
     "expr": "D.list_files(DIR + '/*', shuffle=False)", "files": True},
    {"name": "list_files list",
     "expr": "D.list_files([DIR + '/b.txt', DIR + '/a*.txt', DIR + '/a.txt'], shuffle=False)",
     "files": True},
    {"name": "list_files shuffled",
     "expr": "D.list_files(DIR + '/*.txt', seed=3)", "files": True, "iterations": 3},
    {"name": "list_files global seed",
     "expr": "D.list_files(DIR + '/*.txt')", "global_seed": 11, "files": True, "iterations": 2},
    {"name": "list_files no match", "expr": "D.list_files(DIR + '/*.nothing')", "files": True},
    {"name": "flr",
     "expr": "FLR(DIR + '/rec.bin', 3, header_bytes=2, footer_bytes=3)", "files": True},
    {"name": "flr two files",
     "expr": "FLR([DIR + '/rec.bin', DIR + '/two.bin'], 5)", "files": True},
    {"name": "flr parallel",
     "expr": "FLR([DIR + '/rec.bin', DIR + '/two.bin'], 5, num_parallel_reads=2)", "files": True},
    {"name": "flr not a multiple",
     "expr": "FLR(DIR + '/rec.bin', 4, header_bytes=2, footer_bytes=3)", "files": True},
    {"name": "flr shuffled",
     "expr": "FLR(DIR + '/rec.bin', 3, header_bytes=2, footer_bytes=3).shuffle(5, seed=1)",
     "files": True, "iterations": 2},
]


def _plain(x: Any) -> Any:
    """One element as JSON: leaves ``{"dtype", "value"}``, strings as latin-1 text."""
    if isinstance(x, tf.data.Dataset):
        return {"dataset": [_plain(e) for e in x]}
    if isinstance(x, tf.RaggedTensor):
        return {"ragged": x.to_list(), "dtype": x.dtype.name, "ragged_rank": x.ragged_rank,
                "row_splits": x.row_splits.dtype.name}
    if isinstance(x, dict):
        return {"dict": {k: _plain(v) for k, v in sorted(x.items())}}
    if isinstance(x, (tuple, list)):
        return {"tuple": [_plain(v) for v in x]}
    value = x.numpy() if hasattr(x, "numpy") else x
    dtype = x.dtype.name if hasattr(x, "dtype") and hasattr(x.dtype, "name") else type(x).__name__
    if isinstance(value, bytes):
        return {"dtype": "string", "value": value.decode("latin-1")}
    if isinstance(value, np.ndarray) and value.dtype == object:
        return {"dtype": "string", "value": np.vectorize(lambda b: b.decode("latin-1"),
                                                         otypes=[object])(value).tolist()}
    return {"dtype": dtype, "value": np.asarray(value).tolist()}


def spec_json(spec: Any) -> Any:
    """An element_spec as JSON: ``{"TensorSpec": [dims, dtype]}``, ``{"RaggedTensorSpec":
    [dims, dtype, ragged_rank, row_splits_dtype]}``, ``{"DatasetSpec": spec}``, tuples, dicts."""
    if isinstance(spec, dict):
        return {"dict": {k: spec_json(v) for k, v in sorted(spec.items())}}
    if isinstance(spec, (tuple, list)):
        return {"tuple": [spec_json(v) for v in spec]}
    kind = type(spec).__name__
    if kind == "DatasetSpec":
        return {"DatasetSpec": spec_json(spec.element_spec)}
    dims = None if spec.shape.rank is None else spec.shape.as_list()
    if kind == "RaggedTensorSpec":
        return {kind: [dims, spec.dtype.name, spec.ragged_rank, spec.row_splits_dtype.name]}
    return {kind: [dims, spec.dtype.name]}


def _error(e: BaseException, when: str) -> dict[str, Any]:
    return {"type": type(e).__name__, "when": when, "message": str(e).split("\n")[0][-300:]}


def _run(case: dict[str, Any], folder: str) -> dict[str, Any]:
    env = {"D": tf.data.Dataset, "np": np, "TS": tf.TensorSpec, "i32": tf.int32, "i64": tf.int64,
           "f32": tf.float32,
           "f64": tf.float64, "FLR": tf.data.FixedLengthRecordDataset, "DIR": folder}
    tf.random.set_seed(case.get("global_seed"))
    out: dict[str, Any] = {}
    try:
        result = eval(case["expr"], env)  # noqa: S307 - our own fixed expressions
    except Exception as e:  # noqa: BLE001 - recording TF's error is the point
        out["error"] = _error(e, "build")
        return out
    if not isinstance(result, tf.data.Dataset):
        out["value"] = _plain(result)
        return out
    out["cardinality"] = int(result.cardinality())
    out["spec"] = spec_json(result.element_spec)
    out["epochs"] = []
    for _ in range(case.get("iterations", 1)):
        elements: list[Any] = []
        try:
            for x in result:
                elements.append(_plain(x))
                if len(elements) >= case.get("limit", 100):
                    break
        except Exception as e:  # noqa: BLE001
            out["error"] = _error(e, "iterate")
        out["epochs"].append(elements)
        if "error" in out:
            break
    return out


def main(folder: str) -> None:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in FILES.items():
            path = Path(tmp, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("latin-1"))
        for case in CASES:
            result = _run(case, tmp)
            text = json.dumps(result).replace(tmp, "<DIR>")
            results.append({**case, **json.loads(text)})
    payload = {"generator": "tools/tf_golden_new_ops.py", "tensorflow": tf.__version__,
               "files": FILES, "cases": results}
    Path(folder, "new_ops.json").write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_golden")
