"""The Python API against CNTK's own Python tests (bindings/python/cntk/io/tests/io_tests.py)."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher import (FULL_DATA_SWEEP, INFINITELY_REPEAT, ConfigError, CTFDeserializer,
                         FormatError, MinibatchSource, StreamDef, StreamDefs)

MBDATA_DENSE_1 = ("0  |S0 0   |S1 0\n0   |S0 1   |S1 1\n0   |S0 2\n0   |S0 3   |S1 3\n1   |S0 4\n"
                  "1   |S0 5   |S1 1\n1   |S0 6   |S1 2\n")
MBDATA_DENSE_2 = MBDATA_DENSE_1.replace("1   |", "0   |")
MBDATA_SPARSE = ("0\t|x 560:1\t|y 1 0 0 0 0\n0\t|x 0:1\n0\t|x 0:1\n1\t|x 560:1\t|y 0 1 0 0 0\n"
                 "1\t|x 0:1\n1\t|x 0:1\n1\t|x 424:1\n")
MBDATA_SPARSE1 = "".join(line.split("\t|y")[0] + "\n" for line in MBDATA_SPARSE.splitlines())
MBDATA_SPARSE2 = "0\t|y 1 0 0 0 0\n1\t|y 0 1 0 0 0\n"
DENSE_STREAMS = StreamDefs(features=StreamDef(field="S0", shape=1), labels=StreamDef(field="S1", shape=1))


def ctf(path, streams=DENSE_STREAMS, **kw):
    return CTFDeserializer(str(path), streams, **kw)


def sparse_streams(labels_define=False):
    return StreamDefs(features=StreamDef(field="x", shape=1000, is_sparse=True),
                      labels=StreamDef(field="y", shape=5, defines_mb_size=labels_define))


def test_text_format(write):
    src = MinibatchSource(ctf(write(MBDATA_SPARSE), sparse_streams()), randomize=False,
                          max_sweeps=INFINITELY_REPEAT)
    mb = src.next_minibatch(7)
    features, labels = mb["features"], mb["labels"]
    assert features.shape == (2, 4, 1000) and labels.shape == (2, 1, 5)  # CNTK: the data shape
    assert labels.asarray().tolist() == [[[1, 0, 0, 0, 0]], [[0, 1, 0, 0, 0]]]
    assert (features.num_sequences, features.num_samples, features.end_of_sweep) == (2, 7, True)
    assert labels.num_samples == 2
    assert labels.values.tolist() == [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0]]
    assert features.values.toarray()[[0, 3, 6], [560, 560, 424]].tolist() == [1.0, 1.0, 1.0]
    mb = src.next_minibatch(1)
    assert (mb["features"].num_sequences, mb["features"].num_samples) == (1, 3)
    assert not mb["features"].end_of_sweep


def test_full_sweep_minibatch_values_and_masks(write):
    src = MinibatchSource(ctf(write(MBDATA_DENSE_1)), randomize=False, max_sweeps=1)
    mb = src.next_minibatch(1000)
    features, mask = mb["features"].padded()
    assert features[..., 0].tolist() == [[0, 1, 2, 3], [4, 5, 6, 0]]
    assert mask.tolist() == [[True] * 4, [True, True, True, False]]
    assert [s.ravel().tolist() for s in mb["labels"].sequences] == [[0, 1, 3], [1, 2]]
    assert mb["features"].keys.tolist() == [0, 1] and mb["labels"].lengths.tolist() == [3, 2]
    assert not src.next_minibatch(1000)


def test_max_samples_max_sweeps_and_full_data_sweep(write):
    path = write("|S0 1\n|S0 2\n|S0 3\n|S0 4")
    streams = StreamDefs(features=StreamDef(field="S0", shape=1))
    src = MinibatchSource(ctf(path, streams), max_samples=1)
    mb = src.next_minibatch(1)
    assert mb["features"].num_samples == 1 and not mb["features"].end_of_sweep
    assert src.next_minibatch(1) == {}
    src = MinibatchSource(ctf(path, streams), max_sweeps=3)
    got = [(m["features"].num_samples, m["features"].end_of_sweep) for m in src.minibatches(5)]
    assert got == [(5, True), (5, True), (2, True)]
    src = MinibatchSource(ctf(path, streams), max_samples=11)
    got = [(m["features"].num_samples, m["features"].end_of_sweep) for m in src.minibatches(5)]
    assert got == [(5, True), (5, True), (1, False)]
    for options in ({"max_sweeps": 1}, {"max_samples": FULL_DATA_SWEEP}):
        src = MinibatchSource(ctf(path, streams), **options)
        got = [(m["features"].num_samples, m["features"].end_of_sweep) for m in src.minibatches(5)]
        assert got == [(4, True)]


def test_random_seed_is_per_sweep(write):
    path = write("".join(f"|S0 {i}\n" for i in range(8)))
    streams = StreamDefs(features=StreamDef(field="S0", shape=1))

    def read(seed, sweeps=2):
        src = MinibatchSource(ctf(path, streams, chunk_size_in_bytes=12),
                              randomization_seed=seed, max_sweeps=sweeps)
        return [v for mb in src.minibatches(3) for v in mb["features"].values.ravel().tolist()]

    assert read(0) != read(123)
    assert read(0)[8:] == read(1, sweeps=1)


def test_large_minibatch_crosses_sweeps(write):
    src = MinibatchSource(ctf(write(MBDATA_DENSE_2)), randomize=False)
    mb = src.next_minibatch(1000)
    assert (mb["features"].num_samples, mb["features"].num_sequences) == (994, 142)
    assert mb["labels"].num_samples == 710 and mb["features"].end_of_sweep


def test_minibatch_defined_by_labels(write):
    src = MinibatchSource(ctf(write(MBDATA_SPARSE), sparse_streams(True)), randomize=False)
    mb = src.next_minibatch(2)
    assert (mb["features"].num_sequences, mb["features"].num_samples, mb["labels"].num_samples) == (2, 7, 2)
    mb = src.next_minibatch(3)
    assert (mb["features"].num_samples, mb["labels"].num_samples) == (10, 3)
    joined = MinibatchSource([ctf(write(MBDATA_SPARSE1, "x.ctf"), StreamDefs(
        features=StreamDef(field="x", shape=1000, is_sparse=True))), ctf(write(MBDATA_SPARSE2, "y.ctf"),
        StreamDefs(labels=StreamDef(field="y", shape=5, defines_mb_size=True)))], randomize=False)
    mb = joined.next_minibatch(2)
    assert (mb["features"].num_sequences, mb["features"].num_samples, mb["labels"].num_samples) == (2, 7, 2)


def test_prefetch_with_unpacking(write):
    path = write("".join(f"|S0 {i} |S1 {i}\n" for i in range(10)))
    src = MinibatchSource(ctf(path), randomize=False, max_samples=FULL_DATA_SWEEP)
    assert [m["features"].num_samples for m in src.minibatches(3)] == [3, 3, 3, 1]


def test_streams_input_map_and_stream_info(write):
    src = MinibatchSource(ctf(write(MBDATA_DENSE_1)), randomize=False)
    assert src.streams.features.shape == (1,) and src.stream_info("labels").name == "labels"
    mb = src.next_minibatch(4, input_map={"f": src.streams.features})
    assert list(mb) == ["f"] and mb["f"].num_samples == 4
    with pytest.raises(ConfigError, match="no stream named 'nope'; streams: features, labels"):
        src.stream_info("nope")


@pytest.mark.parametrize("options, message", [
    ({"max_samples": 5, "max_sweeps": 2}, "max_samples and max_sweeps are mutually exclusive"),
    ({"randomization_window_in_chunks": 3, "randomization_window_in_samples": 4},
     "mutually exclusive"),
    ({"frame_mode": True, "truncation_length": 5}, "frame_mode=True and truncation_length > 0"),
    ({"worker_rank": 2, "num_workers": 2}, r"worker_rank should be in \[0, num_workers=2\)"),
    ({"trace_level": 7}, "trace_level should be 0"),
])
def test_invalid_options_are_explained(write, options, message):
    with pytest.raises(ConfigError, match=message):
        MinibatchSource(ctf(write(MBDATA_DENSE_1)), **options)


def test_minibatch_size_should_be_positive(write):
    src = MinibatchSource(ctf(write(MBDATA_DENSE_1)))
    with pytest.raises(ConfigError, match="minibatch_size_in_samples should be a positive int, but "
                                          "got minibatch_size_in_samples=0"):
        src.next_minibatch(0)


def test_frame_mode_rejects_sequences_when_the_source_is_built(write):
    """The index knows every sequence's length: no need to wait for the first long one."""
    path = write(MBDATA_DENSE_1)
    with pytest.raises(FormatError, match=r"frame_mode=True needs one-sample sequences, but sequence "
                                          r"\(key 0\) has 4 samples in .*\.ctf \(and 1 more\)"):
        MinibatchSource(ctf(path), frame_mode=True, randomize=False)
    late = "".join(f"{i} |S0 {i} |S1 {i}\n" for i in range(1000)) + "1000 |S0 1\n1000 |S0 2 |S1 1\n"
    with pytest.raises(FormatError, match=r"sequence \(key 1000\) has 2 samples"):
        MinibatchSource(ctf(write(late)), frame_mode=True, randomize=False)


def test_frame_mode_still_checks_every_stream_when_packing(write):
    # one row (budget length 1) but two samples of S0: only parsing can tell
    src = MinibatchSource(ctf(write("|S0 1 |S0 2 |S1 1\n"), max_errors=1), frame_mode=True,
                          randomize=False)
    with pytest.raises(FormatError, match=r"sequence \(key 0\) has 2 samples in stream 'features'"):
        src.next_minibatch(10)


def test_frame_mode_values(write):
    path = write("".join(f"|S0 {i} |S1 {2 * i}\n" for i in range(6)))
    src = MinibatchSource(ctf(path), frame_mode=True, randomize=False, max_sweeps=1)
    mb = src.next_minibatch(4)
    assert mb["labels"].values.ravel().tolist() == [0, 2, 4, 6]
    assert mb["labels"].layout.num_rows == 4 and mb["labels"].layout.width == 1
    assert np.shares_memory(mb["labels"].values, src.next_minibatch(2)["labels"].values) is False
