"""The differential suite's functions over files, parsed examples, generators and consumers
(tf_diff_io_ops.py draws them; tf_diff_lang.py's ``FUNCTIONS`` includes them).

Kinds (besides tf_diff_base.Fn's): ``rec`` a serialized ``tf.train.Example`` (a TFRecord
record), ``ex`` the dict ``parse_single_example`` gives with :func:`example_spec`
(``tokens`` a 1-D int64 vector), ``exs`` the same with ``tokens`` a ``VarLenFeature``
(a SparseTensor), ``fix`` a 4-byte record of a ``FixedLengthRecordDataset``, ``u8`` / ``i16``
what ``decode_raw`` makes of 4 bytes, ``path`` a file name from ``list_files``, ``gen`` a
generator for ``from_generator``, ``red:K`` a ``reduce`` function over elements of kind K
(``red:`` any kind) and ``reader`` a ``Dataset.load`` reader function.

The data files (:data:`FILES`) are written once by ``tools/tf_diff.py`` with TensorFlow's own
writers and committed (``tests/data/tf_golden/tf_diff_files/``, under 2 KB).

Example:
    >>> sorted(k for k, f in IO_FUNCTIONS.items() if f.takes == "fix")
    ['raw16(f)', 'raw16be(f)', 'raw8(f)']
    >>> [example(21)["tokens"], example(21)["raw"]]
    [[21], b'V1bB']
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .tf_diff_base import Backend, Fn, dtype_of, io_of, module_of, on_backend, on_dataset, same

# The data files: TFRecord files of examples (by id), fixed-length record files (by count).
TFRECORDS = {"ex-0.tfrecord": [], "ex-1.tfrecord": [0, 1, 2], "ex-2.tfrecord": [10, 11, 12, 13, 14],
             "ex-3.tfrecord": [20, 21]}
GZIP_TFRECORDS = {"exz-0.tfrecord.gz": [30, 31, 32, 33]}
# damaged files (fixed cases only): bytes appended (a bad length CRC), the last 3 bytes cut
DAMAGED_TFRECORDS = {"exbad-0.tfrecord": ([40, 41], b"corrupted data"),
                     "exbad-1.tfrecord": ([42, 43, 44], -3)}
FIXED = {"fl-0.bin": 3, "fl-1.bin": 5, "fl-2.bin": 0}
GZIP_FIXED = {"flz-0.bin.gz": 4}
HEADER, RECORD, FOOTER = b"HH", 4, b"F"


def example(k: int) -> dict[str, Any]:
    """The features of example ``k`` (``score`` missing when ``k % 3 == 0``)."""
    out: dict[str, Any] = {"id": [k], "tokens": [k + j for j in range(k % 4)],
                           "name": b"n%d" % k,
                           "raw": bytes([65 + k % 26, 48 + k % 10, 97 + k % 5, 66 + k % 7])}
    if k % 3:
        out["score"] = [k / 4]
    return out


def fixed_record(file_index: int, i: int) -> bytes:
    """Record ``i`` of the fixed-length file ``file_index`` (printable bytes)."""
    return bytes([97 + (file_index * 7 + i) % 26, 48 + i % 10, 65 + (i * 3) % 26, 35 + file_index])


def example_spec(b: Backend, sparse: bool = False) -> dict[str, Any]:
    """The parsing spec of the examples (``score`` has a default for the records without it)."""
    io, dt = io_of(b), lambda name: dtype_of(b, name)
    return {"id": io.FixedLenFeature([], dt("int64")),
            "tokens": io.VarLenFeature(dt("int64")) if sparse else io.RaggedFeature(dt("int64")),
            "name": io.FixedLenFeature([], dt("string")),
            "raw": io.FixedLenFeature([], dt("string")),
            "score": io.FixedLenFeature([], dt("float32"), default_value=-1.0)}


def _parser(single: bool, sparse: bool) -> Any:
    def make(b: Backend) -> Any:
        spec, io = example_spec(b, sparse), io_of(b)
        parse = io.parse_single_example if single else io.parse_example
        return lambda r: parse(r, spec)
    return on_backend(make)


def _decode(field: str | None, dtype: str, little_endian: bool = True) -> Any:
    def make(b: Backend) -> Any:
        io, out = io_of(b), dtype_of(b, dtype)
        if field is None:
            return lambda r: io.decode_raw(r, out, little_endian=little_endian)
        return lambda e: io.decode_raw(e[field], out, little_endian=little_endian)
    return on_backend(make)


def _cast64(b: Backend) -> Any:
    if b.tf is not None:
        return lambda v: b.tf.cast(v, b.tf.int64)
    return lambda v: v.astype(np.int64)


def _basename(b: Backend) -> Any:
    if b.tf is not None:
        return lambda p: b.tf.strings.regex_replace(p, ".*/", "")
    return lambda p: p.rsplit(b"/", 1)[-1]


def _reader(name: str, **kwargs: Any) -> Any:
    return on_backend(lambda b: lambda p: getattr(module_of(b), name)(p, **kwargs))


def _sparse_values(e: Any) -> Any:
    return e["tokens"].values


def _gen_ints(n: Any) -> Any:
    return ((i * 5 + 2) % 9 for i in range(int(n)))


def _gen_vecs(n: Any) -> Any:
    return ([i + j for j in range(i % 4)] for i in range(int(n)))


def _gen_pairs(n: Any) -> Any:
    return ((i, i % 3) for i in range(int(n)))


def _gen_strs(n: Any) -> Any:
    return ("w%d" % (i * 7 % 10) for i in range(int(n)))


def _size64(b: Backend) -> Any:
    if b.tf is not None:
        return lambda s, v: s + b.tf.size(v, out_type=b.tf.int64)
    return lambda s, v: s + np.int64(len(v))


def _tokens32(b: Backend) -> Any:
    if b.tf is not None:
        return lambda e: b.tf.size(e["tokens"])
    return lambda e: np.int32(len(e["tokens"]))


def _concat(b: Backend) -> Any:
    if b.tf is not None:
        return lambda s, x: b.tf.strings.join([s, x])
    return lambda s, x: s + x


IO_FUNCTIONS: dict[str, Fn] = {
    # records -> examples (one, or a batch of serialized records at once)
    "parse1(r)": Fn("rec", "ex", _parser(True, False)),
    "parse1s(r)": Fn("rec", "exs", _parser(True, True)),
    "parse(rs)": Fn("b:rec", "b:ex", _parser(False, False)),
    "parses(rs)": Fn("b:rec", "b:exs", _parser(False, True)),
    # examples
    "ex['id']": Fn("ex", "int", same(lambda e: e["id"])),
    "ex['tokens']": Fn("ex", "vec", same(lambda e: e["tokens"])),
    "ex['name']": Fn("ex", "str", same(lambda e: e["name"])),
    "raw8(ex)": Fn("ex", "u8", _decode("raw", "uint8")),
    "raw16(ex)": Fn("ex", "i16", _decode("raw", "int16")),
    "ex['id']%2==0": Fn("ex", "bool", same(lambda e: e["id"] % 2 == 0)),
    "ex['id']%3": Fn("ex", "key", same(lambda e: e["id"] % 3)),
    "len32(ex['tokens'])": Fn("ex", "len", on_backend(_tokens32)),
    "exs['tokens'].values": Fn("exs", "vec", same(_sparse_values)),
    "exs['id']": Fn("exs", "int", same(lambda e: e["id"])),
    # fixed-length records and decoded bytes
    "raw8(f)": Fn("fix", "u8", _decode(None, "uint8")),
    "raw16(f)": Fn("fix", "i16", _decode(None, "int16")),
    "raw16be(f)": Fn("fix", "i16", _decode(None, "int16", little_endian=False)),
    "cast64(u)": Fn("u8", "vec", on_backend(_cast64)),
    "cast64(h)": Fn("i16", "vec", on_backend(_cast64)),
    # file names (list_files) -> names, or datasets of their records
    "basename(p)": Fn("path", "str", on_backend(_basename)),
    "D.TFRecord(p)": Fn("path", "ds:rec", _reader("TFRecordDataset")),
    "D.FixedLength(p)": Fn("path", "ds:fix", _reader("FixedLengthRecordDataset", record_bytes=4,
                                                     header_bytes=2, footer_bytes=1)),
    # generators (from_generator's first argument, called with args=(n,))
    "gen:ints": Fn("gen", "int", same(_gen_ints)),
    "gen:vecs": Fn("gen", "vec", same(_gen_vecs)),
    "gen:pairs": Fn("gen", "pair", same(_gen_pairs)),
    "gen:strs": Fn("gen", "str", same(_gen_strs)),
    # reduce functions (state, element) -> state; the element is passed whole
    "s+1": Fn("red:", "int", same(lambda s, x: s + 1)),
    "(s*3+x)%1009": Fn("red:num", "=", same(lambda s, x: (s * 3 + x) % 1009)),
    "s+size(v)": Fn("red:vec", "int", on_backend(_size64)),
    "s+x(str)": Fn("red:str", "str", on_backend(_concat)),
    "s+ex['id']": Fn("red:ex", "int", same(lambda s, e: (s * 3 + e["id"]) % 1009)),
    "s+a*b": Fn("red:pair", "int", same(lambda s, e: s + e[0] * e[1] + 1)),
    # Dataset.load's reader functions (a dataset of one dataset per shard)
    "dss.flat_map(x)": Fn("reader", "=", on_dataset(lambda D: lambda dss: dss.flat_map(
        lambda x: x))),
    "dss.interleave(x,2,2)": Fn("reader", "=", on_dataset(lambda D: lambda dss: dss.interleave(
        lambda x: x, cycle_length=2, block_length=2))),
}
