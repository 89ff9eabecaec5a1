"""vocab_utils: load_vocab, check_vocab, tables, and the clear errors (DECISIONS 17)."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.errors import ConfigError, FormatError
from minibatcher.nmt import (
    VocabTable,
    check_vocab,
    create_vocab_tables,
    index_table_from_file,
    index_to_string_table_from_file,
    load_vocab,
)


def test_load_vocab_strips_and_counts_blank_lines(write) -> None:
    p = write(b" a \r\n\nb\x0bc\n<s>\n", "v")
    assert load_vocab(str(p)) == (["a", "", "b", "c", "<s>"], 5)  # Python splitlines: VT too


def test_check_vocab_prepends_specials_without_dedup(write, tmp_path) -> None:
    p = write(b"x\ny \n<unk>\n", "vocab.en")
    size, path = check_vocab(str(p), str(tmp_path / "out"))
    assert size == 6 and path == str(tmp_path / "out" / "vocab.en")
    assert (tmp_path / "out" / "vocab.en").read_bytes() == b"<unk>\n<s>\n</s>\nx\ny\n<unk>\n"
    with pytest.raises(FormatError, match=r"vocab.en:6: the word '<unk>' is also on line 1.*"
                                          r"check_vocab prepended"):
        create_vocab_tables(path, path, share_vocab=True)


def test_check_vocab_keeps_a_good_file_and_custom_specials(write, tmp_path) -> None:
    p = write(b"<unk>\n<s>\n</s>\nw\n", "v")
    assert check_vocab(str(p), str(tmp_path)) == (4, str(p))
    q = write(b"U\nS\nE\n", "q")
    assert check_vocab(str(q), str(tmp_path), sos="S", eos="E", unk="U") == (3, str(q))
    assert check_vocab(str(write(b"z\n", "z")), str(tmp_path), check_special_token=False) == \
        (1, str(tmp_path / "z"))
    with pytest.raises(ValueError, match="does not exist"):
        check_vocab(str(tmp_path / "missing"), str(tmp_path))
    with pytest.raises(FormatError, match="at least 3 lines"):
        check_vocab(str(write(b"a\n", "short")), str(tmp_path))


@pytest.mark.parametrize("empty", ["", None])
def test_check_vocab_empty_specials_fall_back_to_the_defaults(write, tmp_path, empty) -> None:
    # nmt: "if not sos: sos = SOS" (and unk, eos): an empty special token means the default
    p = write(b"<unk>\n<s>\n</s>\nw\n", "v")
    assert check_vocab(str(p), str(tmp_path / "o"), sos=empty, eos=empty, unk=empty) == (4, str(p))
    q = write(b"x\ny\nw\n", "q")
    size, path = check_vocab(str(q), str(tmp_path / "o"), sos=empty, eos=empty, unk=empty)
    assert size == 6 and open(path, "rb").read() == b"<unk>\n<s>\n</s>\nx\ny\nw\n"


def test_table_keys_are_whole_lines(write) -> None:
    t = VocabTable.from_file(str(write(b"a\r\nb \n c\n\xc3\xa9", "v")))
    assert t.words == [b"a", b"b ", b" c", "é".encode()]
    assert t.lookup(["a", "b", "b ", "é", "c"]).tolist() == [0, 0, 1, 3, 0]  # OOV -> 0 (UNK_ID)
    assert t.lookup(np.array([[b"a", b"zz"]], dtype=object)).shape == (1, 2)


@pytest.mark.parametrize("content, line", [(b"a\n\nb\n", 2), (b"a\nb\n\n", 3), (b"\r\na\n", 1)])
def test_empty_line_is_a_clear_error(write, content: bytes, line: int) -> None:
    with pytest.raises(FormatError, match=rf"v:{line}: empty line in a vocabulary file"):
        VocabTable.from_file(str(write(content, "v")))


def test_duplicate_word_names_both_lines(write) -> None:
    with pytest.raises(FormatError, match=r"v:4: the word 'b' is also on line 2"):
        VocabTable.from_file(str(write(b"a\nb\nc\nb\n", "v")))


def test_index_tables_and_reverse(write) -> None:
    p = str(write(b"x\ny\nz\n", "v"))
    t = index_table_from_file(p, default_value=-1, vocab_size=2)
    assert t.lookup(["x", "y", "z"]).tolist() == [0, 1, -1]
    r = index_to_string_table_from_file(p, default_value="<unk>")
    assert r.lookup([2, 0, 5, -1]).tolist() == [b"z", b"x", b"<unk>", b"<unk>"]
    assert VocabTable.from_file(p).reverse().lookup(np.int64(1)) == b"y"
    with pytest.raises(ConfigError, match="num_oov_buckets should be 0"):
        index_table_from_file(p, num_oov_buckets=2)
    with pytest.raises(FormatError, match="vocab_size=5 but the file has only 3 lines"):
        index_table_from_file(p, vocab_size=5)


def test_share_vocab_is_the_same_object(write) -> None:
    p = str(write(b"a\n", "v"))
    s, t = create_vocab_tables(p, p, share_vocab=True)
    assert s is t
    s, t = create_vocab_tables(p, p, share_vocab=False)
    assert s is not t and s.words == t.words
