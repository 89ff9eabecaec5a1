"""UserDeserializer (a Python reader in the engine), MinibatchSourceFromData and
UserMinibatchSource."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse

import minibatcher.io as io
from minibatcher import FormatError, ConfigError
from minibatcher.user_deserializer import UserDeserializerAdapter

from ..engine.resume import assert_resumes_exactly


class Sequences(io.UserDeserializer):
    """Chunk c holds sequences 4c..4c+3; sequence i has i % longest + 1 samples
    valued i (dense stream "x", shape (2,)) and one sparse label (column i % 7)."""

    def __init__(self, chunks: int = 5, per_chunk: int = 4, longest: int = 3,
                 labels: bool = True) -> None:
        super().__init__()
        self.chunks, self.per_chunk, self.longest, self.calls = chunks, per_chunk, longest, 0
        self.labels = labels

    def stream_infos(self):
        return [io.StreamInformation("x", 0, "dense", np.float32, (2,)),
                io.StreamInformation("y", 1, "sparse", np.float32, (7,))][:1 + self.labels]

    def num_chunks(self):
        return self.chunks

    def get_chunk(self, chunk_id):
        self.calls += 1
        ids = range(chunk_id * self.per_chunk, (chunk_id + 1) * self.per_chunk)
        x = [np.full((i % self.longest + 1, 2), i, np.float32) for i in ids]
        y = scipy.sparse.csr_matrix((np.ones(len(ids), np.float32), ([k for k in range(len(ids))],
                                     [i % 7 for i in ids])), shape=(len(ids), 7))
        return {"x": x, "y": y} if self.labels else {"x": x}


def ids_of(minibatch) -> list[int]:
    return [int(s[0, 0]) for s in minibatch["x"].as_sequences()]


def test_user_deserializer_reads_in_order_with_cntk_shapes():
    source = io.MinibatchSource(Sequences(), randomize=False, max_sweeps=1)
    mb = source.next_minibatch(6)
    assert ids_of(mb) == [0, 1, 2] and mb["x"].shape == (3, 3, 2) and mb["y"].shape == (3, 1, 7)
    assert mb["y"].as_sequences()[2].toarray().tolist() == [[0, 0, 1, 0, 0, 0, 0]]
    assert mb["x"].mask.tolist() == [[2, 0, 0], [2, 1, 0], [2, 1, 1]]
    rest = [i for m in source.minibatches(6) for i in ids_of(m)]
    assert rest == list(range(3, 20))


def test_user_deserializer_is_randomized_like_any_deserializer():
    def sweep(seed):
        source = io.MinibatchSource(Sequences(), randomization_window_in_chunks=2,
                                    randomization_seed=seed, max_sweeps=1)
        return [i for m in source.minibatches(5) for i in ids_of(m)]

    first = sweep(0)
    assert sorted(first) == list(range(20)) and first != list(range(20))
    assert sweep(0) == first and sweep(1) != first


def test_user_deserializer_workers_split_the_data():
    seen = []
    for rank in range(3):
        source = io.MinibatchSource(Sequences(), randomization_window_in_chunks=2, max_sweeps=1,
                                    num_workers=3, worker_rank=rank)
        seen.append([i for m in source.minibatches(4) for i in ids_of(m)])
    assert sorted(sum(seen, [])) == list(range(20)) and all(seen)


@pytest.mark.parametrize("options", [{"randomization_window_in_chunks": 2},
                                     {"frame_mode": True}, {"truncation_length": 2}],
                         ids=["randomized", "frames", "bptt"])
def test_user_deserializer_checkpoints_restore_exactly(options):
    longest = 1 if options.get("frame_mode") else 3
    labels = not options.get("truncation_length")  # BPTT: streams of equal length
    steps = assert_resumes_exactly(
        lambda: io.MinibatchSource(Sequences(longest=longest, labels=labels), max_sweeps=2,
                                   **options), max_steps=40)
    assert steps > 5


def test_sample_mode_arrays_and_sequence_lengths_hook():
    class Rows(io.UserDeserializer):
        def stream_infos(self):
            return [io.StreamInformation("v", 0, 3, False)]

        def num_chunks(self):
            return 3

        def sequence_lengths(self, chunk_id):  # beyond CNTK: no reading at construction
            return [1] * 2

        def get_chunk(self, chunk_id):
            self.loaded = getattr(self, "loaded", []) + [chunk_id]
            return {"v": np.arange(6, dtype=np.float64).reshape(2, 3) + 10 * chunk_id}

    user = Rows()
    adapter = UserDeserializerAdapter(user)
    assert not hasattr(user, "loaded") and adapter.table().num_sequences == 6
    source = io.MinibatchSource(user, randomize=False, frame_mode=True)
    assert source.next_minibatch(3)["v"].values[:, 0].tolist() == [0.0, 3.0, 10.0]


def test_contract_violations_are_clear_errors():
    class Broken(Sequences):
        def __init__(self, result):
            super().__init__()
            self.result = result

        def get_chunk(self, chunk_id):
            return self.result

    ok = Sequences().get_chunk(0)
    cases = [([1, 2], "should return a dict"),
             ({"x": ok["x"]}, r"should return the streams \['x', 'y'\]"),
             ({"x": ok["x"][:2], "y": ok["y"]}, "same number of sequences"),
             ({"x": [np.ones((1, 3))] * 4, "y": ok["y"]}, r"samples of shape \(2,\)"),
             ({"x": ok["x"], "y": np.ones((4, 7))}, "should be a CSR matrix with 7 columns"),
             ({"x": [np.array([["a", "b"]])] * 4, "y": ok["y"]}, "numeric array")]
    for result, message in cases:
        with pytest.raises(FormatError, match=message):
            UserDeserializerAdapter(Broken(result))
    with pytest.raises(ConfigError, match="num_chunks\\(\\) should return a positive int"):
        UserDeserializerAdapter(Sequences(chunks=0))
    with pytest.raises(NotImplementedError, match="should return a list of StreamInformation"):
        io.MinibatchSource(io.UserDeserializer())


def test_a_chunk_that_changes_is_an_error_never_mixed_data():
    class Drifting(Sequences):
        def get_chunk(self, chunk_id):
            data = super().get_chunk(chunk_id)
            if self.calls > self.chunks:  # after the construction scan
                data = {"x": data["x"][:3], "y": data["y"][:3]}
            return data

    source = io.MinibatchSource(Drifting(), randomize=False, max_sweeps=1)
    with pytest.raises(FormatError, match=r"get_chunk\(0\) returned 3 sequence\(s\) with other "
                                          "lengths than when the source was built"):
        source.next_minibatch(4)


def test_fingerprint_names_the_reader_and_checks_its_identity():
    class Identified(Sequences):
        def fingerprint(self):
            return {"files": ["a", "b"], "version": self.chunks}

    state = io.MinibatchSource(Identified(), max_sweeps=1).get_checkpoint_state()
    io.MinibatchSource(Identified(), max_sweeps=1).restore_from_checkpoint(state)
    with pytest.raises(Exception, match="holds other data"):
        io.MinibatchSource(Identified(chunks=6), max_sweeps=1).restore_from_checkpoint(state)


def test_minibatch_source_from_data_follows_cntk_docs():
    n = 5
    x = np.arange(3 * n).reshape(n, 3).astype(np.float32)
    s = io.MinibatchSourceFromData(dict(x=x), max_samples=len(x))
    mb = s.next_minibatch(3)
    d = mb[s.streams["x"]]
    assert d.data.asarray().tolist() == x[:3].tolist() and d.shape == (3, 3) and not d.end_of_sweep
    d = s.next_minibatch(3)[s.streams["x"]]
    assert d.data.asarray().tolist() == x[3:].tolist() and d.end_of_sweep
    assert s.next_minibatch(3) == {}
    y = np.array([i % 3 == 0 for i in range(n)], np.float32)
    y = scipy.sparse.csr_matrix((np.ones(n, np.float32), (range(n), y.astype(int))), shape=(n, 2))
    s = io.MinibatchSourceFromData(dict(x=x, y=y))
    expected = [[[0, 1], [1, 0], [1, 0]], [[0, 1], [1, 0]], [[0, 1], [1, 0], [1, 0]]]
    for want in expected:  # no max_samples: repeats; no minibatch crosses the data's end
        assert s.next_minibatch(3)[s.streams["y"]].data.asarray().todense().tolist() == want


def test_minibatch_source_from_data_sequences():
    xx = [np.array([1, 3, 2], np.float32), np.array([4, 1], np.float32)]
    yy = [scipy.sparse.csr_matrix(np.array([[0, 1], [1, 0], [1, 0]], np.float32)),
          scipy.sparse.csr_matrix(np.array([[1, 0], [1, 0]], np.float32))]
    s = io.MinibatchSourceFromData(dict(xx=(xx, "Sequence[tensor]"), yy=(yy, "Sequence[tensor]")))
    mb = s.next_minibatch(3)
    assert mb[s.streams["xx"]].data.asarray().tolist() == [[[1.0], [3.0], [2.0]]]
    assert mb[s.streams["yy"]].data.shape == (1, 3, 2)


def test_minibatch_source_from_data_resumes_and_randomizes():
    x = np.arange(40, dtype=np.float32).reshape(20, 2)
    assert assert_resumes_exactly(lambda: io.MinibatchSourceFromData(
        {"x": x}, randomize=True, randomization_window_in_samples=7, max_sweeps=2)) > 5
    s = io.MinibatchSourceFromData({"x": x}, randomize=True, max_sweeps=1)
    order = [v for m in s.minibatches(6) for v in m["x"].values[:, 0].tolist()]
    assert sorted(order) == x[:, 0].tolist()
    with pytest.raises(ConfigError, match="same, non-zero number of sequences"):
        io.MinibatchSourceFromData({"a": x, "b": x[:3]})
    with pytest.raises(ConfigError, match="non-empty dict"):
        io.MinibatchSourceFromData({})


def test_user_minibatch_source_contract():
    class Counting(io.UserMinibatchSource):
        def __init__(self):
            self.position = 0
            super().__init__()

        def stream_infos(self):
            return [io.StreamInformation("n", 0, "dense", np.float32, (1,))]

        def next_minibatch(self, num_samples, number_of_workers=1, worker_rank=0, device=None):
            values = np.arange(self.position, self.position + num_samples, dtype=np.float32)
            self.position += num_samples
            info = self.streams.n
            return {info: io.MinibatchData.from_sequences(info, values.reshape(-1, 1))}

    source = Counting()
    mb = source.next_minibatch(3)
    assert mb[source["n"]].values.ravel().tolist() == [0.0, 1.0, 2.0]
    assert source.get_checkpoint_state() == {} and not source.is_infinite()
    source.restore_from_checkpoint({})
    with pytest.raises(NotImplementedError, match="implement restore_from_checkpoint"):
        source.restore_from_checkpoint({"position": 3})
