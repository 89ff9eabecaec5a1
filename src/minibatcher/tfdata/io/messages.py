"""The texts of TensorFlow's parse errors (TF 2.21's ``ParseExampleV2`` /
``ParseSequenceExampleV2`` wording, checked by tests/tfdata/io against TF's own messages).

``parse_single_example`` and ``parse_example`` word the same problem differently: the
batched form names the example (``Name: <unknown>``) and its index in the batch.

Example:
    >>> Where(single=False, names=None).missing("label", "int64", 3)
    'Name: <unknown>, Feature: label (data type: int64) is required but could not be found.'
    >>> Where(single=True, names=None).fixed_count("x", "int64", 3, (2,), 0)
    "Key: x.  Can't parse serialized Example: Some int64_list slice was not parsed."
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

LIST_WORD = {"int64": "int64", "float": "float", "string": "bytes"}


def shape_text(shape: Sequence[int | None]) -> str:
    """A shape as TF prints it in messages (``[2,3]``, ``[?,2]``).

    Example:
        >>> shape_text((None, 2)), shape_text(())
        ('[?,2]', '[]')
    """
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


@dataclasses.dataclass(frozen=True)
class Where:
    """Which parse function speaks (``single``) and the example names of a batch."""

    single: bool
    names: Sequence[str] | None

    def name(self, index: int) -> str:
        """The example's name in messages (``<unknown>`` without example_names)."""
        if self.names is None or index >= len(self.names):
            return "<unknown>"
        return str(self.names[index])

    def _key(self, key: str, index: int) -> str:
        if self.single:
            return f"Key: {key}.  "
        return f"Name: {self.name(index)}, Key: {key}, Index: {index}.  "

    def missing(self, key: str, dtype: str, index: int) -> str:
        """A required FixedLenFeature is absent and has no default."""
        prefix = "" if self.single else f"Name: {self.name(index)}, "
        return f"{prefix}Feature: {key} (data type: {dtype}) is required but could not be found."

    def fixed_kind(self, key: str, actual: str, expected: str, index: int) -> str:
        """A FixedLen(Sequence)Feature holds a list of another kind."""
        return (f"{self._key(key, index)}Data types don't match. Data type: {actual} but "
                f"expected type: {expected}")

    def var_kind(self, key: str, actual: str, expected: str, index: int) -> str:
        """A VarLenFeature / RaggedFeature holds a list of another kind."""
        return (f"{self._key(key, index)}Data types don't match. Expected type: {expected}, "
                f"Actual type: {actual}")

    def fixed_count(self, key: str, dtype: str, count: int, shape: Sequence[int],
                    index: int) -> str:
        """A FixedLenFeature holds a number of values other than prod(shape) (TF's batched
        parser stops early on too many strings, with a shorter message)."""
        word = LIST_WORD[dtype]
        if self.single:
            return (f"Key: {key}.  Can't parse serialized Example: Some {word}_list slice was "
                    "not parsed.")
        size = 1
        for d in shape:
            size *= d
        if word == "bytes" and count > size:
            return f"{self._key(key, index)}Can't parse serialized Example."
        return (f"{self._key(key, index)}Number of {word} values != expected.  Values size: "
                f"{count} but output shape: {shape_text(shape)}")

    def stride(self, key: str, dtype: str, count: int, shape: Sequence[int], index: int) -> str:
        """A FixedLenSequenceFeature holds a count that is not a multiple of prod(shape)."""
        if self.single:
            stride = 1
            for d in shape:
                stride *= d
            return (f"Error while parsing feature with key {key}: number of elements should be "
                    f"divisible by {stride}, found {count} instead")
        return (f"{self._key(key, index)}Number of {LIST_WORD[dtype]} values is not a multiple "
                f"of stride length. Saw {count} values but output shape is: "
                f"{shape_text((None, *shape))}")

    def malformed(self, record: bytes, index: int) -> str:
        """The record is not a valid serialized Example (TF's first words, then ours)."""
        shown = record[:48]
        more = "..." if len(record) > 48 else ""
        where = "" if self.single else f" (example {index}, name {self.name(index)})"
        return (f"Could not parse example input, value: {shown!r}{more}{where}: not a valid "
                "serialized tf.train.Example (malformed protobuf wire data)")


@dataclasses.dataclass(frozen=True)
class SeqWhere:
    """The wording of ``ParseSequenceExampleV2`` (the same in single and batched form).

    Example:
        >>> SeqWhere(None).list_kind("s", "int64", 0, 2)
        "Name: <unknown>, Feature list: s, Index: 2.  Data types don't match. Expected type: int64"
    """

    names: Sequence[str] | None

    def name(self, index: int) -> str:
        """The example's name (``<unknown>`` without example names)."""
        return Where(False, self.names).name(index)

    def malformed(self, index: int) -> str:
        """The record is not a valid serialized SequenceExample."""
        return (f"Invalid protocol message input, example id: {self.name(index)} (not a valid "
                "serialized tf.train.SequenceExample: malformed protobuf wire data)")

    def context_kind(self, key: str, expected: str, index: int) -> str:
        """A context feature holds a list of another kind."""
        return (f"Name: {self.name(index)}, Context feature: {key}.  Data types don't match. "
                f"Expected type: {expected}")

    def list_kind(self, key: str, expected: str, index: int, step: int) -> str:
        """A step of a feature list holds a list of another kind."""
        return (f"Name: {self.name(index)}, Feature list: {key}, Index: {step}.  Data types "
                f"don't match. Expected type: {expected}")

    def inconsistent(self, key: str, expected: int, found: int) -> str:
        """The most values of a dense context feature in the batch differ from its size."""
        return (f"Inconsistent max number of elements for feature {key}: expected {expected}, "
                f"but found {found}")

    def unexpected(self, index: int) -> str:
        """A dense context feature of one record holds a wrong number of values."""
        return f"Unexpected number of elements in example {self.name(index)}"

    def list_total(self, key: str, total: int, shape: Sequence[int]) -> str:
        """A FixedLenSequenceFeature's values are not a multiple of its element size."""
        return (f"Feature list '{key}' has an unexpected number of values.  Total values size: "
                f"{total} is not consistent with output shape: {shape_text((None, *shape))}")

    def list_missing(self, key: str, index: int) -> str:
        """A FixedLenSequenceFeature without allow_missing is absent."""
        return (f"Name: {self.name(index)}, Feature list '{key}' is required but could not be "
                "found.  Did you mean to include it in feature_list_dense_missing_assumed_empty "
                "or feature_list_dense_defaults?")

    def step_count(self, key: str, count: int, shape: Sequence[int], index: int,
                   step: int) -> str:
        """A step holds a number of values other than the element size."""
        return (f"Name: {self.name(index)}, Key: {key}, Index: {step}.  Number of values != "
                f"expected.  values size: {count} but output shape: {shape_text(shape)}")


def reshape_error(values: int, wanted: int) -> str:
    """TF's message when a default value does not fit its feature's shape.

    Example:
        >>> reshape_error(1, 2)
        'Input to reshape is a tensor with 1 values, but the requested shape has 2'
    """
    return f"Input to reshape is a tensor with {values} values, but the requested shape has {wanted}"


__all__ = ["LIST_WORD", "SeqWhere", "Where", "reshape_error", "shape_text"]
