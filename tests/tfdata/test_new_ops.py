"""Behaviour of the issue 13.10 ops beyond the TF goldens: argument errors, file edge cases,
TF names we do not provide, and the values TF's own probes gave (cited where used)."""

from __future__ import annotations

import gzip
import os

import numpy as np
import pytest

from minibatcher.errors import FileChangedError, NotSupportedError
from minibatcher.tfdata import Dataset, FixedLengthRecordDataset, RaggedTensor, errors
from minibatcher.tfdata.unsupported import MISSING


@pytest.mark.parametrize("name", sorted(MISSING))
def test_tf_methods_we_lack_say_so(name: str) -> None:
    with pytest.raises(NotSupportedError, match=f"Dataset.{name} .*is not supported.*Dataset "
                                                "has: apply, as_numpy_iterator"):
        getattr(Dataset.range(2), name)


def test_other_missing_names_are_attribute_errors() -> None:
    ds = Dataset.range(2)
    assert not hasattr(ds, "no_such_method")
    assert getattr(ds, "_no_such_field", 7) == 7
    with pytest.raises(AttributeError, match="'SourceDataset' object has no attribute 'x'"):
        _ = ds.x


def test_window_and_rebatch_arguments() -> None:
    for kwargs, what in (({"size": 0}, "size"), ({"size": 2, "shift": -1}, "shift"),
                         ({"size": 2, "stride": 0}, "stride")):
        with pytest.raises(errors.InvalidArgumentError, match=f"Window {what} must be greater"):
            Dataset.range(3).window(**kwargs)
    with pytest.raises(ValueError, match="non-empty list"):
        Dataset.range(4).batch(2).rebatch([])
    with pytest.raises(ValueError, match="non-negative.*TF loops forever"):
        Dataset.range(4).batch(2).rebatch(-1)
    with pytest.raises(TypeError, match="batch_size should be an integer"):
        Dataset.range(4).batch(2).rebatch(2.0)
    with pytest.raises(ValueError, match="scalar or a vector"):
        Dataset.range(4).batch(2).rebatch([[1]])


def test_rebatch_of_size_zero_gives_empty_batches_forever() -> None:
    # TF 2.21: range(10).batch(4).rebatch(0) yields empty batches without end
    empties = list(Dataset.range(10).batch(4).rebatch(0).take(50))
    assert len(empties) == 50 and all(b.shape == (0,) and b.dtype == np.int64 for b in empties)


def test_unbatch_and_rebatch_of_ragged_rows() -> None:
    rt = RaggedTensor.from_row_lengths(np.array([1, 2, 3, 4]), [2, 1, 0, 1])
    assert [r.tolist() for r in Dataset.from_tensors(rt).unbatch()] == [[1, 2], [3], [], [4]]
    # TF 2.21: [<tf.RaggedTensor [[1, 2], [3], []]>, <tf.RaggedTensor [[4]]>]
    assert [b.to_list() for b in Dataset.from_tensors(rt).rebatch(3)] == [[[1, 2], [3], []],
                                                                          [[4]]]


def test_scan_checks_its_function() -> None:
    with pytest.raises(TypeError, match="should return a pair"):
        list(Dataset.range(2).scan(0, lambda s, x: s))
    with pytest.raises(TypeError, match="element classes for the new state"):
        list(Dataset.range(2).scan((0, 0), lambda s, x: (s[0], x)))
    grown = Dataset.range(3).scan(np.zeros(0, np.int64), lambda s, x: (np.append(s, x), s))
    assert [s.tolist() for s in grown] == [[], [0], [0, 1]]  # shapes may change, as in TF


def test_counter_checks_its_dtype() -> None:
    with pytest.raises(TypeError, match="integer or floating"):
        Dataset.counter(dtype=np.bool_)
    with pytest.raises(TypeError, match="start should be an integer"):
        Dataset.counter(0.5, dtype=np.int64)
    assert [float(x) for x in Dataset.counter(1, 0.5, np.float64).take(3)] == [1.0, 1.5, 2.0]


def test_sample_and_choose_arguments() -> None:
    with pytest.raises(TypeError, match="choice_dataset.*should be a `tf.data.Dataset`"):
        Dataset.choose_from_datasets([Dataset.range(2)], [0, 1])
    with pytest.raises(TypeError, match="must be scalar `tf.int64` tensors"):  # when built
        Dataset.choose_from_datasets([Dataset.range(2)], Dataset.from_tensor_slices([0]))
    made = Dataset.range(2).map(lambda x: np.int32(x))  # known when the elements come
    with pytest.raises(TypeError, match="must be scalar `tf.int64` tensors"):
        list(Dataset.choose_from_datasets([Dataset.range(2)], made))
    with pytest.raises(TypeError, match="`tf.float32` or `tf.float64` but is int32"):
        Dataset.sample_from_datasets([Dataset.range(2), Dataset.range(2)], weights=[1, 2])


def test_list_files_paths(tmp_path, monkeypatch) -> None:
    (tmp_path / "sub").mkdir()
    for name in ("a.txt", "b.txt", "sub/c.txt"):
        (tmp_path / name).write_text(name)
    monkeypatch.chdir(tmp_path)

    def names(pattern):
        return [p.decode() for p in Dataset.list_files(pattern, shuffle=False)]
    # TF 2.21 in the same folder: ['./a.txt', './b.txt'], ['a.txt'], ['./sub/c.txt'], ['sub/']
    assert names("*.txt") == ["./a.txt", "./b.txt"]
    assert names("a.txt") == ["a.txt"]
    assert names("*/c.txt") == ["./sub/c.txt"]
    assert names("sub/") == ["sub/"]
    assert names("sub/../a.txt") == ["sub/../a.txt"]
    with pytest.raises(errors.InvalidArgumentError, match="No files matched pattern: x, y"):
        Dataset.list_files(["x", "y"])


def test_fixed_length_records_errors(tmp_path) -> None:
    good = tmp_path / "r.bin"
    good.write_bytes(b"0123456789")
    missing = FixedLengthRecordDataset(str(tmp_path / "nope.bin"), 2)  # TF: an iteration error
    with pytest.raises(errors.NotFoundError, match="nope.bin"):
        list(missing)
    with pytest.raises(errors.InvalidArgumentError, match="`record_bytes` must be > 0"):
        list(FixedLengthRecordDataset(str(good), 0))
    with pytest.raises(errors.InvalidArgumentError, match="body length 8 bytes.*record length "
                                                          r"\(3 bytes\)"):
        list(FixedLengthRecordDataset(str(good), 3, header_bytes=2))
    packed = tmp_path / "r.gz"
    packed.write_bytes(gzip.compress(b"0123456789"))
    with pytest.raises(errors.DataLossError, match="body length 10 bytes"):
        list(FixedLengthRecordDataset(str(packed), 4, compression_type="GZIP"))
        # TF gives b"0123", b"4567" first (a documented difference)


def test_fixed_length_file_changed_while_reading(tmp_path) -> None:
    path = tmp_path / "r.bin"
    path.write_bytes(bytes(range(64)))
    it = iter(FixedLengthRecordDataset(str(path), 8))
    next(it)
    with open(path, "ab") as f:
        f.write(b"more")
    os.utime(path, ns=(1, 1))
    with pytest.raises(FileChangedError):
        list(it)


def test_get_single_element_iterates_once() -> None:
    ds = Dataset.range(5).shuffle(5, seed=1).take(1)
    first, second = ds.get_single_element(), ds.get_single_element()
    assert first != second  # each call is one iteration, so the shuffle moves on (as in TF)


def _inverse(x):
    if x == 0:
        raise ZeroDivisionError("x == 0")
    return np.float32(1) / x


def test_ignore_errors(caplog) -> None:
    import logging
    ds = Dataset.from_tensor_slices([1.0, 2.0, 0.0, 4.0]).map(_inverse)
    # TF 2.21 with check_numerics(1 / x): [1.0, 0.5, 0.25], cardinality -2
    with caplog.at_level(logging.INFO, logger="minibatcher.tfdata"):
        assert [float(x) for x in ds.ignore_errors()] == [1.0, 0.5, 0.25]
    assert "1 elements whose production raised were left out" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="minibatcher.tfdata"):
        assert len(list(ds.ignore_errors(log_warning=True))) == 3
    assert "Ignoring error: ZeroDivisionError: x == 0" in caplog.text
    assert ds.ignore_errors().cardinality() == -2 == Dataset.range(3).ignore_errors().cardinality()


def test_ignore_errors_resumes_and_counts() -> None:
    from .resume import assert_resumes_exactly

    def make():
        return Dataset.range(30).map(lambda x: _inverse(x % 7)).ignore_errors().batch(4)
    assert assert_resumes_exactly(make) == 7
    it = iter(make())
    for _ in range(3):
        next(it)
    assert it.get_state()["iterator"]["in"]["ignored"] == 2


def test_element_spec_looks_without_moving_anything() -> None:
    from minibatcher.tfdata import TensorSpec
    ds = Dataset.range(8).shuffle(8, seed=1).map(lambda x: np.zeros((int(x), 2), np.float32))
    spec = ds.element_spec
    assert spec == TensorSpec([None, None], "float32")
    assert ds.element_spec is spec  # looked at once
    fresh = Dataset.range(8).shuffle(8, seed=1).map(lambda x: np.zeros((int(x), 2), np.float32))
    assert [x.shape for x in ds] == [x.shape for x in fresh]  # the shuffle did not move on
    with pytest.raises(NotSupportedError, match="gave no element to look at"):
        _ = Dataset.range(0).map(lambda x: x).element_spec


def test_element_spec_of_readers(tmp_path) -> None:
    from minibatcher.tfdata import TensorSpec, TextLineDataset
    (tmp_path / "a.txt").write_text("x\n")
    assert TextLineDataset(str(tmp_path / "a.txt")).element_spec == TensorSpec([], "string")
    assert Dataset.list_files(str(tmp_path / "*")).element_spec == TensorSpec([], "string")
    spec = Dataset.range(3).window(2).element_spec
    assert spec.element_spec == TensorSpec([], "int64")


def test_ragged_batch_of_function_rows() -> None:
    # static shape unknown: the first dimension is the ragged one; inner dimensions
    # are ragged only where the batch's elements differ
    pairs = Dataset.range(1, 4).map(lambda n: np.zeros((int(n), 2), np.int32)).ragged_batch(3)
    batch = next(iter(pairs))
    assert batch.ragged_rank == 1 and batch.to_list() == [[[0, 0]], [[0, 0]] * 2, [[0, 0]] * 3]
    odd = Dataset.range(1, 3).map(lambda n: np.zeros((2, int(n)), np.int32)).ragged_batch(2)
    assert next(iter(odd)).ragged_rank == 2
    with pytest.raises(ValueError, match="row_splits_dtype should be int32 or int64"):
        Dataset.range(3).ragged_batch(2, row_splits_dtype=np.float32)
