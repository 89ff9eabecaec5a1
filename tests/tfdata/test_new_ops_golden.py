"""The tf.data methods of issue 13.10 against TensorFlow 2.21's own answers
(tests/data/tf_golden/new_ops.json, written by tools/tf_golden_new_ops.py): elements with their
dtypes, epochs, cardinality and errors (class, and whether raised when building or iterating)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from minibatcher import tfdata
from minibatcher.tfdata import Dataset, random_seed_scope
from minibatcher.tfdata import errors as tf_errors
from minibatcher.tfdata.element_spec import _unknown, static_spec

GOLDEN = json.loads((Path(__file__).resolve().parents[1] / "data" / "tf_golden" /
                     "new_ops.json").read_text())

ERRORS = {"ValueError": ValueError, "TypeError": TypeError,
          "InvalidArgumentError": tf_errors.InvalidArgumentError,
          "NotFoundError": tf_errors.NotFoundError, "DataLossError": tf_errors.DataLossError}

# TF traces functions when a dataset is built, so it reports a bad function result (or an
# element of a statically known bad shape) at once; we learn it from the first element.
RAISED_LATER = {
    "reduce dtype change": "the function's result dtype is known only when it runs",
    "take_while non-bool": "the predicate's result is known only when it runs",
}
# element_spec of elements made by a function, when the dataset gives no element to look at
SPEC_UNKNOWABLE = {"scan empty"}


def spec_json(spec: Any) -> Any:
    """Our element_spec in the JSON form of tools/tf_golden_new_ops.py."""
    if isinstance(spec, dict):
        return {"dict": {k: spec_json(v) for k, v in sorted(spec.items())}}
    if isinstance(spec, tuple):
        return {"tuple": [spec_json(v) for v in spec]}
    kind = type(spec).__name__
    if kind == "DatasetSpec":
        return {"DatasetSpec": spec_json(spec.element_spec)}
    dims = spec.shape.dims if spec.shape.dims is None else list(spec.shape.dims)
    if kind == "RaggedTensorSpec":
        return {kind: [dims, spec.dtype.name, spec.ragged_rank, spec.row_splits_dtype.name]}
    return {kind: [dims, spec.dtype.name]}


def unknown_dims(spec: Any) -> Any:
    """TF's spec with every dimension None (what a spec from a first element says)."""
    if isinstance(spec, dict) and len(spec) == 1:
        (kind, body), = spec.items()
        if kind in ("dict", "tuple", "DatasetSpec"):
            inner = {k: unknown_dims(v) for k, v in body.items()} if kind == "dict" else \
                [unknown_dims(v) for v in body] if kind == "tuple" else unknown_dims(body)
            return {kind: inner}
        dims = body[0] if body[0] is None else [None] * len(body[0])
        return {kind: [dims, *body[1:]]}
    return spec


def plain(x: Any) -> Any:
    if isinstance(x, Dataset):
        return {"dataset": [plain(e) for e in x]}
    if isinstance(x, tfdata.RaggedTensor):
        return {"ragged": x.to_list(), "dtype": x.dtype.name, "ragged_rank": x.ragged_rank,
                "row_splits": x.row_splits.dtype.name}
    if isinstance(x, dict):
        return {"dict": {k: plain(v) for k, v in sorted(x.items())}}
    if isinstance(x, tuple):
        return {"tuple": [plain(v) for v in x]}
    if isinstance(x, bytes):
        return {"dtype": "string", "value": x.decode("latin-1")}
    arr = np.asarray(x)
    if arr.dtype == object:
        return {"dtype": "string",
                "value": np.vectorize(lambda b: b.decode("latin-1"), otypes=[object])(arr).tolist()}
    if not isinstance(x, (np.ndarray, np.generic)):
        return {"dtype": type(x).__name__, "value": x}
    return {"dtype": arr.dtype.name, "value": arr.tolist()}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("golden_files")
    for name, text in GOLDEN["files"].items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("latin-1"))
    return str(root)


def run(case: dict[str, Any], folder: str) -> dict[str, Any]:
    env = {"D": Dataset, "np": np, "TS": tfdata.TensorSpec, "i32": np.int32, "i64": np.int64,
           "f32": np.float32,
           "f64": np.float64, "FLR": getattr(tfdata, "FixedLengthRecordDataset", None),
           "DIR": folder}
    out: dict[str, Any] = {}
    with random_seed_scope(case.get("global_seed")):
        try:
            result = eval(case["expr"], env)  # noqa: S307 - the golden file's fixed expressions
        except Exception as e:  # noqa: BLE001
            out["error"] = {"class": e, "when": "build"}
            return out
    if not isinstance(result, Dataset):
        out["value"] = plain(result)
        return out
    out["cardinality"] = result.cardinality()
    out["spec_traced"] = _unknown(static_spec(result))
    if case["name"] not in SPEC_UNKNOWABLE:
        out["spec"] = spec_json(result.element_spec)
    out["epochs"] = []
    for _ in range(case.get("iterations", 1)):
        elements: list[Any] = []
        try:
            for x in result:
                elements.append(plain(x))
                if len(elements) >= case.get("limit", 100):
                    break
        except Exception as e:  # noqa: BLE001
            out["error"] = {"class": e, "when": "iterate"}
        out["epochs"].append(elements)
        if "error" in out:
            break
    return out


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda c: c["name"])
def test_as_tensorflow(case: dict[str, Any], folder: str) -> None:
    ours = run(case, folder)
    if "error" in case:
        assert "error" in ours, f"TF raised {case['error']}, we did not: {ours}"
        assert isinstance(ours["error"]["class"], ERRORS[case["error"]["type"]]), \
            (case["error"], repr(ours["error"]["class"]))
        if case["name"] not in RAISED_LATER:
            assert ours["error"]["when"] == case["error"]["when"], (case["error"], ours["error"])
    else:
        assert "error" not in ours, f"we raised {ours['error']['class']!r}, TF did not"
    text = json.loads(json.dumps(ours, default=repr).replace(folder, "<DIR>"))
    if case["name"] in RAISED_LATER:  # TF built nothing; we raise before the first element
        assert text.get("epochs", [[]]) == [[]] and "value" not in text
        return
    assert text.get("value") == case.get("value")
    assert text.get("epochs") == case.get("epochs")
    assert text.get("cardinality") == case.get("cardinality")
    if "spec" in case and case["name"] not in SPEC_UNKNOWABLE:
        tf_spec = unknown_dims(case["spec"]) if ours["spec_traced"] else case["spec"]
        assert text["spec"] == tf_spec
