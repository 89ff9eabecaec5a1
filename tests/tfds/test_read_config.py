"""ReadConfig and InputContext arguments (issue 15.11, TFDS parts): a clear error naming the
option and value, never a MemoryError or a silent coercion."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from minibatcher import tfds
from minibatcher.errors import ConfigError

from .helpers import make


@pytest.mark.parametrize("field, value, message", [
    ("interleave_cycle_length", 10**12, "option interleave_cycle_length should be an integer in "
                                        r"\[1, 1048576\]"),
    ("interleave_cycle_length", 0, "interleave_cycle_length=0"),
    ("interleave_cycle_length", "16", r"interleave_cycle_length='16' \(str\)"),
    ("interleave_block_length", 2.0, r"interleave_block_length=2.0 \(float\)"),
    ("interleave_block_length", 0, "interleave_block_length=0"),
    ("shuffle_seed", 2**64, "option shuffle_seed should be an integer in"),
    ("shuffle_seed", 1.5, r"shuffle_seed=1.5 \(float\)"),
    ("num_parallel_calls_for_interleave_files", 2**70, "num_parallel_calls_for_interleave_files"),
    ("override_buffer_size", "big", "override_buffer_size='big'"),
    ("add_tfds_id", 1, r"option add_tfds_id should be True or False, but got add_tfds_id=1"),
    ("repeat_filenames", "yes", "repeat_filenames='yes'"),
    ("input_context", (2, 0), "option input_context should be an InputContext"),
])
def test_bad_read_config_fields(tmp_path: Path, field: str, value: object, message: str) -> None:
    rc = tfds.ReadConfig(**{field: value})
    with pytest.raises(ConfigError, match=message):
        rc.validate()
    b = make(tmp_path, {"train": [3, 3]})
    with pytest.raises(ConfigError, match=message):  # as_dataset validates before reading
        b.as_dataset("train", read_config=rc)


def test_numpy_integers_are_integers(tmp_path: Path) -> None:
    rc = tfds.ReadConfig(interleave_cycle_length=np.int64(2), interleave_block_length=np.int32(1),
                         shuffle_seed=np.uint8(3), input_context=tfds.InputContext(
                             np.int64(2), np.int64(1)))
    rc.validate()
    assert rc.input_context.num_input_pipelines == 2 and type(rc.input_context.input_pipeline_id) \
        is int
    b = make(tmp_path, {"train": [2, 2, 2, 2]})
    assert len(list(b.as_dataset("train", shuffle_files=True, read_config=rc))) == 4


@pytest.mark.parametrize("args, message", [
    ((0, 0), "option num_input_pipelines should be a positive integer, but got "
             "num_input_pipelines=0"),
    ((2, 2), r"input_pipeline_id should be an integer in \[0, num_input_pipelines=2\)"),
    ((2, True), r"input_pipeline_id=True \(bool\)"),
    (("2", 0), r"num_input_pipelines='2' \(str\)"),
])
def test_bad_input_contexts(args: tuple, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        tfds.InputContext(*args)


def test_huge_cycle_length_was_a_memory_error_and_is_refused_early(tmp_path: Path) -> None:
    b = make(tmp_path, {"train": [3]})
    rc = tfds.ReadConfig(interleave_cycle_length=10**12)
    with pytest.raises(ConfigError, match="at most 2\\*\\*20 files are read at once"):
        b.as_dataset("train", read_config=rc)
    ok = tfds.ReadConfig(interleave_cycle_length=2**20, interleave_block_length=1)
    assert [int(x["id"]) for x in b.as_dataset("train", read_config=ok)] == [0, 1, 2]
