"""The pipeline description language of the differential suite against TensorFlow.

A pipeline is JSON: a source, a list of ops and the global seed::

    {"seed": 5 | null,
     "src": ["range", [12]],                       # Dataset.range(12) (a static method)
     "ops": [["shuffle", [6], {"seed": 3}],        # .shuffle(6, seed=3)
             ["map", [{"fn": "x*2"}], {}],         # .map(<the function named "x*2">)
             ["interleave", [{"fn": "D.range(x%4)"}], {"cycle_length": 2}]]}

Arguments are JSON values, with tagged forms: ``{"fn": name}`` a function of the fixed
table :data:`FUNCTIONS`, ``{"ds": pipeline}`` a nested dataset (no seed of its own),
``{"const": v, "dtype": "int64"}`` a typed constant (``tf.constant`` / a NumPy scalar),
``{"tuple": [...]}`` a tuple, ``{"file": name}`` the path of a data file (or a glob pattern) in
the backend's data folder, ``{"dtype": "int32"}`` a dtype and ``{"spec": [shape, dtype]}`` a
``TensorSpec``. A source may carry keyword arguments (``["TFRecordDataset", [files],
{"num_parallel_reads": 2}]``; the readers are ``tf.data``'s module attributes). The op
``save_load`` saves the dataset to a new folder and loads it back, ``with_optimization``
sets ``Options().experimental_optimization`` fields (:data:`SPECIAL_OPS`), and a
description's optional ``final`` (``reduce`` or ``get_single_element``) consumes the dataset
instead of iterating it; ``limit`` bounds the elements recorded per epoch (default
:data:`LIMIT`). Ops are method calls with TF's names, so the same description
builds a ``tf.data.Dataset`` (``tools/tf_diff.py``) and a ``minibatcher.tfdata.Dataset``
(``tests/tfdata/test_tf_diff.py``). This module never imports TensorFlow: a :class:`Backend`
carries the module that builds.

Each function is written once for both backends where Python operators suffice (``x * 2``
works on a tensor and on a NumPy value); otherwise it has a TF and a NumPy body.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .tf_diff_base import Backend, Fn, dtype_of, module_of
from .tf_diff_base import on_dataset as _ds
from .tf_diff_base import same as _same
from .tf_diff_base import split as _split
from .tf_diff_io_lang import IO_FUNCTIONS

__all__ = ["Backend", "Fn", "FUNCTIONS", "build", "run", "encode"]


def _failing(tf: Any) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        check = tf.debugging.assert_none_equal(x, tf.constant(3, x.dtype))
        with tf.control_dependencies([check]):
            return tf.identity(x)
    return f


def _fail_np(x: Any) -> Any:
    if x == 3:
        raise ValueError("x == 3")
    return x


FUNCTIONS: dict[str, Fn] = {
    # int64 scalars
    "x*2": Fn("num", "=", _same(lambda x: x * 2)),
    "x+1": Fn("num", "=", _same(lambda x: x + 1)),
    "x%5": Fn("num", "=", _same(lambda x: x % 5)),
    "x//2": Fn("num", "=", _same(lambda x: x // 2)),
    "fail(x==3)": Fn("int", "int", _split(_failing, _fail_np)),
    "x%3==0": Fn("num", "bool", _same(lambda x: x % 3 == 0)),
    "x%2==1": Fn("num", "bool", _same(lambda x: x % 2 == 1)),
    "x<6": Fn("num", "bool", _same(lambda x: x < 6)),
    "x%3": Fn("int", "key", _same(lambda x: x % 3)),
    "x%2": Fn("int", "key", _same(lambda x: x % 2)),
    "str(x)": Fn("int", "str", _split(lambda tf: tf.strings.as_string,
                                      lambda x: str(int(x)).encode())),
    "range(x%4)": Fn("int", "vec", _split(lambda tf: lambda x: tf.range(x % 4),
                                          lambda x: np.arange(x % 4, dtype=np.int64))),
    "fill(x%3,x)": Fn("int", "vec", _split(lambda tf: lambda x: tf.fill([x % 3], x),
                                           lambda x: np.full(x % 3, x, np.int64))),
    "(x,x%3)": Fn("int", "pair", _same(lambda x: (x, x % 3))),
    # datasets made by functions (interleave, flat_map)
    "D.range(x%4)": Fn("int", "ds:int", _ds(lambda D: lambda x: D.range(x % 4))),
    "D.range(10x,10x+3)": Fn("int", "ds:int", _ds(lambda D: lambda x: D.range(10 * x, 10 * x + 3))),
    "D.from_tensors(x).repeat(x%3)": Fn("int", "ds:int", _ds(
        lambda D: lambda x: D.from_tensors(x).repeat(x % 3))),
    "D.range(10x,10x+5).shuffle(5)": Fn("int", "ds:int", _ds(
        lambda D: lambda x: D.range(10 * x, 10 * x + 5).shuffle(5))),
    "D.range(10x,10x+5).shuffle(3,seed=1)": Fn("int", "ds:int", _ds(
        lambda D: lambda x: D.range(10 * x, 10 * x + 5).shuffle(3, seed=1))),
    "D.range(10x,10x+4).shuffle(4,seed=2).map(y+1).repeat(2)": Fn("int", "ds:int", _ds(
        lambda D: lambda x: D.range(10 * x, 10 * x + 4).shuffle(4, seed=2).map(
            lambda y: y + 1).repeat(2))),
    # strings
    "len(s)": Fn("str", "int", _split(
        lambda tf: lambda s: tf.cast(tf.strings.length(s), tf.int64), lambda s: np.int64(len(s)))),
    "s+'!'": Fn("str", "str", _split(lambda tf: lambda s: tf.strings.join([s, "!"]),
                                     lambda s: s + b"!")),
    "len(s)>1": Fn("str", "bool", _split(lambda tf: lambda s: tf.strings.length(s) > 1,
                                         lambda s: len(s) > 1)),
    "split(s)": Fn("str", "svec", _split(lambda tf: tf.strings.split,
                                         lambda s: np.array(s.split(), dtype=object))),
    # vectors
    "size(v)": Fn("vec", "int", _split(lambda tf: lambda v: tf.size(v, out_type=tf.int64),
                                       lambda v: np.int64(len(v)))),
    "sum(v)": Fn("vec", "int", _split(lambda tf: tf.reduce_sum, lambda v: v.sum())),
    "v*2": Fn("vec", "vec", _same(lambda v: v * 2)),
    "len32(v)": Fn("vec", "len", _split(lambda tf: tf.size, lambda v: np.int32(len(v)))),
    "size(v)>1": Fn("vec", "bool", _split(lambda tf: lambda v: tf.size(v) > 1,
                                          lambda v: len(v) > 1)),
    "size(w)": Fn("svec", "int", _split(lambda tf: lambda v: tf.size(v, out_type=tf.int64),
                                        lambda v: np.int64(len(v)))),
    # pairs
    "a+b": Fn("pair", "int", _same(lambda a, b: a + b)),
    "b==0": Fn("pair", "bool", _same(lambda a, b: b == 0)),
    "(b,a)": Fn("pair", "pair", _same(lambda a, b: (b, a))),
    "key(b)": Fn("pair", "key", _same(lambda a, b: b)),
    # enumerated elements
    "i": Fn("e:", "int", _same(lambda i, x: i)),
    "i%2==0": Fn("e:", "bool", _same(lambda i, x: i % 2 == 0)),
    # group_by_window's reduce and window size functions
    "w.batch(2)": Fn("window", "b:", _same(lambda k, w: w.batch(2))),
    "w.take(1)": Fn("window", "=", _same(lambda k, w: w.take(1))),
    "w.shuffle(3).batch(3)": Fn("window", "b:", _same(lambda k, w: w.shuffle(3).batch(3))),
    "k%2+2": Fn("key", "size", _same(lambda k: k % 2 + 2)),
    # scan functions and flat_map functions over windows (tf_diff_new_ops.py; kinds no base
    # op asks for, so the base draws stay as they were)
    "(s+x,s)": Fn("scan", "=", _same(lambda s, x: (s + x, s))),
    "(s*2+x,x)": Fn("scan", "=", _same(lambda s, x: (s * 2 + x, x))),
    "win.batch(3)": Fn("win", "b:", _same(lambda w: w.batch(3))),
    "win.take(2)": Fn("win", "=", _same(lambda w: w.take(2))),
    **IO_FUNCTIONS,  # files, parsing, generators, reduce and load functions (own kinds)
}


def resolve(value: Any, backend: Backend) -> Any:
    """An argument of the description as the backend's value (see the module docstring)."""
    if isinstance(value, list):
        return [resolve(v, backend) for v in value]
    if not isinstance(value, dict):
        return value
    if "fn" in value:
        return FUNCTIONS[value["fn"]].make(backend)
    if "ds" in value:
        return build(value["ds"], backend)
    if "tuple" in value:
        return tuple(resolve(v, backend) for v in value["tuple"])
    if "const" in value:
        return _constant(value["const"], value["dtype"], backend)
    if "file" in value:
        return backend.path(value["file"])
    if "spec" in value:
        shape, dtype = value["spec"]
        spec_class = (backend.tf or backend.td).TensorSpec
        return spec_class(shape, dtype_of(backend, dtype))
    if "dtype" in value:
        return dtype_of(backend, value["dtype"])
    raise ValueError(f"unknown argument form {value!r}")


def _constant(value: Any, dtype: str, backend: Backend) -> Any:
    if backend.tf is not None:
        return backend.tf.constant(value, getattr(backend.tf, dtype))
    if dtype == "string":
        return np.array(value, dtype=object) if isinstance(value, list) else value.encode()
    return np.array(value, dtype=dtype)[()]


def _save_load(ds: Any, backend: Backend, compression: str | None = None,
               shard_func: Any = None, reader_func: Any = None) -> Any:
    """``ds.save(path, ...)`` into a new folder, then ``Dataset.load(path, ...)``."""
    if backend.tmp is None:
        raise ValueError("save_load needs a backend with tmp()")
    path = backend.tmp() + "/saved"
    ds.save(path, compression=compression, shard_func=shard_func)
    return backend.Dataset.load(path, compression=compression, reader_func=reader_func)


def _with_optimization(ds: Any, backend: Backend, **fields: bool) -> Any:
    """``ds.with_options(o)`` with ``o.experimental_optimization``'s ``fields`` set."""
    options = module_of(backend).Options()
    for name, value in fields.items():
        setattr(options.experimental_optimization, name, value)
    return ds.with_options(options)


SPECIAL_OPS: dict[str, Callable[..., Any]] = {"save_load": _save_load,
                                              "with_optimization": _with_optimization}
SOURCES = {"slices": "from_tensor_slices", "tensors": "from_tensors"}
READERS = ("TFRecordDataset", "FixedLengthRecordDataset", "TextLineDataset")


def build(desc: dict[str, Any], backend: Backend) -> Any:
    """The dataset ``desc`` describes (its ``seed`` is applied by the caller)."""
    name, args, *rest = desc["src"]
    kwargs = {k: resolve(v, backend) for k, v in (rest[0] if rest else {}).items()}
    owner = module_of(backend) if name in READERS else backend.Dataset
    ds = getattr(owner, SOURCES.get(name, name))(*resolve(args, backend), **kwargs)
    for op, op_args, op_kwargs in desc["ops"]:
        op_args = resolve(op_args, backend)
        op_kwargs = {k: resolve(v, backend) for k, v in op_kwargs.items()}
        if op in SPECIAL_OPS:
            ds = SPECIAL_OPS[op](ds, backend, *op_args, **op_kwargs)
        else:
            ds = getattr(ds, op)(*op_args, **op_kwargs)
    return ds


def final_of(desc: dict[str, Any], backend: Backend) -> Callable[[Any], Any] | None:
    """The description's consumer (``ds.reduce(...)``, ``ds.get_single_element()``), if any."""
    if not desc.get("final"):
        return None
    op, op_args, op_kwargs = desc["final"]
    op_args = resolve(op_args, backend)
    op_kwargs = {k: resolve(v, backend) for k, v in op_kwargs.items()}
    return lambda ds: getattr(ds, op)(*op_args, **op_kwargs)


def _latin1(value: Any) -> Any:
    if isinstance(value, list):
        return [_latin1(v) for v in value]
    return value.decode("latin-1") if isinstance(value, bytes) else value


def encode_leaf(leaf: Any) -> tuple[str, Any]:
    """``(dtype code, JSON value)`` of one leaf (strings as latin-1 text; a RaggedTensor as
    ``r<values dtype>/<row_splits dtypes>`` and its nested lists; a SparseTensor as
    ``sp<values dtype>`` and ``[indices, values, dense_shape]``), NumPy or TF."""
    if isinstance(leaf, bytes):
        return "s", leaf.decode("latin-1")
    if hasattr(leaf, "nested_row_splits"):
        flat = np.asarray(leaf.flat_values)
        splits = ",".join(np.asarray(s).dtype.str for s in leaf.nested_row_splits)
        code = "s" if flat.dtype.kind in "OS" else flat.dtype.str
        return f"r{code}/{splits}", _latin1(leaf.to_list())
    if hasattr(leaf, "dense_shape"):
        code, values = encode_leaf(np.asarray(leaf.values))
        return "sp" + code, [np.asarray(leaf.indices).tolist(), values,
                             np.asarray(leaf.dense_shape).tolist()]
    arr = np.asarray(leaf)
    if arr.dtype.kind in "OS":
        flat = [v.decode("latin-1") if isinstance(v, bytes) else repr(v) for v in arr.ravel()]
        return "s", np.array(flat, dtype=object).reshape(arr.shape).tolist()
    return arr.dtype.str, arr.tolist()


def encode(element: Any) -> tuple[Any, Any]:
    """``(signature, value)`` of an element: tuples as lists, dicts with sorted keys."""
    if isinstance(element, tuple):
        parts = [encode(e) for e in element]
        return [p[0] for p in parts], [p[1] for p in parts]
    if isinstance(element, dict):
        parts = {k: encode(element[k]) for k in sorted(element)}
        return {k: p[0] for k, p in parts.items()}, {k: p[1] for k, p in parts.items()}
    return encode_leaf(element)


LIMIT = 30          # elements recorded per epoch
MAX_READ = 3000     # elements read per epoch at most (the generator's pipelines end sooner)
MAX_ERRORS = 10     # errors per epoch before the epoch is abandoned


def _epoch(dataset: Any, convert: Callable[[Any], Any], sigs: list[Any],
           limit: int) -> list[Any]:
    try:
        it = iter(dataset)
    except Exception as e:  # noqa: BLE001 - recorded and compared
        return [{"iter_error": type(e).__name__}]
    values: list[Any] = []
    read = errors = 0
    while read < MAX_READ and errors < MAX_ERRORS:
        try:
            element = next(it)
        except StopIteration:
            break
        except Exception as e:  # noqa: BLE001 - recorded and compared
            errors += 1
            element = None
            value: Any = {"error": type(e).__name__}
        else:
            sig, value = encode(convert(element))
            if sig not in sigs:
                sigs.append(sig)
            if len(sigs) > 1:
                value = {"sig": sigs.index(sig), "v": value}
        read += 1
        if len(values) < limit:
            values.append(value)
    if read > limit:
        values.append({"total": read})
    return values


def _consume(final: Callable[[Any], Any], dataset: Any, convert: Callable[[Any], Any]) -> Any:
    try:
        return list(encode(convert(final(dataset))))
    except Exception as e:  # noqa: BLE001 - recorded and compared
        return {"error": type(e).__name__}


def run(dataset: Any, epochs: int, convert: Callable[[Any], Any], limit: int = LIMIT,
        final: Callable[[Any], Any] | None = None) -> dict[str, Any]:
    """Its cardinality, then ``epochs`` iterations of ``dataset`` (the same object: TF's next
    epochs), each read to its end (recording the first ``limit`` elements and the count):
    stopping early would make TF's next epoch depend on how far its background threads read
    ahead. An error is recorded as ``{"error": class name}`` and reading goes on (TF's
    iterators continue after an error in a function). With ``final``, ``epochs`` calls of
    ``final(dataset)`` (``[signature, value]`` or the error) instead of iterations."""
    if final is not None:
        finals = [_consume(final, dataset, convert) for _ in range(epochs)]
        return {"card": int(dataset.cardinality()), "finals": finals}
    sigs: list[Any] = []
    out = [_epoch(dataset, convert, sigs, limit) for _ in range(epochs)]
    return {"card": int(dataset.cardinality()), "epochs": out, "sigs": sigs}
