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
    # the error names the original file and its line (line 6 of the rewritten file)
    with pytest.raises(FormatError, match=rf"^{p}:3: the word '<unk>' is also one of the special "
                                          r"tokens check_vocab prepended .*line 6 of .*out"):
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


@pytest.mark.parametrize("content, line", [(b"x\n\ny\n", 2), (b"x\r\ny\n  \n", 3),
                                           (b"x\x0by\nz\n\n", 3)])
def test_blank_line_after_check_vocab_names_the_original_line(write, tmp_path, content: bytes,
                                                              line: int) -> None:
    # check_vocab rewrites the file with <unk> <s> </s> first (nmt, no de-duplication): the
    # blank line moves down 3 lines (or more when splitlines breaks a line at a VT); the error
    # names the original file and its own line, and the rewritten file's line
    src = write(content, "vocab.de")
    _, path = check_vocab(str(src), str(tmp_path / "out"))
    with pytest.raises(FormatError) as err:
        VocabTable.from_file(path)
    message = str(err.value)
    assert message.startswith(f"{src}:{line}: empty line in a vocabulary file"), message
    rewritten = open(path, "rb").read().split(b"\n").index(b"") + 1
    assert f"(line {rewritten} of {path}; check_vocab wrote it with <unk> <s> </s> prepended)" \
        in message


def test_duplicate_after_check_vocab_names_both_original_lines(write, tmp_path) -> None:
    src = write(b"a\nb\nc\nb\n", "vocab.de")
    _, path = check_vocab(str(src), str(tmp_path / "out"))
    with pytest.raises(FormatError, match=rf"^{src}:4: the word 'b' is also on line 2; .*"
                                          rf"\(lines 7 and 5 of {path}; check_vocab wrote it"):
        VocabTable.from_file(path)


def test_check_vocab_in_place_names_both_lines(write, tmp_path) -> None:
    src = write(b"x\ny\n\n", "vocab.de")  # out_dir is the file's own folder: nmt overwrites it
    _, path = check_vocab(str(src), str(tmp_path))
    assert path == str(src)
    with pytest.raises(FormatError, match=rf"^{src}:6: empty line .*line 3 before check_vocab"):
        VocabTable.from_file(path)


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
