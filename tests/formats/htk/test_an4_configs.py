"""CNTK's AN4 reader test configs, replayed on an archive with AN4's exact frame
counts (cntk-htk-mlf-and-randomizer.md §9-§10): frame and sequence mode,
randomized and sequential, 1 and 2 workers, epoch size 500, minibatch 250
(frame) / 140 (sequence), 2 epochs. Every row is checked (label, context
edges); the order is derived from the spec (an independent mt19937_64)."""

from __future__ import annotations

import functools
import shutil

import numpy as np
import pytest

from minibatcher import MinibatchSource

from .helpers import AN4, AN4Truth, make_an4_archive, spec_order

CONFIGS = AN4 / "configs"
EPOCH, EPOCHS = 500, 2
FRAME_CONFIGS = ["HTKMLFReaderSimpleDataLoop1_Config.cntk",
                 "HTKDeserializersSimpleDataLoop5_Config.cntk",
                 "HTKDeserializersSimpleDataLoop11_Config.cntk",
                 "HTKMLFReaderSimpleDataLoop21_Config.txt",
                 "HTKDeserializersSimpleDataLoop21_Config.cntk"]
SEQUENTIAL_CONFIGS = ["HTKMLFReaderSimpleDataLoop2_Config.cntk",
                      "HTKDeserializersSimpleDataLoop12_Config.cntk"]
SEQUENCE_CONFIGS = {"HTKMLFReaderSimpleDataLoop4_Config.cntk": 250,
                    "HTKDeserializersSimpleDataLoop8_Config.cntk": 140,
                    "HTKDeserializersSimpleDataLoop14_Config.cntk": 140}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("an4")
    for name in ("glob_0000.scp", "glob_0000.mlf", "state.list"):
        shutil.copy(AN4 / name, folder / name)
    make_an4_archive(folder)
    return folder


@functools.lru_cache(maxsize=None)
def truth() -> AN4Truth:
    return AN4Truth()


@functools.lru_cache(maxsize=None)
def frame_order() -> tuple[np.ndarray, np.ndarray]:
    seq, pos = spec_order([90234, 90158, 72342], seed=0)  # AN4's chunks, sweep 0
    return np.array(seq), np.array(pos)


@functools.lru_cache(maxsize=None)
def utterance_order() -> tuple[np.ndarray, np.ndarray]:
    seq, pos = spec_order([328, 341, 279], seed=0)
    return np.array(seq), np.array(pos)


def replay(config: str, data_dir, size: int, workers: int = 1, rank: int = 0) -> list[list]:
    """Minibatches of each epoch, as CNTK's harness reads them."""
    source = MinibatchSource.from_config(CONFIGS / config, "Simple_Test", base_dir=data_dir)
    epochs = []
    for epoch in range(EPOCHS):
        source.start_epoch(epoch, EPOCH)
        batches = []
        while True:
            mb = source.next_minibatch(size, num_data_partitions=workers, partition_index=rank)
            if not mb:
                break
            batches.append(mb)
        epochs.append(batches)
    return epochs


def frames_of(mb) -> np.ndarray:
    """The archive frame of every row, after checking every row."""
    return truth().check_rows(mb["features"].values, mb["labels"].values)


def test_chunks_are_cntks(data_dir):
    source = MinibatchSource.from_config(CONFIGS / FRAME_CONFIGS[0], "Simple_Test", base_dir=data_dir)
    table = source.deserializer.inner.table()
    assert table.chunk_sequences().tolist() == [328, 341, 279]
    assert table.chunk_samples().tolist() == [90234, 90158, 72342]
    assert source.sweep_size == 252734


@pytest.mark.parametrize("config", FRAME_CONFIGS)
def test_frame_mode_randomized(config, data_dir):
    seq, pos = frame_order()
    workers = 2 if "21" in config else 1
    for rank in range(workers):
        for epoch, batches in enumerate(replay(config, data_dir, 250, workers, rank)):
            assert len(batches) == 2
            for k, mb in enumerate(batches):
                lo = epoch * EPOCH + k * 250
                mine = pos[lo:lo + 250] % workers == rank  # decimation by randomized chunk
                assert frames_of(mb).tolist() == seq[lo:lo + 250][mine].tolist()
                assert mb["features"].values.dtype == (np.float64 if "11" in config else np.float32)


@pytest.mark.parametrize("config", SEQUENTIAL_CONFIGS)
def test_sequential(config, data_dir):
    for epoch, batches in enumerate(replay(config, data_dir, 250)):
        got = [frames_of(mb).tolist() for mb in batches]
        assert got == [list(range(epoch * 500, epoch * 500 + 250)),
                       list(range(epoch * 500 + 250, epoch * 500 + 500))]


def expected_utterance_batches(epoch: int, size: int, one_per_minibatch: bool) -> list[list[int]]:
    """§7.3: utterances starting inside the epoch, packed up to ``size`` frames (at least one)."""
    seq, _ = utterance_order()
    lengths = truth().lengths[seq]
    starts = np.concatenate([[0], np.cumsum(lengths)])
    first = int(np.searchsorted(starts, epoch * EPOCH))
    batches, i = [], first
    while starts[i] < (epoch + 1) * EPOCH:
        batch, total = [int(seq[i])], int(lengths[i])
        i += 1
        while (not one_per_minibatch and starts[i] < (epoch + 1) * EPOCH
               and total + lengths[i] <= size):
            batch.append(int(seq[i]))
            total += int(lengths[i])
            i += 1
        batches.append(batch)
    return batches


@pytest.mark.parametrize("config", list(SEQUENCE_CONFIGS))
def test_sequence_mode(config, data_dir):
    size, t = SEQUENCE_CONFIGS[config], truth()
    legacy = "HTKMLFReader" in config  # one utterance per minibatch (nbruttsineachrecurrentiter=1)
    for epoch, batches in enumerate(replay(config, data_dir, size)):
        want = expected_utterance_batches(epoch, size, legacy)
        got = []
        for mb in batches:
            frames = frames_of(mb)
            utts = list(dict.fromkeys(t.utt[frames].tolist()))
            assert frames.tolist() == [f for u in utts for f in range(t.starts[u], t.ends[u] + 1)]
            assert mb["features"].lengths.tolist() == t.lengths[utts].tolist()
            # Loop14 sets precision = "double" (CNTK's double-precision reader test)
            assert mb["features"].values.dtype == (np.float64 if "14" in config else np.float32)
            got.append(utts)
        assert got == want


def flat(epochs) -> list:
    return [(mb["features"].values.astype(np.float64).tobytes(), mb["labels"].values.indices.tobytes())
            for batches in epochs for mb in batches]


def test_front_ends_agree(data_dir):
    # CNTK's legacy and new readers share Control files: 1_5_11, 2_12, 4_8_14, 21_0/21_1.
    assert flat(replay(FRAME_CONFIGS[0], data_dir, 250)) == flat(replay(FRAME_CONFIGS[1], data_dir, 250)) \
        == flat(replay(FRAME_CONFIGS[2], data_dir, 250))
    assert flat(replay(SEQUENTIAL_CONFIGS[0], data_dir, 250)) == flat(
        replay(SEQUENTIAL_CONFIGS[1], data_dir, 250))
    for rank in (0, 1):
        assert flat(replay(FRAME_CONFIGS[3], data_dir, 250, 2, rank)) == flat(
            replay(FRAME_CONFIGS[4], data_dir, 250, 2, rank))
    names = list(SEQUENCE_CONFIGS)
    assert flat(replay(names[0], data_dir, 250)) == flat(replay(names[1], data_dir, 140)) == flat(
        replay(names[2], data_dir, 140))
