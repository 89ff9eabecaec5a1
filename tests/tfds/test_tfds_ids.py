"""``tfds_id`` prefixes over nested folders: the ids TFDS 4.9.10 computed for
``builder_from_directories`` over two copies of a dataset (``/…/a/x/c/uneven/1.0.0`` and
``/…/b/x/c/uneven/1.0.0``; ``tools/tfds_diff_gen.py``) must be ours (issue 18: the folders once
got the same prefix)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from minibatcher import tfds

from . import diff_canon

DATA = Path(__file__).resolve().parent.parent / "data" / "tfds_diff"
EXPECTED = json.loads((DATA / "expected.json").read_text())


@pytest.mark.parametrize("case", EXPECTED["nested"], ids=lambda c: c["split"])
def test_tfds_ids_over_nested_folders_match_tfds(case: dict[str, Any], tmp_path: Path) -> None:
    dirs = []
    for sub in EXPECTED["nested_dirs"]:
        d = tmp_path / sub / "uneven" / "1.0.0"
        shutil.copytree(DATA / "uneven" / "1.0.0", d)
        dirs.append(d)
    rc = tfds.ReadConfig(add_tfds_id=True, interleave_cycle_length=case["cycle"])
    ds = tfds.builder_from_directories(dirs).as_dataset(split=case["split"], read_config=rc)
    assert [diff_canon.tfds_ids(e) for e in tfds.as_numpy(ds)] == case["tfds_ids"]


def test_the_nested_cases_read_both_folders() -> None:
    ids = [i for case in EXPECTED["nested"] for i in case["tfds_ids"]]
    assert {i.split("/")[0] for i in ids} == {"a", "b"} and len(ids) > 50
