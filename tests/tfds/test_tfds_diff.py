"""The TFDS differential suite: random read specs over folders written by TFDS 4.9.10, read
by ``minibatcher.tfds``; the order, the values and the errors must be TFDS's (expected outputs
computed by real TFDS with ``tools/tfds_diff_gen.py``; data by ``tools/tfds_diff_data.py``)."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from minibatcher import tfds
from minibatcher.tfdata import Options

from . import diff_canon

DATA = Path(__file__).resolve().parent.parent / "data" / "tfds_diff"
EXPECTED = json.loads((DATA / "expected.json").read_text())
SORT_FNS = {
    "reverse": lambda fis: list(reversed(fis)),
    "take_desc": lambda fis: sorted(fis, key=lambda f: -f.take),
}
_BUILDERS: dict[str, Any] = {}
# Differences kept on purpose (docs/tfrecord-tfds.md, "Where we differ"); strict: a case that
# starts to match must leave this table.
KNOWN = {
    106: "repeat_filenames with a reshuffling file shuffle, an iteration left part-way: TF's next "
         "iteration starts from the file-shuffle seeds after the repetitions its parallel "
         "interleave had read ahead (autotuned buffers); ours after those it read",
    310: "as spec 106",
    278: "as spec 106 (the first iteration ends at the cardinality error)",
    159: "TFDS's autocache (ds.cache()) after an error in the first iteration (the cardinality "
         "assertion of repeat_filenames): TF's cache then replays the examples read and ends; "
         "we raise again",
    160: "as spec 159",
}
_TF_OP_SUFFIX = re.compile(r" \[Op:\w+\]( name: ?\S*)?$")  # eager TF's annotation of op errors


def builder(name: str) -> Any:
    if name not in _BUILDERS:
        _BUILDERS[name] = tfds.builder_from_directory(DATA / name / "1.0.0")
    return _BUILDERS[name]


def our_split(split: Any) -> Any:
    if isinstance(split, dict):
        return tfds.even_splits(split["even"], split["n"], drop_remainder=split["drop"])[
            split["index"]]
    return split


def our_read_config(rc: dict[str, Any]) -> tfds.ReadConfig:
    kw = {k: v for k, v in rc.items() if k not in ("sort", "input_context")}
    if "interleave_cycle_length" in rc and rc["interleave_cycle_length"] is None:
        kw["options"] = Options()  # AUTOTUNE: count the cores of the machine TFDS ran on
        kw["options"].autotune.cpu_budget = EXPECTED["cores"]
    if "input_context" in rc:
        kw["input_context"] = tfds.InputContext(*rc["input_context"])
    if "sort" in rc:
        kw["experimental_interleave_sort_fn"] = SORT_FNS[rc["sort"]]
    return tfds.ReadConfig(**kw)


def _error(e: BaseException) -> dict[str, str]:
    return {"type": type(e).__name__, "message": str(e).split("\n")[0][:300]}


def _epoch(ds: Any, limit: int | None) -> dict[str, Any]:
    elements, out = [], {}
    try:
        for element in itertools.islice(tfds.as_numpy(ds), limit):
            elements.append(element)
    except Exception as e:  # noqa: BLE001 - compared with what TFDS raised
        out["error"] = _error(e)
    return {"ids": [diff_canon.key(e) for e in elements], "digest": diff_canon.digest(elements),
            **out}


def run(spec: dict[str, Any]) -> dict[str, Any]:
    """What minibatcher.tfds delivers for a spec (the generator's format)."""
    try:
        ds = builder(spec["dataset"]).as_dataset(
            split=our_split(spec["split"]), shuffle_files=spec["shuffle_files"],
            read_config=our_read_config(spec["read_config"]),
            as_supervised=spec["as_supervised"], batch_size=spec["batch_size"])
        if spec["batch_size"] == -1:
            element = tfds.as_numpy(ds)
            return {"single": diff_canon.key(element), "digest": diff_canon.digest([element])}
    except Exception as e:  # noqa: BLE001 - compared with what TFDS raised
        return {"error": _error(e)}
    return {"epochs": [_epoch(ds, spec.get("limit")) for _ in range(2)]}


def _same_error(ours: dict[str, str] | None, theirs: dict[str, str] | None) -> bool:
    if ours is None or theirs is None:
        return ours is theirs
    message = _TF_OP_SUFFIX.sub("", theirs["message"])
    return ours["type"] == theirs["type"] and ours["message"] == message


def same(ours: dict[str, Any], theirs: dict[str, Any]) -> bool:
    """Equal outputs: the same ids and digests per iteration, the same errors."""
    if "error" in theirs or "error" in ours:
        return _same_error(ours.get("error"), theirs.get("error"))
    if "single" in theirs:
        return ours.get("single") == theirs["single"] and ours["digest"] == theirs["digest"]
    return len(ours.get("epochs", [])) == 2 and all(
        a["ids"] == b["ids"] and a["digest"] == b["digest"]
        and _same_error(a.get("error"), b.get("error"))
        for a, b in zip(ours["epochs"], theirs["epochs"]))


def _case(case: dict[str, Any]) -> Any:
    reason = KNOWN.get(case["spec"]["index"])
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(case, marks=marks, id=f"spec{case['spec']['index']}")


@pytest.mark.parametrize("case", [_case(c) for c in EXPECTED["cases"]])
def test_read_spec_matches_tfds(case: dict[str, Any]) -> None:
    ours = run(case["spec"])
    assert same(ours, case["expected"]), (case["spec"], ours, case["expected"])


def test_the_suite_covers_the_read_options() -> None:
    specs = [c["spec"] for c in EXPECTED["cases"]]
    rcs = [s["read_config"] for s in specs]
    assert EXPECTED["tfds"] == "4.9.10" and len(specs) >= 300
    assert sum(s["shuffle_files"] for s in specs) > 50
    assert sum("input_context" in r for r in rcs) > 20
    assert sum(isinstance(s["split"], dict) for s in specs) > 30
    assert sum(s["as_supervised"] for s in specs) > 30
    assert sum(s["batch_size"] not in (None, -1) for s in specs) > 30
    assert sum("error" in c["expected"] for c in EXPECTED["cases"]) > 20
    assert sum(r.get("interleave_cycle_length", 0) is None for r in rcs) > 10  # AUTOTUNE
    assert sum(bool(r.get("repeat_filenames")) for r in rcs) > 10
