"""The JSON language of tools/tf_io_cases.py on our side: specs as tfdata.io features, values
in the golden's plain form (tools/tf_io_golden.py writes TF's the same way)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from minibatcher import tfdata
from minibatcher.tfdata import RaggedTensor, SparseTensor, io

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "tf_golden" / "tf_io"
_PARTITIONS = {"row_splits": io.RaggedFeature.RowSplits, "row_lengths": io.RaggedFeature.RowLengths,
               "row_starts": io.RaggedFeature.RowStarts, "row_limits": io.RaggedFeature.RowLimits,
               "value_rowids": io.RaggedFeature.ValueRowIds,
               "uniform": io.RaggedFeature.UniformRowLength}


def cases(name: str) -> list[dict[str, Any]]:
    """The cases of one golden file."""
    return json.loads((GOLDEN / name).read_text())["cases"]


def spec_of(d: dict[str, Any]) -> Any:
    """Our feature for a description."""
    t, dtype, default = d["t"], d["dtype"], d.get("default")
    if t == "fixed":
        return io.FixedLenFeature(d["shape"], dtype, default_value=default)
    if t == "var":
        return io.VarLenFeature(dtype)
    if t == "sparse_feature":
        return io.SparseFeature(d["index_key"], d["value_key"], dtype, d["size"],
                                d["already_sorted"])
    if t == "seq":
        return io.FixedLenSequenceFeature(d["shape"], dtype, d.get("allow_missing", False), default)
    parts = [_PARTITIONS[p[0]](p[1]) for p in d.get("partitions", [])]
    return io.RaggedFeature(dtype, d.get("value_key"), parts, d.get("splits", "int32"),
                            d.get("validate", False))


def specs(d: dict[str, Any] | None) -> Any:
    """Our spec dict (None stays None)."""
    return None if d is None else {k: spec_of(v) for k, v in d.items()}


def _dtype_name(arr: np.ndarray) -> str:
    return "string" if arr.dtype == object else tfdata.as_dtype(arr.dtype).name


def plain(x: Any) -> Any:
    """Our value in the golden's JSON form."""
    if isinstance(x, RaggedTensor):
        return {"ragged": True, "flat_values": plain(x.flat_values),
                "nested_row_splits": [plain(s) for s in x.nested_row_splits],
                "splits_dtype": _dtype_name(x.row_splits), "shape": list(x.shape)}
    if isinstance(x, SparseTensor):
        return {"sparse": True, "indices": plain(x.indices), "values": plain(x.values),
                "dense_shape": plain(x.dense_shape)}
    if isinstance(x, bytes):
        return {"dtype": "string", "shape": [], "values": x.decode("latin-1")}
    arr = np.asarray(x)
    if arr.dtype == object:
        values = np.array([v.decode("latin-1") for v in arr.reshape(-1)], dtype=object)
        return {"dtype": "string", "shape": list(arr.shape), "values": values.reshape(arr.shape).tolist()}
    return {"dtype": _dtype_name(arr), "shape": list(arr.shape), "values": arr.tolist()}


ERRORS = {"InvalidArgumentError": tfdata.errors.InvalidArgumentError, "ValueError": ValueError,
          "TypeError": TypeError}


def check_error(case: dict[str, Any], raised: BaseException | None) -> None:
    """Our exception matches TF's: its type always, its message as the case says."""
    want = case["error"]
    assert raised is not None, f"{case['name']}: TF raised {want}, we did not"
    assert isinstance(raised, ERRORS[want["type"]]), f"{case['name']}: {raised!r} vs {want}"
    match = case.get("match", "message")
    if match == "message":
        assert str(raised) == want["message"], case["name"]
    elif match == "prefix":
        assert str(raised).startswith(want["message"].split(",")[0]), (case["name"], str(raised))
