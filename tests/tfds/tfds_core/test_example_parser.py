"""TFDS 4.9.10's ``core/example_parser_test.py``, ported with its literal expected values.
TFDS builds the features with its feature classes; here they are the equivalent
``features.json`` entries (what those classes write)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from minibatcher.formats.tfrecord import encode_example
from minibatcher.tfds.core import example_parser
from minibatcher.tfds.testing import features_dict, tensor_feature

_CLS = "tensorflow_datasets.core.features."


def sequence(inner: dict[str, Any]) -> dict[str, Any]:
    return {"pythonClassName": _CLS + "sequence_feature.Sequence",
            "sequence": {"feature": inner, "length": "-1"}}


TEXT = {"pythonClassName": _CLS + "text_feature.Text", "text": {}}


def test_example_parser_np() -> None:
    features = features_dict({
        "feature": features_dict({"nested_text": TEXT,
                                  "nested_float": tensor_feature("float32", [], scalar=True)}),
        "array_of_ints": tensor_feature("int8", [2]),
        "array_of_unknown_shape": tensor_feature("uint16", [-1]),
        "ragged_tensor": sequence(sequence(tensor_feature("int32", [2]))),
        "ragged_tensor_without_length": sequence(sequence(tensor_feature("string", [],
                                                                         scalar=True))),
    })
    serialized = encode_example({
        "feature/nested_text": [b"thisistext"], "feature/nested_float": np.float32([1.0]),
        "array_of_ints": [2, 3], "array_of_unknown_shape": [4, 5, 6],
        "ragged_tensor/ragged_flat_values": [0, 1, 2, 3, 4, 5],
        "ragged_tensor/ragged_row_lengths_0": [2, 0, 1],
        "ragged_tensor_without_length/ragged_flat_values": [b"abcd", b"efg", b"hij"],
        "ragged_tensor_without_length/ragged_row_lengths_0": [2, 0, 1]})
    expected = {
        "feature": {"nested_text": b"thisistext", "nested_float": 1.0},
        "array_of_ints": np.asarray([2, 3], dtype=np.int8),
        "array_of_unknown_shape": np.asarray([4, 5, 6], dtype=np.uint16),
        "ragged_tensor": [[[0, 1], [2, 3]], [], [[4, 5]]],
        "ragged_tensor_without_length": [[b"abcd", b"efg"], [], [b"hij"]],
    }
    parsed = example_parser.ExampleParser(features).parse_example(serialized)
    assert isinstance(parsed["array_of_ints"], np.ndarray)
    assert isinstance(parsed["array_of_unknown_shape"], np.ndarray)
    assert parsed["array_of_ints"].dtype == np.int8
    assert parsed["array_of_unknown_shape"].dtype == np.uint16
    np.testing.assert_equal(parsed, expected)


@pytest.mark.parametrize("flat_values, row_lengths, shape, expected", [
    ([0, 1, 2], [[1, 0, 2]], (None,), [[0], [], [1, 2]]),
    ([0, 1, 2, 3, 4, 10, 11, 12, 13, 14], [[3, 3], [3, 0, 2, 2, 2, 1]], (None, None, None),
     [[[0, 1, 2], [], [3, 4]], [[10, 11], [12, 13], [14]]]),
    ([1, 2, 3, 4, 5, 10, 11, 12, 13, 14], [[3, 3], [3, 0, 2, 2, 2, 1]], (None, 3, None),
     [[[1, 2, 3], [], [4, 5]], [[10, 11], [12, 13], [14]]]),
])
def test_reshape_deep_ragged_tensor(flat_values: list, row_lengths: list, shape: tuple,
                                    expected: list) -> None:
    np.testing.assert_equal(
        example_parser.reshape_ragged_tensor(flat_values, row_lengths, shape), expected)


def test_full_row_lengths() -> None:
    values = [1, 2, 3, 4, 10, 11, 12, 13, 14]
    assert list(example_parser.full_row_lengths(values, [[2, 0, 1]], (None, None, 3))) == [
        [3, 3, 3], [2, 0, 1]]
    assert list(example_parser.full_row_lengths(values, [[3, 3], [3, 0, 2, 2, 2, 1]],
                                                (None, 3, None))) == [[3, 0, 2, 2, 2, 1], [3, 3]]
