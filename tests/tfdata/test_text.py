"""TextLineDataset: TensorFlow's line rules, compression, several files."""

from __future__ import annotations

import gzip
import zlib

import pytest

from minibatcher.errors import ConfigError, FormatError
from minibatcher.tfdata import Dataset, TextLineDataset


@pytest.mark.parametrize("content, lines", [
    (b"a\nb\n", [b"a", b"b"]),
    (b"a\nb", [b"a", b"b"]),                       # no final newline
    (b"a\r\nb\r\n", [b"a", b"b"]),                 # CRLF: the \r before \n goes
    (b"a\rb\n", [b"ab"]),                          # a lone CR is no line break; it is dropped
    (b"a\r\r\n", [b"a"]),                          # every \r is dropped (BufferedInputStream)
    (b"x\n\r\ny\n", [b"x", b"", b"y"]),
    (b"\n\n", [b"", b""]),                         # empty lines count
    (b"", []),
    (b"x\n\r", [b"x"]),                            # a last "line" of only \r is no line
    (b"x\n \r", [b"x", b" "]),
    (b"v\x0bf\x0cn\xc2\xa0\xe2\x80\xa8t\tz", [b"v\x0bf\x0cn\xc2\xa0\xe2\x80\xa8t\tz"]),
])
def test_line_rules(write, content: bytes, lines: list[bytes]) -> None:
    assert list(TextLineDataset(str(write(content, "t.txt")))) == lines


def test_compressed_files(write) -> None:
    text = b"one\ntwo\r\nthree"
    g = write(gzip.compress(text), "t.gz")
    z = write(zlib.compress(text), "t.z")
    expected = [b"one", b"two", b"three"]
    assert list(TextLineDataset(str(g), compression_type="GZIP")) == expected
    assert list(TextLineDataset(str(z), compression_type="ZLIB")) == expected
    with pytest.raises(FormatError, match="cannot decompress as GZIP"):
        TextLineDataset(str(write(text, "plain")), compression_type="GZIP")
    with pytest.raises(ConfigError, match="compression_type should be one of"):
        TextLineDataset(str(g), compression_type="BZ2")


def test_several_files_sequential_and_parallel(write) -> None:
    a = write(b"a0\na1\na2\n", "a")
    b = write(b"b0\n", "b")
    c = write(b"c0\nc1\n", "c")
    assert list(TextLineDataset([str(a), str(b), str(c)])) == \
        [b"a0", b"a1", b"a2", b"b0", b"c0", b"c1"]
    # num_parallel_reads=2: interleave with cycle 2, block 1 (TF)
    assert list(TextLineDataset([a, b, c], num_parallel_reads=2)) == \
        [b"a0", b"b0", b"a1", b"a2", b"c0", b"c1"]
    names = Dataset.from_tensor_slices([str(b), str(c)])
    assert list(TextLineDataset(names)) == [b"b0", b"c0", b"c1"]


def test_missing_file_names_the_path(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        TextLineDataset(str(tmp_path / "nope.txt"))


def test_skip_and_shard_seek(write) -> None:
    ds = TextLineDataset(str(write(b"".join(b"%d\n" % i for i in range(1000)), "n")))
    assert list(ds.shard(7, 3).skip(100).take(2)) == [b"703", b"710"]
    assert len(ds.sources[0]) == 1000 and ds.cardinality() == -2  # TF: unknown
