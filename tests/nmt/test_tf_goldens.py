"""nmt's get_iterator against the batches TensorFlow 2.21 produced (tests/data/tf_golden/nmt.json),
on both paths: the fast one and the step-for-step tfdata port."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from minibatcher.nmt import VocabTable, get_iterator, reference
from minibatcher.tfdata import Dataset, random_seed_scope

GOLDEN = json.loads((Path(__file__).resolve().parents[1] / "data" / "tf_golden" / "nmt.json")
                    .read_text())["cases"][0]


def batches(ds: Any) -> list[list[Any]]:
    return [[b.source.tolist(), b.target_input.tolist(), b.target_output.tolist(),
             b.source_sequence_length.tolist(), b.target_sequence_length.tolist()] for b in ds]


@pytest.mark.parametrize("path", ["fast", "reference"])
@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda c: ",".join(
    f"{k}={v}" for k, v in c["params"].items()))
def test_batches_equal_tensorflow(case: dict[str, Any], path: str) -> None:
    table = VocabTable([w.encode() for w in GOLDEN["vocab"]])
    src = Dataset.from_tensor_slices(GOLDEN["src"])
    tgt = Dataset.from_tensor_slices(GOLDEN["tgt"])
    build = get_iterator if path == "fast" else reference.get_iterator
    with random_seed_scope(None):
        ds = build(src, tgt, table, table, sos="<s>", eos="</s>", **case["params"])
    if path == "fast":
        assert type(ds).__name__ == "NmtBatchDataset"
    assert [batches(ds), batches(ds)] == case["epochs"]
