"""One rule for integer arguments everywhere (minibatcher.args): NumPy integers are
integers, bools are not. Before, ``CTFDeserializer(chunk_size_in_bytes=np.int64(...))``
was accepted while ``next_minibatch(np.int64(2))`` was refused, and options that
accepted NumPy integers kept them (a checkpoint that ``json.dumps`` refused)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from minibatcher import CTFDeserializer, MinibatchSource, StreamDef
from minibatcher.budget import check_max_errors
from minibatcher.deserializer import ContextWindow
from minibatcher.errors import ConfigError, FormatError
from minibatcher.formats.ctf.survey import survey_blocks
from minibatcher.nmt.options import NmtOptions
from minibatcher.tfds.split_info import SplitInfo


@pytest.fixture
def ctf(tmp_path):
    path = tmp_path / "d.ctf"
    path.write_text("".join(f"{i // 2} |x {i}\n" for i in range(12)))
    return str(path)


def values(minibatch) -> list[float]:
    return minibatch["x"].values.ravel().tolist()


def test_minibatch_source_takes_numpy_integers(ctf):
    i64 = np.int64
    source = MinibatchSource(CTFDeserializer(ctf, {"x": StreamDef(shape=1)},
                                             chunk_size_in_bytes=i64(16)),
                             max_sweeps=i64(2), randomization_window_in_chunks=i64(2),
                             randomization_seed=np.uint32(3), num_workers=i64(1),
                             worker_rank=i64(0), num_threads=i64(1), prefetch_chunks=i64(2))
    reference = MinibatchSource(CTFDeserializer(ctf, {"x": StreamDef(shape=1)},
                                                chunk_size_in_bytes=16),
                                max_sweeps=2, randomization_window_in_chunks=2,
                                randomization_seed=3, num_threads=1, prefetch_chunks=2)
    assert values(source.next_minibatch(i64(4))) == values(reference.next_minibatch(4))
    assert source.skip_minibatch(i64(2)) and reference.skip_minibatch(2)
    state = json.loads(json.dumps(source.get_checkpoint_state()))  # plain ints inside
    assert state == json.loads(json.dumps(reference.get_checkpoint_state()))
    source.start_epoch(i64(1), i64(6), num_data_partitions=i64(1), partition_index=i64(0))
    reference.start_epoch(1, 6)
    assert values(source.next_minibatch(np.uint8(4))) == values(reference.next_minibatch(4))
    json.dumps(source.get_checkpoint_state())


REFUSED = {
    "size True": lambda s: s.next_minibatch(True),
    "size 2.0": lambda s: s.next_minibatch(2.0),
    "size np.float64": lambda s: s.next_minibatch(np.float64(2)),
    "skip size '2'": lambda s: s.skip_minibatch("2"),
    "epoch np.bool_": lambda s: s.start_epoch(np.bool_(True)),
    "epoch_size 2.5": lambda s: s.start_epoch(0, 2.5),
    "partitions '2'": lambda s: s.next_minibatch(2, num_data_partitions="2"),
}


@pytest.mark.parametrize("call", REFUSED.values(), ids=REFUSED.keys())
def test_minibatch_source_refuses_other_kinds(ctf, call):
    source = MinibatchSource(CTFDeserializer(ctf, {"x": StreamDef(shape=1)}))
    with pytest.raises(ConfigError, match=r"should be .*, but got \w+=.* \((bool|float|float64|str)\)"):
        call(source)


@pytest.mark.parametrize("option", ["max_sweeps", "num_workers", "truncation_length",
                                    "num_threads", "randomization_window_in_chunks"])
def test_source_options_refuse_bools(ctf, option):
    with pytest.raises(ConfigError, match=f"option {option} should be .*, but got {option}=True"):
        MinibatchSource(CTFDeserializer(ctf, {"x": StreamDef(shape=1)}), **{option: True})


def test_other_checks_take_numpy_integers():
    assert check_max_errors(np.int32(3)) == 3 and type(check_max_errors(np.int32(3))) is int
    assert [s.samples for s in survey_blocks(b"|a 1\n" * 4, block_size=np.int64(6))] == [4]
    window = ContextWindow(np.int64(1), np.uint8(2))
    assert (window.width, type(window.left)) == (4, int)
    with pytest.raises(FormatError, match="option left should be a non-negative integer"):
        ContextWindow(-1, 0)
    spec = NmtOptions(batch_size=np.int64(4), num_buckets=np.int32(2), num_shards=np.int64(2),
                      shard_index=np.int64(1)).spec()
    assert json.loads(json.dumps(spec)) == NmtOptions(4, 2, num_shards=2, shard_index=1).spec()
    with pytest.raises(ConfigError, match="option shard_index should be in"):
        NmtOptions(batch_size=4, shard_index="0")
    split = SplitInfo("train", [np.int64(3), np.uint16(2)], 0)
    assert json.dumps(split.shard_lengths) == "[3, 2]"
    with pytest.raises(ValueError, match="shard lengths should be non-negative ints"):
        SplitInfo("train", [3, True], 0)


def test_adapters_take_numpy_integers(tmp_path):
    pytest.importorskip("torch")
    from minibatcher.adapters.torch_pipeline import PipelineDataset
    from minibatcher.torch import MinibatchDataset

    from .adapters.helpers import factory, write_ctf

    data = write_ctf(tmp_path / "d.ctf", sequences=20)
    dataset = MinibatchDataset(factory(data), np.int64(8), rank=np.int64(0),
                               world_size=np.int64(1), worker_ring=np.int64(0))
    dataset.set_epoch(np.int64(1))
    first = next(iter(dataset))
    reference = MinibatchDataset(factory(data), 8, rank=0, world_size=1, worker_ring=0)
    reference.set_epoch(1)
    assert first["x"].tolist() == next(iter(reference))["x"].tolist()
    assert json.loads(json.dumps(dataset.state_dict(np.int64(1)))) == reference.state_dict(1)
    pipeline = PipelineDataset(lambda: None, np.int64(0))
    pipeline.set_epoch(np.int64(2))
    assert (pipeline.num_workers, pipeline.epoch) == (0, 2)
    with pytest.raises(ConfigError, match="option world_size should be a positive integer"):
        MinibatchDataset(factory(data), 8, rank=0, world_size=True)
