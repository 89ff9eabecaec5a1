"""Tampered states of pipelines over files (issue 15, 'Done when' 2): TFRecordDataset
(one and several files, GZIP, parallel reads), interleaves over files with file
shuffles, list_files, TextLineDataset; refused naming a field, or read on exactly
(the shared check of tamper.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minibatcher.tfdata import Dataset, TextLineDataset, TFRecordDataset
from minibatcher.tfdata.io import TFRecordWriter

from .tamper import check_tampered, record

FILES = 3


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("files")
    for f in range(FILES):
        for compression, suffix in ((None, "tfrecord"), ("GZIP", "gz")):
            with TFRecordWriter(str(d / f"r{f}.{suffix}"), compression) as w:
                for i in range(4 + 3 * f):
                    w.write(f"{f}:{i}".encode())
        (d / f"t{f}.txt").write_text("".join(f"line {f}.{i}\n" for i in range(5 + f)))
    return d


def _tfrecords(d: Path) -> list[str]:
    return [str(d / f"r{f}.tfrecord") for f in range(FILES)]


def _short_reads(path):
    return TFRecordDataset(path).take(5)


PIPELINES = {
    "TFRecordDataset": lambda d: TFRecordDataset(_tfrecords(d)),
    "TFRecordDataset, skip, shard": lambda d: TFRecordDataset(_tfrecords(d)).skip(2).shard(3, 1),
    "GZIP TFRecordDataset, batch": lambda d: TFRecordDataset(
        [str(d / f"r{f}.gz") for f in range(FILES)], compression_type="GZIP").batch(2),
    "TFRecordDataset, parallel reads": lambda d: TFRecordDataset(_tfrecords(d),
                                                                 num_parallel_reads=2),
    "file shuffle, interleave, shuffle": lambda d: Dataset.from_tensor_slices(_tfrecords(d))
    .shuffle(3, seed=1).interleave(TFRecordDataset, cycle_length=2, block_length=2)
    .shuffle(4, seed=2),
    "list_files, interleave, repeat": lambda d: Dataset.list_files(
        str(d / "*.tfrecord"), seed=5).interleave(_short_reads, cycle_length=2).repeat(2),
    "TextLineDataset": lambda d: TextLineDataset([str(d / f"t{f}.txt") for f in range(FILES)]),
    "TextLineDataset, shuffle, batch": lambda d: TextLineDataset(str(d / "t2.txt"))
    .shuffle(3, seed=7).batch(2),
}


@pytest.fixture(scope="module")
def recorded(folder: Path):
    return {name: record(lambda: make(folder), 60) for name, make in PIPELINES.items()}


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(PIPELINES)), data=st.data())
def test_a_tampered_state_is_refused_or_reads_on_exactly(folder, recorded, name, data) -> None:
    states, elements = recorded[name]
    check_tampered(lambda: PIPELINES[name](folder), states, elements, data)
