"""The native text and shuffle kernels against their pure-Python references (hypothesis), and
argument validation (bad input is a ValueError, never a crash)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minibatcher import _native
from minibatcher.nmt.corpus import LineCorpus
from minibatcher.nmt.dataset import encode, encode_chars, encode_target
from minibatcher.nmt.reference import string_split, tokens_to_bytes
from minibatcher.nmt.vocab_utils import VocabTable
from minibatcher.tfdata.shuffle import ShuffleOrder, shuffle_order

ALPHABET = [b" ", b" ", b" ", b"a", b"b", b"ab", b"\t", b"\r", b"\x00", b"\xc3\xa9", b"\xa0",
            b"x" * 60, b"<s>"]
line = st.lists(st.sampled_from(ALPHABET), max_size=20).map(b"".join)
WORDS = [b"a", b"b", b"ab", b"\t", b"\xc3\xa9", b"<s>", b"x" * 60]


@settings(max_examples=150, deadline=None)
@given(st.lists(line, min_size=1, max_size=12), st.data())
def test_native_matches_the_python_reference(lines: list[bytes], data) -> None:
    corpus = LineCorpus.of_lines(lines)
    table = VocabTable(WORDS, default_value=7)
    tokens = [string_split(x) for x in lines]
    assert corpus.counts().tolist() == [len(t) for t in tokens]
    rows = np.array(data.draw(st.lists(st.integers(0, len(lines) - 1), min_size=1, max_size=8)))
    keep = np.array([data.draw(st.integers(0, len(tokens[r]))) for r in rows], dtype=np.int32)
    got = encode(corpus, rows, keep, table, sos=11, eos=12, pad=13, extra=2)
    width = int(keep.max()) + 2
    for r, k, row in zip(rows, keep, got):
        ids = [11] + table.lookup(tokens[r][:k]).tolist() + [12] if k else [11, 12]
        assert row.tolist() == ids + [13] * (width - len(ids))
    tin, tout = encode_target(corpus, rows, keep, table, 11, 12)
    assert np.array_equal(tin, encode(corpus, rows, keep, table, sos=11, pad=12, extra=1))
    assert np.array_equal(tout, encode(corpus, rows, keep, table, eos=12, pad=12, extra=1))
    chars = encode_chars(corpus, rows, keep)
    for r, k, row in zip(rows, keep, chars):
        expected = tokens_to_bytes(tokens[r][:k]).tolist()
        assert row.tolist() == expected + [257] * (int(keep.max()) * 50 - len(expected))


def test_vocab_keeps_the_first_id_of_a_duplicate() -> None:
    v = _native.TextVocab([b"a", b"b", b"a", b""])
    assert (v.find(b"a", -1), v.find(b"b", -1), v.find(b"", -1), v.find(b"c", -1)) == (0, 1, 3, -1)
    assert v.size == 4


def test_bad_arguments_raise() -> None:
    data = np.frombuffer(b"a b\nc", np.uint8)
    starts, ends = np.array([0, 4]), np.array([3, 5])
    v = _native.TextVocab([b"a"])
    one = np.array([1], np.int32)
    with pytest.raises(ValueError, match="out of range"):
        _native.text_encode(data, starts, ends, np.array([2]), one, v, 0, -1, -1, 0, 4)
    with pytest.raises(ValueError, match="fewer tokens"):
        _native.text_encode(data, starts, ends, np.array([1]), np.array([2], np.int32), v, 0, -1,
                            -1, 0, 4)
    with pytest.raises(ValueError, match="fit in width"):
        _native.text_encode(data, starts, ends, np.array([0]), np.array([2], np.int32), v, 0, 1,
                            -1, 0, 2)
    with pytest.raises(ValueError, match="outside the text buffer"):
        _native.text_count_tokens(data, np.array([0]), np.array([9]))
    with pytest.raises(ValueError, match="outside the text buffer"):
        _native.text_count_tokens(data, np.array([3]), np.array([1]))
    with pytest.raises(ValueError, match="same length"):
        _native.text_encode_chars(data, starts, ends, np.array([0, 1]), one, 1, 0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(1, 40),
       st.integers(0, 120), st.integers(0, 150), st.booleans())
def test_native_shuffle_order_matches_python(seed, seed2, buffer_size, length, steps,
                                             known) -> None:
    n = length if known else None
    native, python = shuffle_order((seed, seed2), buffer_size, n), \
        ShuffleOrder((seed, seed2), buffer_size, n)
    a = native.advance(steps).tolist()
    assert a == python.advance(steps)
    assert native.held().tolist() == python.held()
    assert (native.emitted, native.end) == (python.emitted, python.end)
