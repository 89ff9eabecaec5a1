"""``cache()`` and ``cache(filename)``: TF 2.21's rules for partial and concurrent iterations
(literal results of TF 2.21 cited), the file format, and exact resume in both modes."""

from __future__ import annotations

import gc
import json
import os

import numpy as np
import pytest

from minibatcher.errors import CheckpointError
from minibatcher.formats.tfrecord.source import TFRecordSource
from minibatcher.tfdata import Dataset, SourceDataset, errors

from .resume import assert_resumes_exactly


class Counted:
    """Records 0..n-1, counting reads."""

    reads = 0

    def __init__(self, n: int = 5) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> np.int64:
        Counted.reads += 1
        return np.int64(i)

    def fingerprint(self) -> int:
        return self.n


def counted(n: int = 5) -> Dataset:
    return SourceDataset(Counted(n))


def reads_of(action) -> int:
    Counted.reads = 0
    action()
    return Counted.reads


def test_an_unfinished_iteration_does_not_fill_the_cache() -> None:
    # TF 2.21: a partial first iterator, then a full one (the first still alive) reads the
    # input again and fills the cache; a third reads the cache only
    ds = counted().cache()
    first = iter(ds)
    next(first), next(first)
    assert reads_of(lambda: [int(x) for x in ds]) == 5
    assert reads_of(lambda: [int(x) for x in ds]) == 0
    del first
    assert reads_of(lambda: [int(x) for x in ds]) == 0


def test_the_cache_keeps_the_iteration_that_completed() -> None:
    # TF 2.21: range(3).shuffle(3, seed=1).cache(), one element read, then two full
    # iterations: [1, 0, 2] [1, 0, 2] (the shuffle's second iteration, cached)
    ds = Dataset.range(3).shuffle(3, seed=1).cache()
    it = iter(ds)
    next(it)
    assert [int(x) for x in ds] == [1, 0, 2] == [int(x) for x in ds]


def test_file_cache_is_shared_by_name(tmp_path) -> None:
    prefix = str(tmp_path / "c")
    assert reads_of(lambda: list(counted().cache(prefix))) == 5
    assert sorted(os.listdir(tmp_path)) == ["c.mbcache"]
    assert reads_of(lambda: list(counted().cache(prefix))) == 0  # a new pipeline reads the file
    assert [int(x) for x in Dataset.range(100, 103).cache(prefix)] == [0, 1, 2, 3, 4]  # as TF


def test_file_cache_format(tmp_path) -> None:
    prefix = str(tmp_path / "f")
    list(Dataset.from_tensor_slices({"a": [1, 2], "b": ["x", "y"]}).cache(prefix))
    records = TFRecordSource(prefix + ".mbcache").read(0, 4)
    assert json.loads(records[0]) == {"format": "minibatcher.tfdata.cache", "version": 1}
    assert json.loads(records[3]) == {"elements": 2}
    from minibatcher.tfdata.codec import decode_element
    assert decode_element(records[2]) == {"a": np.int32(2), "b": b"y"}


def test_concurrent_writers_and_abandoned_writes(tmp_path) -> None:
    prefix = str(tmp_path / "p")
    ds = counted().cache(prefix)
    first = iter(ds)
    next(first), next(first)
    assert sorted(p.split("-")[0] for p in os.listdir(tmp_path)) == ["p.mbcache.lock",
                                                                    "p.mbcache.tmp"]
    with pytest.raises(errors.AlreadyExistsError, match="concurrent caching iterator"):
        list(ds)  # TF 2.21: AlreadyExistsError, a lockfile exists
    del first
    gc.collect()
    assert os.listdir(tmp_path) == []  # TF removes the partial files too
    assert reads_of(lambda: list(ds)) == 5 and os.listdir(tmp_path) == ["p.mbcache"]


def test_stale_lock_of_a_dead_process_is_taken_over(tmp_path) -> None:
    import socket
    prefix = str(tmp_path / "s")
    with open(prefix + ".mbcache.lock", "w") as f:
        f.write(f"{socket.gethostname()} {2**22 + 12345}")  # no such process
    assert [int(x) for x in counted(3).cache(prefix)] == [0, 1, 2]


def test_file_cache_errors(tmp_path) -> None:
    with pytest.raises(errors.NotFoundError, match="No such file or directory"):
        list(Dataset.range(2).cache(str(tmp_path / "no" / "dir" / "x")))
    (tmp_path / "bad.mbcache").write_bytes(b"garbage")
    with pytest.raises(Exception, match="bad.mbcache"):
        list(Dataset.range(2).cache(str(tmp_path / "bad")))
    empty = str(tmp_path / "e")
    assert list(Dataset.range(0).cache(empty)) == list(Dataset.range(0).cache(empty)) == []


def _odd(x):
    return x % 2 == 1


PIPELINES = {
    "view, written then read": lambda: Dataset.range(9).shuffle(4, seed=1).map(lambda x: x * 3)
    .cache().repeat(2),
    "iterator, written then read": lambda: Dataset.range(20).filter(_odd).shuffle(4, seed=2)
    .cache().repeat(2).batch(3),
    "cache below a shuffle": lambda: Dataset.range(12).cache().shuffle(5, seed=3).repeat(2),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_memory_cache_resumes(name: str) -> None:
    assert assert_resumes_exactly(PIPELINES[name]) > 2


def test_file_cache_resumes(tmp_path) -> None:
    prefix = str(tmp_path / "r")
    assert assert_resumes_exactly(lambda: Dataset.range(9).filter(_odd).cache(prefix)
                                  .repeat(2)) == 8


def test_restored_writer_writes_the_whole_file(tmp_path) -> None:
    prefix = str(tmp_path / "w")
    ds = Dataset.range(6).filter(_odd).cache(prefix)
    it = iter(ds)
    next(it), next(it)
    state = it.get_state()
    del it
    gc.collect()
    assert os.listdir(tmp_path) == []
    fresh = iter(Dataset.range(6).filter(_odd).cache(prefix))
    fresh.set_state(state)
    assert [int(x) for x in fresh] == [5]
    assert [int(x) for x in Dataset.range(0).cache(prefix)] == [1, 3, 5]  # the file is whole


def test_restore_in_a_fresh_process_rebuilds_the_cache_lazily() -> None:
    def make():
        return counted(8).map(lambda x: x * 2).cache().repeat(2)
    it = iter(make())
    for _ in range(11):
        next(it)
    state = it.get_state()
    Counted.reads = 0
    fresh = iter(make())
    fresh.set_state(state)
    assert Counted.reads == 0  # nothing read to restore
    assert [int(x) for x in fresh] == [6, 8, 10, 12, 14]
    assert Counted.reads == 5  # only the elements read after the restore


def test_changed_cache_file_is_refused(tmp_path) -> None:
    prefix = str(tmp_path / "x")
    list(Dataset.range(4).cache(prefix))
    it = iter(Dataset.range(4).cache(prefix))
    next(it)
    state = it.get_state()
    os.unlink(prefix + ".mbcache")
    list(Dataset.range(5).cache(prefix))
    with pytest.raises(CheckpointError, match="field 'iterator.file'.*cache file changed"):
        iter(Dataset.range(4).cache(prefix)).set_state(state)
