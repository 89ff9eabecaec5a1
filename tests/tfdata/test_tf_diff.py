"""The differential suite: random tf.data pipelines, ours against TensorFlow 2.21's answers.

``tests/data/tf_golden/tf_diff.json`` holds, for each pipeline description (the language:
tf_diff_lang.py; the generator: tf_diff_gen.py; the fixed issue reproducers:
tf_diff_cases.py), what TensorFlow gave: its cardinality and two epochs (the same dataset
iterated twice), element for element with dtypes, or where it raised. ``tools/tf_diff.py``
wrote it. Here each description is built with ``minibatcher.tfdata`` and must give the same;
a sample also goes through the every-step resume check.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest

from minibatcher import tfdata
from minibatcher.tfdata import random_seed_scope

from .resume import assert_resumes_exactly
from .tf_diff_lang import LIMIT, Backend, build, final_of, run

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "tf_golden" / "tf_diff.json"
FILES = GOLDEN.parent / "tf_diff_files"  # the data files (written by tools/tf_diff.py with TF)
DATA = json.loads(GOLDEN.read_text())
CASES: list[dict[str, Any]] = DATA["cases"]
SAVE_FOLDERS: list[str] = []  # where save_load saves (one folder for this module's tests)


def _tmp() -> str:
    return tempfile.mkdtemp(dir=SAVE_FOLDERS[-1])


@pytest.fixture(scope="module", autouse=True)
def _save_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    SAVE_FOLDERS.append(str(tmp_path_factory.mktemp("tf_diff_saved")))
    yield
    SAVE_FOLDERS.pop()


BACKEND = Backend(Dataset=tfdata.Dataset, td=tfdata, data=str(FILES), tmp=_tmp)
# TF's interleave(cycle_length=None) counts the cores of the machine that wrote the file
CORES = tfdata.Options()
CORES.autotune.cpu_budget = DATA["cores"]

# TF's exception at construction -> what ours may raise there.
BUILD_ERRORS: dict[str, tuple[type[BaseException], ...]] = {
    "ValueError": (ValueError,), "TypeError": (TypeError,),
    "InvalidArgumentError": (ValueError,), "OutOfRangeError": (ValueError,),
}


def _case_id(case: dict[str, Any]) -> str:
    desc = case["desc"]
    if "name" in desc:
        return desc["name"]
    ops = ".".join(op[0] for op in desc["ops"])
    return f"{desc['src'][0]}.{ops}"


def _errors_blurred(answer: dict[str, Any]) -> dict[str, Any]:
    """Errors compared by position only (TF's classes are not ours)."""
    def blur(v: Any) -> Any:
        if isinstance(v, dict) and ("error" in v or "iter_error" in v):
            return {"error": "iter" if "iter_error" in v else "next"}
        return v
    if "finals" in answer:
        return {**answer, "finals": [blur(v) for v in answer["finals"]]}
    return {**answer, "epochs": [[blur(v) for v in epoch] for epoch in answer["epochs"]]}


def make(desc: dict[str, Any]) -> Any:
    """Our dataset for one description (with TF's machine's core count)."""
    with random_seed_scope(desc["seed"]):
        return build(desc, BACKEND).with_options(CORES)


def ours(desc: dict[str, Any]) -> dict[str, Any]:
    """Our answer for one description, in the golden's form."""
    dataset = make(desc)
    answer = run(dataset, 2, lambda e: e, desc.get("limit", LIMIT), final_of(desc, BACKEND))
    return {"desc": desc, **answer}


# Cases where we differ from TF: not yet fixed (the issue item), or on purpose (docs/tfdata.md,
# "Where we differ from tf.data"). Strict: a case that starts to match fails until removed.
DIFFERENT: dict[str, str] = {
    "map error under a shuffle": "deliberate: an error under a shuffle over random access",
    "599-from_generator.bucket_by_sequence_length": "deliberate: a window whose batch fails "
    "in the flush at the end of the input raises once here; TF raises it forever",
}


def _marks(i: int, case: dict[str, Any]) -> Any:
    reason = DIFFERENT.get(case["desc"].get("name", f"{i}-{_case_id(case)}"))
    return pytest.mark.xfail(strict=True, reason=reason) if reason else ()


@pytest.mark.parametrize("case", [pytest.param(c, marks=_marks(i, c)) for i, c in enumerate(CASES)],
                         ids=[f"{i}-{_case_id(c)}" for i, c in enumerate(CASES)])
def test_same_answer_as_tensorflow(case: dict[str, Any]) -> None:
    desc = case["desc"]
    if "build_error" in case:
        with pytest.raises(BUILD_ERRORS[case["build_error"]]):
            make(desc)
        return
    assert _errors_blurred(ours(desc)) == _errors_blurred(case)


RESUMABLE = [c for c in CASES if "epochs" in c and len(c["epochs"][0]) > 2 and
             not any(isinstance(v, dict) and "sig" not in v for e in c["epochs"] for v in e)]


@pytest.mark.parametrize("case", RESUMABLE[::6],
                         ids=[f"{i}-{_case_id(c)}" for i, c in enumerate(RESUMABLE[::6])])
def test_resumes_exactly(case: dict[str, Any]) -> None:
    desc = case["desc"]

    assert_resumes_exactly(lambda: make(desc), max_steps=24, next_epoch=True, stride=3)
