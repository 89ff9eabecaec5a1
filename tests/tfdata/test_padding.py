"""padded_batch's strings, padding values and argument checks (issue 13.1, 13.8, 15.11).

Expected values are what TensorFlow 2.21 gives for the same pipelines."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.tfdata import Dataset


def test_scalar_strings_batch_as_bytes() -> None:
    # TF: from_tensor_slices(["a", "bb"]).padded_batch(2) -> [b'a', b'bb'] (a string tensor)
    batch = next(iter(Dataset.from_tensor_slices(["a", "bb"]).padded_batch(2)))
    assert batch.dtype == object and batch.tolist() == [b"a", b"bb"]
    assert all(type(x) is bytes for x in batch)


def test_scalar_strings_through_group_by_window_and_buckets() -> None:
    words = Dataset.from_tensor_slices(["a", "bb", "ccc", "dd"])
    grouped = words.group_by_window(lambda w: np.int64(len(w) % 2),
                                    lambda k, win: win.padded_batch(2), window_size=2)
    assert [b.tolist() for b in grouped] == [[b"a", b"ccc"], [b"bb", b"dd"]]
    buckets = words.bucket_by_sequence_length(len, [2], [2, 2])
    assert [b.tolist() for b in buckets] == [[b"bb", b"ccc"], [b"a"], [b"dd"]]


def test_fixed_width_bytes_pad_with_empty_bytes() -> None:
    # a NumPy function giving dtype S (np.array(s.split(b" "))) pads with b'', not b'0'
    ds = Dataset.from_tensor_slices(["a bb", "ccc"]).map(lambda s: np.array(s.split(b" ")))
    batch = next(iter(ds.padded_batch(2)))
    assert batch.dtype == object
    assert batch.tolist() == [[b"a", b"bb"], [b"ccc", b""]]


def test_string_padding_value_is_bytes() -> None:
    # TF: padded_batch(2, padded_shapes=[3], padding_values="<end>") over split strings
    ds = Dataset.from_tensor_slices(["a b", "bb"]).map(lambda s: np.array(s.split(), dtype=object))
    batch = next(iter(ds.padded_batch(2, padded_shapes=[3], padding_values="<end>")))
    assert batch.tolist() == [[b"a", b"b", b"<end>"], [b"bb", b"<end>", b"<end>"]]
    assert all(type(x) is bytes for x in batch.ravel())


def test_padded_shapes_below_minus_one_refused_when_built() -> None:
    # TF: ValueError: Dimension -5 must be >= 0 (at construction); -1 means unknown
    ds = Dataset.range(3).map(lambda x: np.arange(x))
    with pytest.raises(ValueError, match=r"padded_shapes.*-5"):
        ds.padded_batch(2, padded_shapes=[-5])
    assert [b.tolist() for b in ds.padded_batch(2, padded_shapes=[-1])] == [[[0], [0]], [[0, 1]]]


def test_string_padding_value_for_integers_names_the_option() -> None:
    # TF: TypeError: Invalid `padding_values` ... type string does not match type int64
    with pytest.raises(TypeError, match=r"padding_values.*'pad'"):
        list(Dataset.range(3).padded_batch(2, padding_values="pad"))
    with pytest.raises(TypeError, match="padding_values"):
        list(Dataset.from_tensor_slices(["a"]).padded_batch(2, padding_values=np.int64(1)))
    with pytest.raises(ValueError, match="scalars"):
        Dataset.range(3).padded_batch(2, padding_values=[1, 2])
