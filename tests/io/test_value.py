"""Issue 13.12: the cntk.io leftovers CNTK's own io tests use. A user minibatch source built the
CNTK way (``Value.one_hot``, ``Value(batch=...)``, ``MinibatchData(value, num_sequences,
num_samples, sweep_end)``) delivers what the CTF reader delivers for the same data (the shape of
CNTK's test_usermbsource); ``storage_format`` is 'dense'/'sparse'; ``number_of_sequences`` and
``number_of_samples``; a sparse stream with a rank-2 sample shape ``asarray()``s densely."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import minibatcher.io as io
from minibatcher.io import MinibatchData, StreamInformation, Value

SPARSE = ("0\t|x 560:1\t|y 1 0 0 0 0\n0\t|x 0:1\n0\t|x 0:1\n1\t|x 560:1\t|y 0 1 0 0 0\n"
          "1\t|x 0:1\n1\t|x 0:1\n1\t|x 424:1\n")


class Ported(io.UserMinibatchSource):
    """Sequences of word indices (sparse, 1000 classes) and one dense label each."""

    def __init__(self) -> None:
        self.fsi = StreamInformation("features", 0, "sparse", np.float32, (1000,))
        self.lsi = StreamInformation("labels", 1, "dense", np.float32, (5,))
        self.words = [[560, 0, 0], [560, 0, 0, 424]]
        self.labels = [np.eye(5, dtype=np.float32)[[0]], np.eye(5, dtype=np.float32)[[1]]]
        self.next = 0
        super().__init__()

    def stream_infos(self):
        return [self.fsi, self.lsi]

    def next_minibatch(self, num_samples, number_of_workers=1, worker_rank=0, device=None):
        words, labels, count, end = [], [], 0, False
        while not words or count + len(self.words[self.next]) <= num_samples:
            words.append(self.words[self.next])
            labels.append(self.labels[self.next])
            count += len(words[-1])
            self.next = (self.next + 1) % 2
            end = end or self.next == 0
        f = Value.one_hot(batch=words, num_classes=1000)
        label = Value(batch=np.asarray(labels, dtype=np.float32))
        return {self.fsi: MinibatchData(f, len(words), count, end),
                self.lsi: MinibatchData(label, len(words), len(words), end)}


def test_a_user_source_built_with_values_equals_the_ctf_reader(tmp_path):
    (tmp_path / "d.ctf").write_text(SPARSE)
    native = io.MinibatchSource(io.CTFDeserializer(str(tmp_path / "d.ctf"), io.StreamDefs(
        features=io.StreamDef(field="x", shape=1000, is_sparse=True),
        labels=io.StreamDef(field="y", shape=5))), randomize=False)
    user = Ported()
    for size in (2, 10):
        n, u = native.next_minibatch(size), user.next_minibatch(size)
        for name in ("features", "labels"):
            a, b = n[native[name]], u[user[name]]
            assert a.shape == b.shape and a.is_sparse == b.is_sparse
            assert (a.num_sequences, a.num_samples) == (b.number_of_sequences,
                                                        b.number_of_samples)
        np.testing.assert_array_equal(n[native["labels"]].asarray(), u[user["labels"]].asarray())
        for x, y in zip(n[native["features"]].as_sequences(), u[user["features"]].as_sequences()):
            np.testing.assert_array_equal(x.toarray(), y.toarray())
    assert u[user["features"]].end_of_sweep


def test_storage_format_is_cntks_name():
    assert StreamInformation("x", 0, "sparse", np.float32, (3,)).storage_format == "sparse"
    assert StreamInformation("x", 0, 3, True).storage_format == "sparse"
    assert StreamInformation("x", 0, "dense", np.float32, (3,)).storage_format == "dense"


def test_a_sparse_stream_with_rank_2_samples_asarrays_densely():
    info = StreamInformation("y", 0, "sparse", np.float32, (2, 3))
    eye = np.eye(6, dtype=np.float32)
    d = MinibatchData.from_sequences(info, [sp.csr_matrix(eye[[1, 4]]), sp.csr_matrix(eye[[5]])])
    dense = d.asarray()
    assert dense.shape == d.shape == (2, 2, 2, 3)
    assert dense[0, 1].tolist() == [[0, 0, 0], [0, 1, 0]] and not dense[1, 1].any()
    flat = MinibatchData.from_sequences(StreamInformation("y", 0, 6, True), [sp.csr_matrix(eye)])
    assert isinstance(flat.asarray()[0], sp.csr_matrix)  # rank 1: CSR per sequence, as CNTK


def test_value_construction():
    v = Value(batch=[np.ones((2, 3), np.float32), np.zeros((1, 3), np.float32)],
              seq_starts=[True, False])
    assert v.shape == (2, 2, 3) and v.mask.tolist() == [[2, 1], [1, 0]]
    assert Value(batch=np.ones((4, 3))).shape == (4, 3)  # no sequence axis
    assert Value(shape=(2, 1, 3), dtype=np.float64).dtype == np.float64
    hot = Value.one_hot(np.array([[1, 5, 3, 2], [4, 1, 0, 2]]), (2, 6))
    assert hot.shape == (2, 2, 2, 6) and hot.asarray()[0, 1, 0, 3] == 1
    for bad, match in (([[1.5]], "must be of type integer"), ([[7]], r"in \[0, 5\)"),
                       ([], "list of lists of integers")):
        with pytest.raises(ValueError, match=match):
            Value.one_hot(bad, 5)
    with pytest.raises(ValueError, match="num_sequences should be the value's 2 sequences"):
        MinibatchData(v, 3, 3, False)
    with pytest.raises(ValueError, match="either|batch=..."):
        Value()
