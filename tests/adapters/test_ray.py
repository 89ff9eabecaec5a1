"""The Ray Data datasources on a local Ray instance: the same sequences as the local readers."""

from __future__ import annotations

import functools

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")
pytestmark = pytest.mark.threads_in_process

from minibatcher import CTFDeserializer, StreamDef  # noqa: E402
from minibatcher.formats.tfrecord import TFRecordFile, TFRecordWriter, decode_example, encode_example  # noqa: E402,E501
from minibatcher.ray import TFRecordDatasource, read_ctf  # noqa: E402

from .helpers import write_ctf  # noqa: E402

STREAMS = {"x": StreamDef(shape=2), "y": StreamDef(shape=5, is_sparse=True)}


@pytest.fixture(scope="module")
def local_ray():  # the tests using it run last (tests/adapters/conftest.py): Ray starts threads
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def test_ctf_on_ray_gives_the_local_readers_sequences(local_ray, tmp_path):
    path = write_ctf(tmp_path / "d.ctf", sequences=200, seed=9, sparse=True)
    reference = CTFDeserializer(str(path), STREAMS)
    local = reference.load_chunk(0)
    dataset = read_ctf(path, STREAMS, chunk_size_in_bytes=2048).materialize()
    rows = sorted(dataset.take_all(), key=lambda r: r["index"])
    assert [r["index"] for r in rows] == list(range(200))
    assert [r["key"] for r in rows] == reference.index.keys.astype(np.uint64).tolist()
    x, y = local.streams
    for i, row in enumerate(rows):
        s = x.sequence_slice(i)
        assert np.array_equal(row["x"], x.values[s])
        lo, hi = int(y.indptr[s.start]), int(y.indptr[s.stop])
        assert np.array_equal(row["y_indptr"], y.indptr[s.start:s.stop + 1] - lo)
        assert np.array_equal(row["y_indices"], y.indices[lo:hi])
        assert np.array_equal(row["y_data"], y.values[lo:hi])
    assert dataset.num_blocks() > 1


def test_a_tfrecord_folder_on_ray_gives_the_local_readers_records(local_ray, tmp_path):
    folder = tmp_path / "shards"
    folder.mkdir()
    rng = np.random.default_rng(4)
    for shard in range(3):
        with TFRecordWriter(folder / f"data.tfrecord-{shard:05d}-of-00003") as w:
            w.write_many([encode_example({"label": np.array([shard * 100 + i]),
                                          "x": rng.random(int(rng.integers(1, 4))).astype(np.float32),
                                          "name": [f"s{shard}r{i}".encode()]})
                          for i in range(int(rng.integers(5, 30)))])
    (folder / "dataset_info.json").write_text("{}")  # not a TFRecord file: ignored
    local = {(f.name, i): decode_example(r) for f in sorted(folder.glob("*.tfrecord*"))
             for i, r in enumerate(TFRecordFile(f))}
    decoded = ray.data.read_datasource(TFRecordDatasource(
        folder, {"label": "int64", "x": "float", "name": "bytes"})).take_all()
    assert sorted((r["file"], r["index"]) for r in decoded) == sorted(local)
    for row in decoded:
        want = local[(row["file"], row["index"])]
        assert list(row["label"]) == want["label"].tolist() and list(row["name"]) == want["name"]
        assert np.array_equal(row["x"], want["x"])
    raw = ray.data.read_datasource(TFRecordDatasource(sorted(folder.glob("*.tfrecord*")))).take_all()
    assert {(r["file"], r["index"]): decode_example(r["record"])["name"] for r in raw} == {
        k: v["name"] for k, v in local.items()}


def test_htk_features_on_ray_give_the_sources_sequences(local_ray, tmp_path):
    from minibatcher import MinibatchSource
    from minibatcher.formats.htk import HTKFeatureDeserializer
    from minibatcher.formats.htk.htkfile import write_htk
    from minibatcher.ray import DeserializerDatasource

    rng = np.random.default_rng(1)
    for name in ("a", "b"):
        write_htk(tmp_path / f"{name}.htk", rng.random((40, 3)).astype(np.float32))
    (tmp_path / "list.scp").write_text("".join(f"u{i}.mfc={'ab'[i % 2]}.htk[{i * 5},{i * 5 + 3 + i % 3}]\n"
                                               for i in range(7)))
    make = functools.partial(HTKFeatureDeserializer, {"x": StreamDef(
        scp=str(tmp_path / "list.scp"), shape=3, context=(1, 2))}, base_dir=tmp_path, chunk_frames=8)
    rows = sorted(ray.data.read_datasource(DeserializerDatasource(make)).take_all(),
                  key=lambda r: r["index"])
    source = MinibatchSource(make(), randomize=False, max_sweeps=1)
    local = [s for mb in source.minibatches(4) for s in mb["x"].sequences]
    assert len(rows) == len(local) == 7 and rows[0]["x"].shape[1] == 12  # context: 4 x 3 values
    assert all(np.array_equal(r["x"], want) for r, want in zip(rows, local))
