"""TFDS folders: ours against folders TFDS 4.9 wrote for the same examples
(tests/data/tfds_golden, written by tools/tfds_golden.py), in both directions.

The test that reads our folders with real TFDS runs TensorFlow in a subprocess
(tools/tfds_read.py): set ``MINIBATCHER_TF_PYTHON`` to a Python that has
``tensorflow-cpu`` and ``tensorflow-datasets`` (e.g. a separate venv)::

    MINIBATCHER_TF_PYTHON=/path/to/tf-venv/bin/python python -m pytest tests/convert

Without it that one test is skipped, saying so; the tests never import TensorFlow.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from minibatcher import tfds
from minibatcher.cli import main
from minibatcher.convert import (ctf_examples, htk_examples, text_examples, tfds_examples,
                                 tfrecord_examples, write_tfds)
from minibatcher.formats.tfrecord import TFRecordFile
from minibatcher.tfds.shard_utils import ShardConfig, get_shard_boundaries

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "tfds_golden"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text())
TFDS_FOLDERS = {"ctf": GOLDEN / "ctf/ctf/1.0.0", "htk": GOLDEN / "htk/feats/1.0.0",
                "tfrecord": GOLDEN / "tfrecord/records/1.0.0", "text": GOLDEN / "text/text/1.0.0"}
CASES = list(TFDS_FOLDERS)
TF_PYTHON = os.environ.get("MINIBATCHER_TF_PYTHON")
TFDS_READ = Path(__file__).resolve().parents[2] / "tools" / "tfds_read.py"


def plain(x: Any) -> Any:
    """An example as the golden holds it (lists, text; dict keys sorted)."""
    if isinstance(x, dict):
        return {k: plain(v) for k, v in sorted(x.items())}
    if isinstance(x, np.ndarray):
        return [plain(v) for v in x] if x.dtype == object else x.tolist()
    if isinstance(x, bytes):
        return x.decode("utf-8")
    return x.item() if isinstance(x, np.generic) else x


def ours(case: str, out: Path) -> Path:
    """Our folder for the golden case's input, with TFDS's shard count for it."""
    if case == "ctf":
        write_tfds(ctf_examples(GOLDEN / "ctf.ctf"), out, name="ctf", num_shards=3)
    elif case == "htk":
        write_tfds(htk_examples(GOLDEN / "feats.scp", [GOLDEN / "labels.mlf"],
                                labels=GOLDEN / "states.list", base_dir=GOLDEN), out, name="feats")
    elif case == "tfrecord":
        write_tfds(tfrecord_examples([GOLDEN / "records.tfrecord"]), out)  # named 'records' 
    else:
        write_tfds(text_examples(GOLDEN / "text.txt"), out, name="text", num_shards=2)
    return out


@pytest.mark.parametrize("case", CASES)
def test_our_json_equals_tfds_field_by_field(case: str, tmp_path: Path) -> None:
    folder = ours(case, tmp_path / case)
    theirs = TFDS_FOLDERS[case]
    mine = json.loads((folder / "dataset_info.json").read_text())
    golden = json.loads((theirs / "dataset_info.json").read_text())
    assert golden.pop("moduleName") == "tfds_golden"  # a builder's Python module: none here
    assert sorted(mine) == sorted(golden)
    for key in golden:
        assert mine[key] == golden[key], key  # name, version, splits (numBytes, shardLengths)
    assert json.loads((folder / "features.json").read_text()) == \
        json.loads((theirs / "features.json").read_text())
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in theirs.iterdir())
    for shard in folder.glob("*.tfrecord-*"):  # same records (Example key order aside)
        assert [len(r) for r in TFRecordFile(shard)] == \
            [len(r) for r in TFRecordFile(theirs / shard.name)]


@pytest.mark.parametrize("case", CASES)
def test_both_folders_read_the_same_in_both_directions(case: str, tmp_path: Path) -> None:
    """TFDS wrote -> we read: the examples TFDS itself read; we wrote -> we read: the same."""
    expected = EXPECTED[case]
    tfds_written = tfds.builder_from_directory(TFDS_FOLDERS[case]).as_dataset("train")
    assert [plain(ex) for ex in tfds_written] == expected
    ours_written = tfds.builder_from_directory(ours(case, tmp_path / case)).as_dataset("train")
    assert [plain(ex) for ex in ours_written] == expected


def test_write_metadata_equals_tfds_for_hand_written_shards(tmp_path: Path) -> None:
    """``tfds.folder_dataset.write_metadata`` on shards a user wrote (TFDS's own shards)."""
    folder = tmp_path / "metadata" / "1.0.0"
    folder.mkdir(parents=True)
    theirs = GOLDEN / "metadata" / "1.0.0"
    for shard in theirs.glob("*.tfrecord-*"):
        (folder / shard.name).write_bytes(shard.read_bytes())
    features = tfds.features.FeaturesDict({"text": tfds.features.Text()})
    tfds.folder_dataset.write_metadata(data_dir=folder, features=features)
    for name in ("dataset_info.json", "features.json"):
        assert json.loads((folder / name).read_text()) == json.loads((theirs / name).read_text())
    read = [plain(ex) for ex in tfds.builder_from_directory(folder).as_dataset("train")]
    assert read == EXPECTED["metadata"]


def test_shard_count_and_boundaries_are_tfds_rules() -> None:
    for case in EXPECTED["shards"]:
        n, size = case["num_examples"], case["total_size"]
        assert ShardConfig.calculate_number_shards(size, n) == case["num_shards"], case
        assert get_shard_boundaries(n, min(n, 7)) == case["boundaries"]


def test_a_split_is_added_and_a_tfds_folder_converts_again(tmp_path: Path, capsys) -> None:
    text = GOLDEN / "text.txt"
    assert main(["convert", str(text), str(tmp_path / "ds"), "--to", "tfds", "--name",
                 "corpus"]) == 0
    assert main(["convert", str(text), str(tmp_path / "ds"), "--split", "test"]) == 0
    assert "split 'test' of dataset 'corpus', 1 shard" in capsys.readouterr().out.splitlines()[-1]
    builder = tfds.builder_from_directory(tmp_path / "ds")
    assert sorted(builder.info.splits) == ["test", "train"]
    assert builder.info.splits["test"].num_examples == 15
    again = tfds_examples(tmp_path / "ds", "test")  # a TFDS folder is an input too
    assert [plain(ex) for ex in again] == EXPECTED["text"]
    (tmp_path / "other.ctf").write_text("|x 1\n")
    assert main(["convert", str(tmp_path / "other.ctf"), str(tmp_path / "ds"), "--name",
                 "corpus", "--split", "x"]) == 1
    assert "holds dataset 'corpus' with other features" in capsys.readouterr().err


@pytest.mark.skipif(not TF_PYTHON, reason="real TFDS runs in a subprocess: set "
                    "MINIBATCHER_TF_PYTHON to a Python with tensorflow-cpu and tensorflow-datasets")
def test_real_tfds_reads_our_folder_in_our_order(tmp_path: Path) -> None:
    """Our folders, opened by TFDS 4.9's ``builder_from_directory`` in another process, read
    the examples we read, in our order (docs/cli.md records the run)."""
    folders = [ours(case, tmp_path / case) for case in CASES]
    done = subprocess.run([str(TF_PYTHON), str(TFDS_READ), *map(str, folders), "--per-folder"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    lines = done.stdout.splitlines()
    assert len(lines) == len(CASES), done.stdout[-4000:]
    for case, folder, line in zip(CASES, folders, lines):
        theirs = json.loads(line)
        mine = [plain(ex) for ex in tfds.builder_from_directory(folder).as_dataset("train")]
        assert theirs == mine == EXPECTED[case], case
