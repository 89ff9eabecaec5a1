"""tf.data arguments are refused when and as TF refuses them, naming the option and value
(issue 15.11): TF converts counts and sizes to int64 when the dataset is built (a string or a
float is a TypeError, an integer outside int64 a ValueError) and its kernels refuse bad
values then (here ConfigError, a ValueError)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from minibatcher.errors import ConfigError
from minibatcher.tfdata import Dataset, TextLineDataset

R = Dataset.range

REFUSED: dict[str, tuple[Callable[[], Any], type[Exception], str]] = {
    "shuffle(2**63)": (lambda: R(3).shuffle(2**63), ValueError,
                       r"buffer_size should be an int64 .*buffer_size=9223372036854775808"),
    "shuffle(1.5)": (lambda: R(3).shuffle(1.5), TypeError,
                     r"buffer_size should be an integer, but got buffer_size=1.5 \(float\)"),
    "shuffle(0)": (lambda: R(3).shuffle(0), ConfigError, "buffer_size=0"),
    'batch("2")': (lambda: R(3).batch("2"), TypeError,
                   r"batch_size should be an integer, but got batch_size='2' \(str\)"),
    "batch(2.0)": (lambda: R(3).batch(2.0), TypeError, r"batch_size=2.0 \(float\)"),
    "batch(0)": (lambda: R(3).batch(0), ConfigError, "batch_size=0"),
    "padded_batch(True)": (lambda: R(3).padded_batch(True), TypeError, r"batch_size=True"),
    'padded_batch(padding_values="pad") on ints': (
        lambda: R(3).padded_batch(2, padding_values="pad"), TypeError,
        r"padding_values .* should be a number of dtype int64 .*'pad'"),
    'repeat("2")': (lambda: R(3).repeat("2"), TypeError, r"count='2' \(str\)"),
    "take(2.5)": (lambda: R(3).take(2.5), TypeError, r"count=2.5 \(float\)"),
    "skip(2**64)": (lambda: R(3).skip(2**64), ValueError, "count=18446744073709551616"),
    "shard(0, 0)": (lambda: R(3).shard(0, 0), ConfigError, "num_shards=0"),
    "shard(2, 2)": (lambda: R(3).shard(2, 2), ConfigError, r"index should be .*\[0, 1\]"),
    "enumerate(2**63)": (lambda: R(3).enumerate(2**63), ValueError, "start=9223372036854775808"),
    "interleave(cycle_length=2**40)": (
        lambda: R(3).interleave(lambda x: R(x), cycle_length=2**40), ConfigError,
        "cycle_length=1099511627776"),
    "prefetch('1')": (lambda: R(3).prefetch("1"), TypeError, "buffer_size='1'"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_when_built(name: str) -> None:
    make, error, message = REFUSED[name]
    with pytest.raises(error, match=message):
        make()


def test_num_parallel_reads_out_of_range(tmp_path: Path) -> None:
    files = []
    for i in range(2):
        files.append(tmp_path / f"{i}.txt")
        files[-1].write_text("a\nb\n")
    with pytest.raises(ConfigError, match="num_parallel_reads=1099511627776"):
        TextLineDataset([str(f) for f in files], num_parallel_reads=2**40)
    with pytest.raises(TypeError, match=r"num_parallel_reads='2' \(str\)"):
        TextLineDataset([str(f) for f in files], num_parallel_reads="2")
    both = TextLineDataset([str(f) for f in files], num_parallel_reads=np.int64(2))
    assert list(both) == [b"a", b"a", b"b", b"b"]


def test_numpy_integers_are_integers() -> None:
    assert [b.tolist() for b in R(5).batch(np.int32(2)).take(np.int64(2))] == [[0, 1], [2, 3]]
    assert [int(x) for x in R(4).shuffle(np.int16(4), seed=np.int64(1)).skip(np.uint8(3))] == \
        [int(x) for x in R(4).shuffle(4, seed=1).skip(3)]


def test_seeds_are_integers() -> None:
    with pytest.raises(TypeError, match=r"seed=1.5 \(float\)"):
        R(3).shuffle(3, seed=1.5)
    with pytest.raises(TypeError, match=r"seed='7' \(str\)"):
        R(3).shuffle(3, seed="7")
