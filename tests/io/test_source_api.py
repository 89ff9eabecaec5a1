"""cntk.io's MinibatchSource / MinibatchData API on minibatcher (CNTK 2.7 names and semantics).

Expected values for shapes, masks and sequences are the ones of CNTK's own
tests (bindings/python/cntk/io/tests/io_tests.py) for the same data.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import scipy.sparse

import minibatcher.io as io
from minibatcher import ConfigError, NotSupportedError

MBDATA_DENSE_1 = ("0  |S0 0   |S1 0\n0   |S0 1   |S1 1\n0   |S0 2\n0   |S0 3   |S1 3\n1   |S0 4\n"
                  "1   |S0 5   |S1 1\n1   |S0 6   |S1 2\n")
MBDATA_SPARSE = ("0\t|x 560:1\t|y 1 0 0 0 0\n0\t|x 0:1\n0\t|x 0:1\n1\t|x 560:1\t|y 0 1 0 0 0\n"
                 "1\t|x 0:1\n1\t|x 0:1\n1\t|x 424:1\n")


def dense_source(write, **options):
    return io.MinibatchSource(io.CTFDeserializer(str(write(MBDATA_DENSE_1)), io.StreamDefs(
        features=io.StreamDef(field="S0", shape=1), labels=io.StreamDef(field="S1", shape=1))),
        randomization_window_in_chunks=0, max_sweeps=1, **options)


def test_minibatch_source_signature_is_cntks():
    names = list(inspect.signature(io.MinibatchSource).parameters)
    assert names[:11] == ["deserializers", "max_samples", "max_sweeps",
                          "randomization_window_in_chunks", "randomization_window_in_samples",
                          "randomization_seed", "trace_level", "multithreaded_deserializer",
                          "frame_mode", "truncation_length", "randomize"]


def test_stream_infos_getitem_and_is_infinite(write):
    source = dense_source(write)
    infos = source.stream_infos()
    assert [i.m_name for i in infos] == ["features", "labels"]
    assert source["labels"] is source.streams.labels is source.stream_info("labels")
    assert not source.is_infinite()
    with pytest.raises(ConfigError, match="no stream named 'nope'; streams: features, labels"):
        source["nope"]
    infinite = io.MinibatchSource(io.CTFDeserializer(str(write(MBDATA_DENSE_1)), io.StreamDefs(
        features=io.StreamDef(field="S0", shape=1))))
    assert infinite.is_infinite()


def test_multithreaded_deserializer_is_accepted(write):
    assert dense_source(write, multithreaded_deserializer=False).options.num_threads == 1
    assert dense_source(write, multithreaded_deserializer=True).options.num_threads is None
    auto = dense_source(write, multithreaded_deserializer=None, num_threads=3)
    assert auto.options.num_threads == 3
    with pytest.raises(ConfigError, match="multithreaded_deserializer=False parses on one thread"):
        dense_source(write, multithreaded_deserializer=False, num_threads=4)
    with pytest.raises(ConfigError, match="multithreaded_deserializer should be None, True or"):
        dense_source(write, multithreaded_deserializer="auto")


def test_full_sweep_minibatch_as_cntk(write):
    source = dense_source(write)
    mb = source.next_minibatch(1000)
    features = mb[source.stream_info("features")]
    assert len(features) == features.num_sequences == 2 and features.end_of_sweep
    assert [s.tolist() for s in features.as_sequences()] == [[[0], [1], [2], [3]], [[4], [5], [6]]]
    assert features.data.mask.tolist() == [[2, 1, 1, 1], [2, 1, 1, 0]]
    assert features.mask is features.data.mask
    assert features.shape == features.data.shape == (2, 4, 1)
    labels = mb[source["labels"]]
    assert [s.tolist() for s in labels.as_sequences()] == [[[0], [1], [3]], [[1], [2]]]
    assert labels.data.mask.tolist() == [[2, 1, 1], [2, 1, 0]]
    assert np.asarray(labels.data).shape == (2, 3, 1) and len(labels.data) == 2


def test_text_format_shapes_and_sparse_sequences(write):
    source = io.MinibatchSource(io.CTFDeserializer(str(write(MBDATA_SPARSE)), io.StreamDefs(
        features=io.StreamDef(field="x", shape=1000, is_sparse=True),
        labels=io.StreamDef(field="y", shape=5))), randomize=False)
    mb = source.next_minibatch(7)
    features, labels = mb[source["features"]], mb[source["labels"]]
    assert features.shape == (2, 4, 1000) and features.is_sparse and features.data.is_sparse
    assert labels.shape == (2, 1, 5) and not labels.is_sparse
    assert labels.asarray().tolist() == [[[1, 0, 0, 0, 0]], [[0, 1, 0, 0, 0]]]
    sequences = features.as_sequences()
    assert all(scipy.sparse.isspmatrix_csr(s) for s in sequences)
    assert [s.shape for s in sequences] == [(3, 1000), (4, 1000)]
    assert sequences[1].toarray()[3, 424] == 1 and features.asarray() is sequences


def test_bptt_mask_marks_only_real_sequence_starts(write):
    path = write("".join(f"0 |x {i}\n" for i in range(5)) + "1 |x 9\n")
    streams = io.StreamDefs(x=io.StreamDef(shape=1))
    source = io.MinibatchSource(io.CTFDeserializer(str(path), streams), randomize=False,
                                truncation_length=2, max_sweeps=1)
    masks = [mb["x"].mask.tolist() for mb in source.minibatches(2)]
    assert masks[0] == [[2, 1]] and masks[1] == [[1, 1]]  # the second segment continues sequence 0


def test_ctf_deserializer_without_streams_surveys_the_file(write):
    d = io.CTFDeserializer(str(write("|a 1 2 3 |w 4:1 9:1\n|a 4 5 6 |w 0:1\n")))
    infos = {i.name: (i.dim, i.is_sparse) for i in d.streams}
    assert infos == {"a": (3, False), "w": (10, True)}
    assert io.MinibatchSource(d, randomize=False).next_minibatch(2)["a"].shape == (2, 1, 3)


def test_tuple_shapes_reach_minibatches(write):
    path = write("|f 1 2 3 4 5 6\n|f 6 5 4 3 2 1\n")
    source = io.MinibatchSource(io.CTFDeserializer(str(path), io.StreamDefs(
        f=io.StreamDef(shape=(2, 3)))), randomize=False)
    data = source.next_minibatch(2)[source.streams.f]
    assert source.streams.f.sample_shape == (2, 3) and data.shape == (2, 1, 2, 3)
    assert data.values.shape == (2, 6)  # read flat, as CNTK's CTF reader
    assert data.as_sequences()[1].tolist() == [[[6, 5, 4], [3, 2, 1]]]
    assert data.asarray()[0, 0].tolist() == [[1, 2, 3], [4, 5, 6]]


def test_stream_infos_repr_is_useful(write):
    source = dense_source(write)
    assert repr(source.streams) == ("StreamInfos(features=dense float32 (1,), "
                                    "labels=dense float32 (1,))")


def test_sequence_to_cntk_text_format_matches_cntk():
    aa = np.asarray
    assert io.sequence_to_cntk_text_format(0, {"W": aa([])}) == ""
    assert io.sequence_to_cntk_text_format(0, {"W": aa([[[1, 0, 0, 0], [1, 0, 0, 0]]])}) == \
        "0\t|W 1 0 0 0 1 0 0 0"
    assert io.sequence_to_cntk_text_format(0, {"W": aa([[[1, 0], [1, 0]], [[5, 6], [7, 8]]]),
                                               "L": aa([[[2]]])}) == \
        "0\t|L 2 |W 1 0 1 0\n0\t|W 5 6 7 8"
    sparse = io.sequence_to_cntk_text_format(3, {"s": [{2: 1.5, 0: 1}, {}]})
    assert sparse == "3\t|s 0:1 2:1.5\n3\t|s "
    with pytest.raises(ValueError):
        io.sequence_to_cntk_text_format(0, {"A": [object()]})


def test_sequence_to_cntk_text_format_round_trips(write):
    rng = np.random.default_rng(0)
    sequences = [rng.integers(0, 9, size=(n, 3)).astype(np.float32) for n in (2, 1, 4)]
    text = "\n".join(io.sequence_to_cntk_text_format(i, {"x": s}) for i, s in enumerate(sequences))
    source = io.MinibatchSource(io.CTFDeserializer(str(write(text + "\n")), io.StreamDefs(
        x=io.StreamDef(shape=3))), randomize=False, max_sweeps=1)
    got = source.next_minibatch(100)["x"].as_sequences()
    assert [g.tolist() for g in got] == [s.tolist() for s in sequences]


def test_out_of_scope_features_say_so():
    import minibatcher.io.transforms as xforms

    for transform in (xforms.crop, xforms.scale, xforms.mean, xforms.color):
        with pytest.raises(NotSupportedError, match="no image support"):
            transform()
    for make in (lambda: io.ImageDeserializer("map.txt", {}),
                 lambda: io.Base64ImageDeserializer("map.txt", {})):
        with pytest.raises(NotSupportedError, match="no image support"):
            make()
    with pytest.raises(NotSupportedError, match="CNTK binary format"):
        io.CBFDeserializer("x.bin")
    with pytest.raises(NotSupportedError, match="lattices"):
        io.LatticeDeserializer("toc.txt", {})
    assert issubclass(NotSupportedError, NotImplementedError)


def test_ctf_deserializer_survey_refuses_what_is_not_a_regular_file(tmp_path):
    import os

    fifo = tmp_path / "pipe.ctf"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="is not a regular file"):
        io.CTFDeserializer(str(fifo))
    with pytest.raises(ValueError, match="is not a regular file"):
        io.CTFDeserializer(str(tmp_path))
    with pytest.raises(FileNotFoundError):
        io.CTFDeserializer(str(tmp_path / "missing.ctf"))
