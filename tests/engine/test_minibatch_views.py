"""MinibatchData builds each derived view once (indexing ``sequences`` in a loop is linear).

The checks count constructions instead of timing: before the views were cached,
``mb.sequences[i]`` for every i sliced the values n^2 times.
"""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.engine.layout import CSRMatrix, SequenceLayout
from minibatcher.engine.minibatch import MinibatchData
from minibatcher.streams import StreamInformation

N = 300


class CountingArray(np.ndarray):
    """An ndarray that counts how often it is sliced."""

    slices = 0

    def __getitem__(self, key):
        if isinstance(key, slice):
            CountingArray.slices += 1
        return super().__getitem__(key)


def dense(n: int = N) -> MinibatchData:
    lengths = np.arange(n) % 3 + 1
    values = np.arange(int(lengths.sum()) * 2, dtype=np.float32).reshape(-1, 2).view(CountingArray)
    info = StreamInformation("x", 0, 2, False)
    return MinibatchData(info, values, lengths, np.arange(n, dtype=np.uint64), False,
                         SequenceLayout.first_fit(lengths))


def test_indexing_sequences_in_a_loop_slices_each_sequence_once():
    mb = dense()
    CountingArray.slices = 0
    firsts = [float(mb.sequences[i][0, 0]) for i in range(mb.num_sequences)]
    assert CountingArray.slices == N  # one slice per sequence, not N per access
    assert firsts[:3] == [0.0, 2.0, 6.0]
    assert mb.sequences is mb.sequences and mb.offsets is mb.offsets


def test_sparse_sequences_are_sliced_once(monkeypatch):
    calls = []
    original = CSRMatrix.row_slice
    monkeypatch.setattr(CSRMatrix, "row_slice",
                        lambda self, a, b: calls.append(a) or original(self, a, b))
    lengths = np.ones(N, np.int64)
    values = CSRMatrix(np.ones(N, np.float32), np.zeros(N, np.int32), np.arange(N + 1), (N, 4))
    mb = MinibatchData(StreamInformation("s", 0, 4, True), values, lengths,
                       np.arange(N, dtype=np.uint64), False, SequenceLayout.first_fit(lengths))
    for i in range(N):
        mb.sequences[i]
        mb.as_sequences()[i] if i < 3 else None
    assert len(calls) == N


def test_every_derived_view_is_built_once(monkeypatch):
    grids = []
    original = SequenceLayout.grid
    monkeypatch.setattr(SequenceLayout, "grid", lambda self: grids.append(1) or original(self))
    mb = dense(50)
    def views():
        return (mb.padded(), mb.mask, mb.data, mb.as_sequences(), mb.dense_values(),
                mb.asarray(), mb.data.asarray(), mb.sequences, mb.offsets)

    first = views()
    for _ in range(100):
        assert all(a is b for a, b in zip(first, views()))
        assert mb.shape == (50, 3, 2) and mb.num_samples == 99
    assert len(grids) == 1


@pytest.mark.parametrize("has_sequence_axis", [True, False])
def test_shape_and_asarray_agree(has_sequence_axis):
    mb = dense(4)
    mb.has_sequence_axis = has_sequence_axis
    assert mb.asarray().shape == mb.shape == mb.data.shape
