"""tensorflow/nmt's ``vocab_utils`` and the lookup tables of ``lookup_ops``.

Two readings of a vocabulary file, as in nmt: :func:`load_vocab` (Python's
``splitlines``, each word stripped, blank lines counted) and the lookup table
(:func:`index_table_from_file`: key = the whole line without its ``\\n`` and
one ``\\r`` before it, value = the 0-based line number, OOV -> ``default_value``).
Where TensorFlow fails with an opaque table error (an empty line; a word on two
lines, e.g. after ``check_vocab`` prepended special tokens the file already
had), we raise a clear error naming the lines.

Example:
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "v.txt").write_text("a\\nb\\nc\\n")
    >>> size, path = check_vocab(str(d / "v.txt"), str(d / "out"))
    >>> size, pathlib.Path(path).read_text().split()
    (6, ['<unk>', '<s>', '</s>', 'a', 'b', 'c'])
    >>> src, tgt = create_vocab_tables(path, path, share_vocab=True)
    >>> src is tgt, src.lookup(["b", "zz", "<s>"]).tolist()
    (True, [4, 0, 1])
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from ..errors import ConfigError, FormatError
from ..formats.guarded_file import decode_text, read_small_file
from ..tfdata.text import input_buffer_lines
from .vocab_rewrites import _remember_rewrite, _Rewrite, _rewrite_of

UNK = "<unk>"
SOS = "<s>"
EOS = "</s>"
UNK_ID = 0
_WHAT = "vocabulary file"

# char ids
BOS_CHAR_ID = 256  # <begin sentence>
EOS_CHAR_ID = 257  # <end sentence>
BOW_CHAR_ID = 258  # <begin word>
EOW_CHAR_ID = 259  # <end word>
PAD_CHAR_ID = 260  # <padding>
DEFAULT_CHAR_MAXLEN = 50  # max number of chars for each word.


def load_vocab(vocab_file: str) -> tuple[list[str], int]:
    """``(words, count)``: every line (blank ones too) stripped of surrounding whitespace.

    Example:
        >>> import pathlib, tempfile
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "v"; _ = p.write_bytes(b" a \\r\\n\\nb")
        >>> load_vocab(str(p))
        (['a', '', 'b'], 3)
    """
    vocab = [line.strip() for line in _read_lines(vocab_file)]
    return vocab, len(vocab)


def _read_lines(vocab_file: str) -> list[str]:
    text = decode_text(read_small_file(vocab_file, _WHAT), vocab_file, _WHAT)
    return text.splitlines(keepends=True)


def _newline_numbers(lines: list[str]) -> tuple[int, ...]:
    """The 1-based ``\\n``-counted line (as an editor shows it) of each
    ``splitlines`` line, which also breaks at VT, FF, a lone CR...

    Example:
        >>> _newline_numbers("a\\x0bb\\nc\\r\\nd".splitlines(keepends=True))
        (1, 1, 2, 3)
    """
    out, line = [], 1
    for piece in lines:
        out.append(line)
        line += piece.count("\n")
    return tuple(out)


def check_vocab(vocab_file: str, out_dir: str, check_special_token: bool = True,
                sos: str | None = None, eos: str | None = None,
                unk: str | None = None) -> tuple[int, str]:
    """``(vocab_size, vocab_file)``; prepends ``[unk, sos, eos]`` into
    ``out_dir/<basename>`` when the file does not start with them (no
    de-duplication, as nmt).

    Example:
        >>> import pathlib, tempfile
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "v").write_text("<unk>\\n<s>\\n</s>\\nx\\n")
        >>> check_vocab(str(d / "v"), str(d)) == (4, str(d / "v"))
        True
    """
    if not os.path.exists(vocab_file):
        raise ValueError(f"vocab_file '{vocab_file}' does not exist.")
    lines = _read_lines(vocab_file)
    vocab = [line.strip() for line in lines]
    if check_special_token:
        unk, sos, eos = unk or UNK, sos or SOS, eos or EOS
        if len(vocab) < 3:
            raise FormatError(f"{vocab_file}: a vocabulary should have at least 3 lines (the "
                              f"special tokens {unk} {sos} {eos} first), but it has {len(vocab)}")
        if vocab[:3] != [unk, sos, eos]:
            vocab = [unk, sos, eos] + vocab
            os.makedirs(out_dir, exist_ok=True)
            new_file = os.path.join(out_dir, os.path.basename(vocab_file))
            with open(new_file, "wb") as f:
                f.write("".join(f"{w}\n" for w in vocab).encode("utf-8"))
            _remember_rewrite(new_file, vocab_file, vocab[:3], _newline_numbers(lines))
            vocab_file = new_file
    return len(vocab), vocab_file


def _table_lines(vocabulary_file: str, vocab_size: int | None) -> list[bytes]:
    raw = read_small_file(vocabulary_file, _WHAT)
    starts, ends = input_buffer_lines(np.frombuffer(raw, dtype=np.uint8))
    lines = [raw[a:b] for a, b in zip(starts.tolist(), ends.tolist())]
    if vocab_size is not None:
        if vocab_size > len(lines):
            raise FormatError(f"{vocabulary_file}: vocab_size={vocab_size} but the file has only "
                              f"{len(lines)} lines")
        lines = lines[:vocab_size]
    return lines


def _check_keys(vocabulary_file: str, words: list[bytes]) -> None:
    origin = _rewrite_of(vocabulary_file)
    first: dict[bytes, int] = {}
    for i, w in enumerate(words):
        if not w:
            where, note = origin.where(vocabulary_file, i) if origin and i >= 3 \
                else (f"{vocabulary_file}:{i + 1}", "")
            raise FormatError(f"{where}: empty line in a vocabulary file (every line is a key of "
                              "the lookup table; TensorFlow fails with 'empty line found'); "
                              "remove the line" + (f" ({note})" if note else ""))
        if w in first:
            raise FormatError(_duplicate(vocabulary_file, w.decode("utf-8", "replace"), first[w],
                                         i, origin))
        first[w] = i


def _duplicate(path: str, word: str, first: int, i: int, origin: _Rewrite | None) -> str:
    """The message of ``word`` on 0-based lines ``first`` and ``i`` of ``path``."""
    unique = ("a lookup table needs unique words (TensorFlow fails with 'HashTable has different "
              "value for same key')")
    if origin is None or i < 3:
        return (f"{path}:{i + 1}: the word {word!r} is also on line {first + 1}; {unique}. If "
                f"check_vocab prepended {UNK} {SOS} {EOS}, the original file already had them "
                "later on: put them first")
    where, note = origin.where(path, i)
    if first < 3:
        return (f"{where}: the word {word!r} is also one of the special tokens check_vocab "
                f"prepended ({origin.specials}) because {origin.original} did not start with "
                f"them; {unique}. Put them first in {origin.original} (check_vocab then keeps "
                f"the file as it is), or remove this line ({note})")
    if os.path.abspath(path) == os.path.abspath(origin.original):
        return f"{where}: the word {word!r} is also on line {first + 1}; {unique} ({note})"
    return (f"{where}: the word {word!r} is also on line {origin.lines[first - 3]}; {unique} "
            f"(lines {i + 1} and {first + 1} of {path}; check_vocab wrote it with "
            f"{origin.specials} prepended)")


class VocabTable:
    """A string -> id table (``lookup_ops.index_table_from_file``).

    ``lookup`` takes a str/bytes or a sequence/array of them and returns int64
    ids (``default_value`` for OOV). ``words`` are the keys by id.

    Example:
        >>> t = VocabTable([b"<unk>", b"x"])
        >>> t.lookup("x"), t.lookup(np.array([b"y", b"x"], dtype=object)).tolist(), t.size()
        (np.int64(1), [0, 1], 2)
    """

    def __init__(self, words: Sequence[bytes], default_value: int = UNK_ID, name: str = "") -> None:
        self.words = [bytes(w) for w in words]
        self.default_value = int(default_value)
        self.name = name
        self._ids = {w: i for i, w in reversed(list(enumerate(self.words)))}
        self._native: Any = None

    @classmethod
    def from_file(cls, vocabulary_file: str, default_value: int = UNK_ID,
                  vocab_size: int | None = None) -> "VocabTable":
        """The table of a vocabulary file (empty lines and duplicates are clear errors).

        Example:
            >>> import pathlib, tempfile
            >>> p = pathlib.Path(tempfile.mkdtemp()) / "v"; _ = p.write_bytes(b"a\\r\\nb \\n")
            >>> VocabTable.from_file(str(p)).words
            [b'a', b'b ']
        """
        words = _table_lines(vocabulary_file, vocab_size)
        _check_keys(vocabulary_file, words)
        return cls(words, default_value, os.path.basename(vocabulary_file))

    def size(self) -> int:
        """Number of words (duplicates included: the file's line count).

        Example:
            >>> VocabTable([b"<unk>", b"a", b"b"]).size()
            3
        """
        return len(self.words)

    def __len__(self) -> int:
        return len(self.words)

    def lookup(self, keys: Any) -> Any:
        """Ids of ``keys``: an int64 scalar for one str/bytes key, an int64 array of
        the same shape for a sequence or array of keys (``default_value`` for OOV).

        Example:
            >>> t = VocabTable([b"<unk>", b"a", b"b"])
            >>> t.lookup("b"), t.lookup([b"a", "zz"]).tolist(), t.lookup([["b"], ["a"]]).shape
            (np.int64(2), [1, 0], (2, 1))
        """
        if isinstance(keys, (str, bytes)):
            key = keys.encode("utf-8") if isinstance(keys, str) else keys
            return np.int64(self._ids.get(key, self.default_value))
        arr = np.asarray(keys, dtype=object)
        get, default = self._ids.get, self.default_value
        flat = [get(k.encode("utf-8") if isinstance(k, str) else k, default) for k in arr.ravel()]
        return np.asarray(flat, dtype=np.int64).reshape(arr.shape)

    def native(self) -> Any:
        """The native table used by the fast path (built once, then cached).

        Example:
            >>> t = VocabTable([b"<unk>", b"a"])
            >>> t.native() is t.native()
            True
        """
        if self._native is None:
            from .. import _native, exit_guard
            self._native = _native.TextVocab(self.words)
            exit_guard.release_at_exit(self, VocabTable._release_native)
        return self._native

    def _release_native(self) -> None:
        """At interpreter exit: drops the native table (rebuilt if asked again)."""
        self._native = None

    def fingerprint(self) -> Any:
        """Identity for checkpoints: ``[name, size, default_value, digest of the words]``.

        Example:
            >>> a, b = VocabTable([b"x", b"y"]), VocabTable([b"x", b"z"])
            >>> a.fingerprint()[:3], a.fingerprint() == b.fingerprint()
            (['', 2, 0], False)
        """
        import hashlib
        h = hashlib.blake2b(b"\n".join(self.words), digest_size=8).hexdigest()
        return [self.name, len(self.words), self.default_value, h]

    def reverse(self, default_value: str = UNK) -> "ReverseVocabTable":
        """The id -> word table over the same words.

        Example:
            >>> VocabTable([b"a", b"b"]).reverse().lookup([1, 7]).tolist()
            [b'b', b'<unk>']
        """
        return ReverseVocabTable(self.words, default_value)


class ReverseVocabTable:
    """An id -> word table (``lookup_ops.index_to_string_table_from_file``).

    Example:
        >>> ReverseVocabTable([b"x"], "UNK").lookup(np.array([[0, 3]])).tolist()
        [[b'x', b'UNK']]
    """

    def __init__(self, words: Sequence[bytes], default_value: str | bytes = "UNK") -> None:
        self.words = np.asarray(list(words) + [b""], dtype=object)
        self.default_value = default_value.encode() if isinstance(default_value, str) \
            else bytes(default_value)

    def size(self) -> int:
        """Number of words (ids ``0 .. size() - 1``).

        Example:
            >>> ReverseVocabTable([b"a", b"b"]).size()
            2
        """
        return len(self.words) - 1

    def lookup(self, ids: Any) -> Any:
        """Words of ``ids`` (bytes; ``default_value`` outside ``[0, size)``): one
        word for a scalar id, an object array of the same shape otherwise.

        Example:
            >>> r = ReverseVocabTable([b"a", b"b"], "<unk>")
            >>> r.lookup(1), r.lookup([0, -1, 2]).tolist()
            (b'b', [b'a', b'<unk>', b'<unk>'])
        """
        arr = np.asarray(ids, dtype=np.int64)
        out = np.empty(arr.shape, dtype=object)
        inside = (arr >= 0) & (arr < self.size())
        out[inside] = self.words[arr[inside]]
        out[~inside] = self.default_value
        return out if out.shape else out[()]


def index_table_from_file(vocabulary_file: str, num_oov_buckets: int = 0,
                          vocab_size: int | None = None, default_value: int = -1,
                          **unused: Any) -> VocabTable:
    """``tf.lookup``'s ``index_table_from_file`` (whole lines as keys).

    Example:
        >>> import pathlib, tempfile
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "v"; _ = p.write_bytes(b"a\\nb")
        >>> index_table_from_file(str(p)).lookup(["b", "c"]).tolist()
        [1, -1]
    """
    if num_oov_buckets:
        raise ConfigError(f"num_oov_buckets should be 0 (OOV words get default_value, as in "
                          f"tensorflow/nmt), but got num_oov_buckets={num_oov_buckets}")
    return VocabTable.from_file(vocabulary_file, default_value, vocab_size)


def index_to_string_table_from_file(vocabulary_file: str, vocab_size: int | None = None,
                                    default_value: str = "UNK", **unused: Any) -> ReverseVocabTable:
    """``tf.lookup``'s ``index_to_string_table_from_file`` (the reverse table).

    Example:
        >>> import pathlib, tempfile
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "v"; _ = p.write_bytes(b"a\\nb\\n")
        >>> index_to_string_table_from_file(str(p), default_value=UNK).lookup([1, 2]).tolist()
        [b'b', b'<unk>']
    """
    return ReverseVocabTable(_table_lines(vocabulary_file, vocab_size), default_value)


def create_vocab_tables(src_vocab_file: str, tgt_vocab_file: str,
                        share_vocab: bool) -> tuple[VocabTable, VocabTable]:
    """``(src_table, tgt_table)`` with ``default_value=UNK_ID``; with
    ``share_vocab`` the target table *is* the source table.

    Example:
        >>> import pathlib, tempfile
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "s").write_text("a\\n"); _ = (d / "t").write_text("b\\n")
        >>> s, t = create_vocab_tables(str(d / "s"), str(d / "t"), False)
        >>> s is t, t.lookup("b")
        (False, np.int64(0))
    """
    src = VocabTable.from_file(src_vocab_file, UNK_ID)
    tgt = src if share_vocab else VocabTable.from_file(tgt_vocab_file, UNK_ID)
    return src, tgt
