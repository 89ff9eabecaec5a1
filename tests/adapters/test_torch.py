"""The PyTorch adapter (runs where torch is installed; it is an optional dependency)."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher import CTFDeserializer, MinibatchSource, StreamDef

torch = pytest.importorskip("torch")

from minibatcher.adapters.torch import to_tensor, torch_minibatches  # noqa: E402


def test_dense_values_share_memory_and_sparse_become_csr_tensors(write):
    path = write("0 |x 1 2 |y 3:1\n0 |x 3 4 |y 0:2\n1 |x 5 6 |y 1:1\n")
    src = MinibatchSource(CTFDeserializer(str(path), {"x": StreamDef(shape=2),
                                                      "y": StreamDef(shape=4, is_sparse=True)}),
                          randomize=False, max_sweeps=1)
    mb = src.next_minibatch(10)
    x = mb["x"].to_torch()
    assert x.shape == (3, 2) and np.shares_memory(x.numpy(), mb["x"].values)
    y = mb["y"].to_torch()
    assert y.layout == torch.sparse_csr
    assert y.to_dense().tolist() == [[0, 0, 0, 1], [2, 0, 0, 0], [0, 1, 0, 0]]


def test_torch_minibatches_padded(write):
    path = write("0 |x 1\n0 |x 2\n1 |x 3\n")
    src = MinibatchSource(CTFDeserializer(str(path), {"x": StreamDef()}), randomize=False, max_sweeps=1)
    (batch,) = list(torch_minibatches(src, 10, padded=True))
    data, mask = batch["x"]
    assert data[..., 0].tolist() == [[1, 2], [3, 0]] and mask.tolist() == [[True, True], [True, False]]
    assert to_tensor(np.zeros((1, 1), np.float64)).dtype == torch.float64


def test_unsorted_and_duplicate_sparse_indices_are_canonicalized(write):
    path = write("|y 3:1 0:2 3:4\n")
    src = MinibatchSource(CTFDeserializer(str(path), {"y": StreamDef(shape=4, is_sparse=True)}),
                          randomize=False, max_sweeps=1)
    tensor = src.next_minibatch(1)["y"].to_torch()
    assert tensor.to_dense().tolist() == [[2, 0, 0, 5]]
    assert tensor.col_indices().tolist() == [0, 3]


def test_to_device_keeps_named_tuples():
    # nmt's BatchedInput through PipelineDataset: a named tuple with None fields
    from minibatcher.nmt.iterator_utils import BatchedInput
    from minibatcher.torch import to_device

    batch = BatchedInput(None, torch.ones(2, 3), None, None, torch.tensor([3, 3]), None)
    moved = to_device(batch, "cpu")
    assert type(moved) is BatchedInput and moved.source.tolist() == [[1.0] * 3] * 2
    assert moved.initializer is None and moved.target_input is None
