"""The byte-exact edge file of the spec: CRLF, lone CR, NBSP, VT, FF, TAB, empty lines, lines of
spaces, literal special tokens, UTF-8, no final newline; training through TextLineDataset,
inference through str.splitlines() (nmt's load_data) and through TextLineDataset."""

from __future__ import annotations

import pytest

from minibatcher.nmt import VocabTable
from minibatcher.tfdata import TextLineDataset

from .conftest import infer, rows, train

SRC = (b"a b\r\n" b"c\rd\n" b"a\xc2\xa0b\n" b"a\x0bb\n" b"c\x0cd\n" b"\n" b"   \n"
       b"<s> </s> <unk>\n" b"a\tb\n" b"\xc3\xa9 \xc3\xbc a\n" b"  d  c \n" b"b a")
TGT = b"a\nb\nc\nd\na b\na\nb\n\nc\nd\n<s> a\nb\n"
VOCAB = [b"<unk>", b"<s>", b"</s>", b"a", b"b", b"c", b"d", "é".encode(), b"cd"]


def test_line_counts(write) -> None:
    path = write(SRC, "edge.src")
    assert len(SRC.decode().splitlines()) == 15
    assert len(list(TextLineDataset(str(path)))) == 12


def test_a_string_with_a_lone_cr_keeps_it_inside_the_word(path) -> None:
    # from_tensor_slices strings are split on ' ' only: "c\rd" stays one OOV word
    (s, *_), = rows(train(path, ["c\rd"], ["a"], VocabTable(VOCAB)))
    assert s == [[0]]


@pytest.mark.parametrize("num_buckets", [1, 5])
def test_train_through_text_line_dataset(write, path, num_buckets: int) -> None:
    src = TextLineDataset(str(write(SRC, "edge.src")))
    tgt = TextLineDataset(str(write(TGT, "edge.tgt")))
    # spec §6: num_buckets 1 and 5; every pair has fewer than 10 words (key 0 of width 10), so
    # both give one batch of the kept pairs in file order
    (s, tin, tout, sl, tl), = rows(train(path, src, tgt, VocabTable(VOCAB), batch_size=16,
                                         num_buckets=num_buckets))
    # kept pairs: lines 1-5 and 9-12 (6 and 7: empty/space-only source; 8: empty target);
    # TextLineDataset drops every \r (line 2 "c\rd" is the word "cd"); NBSP, VT, FF and TAB
    # stay inside words (OOV)
    assert sl == [2, 1, 1, 1, 1, 1, 3, 2, 2]
    assert [r[:n] for r, n in zip(s, sl)] == [[3, 4], [8], [0], [0], [0], [0], [7, 0, 3], [6, 5],
                                              [4, 3]]
    assert tin[6] == [1, 6, 2] and tin[7] == [1, 1, 3]  # literal <s> is an ordinary token id
    assert tout[7] == [1, 3, 2] and tl[7] == 3


def test_train_buckets_of_width_1(write, path) -> None:
    src = TextLineDataset(str(write(SRC, "edge.src")))
    tgt = TextLineDataset(str(write(TGT, "edge.tgt")))
    got = rows(train(path, src, tgt, VocabTable(VOCAB), batch_size=2, num_buckets=5,
                     src_max_len=5))
    # width ceil(5/5) = 1, so key = max(src words, target words + 1): kept pairs 0-8 have keys
    # [2, 2, 2, 2, 3, 2, 3, 3, 2]; windows of 2 fill as (0, 1), (2, 3), (4, 6), (5, 8), then
    # the partial window of key 3 (pair 7) is flushed
    assert [b[3] for b in got] == [[2, 1], [1, 1], [1, 3], [1, 2], [2]]
    assert [b[4] for b in got] == [[2, 2], [2, 2], [3, 2], [2, 2], [3]]
    assert got[2][0] == [[0, 2, 2], [7, 0, 3]]  # "c\x0cd" (OOV) padded with </s>; "é ü a"
    assert got[4][1] == [[1, 1, 3]]  # "<s> a": the literal <s> is an ordinary token


def test_infer_splitlines_vs_text_line_dataset(write, path) -> None:
    table = VocabTable(VOCAB)
    split = rows(infer(path, SRC.decode().splitlines(), table, batch_size=32))[0]
    assert split[3] == [2, 1, 1, 1, 1, 1, 1, 1, 0, 0, 3, 1, 3, 2, 2]
    assert [r[:n] for r, n in zip(split[0], split[3])][:8] == [[3, 4], [5], [6], [0], [3], [4], [5],
                                                               [6]]
    lines = rows(infer(path, TextLineDataset(str(write(SRC, "edge.src"))), table, batch_size=32))[0]
    assert lines[3] == [2, 1, 1, 1, 1, 0, 0, 3, 1, 3, 2, 2]
    assert lines[0][7] == [1, 2, 0]  # the literal specials, padded with </s> (2) to width 3
