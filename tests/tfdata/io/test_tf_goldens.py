"""tfdata.io against TensorFlow 2.21's own outputs (tests/data/tf_golden/tf_io, written by
tools/tf_io_golden.py): values, dtypes, shapes, and errors (type and TF's message)."""

from __future__ import annotations

from typing import Any

import pytest

from minibatcher.tfdata import io

from .golden import cases, check_error, plain, specs

EXAMPLE_CASES = cases("parse_example.json") + cases("parse_example_random.json")


def _parse(case: dict[str, Any]) -> dict[str, Any]:
    records = [bytes.fromhex(h) for h in case["records_hex"]]
    features = specs(case["spec"])
    if case["mode"] == "single":
        return io.parse_single_example(records[0], features)
    return io.parse_example(records, features, example_names=case.get("example_names"))


def _run(fn: Any, case: dict[str, Any]) -> tuple[Any, BaseException | None]:
    try:
        return fn(case), None
    except (ValueError, TypeError) as e:  # InvalidArgumentError is a ValueError
        return None, e


@pytest.mark.parametrize("case", EXAMPLE_CASES, ids=[c["name"] for c in EXAMPLE_CASES])
def test_parse_example_like_tensorflow(case: dict[str, Any]) -> None:
    out, raised = _run(_parse, case)
    if case.get("ours") == "malformed":  # TF's fast parser reads past broken wire data
        assert isinstance(raised, io.BlockParseError.__mro__[1])
        assert str(raised).startswith("Could not parse example input"), str(raised)
        return
    if case.get("ours") == "invalid":  # TF returns a malformed RaggedTensor unless validate
        assert raised is not None and "do not form a valid RaggedTensor" in str(raised)
        return
    if "error" in case:
        check_error(case, raised)
        return
    assert raised is None, f"{case['name']}: {raised!r}"
    assert {k: plain(v) for k, v in out.items()} == case["expected"]


SEQUENCE_CASES = cases("parse_sequence_example.json")


def _parse_sequence(case: dict[str, Any]) -> Any:
    records = [bytes.fromhex(h) for h in case["records_hex"]]
    ctx, seq = specs(case.get("context_spec")), specs(case.get("sequence_spec"))
    if case["mode"] == "single":
        return io.parse_single_sequence_example(records[0], ctx, seq)
    return io.parse_sequence_example(records, ctx, seq, example_names=case.get("example_names"))


@pytest.mark.parametrize("case", SEQUENCE_CASES, ids=[c["name"] for c in SEQUENCE_CASES])
def test_parse_sequence_example_like_tensorflow(case: dict[str, Any]) -> None:
    out, raised = _run(_parse_sequence, case)
    if "error" in case:
        check_error(case, raised)
        return
    assert raised is None, f"{case['name']}: {raised!r}"
    assert [{k: plain(v) for k, v in part.items()} for part in out] == case["expected"]
