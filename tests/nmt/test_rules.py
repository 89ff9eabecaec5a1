"""Each rule of nmt's get_iterator / get_infer_iterator (spec §2-§4), hand-computed,
on the fast path and on the tfdata port (the ``path`` fixture)."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.nmt import VocabTable
from minibatcher.tfdata import Dataset, random_seed_scope

from .conftest import infer, rows, train


def test_space_only_split_and_oov(path, table) -> None:
    (src, tin, tout, sl, tl), = rows(train(path, ["a  b\tc  d ", " \xa0a"], ["c", "d d"], table))
    # tokens: [a, "b\tc", d] and ["\xa0a"]: TAB and NBSP stay inside tokens (OOV -> 0)
    assert src == [[3, 0, 6], [0, 2, 2]] and sl == [3, 1]
    assert tin == [[1, 5, 2], [1, 6, 6]] and tout == [[5, 2, 2], [6, 6, 2]] and tl == [2, 3]


def test_filter_before_truncation_and_specials_after(path, table) -> None:
    src = ["   ", "a b c", "", "d", "b"]
    tgt = ["a", "a b c d", "b", " ", "c"]
    (s, tin, tout, sl, tl), = rows(train(path, src, tgt, table, src_max_len=2, tgt_max_len=3))
    # pairs 0 (space-only source), 2 (empty source) and 3 (space-only target) are filtered
    assert s == [[3, 4], [4, 2]] and sl == [2, 1]
    assert tin == [[1, 3, 4, 5], [1, 5, 2, 2]] and tout == [[3, 4, 5, 2], [5, 2, 2, 2]]
    assert tl == [4, 2]  # target words after truncation + 1


def test_negative_max_len_truncates_like_python_slicing(path, table) -> None:
    (s, _, _, sl, _), = rows(train(path, ["a b c", "d"], ["a", "b"], table, src_max_len=-1))
    assert s == [[3, 4], [2, 2]] and sl == [2, 0]  # "d"[:-1] is empty: kept, not filtered


def test_eos_padding_with_distinct_vocabularies(path) -> None:
    src_table = VocabTable([b"</s>", b"a", b"b"])           # src eos id 0
    tgt_table = VocabTable([b"a", b"b", b"<s>", b"</s>"])   # tgt sos 2, eos 3
    (s, tin, tout, _, _), = rows(train(path, ["a b", "b"], ["a", "b b a"], src_table, tgt_table))
    assert s == [[1, 2], [2, 0]]
    assert tin == [[2, 0, 3, 3], [2, 1, 1, 0]] and tout == [[0, 3, 3, 3], [1, 1, 0, 3]]


def test_missing_specials_look_up_as_zero(path) -> None:
    t = VocabTable([b"a", b"b"])
    (s, tin, tout, _, _), = rows(train(path, ["a", "b b"], ["b", "b"], t))
    assert tin == [[0, 1], [0, 1]] and tout == [[1, 0], [1, 0]] and s == [[0, 0], [1, 1]]


@pytest.mark.parametrize("empty", ["", b"", None])
def test_empty_sos_eos_fall_back_to_the_defaults(path, table, empty) -> None:
    # spec §1: falsy sos/eos fall back to vocab_utils.SOS/EOS (nmt's hparams); they are not
    # looked up as "" (which would give UNK_ID 0 for <s>, </s> and the padding)
    src, tgt = ["a b", "c"], ["d", "a b"]
    want = rows(train(path, src, tgt, table))
    assert want[0][1] == [[1, 6, 2], [1, 3, 4]]
    assert rows(train(path, src, tgt, table, sos=empty, eos=empty)) == want
    got = rows(infer(path, ["a b", "c"], table, batch_size=4, eos=empty))
    assert got == rows(infer(path, ["a b", "c"], table, batch_size=4))
    assert got[0][0] == [[3, 4], [5, 2]]


def test_zip_stops_at_the_shorter_file(path, table) -> None:
    got = rows(train(path, ["a", "b", "c", "d", "a"], ["a", "b"], table))
    assert got[0][0] == [[3], [4]]


def test_shard_counts_raw_lines_then_skip(path, table) -> None:
    src = ["", "a", "b", "c", "d", "a b", "c"]
    tgt = ["a"] * 7
    # shard(2, 1) keeps raw lines 1, 3, 5 (the empty line 0 counts); skip(1) drops line 1
    (s, *_), = rows(train(path, src, tgt, table, num_shards=2, shard_index=1, skip_count=1))
    assert s == [[5, 2], [3, 4]]
    # shard 0 keeps 0, 2, 4, 6: line 0 is then filtered
    (s0, *_), = rows(train(path, src, tgt, table, num_shards=2, shard_index=0))
    assert s0 == [[4], [6], [5]]


def test_bucket_key_overflow_through_the_source(path, table) -> None:
    # src_max_len 20, num_buckets 5: width 4; a 20-word source (truncated) has key 5
    long = " ".join(["a"] * 25)
    src = [long, "a", long, "b", "c c c c", "d"]
    tgt = ["a"] * 6
    got = rows(train(path, src, tgt, table, batch_size=2, num_buckets=5, src_max_len=20))
    # keys: 5, 0, 5, 0, 1, 0 -> full windows as they fill: key 5 at element 2, key 0 at
    # element 3; then partial windows by ascending key: key 0 ([d]), key 1 ([c c c c])
    assert [g[3] for g in got] == [[20, 20], [1, 1], [1], [4]]
    assert got[2][0] == [[6]] and got[3][0] == [[5, 5, 5, 5]]


def test_bucket_key_overflow_through_the_target(path, table) -> None:
    # src_max_len 23, num_buckets 3: width 8; a 30-word target (tgt_len 31) has key 3
    tgt = [" ".join(["b"] * 30), "a", "a", " ".join(["b"] * 7)]
    src = ["a", "a", "b", "c"]
    got = rows(train(path, src, tgt, table, batch_size=2, num_buckets=3, src_max_len=23,
                     tgt_max_len=30))
    # keys: 31//8=3, 0, 0, 8//8=1 (tgt_len counts <s>) -> [1,2] full, then 1 -> [3], 3 -> [0]
    assert [g[4] for g in got] == [[2, 2], [8], [31]]


def test_width_10_without_src_max_len(path, table) -> None:
    src = [" ".join(["a"] * n) for n in (9, 10, 25, 3)]
    got = rows(train(path, src, ["a"] * 4, table, batch_size=4, num_buckets=2, tgt_max_len=5))
    # only tgt_max_len set: width 10; keys 0, 1, 2 -> min(2, 2) = 2, 0; all partial, by key
    assert [g[3] for g in got] == [[9, 3], [10], [25]]


def test_char_encoding(path, table) -> None:
    src = ["ab " + "x" * 60, "c"]
    (s, tin, _, sl, tl), = rows(train(path, src, ["a", "b"], table, use_char_encode=True))
    word_ab = [259, 98, 99, 260] + [261] * 46
    word_x = [259] + [121] * 48 + [260]  # 48 bytes kept, then EOW, no PAD left
    word_c = [259, 100, 260] + [261] * 47
    assert s[0] == word_ab + word_x and s[1] == word_c + [257] * 50  # batch padding: 257
    assert sl == [2, 1] and tin == [[1, 3], [1, 4]] and tl == [2, 2]


def test_seeded_shuffle_matches_tfdata_and_reshuffles(path, table) -> None:
    src = [" ".join(["a"] * (i % 5 + 1)) + f" {i}" for i in range(40)]
    tgt = ["b"] * 40
    with random_seed_scope(None):
        ds = train(path, src, tgt, table, batch_size=40, output_buffer_size=16, random_seed=7)
        order = Dataset.range(40).shuffle(16, seed=7)
    for _ in range(2):
        (s, _, _, sl, _), = rows(ds)
        expected = [i % 5 + 2 for i in order]
        assert sl == expected


def test_buffer_size_zero_means_the_default(path, table) -> None:
    src = [f"a {i}" for i in range(30)]
    with random_seed_scope(None):
        zero = rows(train(path, src, ["b"] * 30, table, batch_size=30, output_buffer_size=0))
        default = rows(train(path, src, ["b"] * 30, table, batch_size=30, output_buffer_size=None))
    assert zero == default


def test_infer_no_filter_and_empty_batches(path, table) -> None:
    got = rows(infer(path, ["a b", "", "  ", "c d a", "", ""], table, batch_size=3,
                     src_max_len=2))
    assert got[0] == ([[3, 4], [2, 2], [2, 2]], None, None, [2, 0, 0], None)
    assert got[1] == ([[5, 6], [2, 2], [2, 2]], None, None, [2, 0, 0], None)
    (s, *_), = rows(infer(path, ["", " "], table, batch_size=4))
    assert np.asarray(s).shape == (2, 0) and s == [[], []]


def test_infer_char_encoding(path, table) -> None:
    (s, _, _, sl, _), = rows(infer(path, ["ab cd", "e"], table, batch_size=2,
                                   use_char_encode=True, src_max_len=1))
    assert sl == [1, 1] and len(s[0]) == 50 and s[1][:3] == [259, 102, 260]
