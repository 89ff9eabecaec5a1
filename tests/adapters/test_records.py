"""One gather for sequences outside the engine (issue 18.3 and its Grain bug): the Grain data
source, Ray's columns and the tfdata record source over any Deserializer deliver a sequence's
rows exactly as the engine does (HTK context windows expanded, sparse rows kept)."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher import CTFDeserializer, HTKFeatureDeserializer, MinibatchSource, StreamDef, tfdata
from minibatcher.adapters.grain import SequenceDataSource
from minibatcher.adapters.records import from_deserializer
from minibatcher.errors import CheckpointError
from minibatcher.formats.htk import write_htk

from ..tfdata.resume import assert_resumes_exactly
from .helpers import write_ctf


def htk(tmp_path, context=(1, 1), chunk_frames: int = 4) -> HTKFeatureDeserializer:
    write_htk(tmp_path / "a.htk", np.arange(24, dtype=np.float32).reshape(12, 2))
    (tmp_path / "a.scp").write_text("u1=a.htk[0,4]\nu2=a.htk[5,6]\nu3=a.htk[7,11]\n")
    return HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "a.scp"), shape=2,
                                                  context=context)},
                                  base_dir=tmp_path, chunk_frames=chunk_frames, trace_level=0)


def ctf(tmp_path) -> CTFDeserializer:
    path = write_ctf(tmp_path / "d.ctf", sequences=12, sparse=True)
    return CTFDeserializer(str(path), {"x": StreamDef(shape=2), "y": StreamDef(shape=5,
                                                                               is_sparse=True)},
                           chunk_size_in_bytes=40)


def engine_sequences(deserializer) -> list[dict[str, np.ndarray]]:
    """Every sequence's rows per stream, as the engine delivers them (dense)."""
    mb = MinibatchSource(deserializer, randomize=False, max_sweeps=1).next_minibatch(10**6)
    out: list[dict[str, np.ndarray]] = [{} for _ in range(deserializer.table().num_sequences)]
    for name, data in mb.items():
        o = data.offsets.tolist()
        for i, (a, b) in enumerate(zip(o[:-1], o[1:])):
            out[i][name] = data.dense_values()[a:b]
    return out


def dense(value) -> np.ndarray:
    if isinstance(value, tfdata.SparseTensor):
        return value.to_dense()
    return value.toarray() if hasattr(value, "toarray") else np.asarray(value)


def test_grain_source_expands_context_windows_as_the_engine(tmp_path):
    d = htk(tmp_path)
    source = SequenceDataSource(lambda: d)
    assert source[0]["x"].shape == (5, 6)
    for i, expected in enumerate(engine_sequences(d)):
        np.testing.assert_array_equal(source[i]["x"], expected["x"])


@pytest.mark.parametrize("make", [htk, ctf])
def test_record_source_equals_the_engine(tmp_path, make):
    d = make(tmp_path)
    records = from_deserializer(d)
    expected = engine_sequences(d)
    assert len(records) == len(expected) == d.table().num_sequences
    by_one = [records[i] for i in range(len(records))]
    for block in (records.read(0, len(records)), by_one):
        for record, want, key in zip(block, expected, d.table().keys.tolist()):
            assert record["key"] == key and record["key"].dtype == np.uint64
            for name, rows in want.items():
                np.testing.assert_array_equal(dense(record[name]), rows)


@pytest.mark.parametrize("make", [htk, ctf])
def test_record_source_resumes_exactly_in_a_pipeline(tmp_path, make):
    d = make(tmp_path)
    count = assert_resumes_exactly(
        lambda: tfdata.SourceDataset(from_deserializer(d)).shuffle(4, seed=7).repeat(2))
    assert count == 2 * d.table().num_sequences


def test_a_state_of_other_data_is_refused(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    it = iter(tfdata.SourceDataset(from_deserializer(htk(tmp_path / "a"))))
    next(it)
    state = it.get_state()
    other = iter(tfdata.SourceDataset(from_deserializer(htk(tmp_path / "b", context=(2, 2)))))
    with pytest.raises(CheckpointError):
        other.set_state(state)
