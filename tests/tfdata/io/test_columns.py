"""The columnar parse (parse_example_columns) against the element-wise functions: row(i) is
parse_single_example of record i, batch(lo, hi) is parse_example of records lo..hi-1, and a bad
record's error carries its index and the columns before it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from minibatcher import tfdata
from minibatcher.formats.tfrecord import encode_example
from minibatcher.tfdata import RaggedTensor, SparseTensor, io

R = io.RaggedFeature
SPEC = {
    "label": io.FixedLenFeature([], tfdata.int64),
    "img": io.FixedLenFeature([], tfdata.string),
    "w": io.FixedLenFeature([2], tfdata.float32, default_value=[0.5, 1.5]),
    "tags": io.VarLenFeature(tfdata.string),
    "seq": io.FixedLenSequenceFeature([2], tfdata.int64, allow_missing=True, default_value=-1),
    "r": R(tfdata.int64, value_key="rv", partitions=[R.RowLengths("rl")]),
    "flat": R(tfdata.float32, value_key="fv"),
}


def _records() -> list[bytes]:
    out = []
    for i in range(7):
        ex: dict[str, Any] = {"label": [i], "img": [bytes([i]) * i], "tags": np.array([b"t"] * (i % 3), "S1"),
                              "seq": np.arange(2 * (i % 4)), "rv": np.arange(i), "rl": [i],
                              "fv": np.full(i % 3, 0.25, np.float32)}
        if i % 2:
            ex["w"] = np.array([i, -i], np.float32)
        if i % 3 == 0:
            ex["tags"] = np.zeros(0, "S")
        out.append(encode_example(ex))
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (SparseTensor, RaggedTensor)):
        return a == b
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def _block(records: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    return (np.frombuffer(b"".join(records), np.uint8),
            np.cumsum([0] + [len(r) for r in records]))


def test_rows_and_batches_equal_the_element_functions() -> None:
    records = _records()
    cols = io.parse_example_columns(*_block(records), SPEC)
    assert set(cols) == set(SPEC) and all(len(c) == len(records) for c in cols.values())
    for i, rec in enumerate(records):
        single = io.parse_single_example(rec, SPEC)
        assert all(_same(cols[k].row(i), single[k]) for k in SPEC), i
    for lo, hi in [(0, 7), (2, 5), (3, 3), (6, 7)]:
        batch = io.parse_example(records[lo:hi], SPEC)
        assert all(_same(cols[k].batch(lo, hi), batch[k]) for k in SPEC), (lo, hi)


def test_map_then_batch_equals_batch_then_parse_example() -> None:
    # a plain batch cannot stack sequences or 1-D ragged values of other lengths (as in TF)
    spec = {k: v for k, v in SPEC.items() if k not in ("seq", "flat")}
    ds = tfdata.Dataset.from_tensor_slices(np.array(_records(), dtype=object))
    a = list(ds.map(lambda r: io.parse_single_example(r, spec)).batch(3))
    b = list(ds.batch(3).map(lambda r: io.parse_example(r, spec)))
    assert len(a) == len(b) == 3
    assert all(_same(x[k], y[k]) for x, y in zip(a, b) for k in spec)


def test_offsets_may_start_inside_the_buffer() -> None:
    records = _records()
    data, offsets = _block(records)
    cols = io.parse_example_columns(np.concatenate([np.zeros(5, np.uint8), data]), offsets[2:] + 5,
                                    SPEC)
    assert len(cols["label"]) == 5 and cols["label"].row(0) == 2


def test_a_bad_record_reports_its_index_and_the_columns_before_it() -> None:
    records = _records()
    records[4] = encode_example({"label": [1, 2]})
    with pytest.raises(io.BlockParseError) as info:
        io.parse_example_columns(*_block(records), SPEC)
    assert info.value.record == 4 and isinstance(info.value, tfdata.errors.InvalidArgumentError)
    assert str(info.value) == ("Key: label.  Can't parse serialized Example: Some int64_list "
                               "slice was not parsed.")
    partial = info.value.partial
    assert len(partial["tags"]) == 4 and partial["label"].batch().tolist() == [0, 1, 2, 3]
    with pytest.raises(io.BlockParseError, match=r"^Name: <unknown>, Key: label, Index: 4\."):
        io.parse_example_columns(*_block(records), SPEC, mode="batch")


def test_malformed_record_in_a_block() -> None:
    records = _records()[:3] + [b"\x0a\x05\x0a"]
    with pytest.raises(io.BlockParseError, match="Could not parse example input") as info:
        io.parse_example_columns(*_block(records), SPEC)
    assert info.value.record == 3 and len(info.value.partial["w"]) == 3


def test_record_block_hook() -> None:
    records = _records()
    block = io.RecordBlock(*_block(records))
    cols = io.parse_single_example(block, SPEC)
    assert cols["label"].batch().tolist() == list(range(7))
    assert io.parse_example(block, SPEC)["img"].row(3) == b"\x03\x03\x03"
    with pytest.raises(ValueError, match="offsets"):
        io.RecordBlock(b"abc", [0, 4])


def test_empty_block() -> None:
    cols = io.parse_example_columns(b"", [0], SPEC)
    batch = {k: c.batch() for k, c in cols.items()}
    assert batch["label"].shape == (0,) and batch["w"].shape == (0, 2)
    assert batch["tags"].dense_shape.tolist() == [0, 0] and batch["seq"].shape == (0, 0, 2)
    assert batch["r"].nrows() == 0 and batch["r"].ragged_rank == 2


def test_decode_raw_of_a_string_column_reads_the_native_buffer() -> None:
    rng = np.random.default_rng(1)
    images = [rng.integers(0, 256, 12, dtype=np.uint8).tobytes() for _ in range(5)]
    records = [encode_example({"img": [im], "label": [i]}) for i, im in enumerate(images)]
    spec = {"img": io.FixedLenFeature([], tfdata.string), "label": io.FixedLenFeature([], "int64")}
    cols = io.parse_example_columns(*_block(records), spec)
    assert cols["img"].strings() is not None  # no bytes objects made for the block
    decoded = io.decode_raw(cols["img"], tfdata.int16, little_endian=False)
    assert decoded.values.shape == (5, 6)  # Rows: values[i] is element i's
    assert decoded.values.base is not None  # a view of the native buffer, not a join
    for i, rec in enumerate(records):
        one = io.decode_raw(io.parse_single_example(rec, spec)["img"], tfdata.int16,
                            little_endian=False)
        assert np.array_equal(decoded.values[i], one) and decoded.values[i].dtype == one.dtype
    padded = io.decode_raw(cols["img"], tfdata.uint8, fixed_length=16)  # the general path
    assert padded.values.shape == (5, 16) and padded.values[2][:12].tobytes() == images[2]


def test_sparse_feature_lists_that_differ_in_a_record_are_refused() -> None:
    # TF compares only the batch's totals (equal here) and misplaces values; we name the record
    spec = {"s": io.SparseFeature("ix", "v", "float32", 5)}
    records = [encode_example({"ix": [1, 2], "v": np.array([1], np.float32)}),
               encode_example({"ix": [3], "v": np.array([1, 2], np.float32)})]
    with pytest.raises(tfdata.errors.InvalidArgumentError,
                       match="^Dimensions 2 and 1 are not compatible$"):
        io.parse_example(records, spec)
    ok = encode_example({"ix": [4, 0], "v": np.array([1, 2], np.float32)})
    cols = io.parse_example_columns(*_block([ok, ok]), spec)
    assert cols["s"].row(1) == io.parse_single_example(ok, spec)["s"]
    assert cols["s"].batch() == io.parse_example([ok, ok], spec)["s"]
    assert cols["s"].row(0).indices.tolist() == [[0], [4]]


def test_a_lifted_decode_raw_pipeline_makes_no_bytes_objects(tmp_path: Any,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """map(parse_single_example).map(decode_raw) under block execution: the images go from
    the native parse buffer to the decoded block without one bytes object per record, and
    the batches are the element path's."""
    from types import SimpleNamespace

    from minibatcher.formats.tfrecord import TFRecordWriter
    from minibatcher.tfdata import TFRecordDataset
    from minibatcher.tfdata.block import block_execution
    from minibatcher.tfdata.io import columns

    path = str(tmp_path / "img.tfrecord")
    with TFRecordWriter(path) as w:
        for i in range(11):
            w.write(encode_example({"img": [bytes(range(i, i + 8))], "label": [i]}))
    spec = {"img": io.FixedLenFeature([], tfdata.string), "label": io.FixedLenFeature([], "int64")}

    def pipeline() -> Any:
        return TFRecordDataset(path).map(lambda r: io.parse_single_example(r, spec)).map(
            lambda e: (np.reshape(io.decode_raw(e["img"], tfdata.uint16), (2, 2)),
                       e["label"] * 2)).batch(4)

    with block_execution(False):
        expected = [(x.tolist(), y.tolist()) for x, y in pipeline()]
    splits: list[int] = []
    native = columns._native
    monkeypatch.setattr(columns, "_native", SimpleNamespace(
        split_bytes=lambda *a: splits.append(1) or native.split_bytes(*a)))
    with block_execution(True):
        got = [(x.tolist(), y.tolist()) for x, y in pipeline()]
    assert got == expected and len(got) == 3 and expected[2][1] == [16, 18, 20]
    assert splits == []  # no bytes object made for any image
