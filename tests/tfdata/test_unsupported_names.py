"""Every public name of TF 2.21's ``tf.data``, ``tf.data.experimental`` and
``tf.data.Dataset`` exists in ``minibatcher.tfdata`` or raises ``NotSupportedError``
saying so (issue 13.10), never an ``AttributeError`` that looks like a typo; names that
are not TF's are ``AttributeError``s (so ``hasattr`` and ``from ... import`` work).
The names were listed by ``tools/tf_data_names.py`` (tests/data/tf_golden/tf_data_names.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import minibatcher.tfdata as tfdata
from minibatcher.errors import NotSupportedError
from minibatcher.tfdata import Dataset, experimental
from minibatcher.tfdata.unsupported import MISSING, MISSING_IN_EXPERIMENTAL, MISSING_IN_MODULE

NAMES = json.loads((Path(__file__).parents[1] / "data" / "tf_golden" /
                    "tf_data_names.json").read_text())
WHERE = {"tf.data": (tfdata, MISSING_IN_MODULE),
         "tf.data.experimental": (experimental, MISSING_IN_EXPERIMENTAL),
         "tf.data.Dataset": (Dataset.range(2), MISSING)}


@pytest.mark.parametrize("module", sorted(WHERE))
def test_every_tf_name_exists_or_says_it_is_not_supported(module: str) -> None:
    ours, missing = WHERE[module]
    assert NAMES["tensorflow"] == "2.21.0"
    absent = set()
    for name in NAMES[module]:
        try:
            getattr(ours, name)
        except NotSupportedError as e:
            assert name in str(e) and "not supported" in str(e)
            absent.add(name)
    assert absent == set(missing) & set(NAMES[module]), "the missing names are listed"
    if module != "tf.data.Dataset":  # (Dataset's list has TF1 methods too)
        assert set(missing) <= set(NAMES[module]), "a name listed as missing is not TF's"


def test_the_iterator_names() -> None:
    """tfdata.Iterator raised AttributeError; it is the class of every iterator."""
    assert isinstance(iter(Dataset.range(2)), tfdata.Iterator)
    assert isinstance(iter(Dataset.range(3).filter(lambda x: x > 0)), tfdata.Iterator)
    assert isinstance(Dataset.range(1).as_numpy_iterator(), tfdata.Iterator)
    with pytest.raises(NotSupportedError, match=r"^tf\.data\.NumpyIterator is not supported by "
                       r"minibatcher\.tfdata: as_numpy_iterator\(\) returns a tfdata\.Iterator"):
        _ = tfdata.NumpyIterator
    with pytest.raises(NotSupportedError, match=r"^tf\.data\.IteratorSpec is not supported"):
        _ = tfdata.IteratorSpec


@pytest.mark.parametrize("ours", [tfdata, experimental], ids=["tfdata", "experimental"])
def test_other_names_are_attribute_errors(ours) -> None:
    assert not hasattr(ours, "no_such_name")
    assert getattr(ours, "__wrapped__", None) is None
    with pytest.raises(AttributeError, match=f"module '{ours.__name__}' has no attribute 'x'"):
        _ = ours.x
