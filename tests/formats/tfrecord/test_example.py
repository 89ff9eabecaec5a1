"""tf.train.Example encoding and decoding: hand-computed bytes, the protobuf
library as an oracle, protobuf merge rules, and bad records (both decoders)."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.errors import ConfigError, FormatError
from minibatcher.formats.tfrecord import ExampleDecoder, decode_example, encode_example

from .protos import example_class, to_proto


def test_hand_computed_encoding() -> None:
    # Example{features{feature{key:"a" value{int64_list{value:[1]}}}}}
    assert encode_example({"a": [1]}).hex() == "0a0c0a0a0a016112051a030a0101"
    assert encode_example({}) == b""
    # a negative int64 is a 10-byte varint
    assert encode_example({"a": [-1]}).hex().endswith("0a0a" + "ff" * 9 + "01")


def test_encoding_matches_protobuf_deterministic_serialization() -> None:
    cls = example_class()
    values = {"b": [b"x", b"", b"yz"], "f": [0.5, -2.25], "i": [0, 1, 127, 128, -1, 2**63 - 1],
              "empty": []}
    ours = encode_example({"b": values["b"], "f": np.array(values["f"], np.float32),
                           "i": np.array(values["i"]), "empty": np.zeros(0, np.int64)})
    theirs = to_proto(cls, {"b": ("bytes_list", values["b"]), "f": ("float_list", values["f"]),
                            "i": ("int64_list", values["i"]), "empty": ("int64_list", [])})
    assert ours == theirs


def test_decoding_protobuf_output(impl: str) -> None:
    cls = example_class()
    blobs = [to_proto(cls, {"i": ("int64_list", [k, -k]), "s": ("bytes_list", [b"k%d" % k] * k),
                            "f": ("float_list", [k / 4])}) for k in range(4)]
    cols = ExampleDecoder({"i": "int64", "s": "bytes", "f": "float", "gone": "int64"},
                          impl=impl).decode(blobs)
    assert cols["i"].values.tolist() == [0, 0, 1, -1, 2, -2, 3, -3]
    assert cols["s"].counts.tolist() == [0, 1, 2, 3]
    assert cols["s"].row(2) == [b"k2", b"k2"]
    assert cols["f"].values.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert cols["gone"].counts.tolist() == [-1, -1, -1, -1]
    assert cols["gone"].row(0) is None


def _entry(key: bytes, feature: bytes) -> bytes:
    return b"\x0a" + bytes([len(key) + len(feature) + 4]) + b"\x0a" + bytes([len(key)]) + key + \
        b"\x12" + bytes([len(feature)]) + feature


def _example(*entries: bytes) -> bytes:
    body = b"".join(entries)
    return b"\x0a" + bytes([len(body)]) + body


def test_protobuf_merge_rules(impl: str) -> None:
    def ints(*v: int) -> bytes:
        return b"\x1a" + bytes([2 * len(v)]) + b"".join(b"\x08" + bytes([x]) for x in v)

    floats = b"\x12\x05\x0d\x00\x00\x80\x3f"  # one unpacked float 1.0
    dec = ExampleDecoder({"a": "int64", "b": "float"}, impl=impl)
    # a later entry with the same key replaces the earlier one
    replaced = _example(_entry(b"a", ints(1)), _entry(b"a", ints(2, 3)))
    assert dec.decode([replaced])["a"].row(0).tolist() == [2, 3]
    # the same oneof member twice merges (unpacked values, two list messages)
    assert dec.decode([_example(_entry(b"a", ints(1) + ints(4)))])["a"].row(0).tolist() == [1, 4]
    # another member replaces it
    assert dec.decode([_example(_entry(b"b", ints(1) + floats))])["b"].row(0).tolist() == [1.0]
    # two `features` fields merge; unknown fields are skipped
    two = _example(_entry(b"a", ints(7))) + _example(_entry(b"b", floats)) + b"\x10\x05"
    cols = dec.decode([two])
    assert cols["a"].row(0).tolist() == [7] and cols["b"].row(0).tolist() == [1.0]
    # an empty Feature (no member) is an empty list of any kind
    assert dec.decode([_example(_entry(b"a", b""))])["a"].counts.tolist() == [0]


@pytest.mark.parametrize("blob, message", [
    (b"\x0a\x05", "malformed protobuf wire data"),             # length past the end
    (b"\x0b", "malformed"),                                      # a group
    (b"\x0f", "malformed"),                                      # wire type 7
    (b"\x00\x01", "malformed"),                                  # field number 0
    (b"\x08" + b"\xff" * 10 + b"\x01", "malformed"),            # 11-byte varint
])
def test_malformed_records(impl: str, blob: bytes, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        ExampleDecoder({"a": "int64"}, impl=impl).decode([encode_example({"a": [1]}), blob])


def test_kind_mismatch_and_error_location(impl: str) -> None:
    good, bad = encode_example({"a": [1]}), encode_example({"a": np.array([1.5], np.float32)})
    with pytest.raises(FormatError, match=r"shard-7 record 1: feature 'a' holds a float_list, "
                                          r"but a int64_list was expected"):
        ExampleDecoder({"a": "int64"}, impl=impl).decode(
            [good, bad], where=lambda i: f"shard-7 record {i}")
    empty_float = encode_example({"a": np.zeros(0, np.float32)})
    cols = ExampleDecoder({"a": "int64"}, impl=impl).decode([empty_float])
    assert cols["a"].counts.tolist() == [0]
    packed_bad = _example(_entry(b"a", b"\x12\x03\x0a\x01\x00"))  # 1 byte of packed floats
    with pytest.raises(FormatError, match="in feature 'a'"):
        ExampleDecoder({"a": "float"}, impl=impl).decode([packed_bad])


def test_generic_decode_and_encode_errors() -> None:
    blob = encode_example({"s": "héllo", "n": np.array([[1, 2], [3, 4]], np.uint8)})
    assert decode_example(blob) \
        == {"n": pytest.approx(np.array([1, 2, 3, 4])), "s": ["héllo".encode()]}
    with pytest.raises(ConfigError, match="an empty list has no kind"):
        encode_example({"x": []})
    with pytest.raises(FormatError, match="not a valid tf.train.Example"):
        decode_example(b"\x0a\x09")


def test_typed_empty_string_array_encodes_an_empty_bytes_list() -> None:
    # the error message for [] recommends np.zeros(0, 'S'); it used to fail the same way
    cls = example_class()
    theirs = to_proto(cls, {"s": ("bytes_list", [])})
    assert encode_example({"s": np.zeros(0, "S")}) == theirs
    assert encode_example({"s": np.array([], "U3")}) == theirs
