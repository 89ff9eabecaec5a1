"""Writes what TensorFlow's ``tf.io`` parsing returns (or raises) for many Examples and specs.

Cases are described in a small JSON language (records as features per key, specs as feature
descriptions, see ``tools/tf_io_cases.py``); this script builds each case with TensorFlow's
own protobuf classes and ``tf.io`` functions and stores the serialized records (hex), the
outputs (dense arrays, sparse and ragged parts, dtypes, shapes) or the exception (type and
message). ``tests/tfdata/io/test_tf_goldens.py`` builds the same cases with
``minibatcher.tfdata.io`` and compares, without TensorFlow. Regenerate with::

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfvenv/bin/python tools/tf_io_golden.py tests/data/tf_golden/tf_io
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_io_cases  # noqa: E402
import tf_io_decode  # noqa: E402


def feature(desc: list[Any]) -> Any:
    """A tf.train.Feature from ["i"|"f"|"b"|"n", values] (n: no list at all)."""
    kind, values = desc
    if kind == "i":
        return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    if kind == "f":
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    if kind == "b":
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=[v.encode("latin-1")
                                                                      for v in values]))
    return tf.train.Feature()


def example(desc: Any) -> bytes:
    """Serialized bytes of a record description: a dict of features, or {"hex": ...}."""
    if "hex" in desc:
        return bytes.fromhex(desc["hex"])
    feats = {k: feature(v) for k, v in desc.items()}
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString(
        deterministic=True)


def sequence_example(desc: Any) -> bytes:
    """Serialized SequenceExample from {"context": {...}, "lists": {key: [feature, ...]}}."""
    if "hex" in desc:
        return bytes.fromhex(desc["hex"])
    s = tf.train.SequenceExample()
    for k, v in desc.get("context", {}).items():
        s.context.feature[k].CopyFrom(feature(v))
    for k, steps in desc.get("lists", {}).items():
        fl = s.feature_lists.feature_list[k]
        for step in steps:
            fl.feature.add().CopyFrom(feature(step))
    return s.SerializeToString(deterministic=True)


_PARTITIONS = {"row_splits": "RowSplits", "row_lengths": "RowLengths",
               "row_starts": "RowStarts", "row_limits": "RowLimits",
               "value_rowids": "ValueRowIds", "uniform": "UniformRowLength"}


def spec_of(desc: dict[str, Any]) -> Any:
    """A tf.io feature from its description (see tf_io_cases.py)."""
    t, dtype = desc["t"], tf.as_dtype(desc["dtype"])
    default = desc.get("default")
    if t == "fixed":
        return tf.io.FixedLenFeature(desc["shape"], dtype, default_value=default)
    if t == "var":
        return tf.io.VarLenFeature(dtype)
    if t == "sparse_feature":
        return tf.io.SparseFeature(desc["index_key"], desc["value_key"], dtype, desc["size"],
                                   desc["already_sorted"])
    if t == "seq":
        return tf.io.FixedLenSequenceFeature(desc["shape"], dtype,
                                             allow_missing=desc.get("allow_missing", False),
                                             default_value=default)
    parts = [getattr(tf.io.RaggedFeature, _PARTITIONS[p[0]])(p[1])
             for p in desc.get("partitions", [])]
    return tf.io.RaggedFeature(dtype, value_key=desc.get("value_key"), partitions=parts,
                               row_splits_dtype=tf.as_dtype(desc.get("splits", "int32")),
                               validate=desc.get("validate", False))


def specs(desc: dict[str, Any] | None) -> Any:
    return None if desc is None else {k: spec_of(v) for k, v in desc.items()}


def plain(x: Any) -> Any:
    """A JSON form of an output value (strings as latin-1 text)."""
    if isinstance(x, tf.RaggedTensor):
        return {"ragged": True, "flat_values": plain(x.flat_values),
                "nested_row_splits": [plain(s) for s in x.nested_row_splits],
                "splits_dtype": x.row_splits.dtype.name,
                "shape": [d for d in x.shape.as_list()]}
    if isinstance(x, tf.SparseTensor):
        return {"sparse": True, "indices": plain(x.indices), "values": plain(x.values),
                "dense_shape": plain(x.dense_shape)}
    arr = x.numpy() if hasattr(x, "numpy") else np.asarray(x)
    if isinstance(arr, bytes):  # a scalar string tensor
        return {"dtype": "string", "shape": [], "values": arr.decode("latin-1")}
    if arr.dtype == object:
        values = [v.decode("latin-1") for v in arr.reshape(-1)]
        return {"dtype": "string", "shape": list(arr.shape),
                "values": np.array(values, dtype=object).reshape(arr.shape).tolist()}
    return {"dtype": tf.as_dtype(arr.dtype).name, "shape": list(arr.shape), "values": arr.tolist()}


def error(e: BaseException) -> dict[str, str]:
    """The exception's type and TF's message without the op prefix and suffix."""
    message = str(e)
    message = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", message)
    message = re.sub(r"\s*\[Op:\w+\]( name: )?$", "", message)
    return {"type": type(e).__name__, "message": message}


def run_example_case(case: dict[str, Any]) -> dict[str, Any]:
    records = [example(r) for r in case["records"]]
    out = dict(case, records_hex=[r.hex() for r in records])
    try:
        features = specs(case["spec"])
        if case["mode"] == "single":
            result = tf.io.parse_single_example(records[0], features)
        else:
            result = tf.io.parse_example(tf.constant(records, tf.string), features,
                                         example_names=case.get("example_names"))
        out["expected"] = {k: plain(v) for k, v in result.items()}
    except Exception as e:  # noqa: BLE001 - every TF error is an expected outcome
        out["error"] = error(e)
    return out


def run_sequence_case(case: dict[str, Any]) -> dict[str, Any]:
    records = [sequence_example(r) for r in case["records"]]
    out = dict(case, records_hex=[r.hex() for r in records])
    try:
        ctx, seq = specs(case.get("context_spec")), specs(case.get("sequence_spec"))
        if case["mode"] == "single":
            result = tf.io.parse_single_sequence_example(records[0], ctx, seq)
        else:
            result = tf.io.parse_sequence_example(tf.constant(records, tf.string), ctx, seq,
                                                  example_names=case.get("example_names"))
        out["expected"] = [{k: plain(v) for k, v in part.items()} for part in result]
    except Exception as e:  # noqa: BLE001
        out["error"] = error(e)
    return out


def main(folder: str) -> None:
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    groups = {
        "parse_example.json": [run_example_case(c) for c in tf_io_cases.example_cases()],
        "parse_example_random.json": [run_example_case(c)
                                      for c in tf_io_cases.random_example_cases(seed=7)],
        "parse_sequence_example.json": [run_sequence_case(c)
                                        for c in tf_io_cases.sequence_cases()],
        "decode.json": tf_io_decode.decode_cases(),
    }
    for name, cases in groups.items():
        body = {"tensorflow": tf.__version__, "cases": cases}
        (target / name).write_text(json.dumps(body, indent=None, sort_keys=True) + "\n")
        print(f"{name}: {len(cases)} cases")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tf_golden/tf_io")
