"""Hypothesis: TF's strict Example rules and SequenceExample decoding agree between the native
decoder and the pure-Python reference on random, mutated and truncated records."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from minibatcher import _native
from minibatcher.formats.tfrecord import example_reference, wire

from .test_differential import _same, examples, values

SETTINGS = settings(max_examples=200, deadline=None)
RESULT = ("records", "error", "error_record", "error_feature", "error_kind", "error_step")
KINDS = st.lists(st.integers(1, 3), min_size=3, max_size=3)


def _flat(blobs: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    return (np.frombuffer(b"".join(blobs), np.uint8),
            np.cumsum([len(b) for b in blobs], dtype=np.int64))


def _same_columns(a: dict[str, Any], b: dict[str, Any]) -> None:
    for fa, fb in zip(a["features"], b["features"]):
        assert fa.keys() == fb.keys()
        for key in fa:
            assert np.asarray(fa[key]).tobytes() == np.asarray(fb[key]).tobytes(), key


@st.composite
def kindless(draw: st.DrawFn) -> bytes:
    """Examples whose features may be empty lists of any kind or Features with no list."""
    entries = []
    for key in draw(st.lists(st.sampled_from("abc"), max_size=4)):
        kind = draw(st.integers(0, 3))
        feature = wire._len(kind, b"") if kind else b""
        entries.append(wire._len(1, wire._len(1, key.encode()) + wire._len(2, feature)))
    return wire._len(1, b"".join(entries)) if entries else b""


@SETTINGS
@given(st.lists(st.one_of(examples(), kindless()), max_size=5), KINDS)
def test_strict_decoding_agrees(blobs: list[bytes], kinds: list[int]) -> None:
    data, ends = _flat(blobs)
    a = _native.example_decode(data, ends, ["a", "b", "c"], kinds, True)
    b = example_reference.decode(data, ends, ["a", "b", "c"], kinds, strict=True)
    _same(a, b, RESULT)
    _same_columns(a, b)
    records = [bytes(r) for r in blobs]
    _same(_native.example_decode_records(records, ["a", "b", "c"], kinds, True), a, RESULT)


def _feature(draw: st.DrawFn) -> bytes:
    v = draw(st.one_of(values, st.none()))
    return b"" if v is None else wire.encode_feature(v)


@st.composite
def sequence_examples(draw: st.DrawFn) -> bytes:
    context = draw(st.dictionaries(st.sampled_from("ab"), values, max_size=2))
    parts = [wire.encode_features(context)] if context else []  # field 1, as an Example's
    lists = []
    for key in draw(st.lists(st.sampled_from("ac"), max_size=3)):
        steps = b"".join(wire._len(1, _feature(draw)) for _ in range(draw(st.integers(0, 3))))
        lists.append(wire._len(1, wire._len(1, key.encode()) + wire._len(2, steps)))
    if lists:
        parts.append(wire._len(2, b"".join(lists)))
    blob = bytearray(b"".join(parts))
    if blob and draw(st.booleans()):
        blob[draw(st.integers(0, len(blob) - 1))] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        blob = blob[:draw(st.integers(0, len(blob)))]
    return bytes(blob)


@SETTINGS
@given(st.lists(sequence_examples(), max_size=4), KINDS, KINDS)
def test_sequence_decoding_agrees(blobs: list[bytes], ckinds: list[int],
                                  skinds: list[int]) -> None:
    data, ends = _flat(blobs)
    args = (["a", "b"], ckinds[:2], ["c", "a"], skinds[:2])
    a = _native.sequence_example_decode(data, ends, *args)
    b = example_reference.decode_sequence(data, ends, *args)
    _same(a, b, RESULT)
    _same_columns(a, b)
    _same(_native.sequence_example_decode_records([bytes(r) for r in blobs], *args), a, RESULT)


def test_a_signaling_nan_keeps_its_bits() -> None:
    # found by hypothesis: the reference read floats through Python floats, which quiet a
    # signaling NaN (0x7f800001 became 0x7fc00001); the native decoder copies the bits
    blob = (b"\n\x1e\n\r\n\x01a\x12\x08\n\x06\n\x00\n\x00\n\x00\n\r\n\x01b\x12\x08"
            b"\x12\x06\n\x04\x01\x00\x80\x7f\x12\x1a\n\x11\n\x01a\x12\x0c\n\x02\x1a"
            b"\x00\n\x02\x1a\x00\n\x02\x1a\x00\n\x05\n\x01a\x12\x00")
    data, ends = _flat([blob])
    args = (["a", "b"], [1, 2], ["c", "a"], [1, 1])
    a = _native.sequence_example_decode(data, ends, *args)
    b = example_reference.decode_sequence(data, ends, *args)
    _same_columns(a, b)
    assert a["features"][1]["values"].tobytes() == b"\x01\x00\x80\x7f"  # context "b"


def test_strict_kind_mismatch_comes_before_reading_the_list() -> None:
    # found by hypothesis: an int64 list with a truncated varint where bytes are wanted; the
    # native decoder reports the kind (it never reads the list), the reference said malformed
    blob = (b"\n\x19\n\x17\n\x01a\x12\x12\x1a\x10\n\x0e" + b"\xff" * 9 + b"\x01"
            + b"\x80\x80\x80\x80")
    data, ends = _flat([blob])
    for decode in (_native.example_decode, example_reference.decode):
        out = decode(data, ends, ["a", "b", "c"], [1, 1, 1], True)
        assert (out["error"], out["error_feature"], out["error_kind"]) == (2, 0, 3), decode
