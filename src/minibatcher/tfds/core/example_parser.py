"""``tfds.core.example_parser``: one serialized ``tf.train.Example`` -> a feature dict, per
the dataset's features (a ``features.json`` document or its parsed tree), as ``as_dataset``
decodes it; and TFDS's ragged reshaping.

Example:
    >>> from minibatcher.formats.tfrecord import encode_example
    >>> from minibatcher.tfds.testing import DEFAULT_FEATURES
    >>> parser = ExampleParser(DEFAULT_FEATURES)
    >>> ex = parser.parse_example(encode_example({"id": [7], "label": [3]}))
    >>> int(ex["id"]), int(ex["label"])
    (7, 3)
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..features import FeatureTree, Leaf, parse_features, unflatten_ragged
from ..reader import ExampleDecoding

__all__ = ["ExampleParser", "full_row_lengths", "reshape_ragged_tensor"]


class ExampleParser:
    """Decodes serialized Examples of a dataset (``parse_example``; see the
    module's example)."""

    def __init__(self, features: Mapping[str, Any] | FeatureTree | Leaf) -> None:
        tree = features if isinstance(features, (FeatureTree, Leaf)) else \
            parse_features(features)
        self._decoding = ExampleDecoding(tree)

    def parse_example(self, serialized_example: bytes) -> Any:
        """The feature dict of one serialized Example."""
        return self._decoding.decode([bytes(serialized_example)],
                                     lambda i: "the serialized example")[0]


def full_row_lengths(values: Sequence[Any], row_lengths: Sequence[Sequence[int]],
                     shape: Sequence[int | None]) -> list[Sequence[int]]:
    """The row lengths of every nesting level, innermost first: the stored
    lengths of the unknown dimensions, completed with the known ones.

    Example:
        >>> full_row_lengths([1, 2, 3, 4, 10, 11, 12, 13, 14], [[2, 0, 1]], (None, None, 3))
        [[3, 3, 3], [2, 0, 1]]
    """
    if shape and shape[-1] is None:
        return list(reversed(row_lengths))
    out: list[Sequence[int]] = []
    stored = len(row_lengths) - 1
    for dim in reversed(shape):
        if dim is None:
            if stored < 0:
                return out
            out.append(row_lengths[stored])
            stored -= 1
        else:
            out.append([dim] * (len(values) // dim))
    return out


def reshape_ragged_tensor(values: Sequence[Any], row_lengths: Sequence[Sequence[int]],
                          shape: Sequence[int | None]) -> Any:
    """Flat ``values`` nested by ``row_lengths`` (outermost first) into ``shape``.

    Example:
        >>> reshape_ragged_tensor([0, 1, 2], [[1, 0, 2]], (None,))
        [[0], [], [1, 2]]
    """
    if not row_lengths:
        return np.asarray(values).reshape([-1 if d is None else d for d in shape])
    lengths = list(reversed(full_row_lengths(values, row_lengths, shape)))
    return unflatten_ragged(list(values), [np.asarray(x) for x in lengths])
