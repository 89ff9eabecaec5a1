"""minibatcher.state: the field reader, the version scheme and the fingerprint."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.errors import CheckpointError
from minibatcher.state import (ADAPTER, SOURCE, TFDATA, Fields, Fingerprint, check_stamp, stamp,
                               taken_with)


def test_paths_name_nested_fields() -> None:
    state = Fields({"iterator": {"in": {"slots": [None, None, {"it": {"pos": -1}}]}}})
    slot = state.child("iterator").child("in").opt_items("slots")[2]
    with pytest.raises(CheckpointError, match=r"field 'iterator\.in\.slots\[2\]\.it\.pos' should "
                                              r"be an int in \[0, 20\], but got "
                                              r"iterator\.in\.slots\[2\]\.it\.pos=-1, outside"):
        slot.child("it").int("pos", 0, 20)


@pytest.mark.parametrize("value", [True, 1.0, "1", None, [1], np.float64(1)])
def test_ints_are_ints_only(value) -> None:
    with pytest.raises(CheckpointError, match="'n' should be an int"):
        Fields({"n": value}).int("n")


def test_numpy_ints_are_ints() -> None:
    assert Fields({"n": np.int64(3)}).int("n", 0, 3) == 3


def test_missing_and_unknown_fields() -> None:
    with pytest.raises(CheckpointError, match="lacks the field 'it.pos'"):
        Fields({"it": {}}).child("it").int("pos")
    with pytest.raises(CheckpointError, match=r"unknown field 'it\.p'"):
        Fields({"it": {"p": 1}}).child("it").only("pos", "pins")
    with pytest.raises(CheckpointError, match="'it' should be a dict"):
        Fields({"it": [1]}).child("it")
    with pytest.raises(CheckpointError, match="should be a list of 2 items"):
        Fields({"in": [{}]}).items("in", 2)


def test_strings_bools_and_choices() -> None:
    f = Fields({"by": "address", "done": np.bool_(True)})
    assert f.str("by", ("address", "ordinal")) == "address" and f.bool("done") is True
    with pytest.raises(CheckpointError, match="'done' should be a bool"):
        Fields({"done": 0}).bool("done")


def test_stamps_accept_old_states_only_where_unambiguous() -> None:
    check_stamp({"version": 1, "data": []}, SOURCE)  # a MinibatchSource checkpoint of before
    check_stamp({"version": 1}, ADAPTER)
    with pytest.raises(CheckpointError, match="format should be 'minibatcher.tfdata'"):
        check_stamp({"version": 1}, TFDATA)  # tfdata states always had their format
    with pytest.raises(CheckpointError, match="format should be 'minibatcher.MinibatchSource'"):
        check_stamp(stamp(ADAPTER), SOURCE)
    with pytest.raises(CheckpointError, match="version should be 1, but got version=True"):
        check_stamp({**stamp(SOURCE), "version": True}, SOURCE)


def test_one_mismatch_wording() -> None:
    assert taken_with("seed", 1, 2, "pipeline") == \
        "it was taken with seed=1, but this pipeline has seed=2"
    fp = Fingerprint([["a", "1"]], {"seed": 1})
    with pytest.raises(CheckpointError, match="it was taken with seed=2, but this reader has "
                                              "seed=1; create the reader with"):
        fp.check({"data": [["a", "1"]], "options": {"seed": 2}}, "reader")
