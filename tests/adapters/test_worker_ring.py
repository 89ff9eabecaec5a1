"""The shared-memory ring between DataLoader workers and the main process:
the same minibatches as without it, never overwritten while the main process
holds them (kept whole, as views, or past the ring's size), and really used."""

from __future__ import annotations

import gc
import pickle

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.usefixtures("quiet_loader_warnings")

from torch.utils.data import DataLoader  # noqa: E402

from minibatcher.adapters import shm_ring  # noqa: E402
from minibatcher.errors import ConfigError  # noqa: E402
from minibatcher.torch import MinibatchDataset  # noqa: E402

from .helpers import batch_key, factory  # noqa: E402

SIZE = 16  # the fixture `data` (conftest): 240 sequences with a sparse stream



def loader(data, workers, ring=8, padded=False, **kw):
    dataset = MinibatchDataset(factory(data, sparse=not padded), SIZE, padded=padded, worker_ring=ring,
                               rank=0, world_size=1)
    return DataLoader(dataset, batch_size=None, num_workers=workers, **kw)


def key(batch):
    """batch_key of a DataLoader batch (its default_convert makes (data, mask) pairs lists)."""
    return batch_key({k: tuple(v) if isinstance(v, list) else v for k, v in batch.items()})


def reference(data, padded=False):
    return [key(b) for b in loader(data, 0, padded=padded)]


@pytest.mark.parametrize("workers", [1, 2])
def test_batches_kept_whole_stay_intact(data, workers):
    kept = list(loader(data, workers, ring=3))  # far more minibatches than slots
    assert len(kept) > 20
    assert [batch_key(b) for b in kept] == reference(data)


def test_views_keep_their_slot(data):
    want = [batch_key(b)[0][1] for b in loader(data, 0)]  # stream x's bytes
    views, rest = [], 0
    for batch in loader(data, 1, ring=2):
        views.append(batch["x"][1:])  # the minibatch itself is dropped, its view kept
        rest += 1
    gc.collect()
    assert [v.numpy().tobytes() for v in views] == [w[2 * 4:] for w in want]  # one row less
    assert rest == len(want)


def test_dropped_batches_free_their_slots_and_the_ring_is_used(data):
    # The loop holds one minibatch, two more are on their way (prefetch_factor=2) and the
    # worker writes a fourth: four slots suffice when each minibatch is dropped for the next.
    shared = [batch["x"].is_shared() for batch in loader(data, 1, ring=4)]
    assert len(shared) > 20 and not any(shared)  # a usual transfer is a shared-memory tensor
    assert all(loader_batch.is_shared() for loader_batch in
               (b["x"] for b in loader(data, 1, ring=0)))


def test_a_slot_held_for_good_does_not_stop_the_ring(data):
    dl = loader(data, 1, ring=6, persistent_workers=True)
    for kept in dl:  # the last minibatch of the first pass stays referenced by `kept`
        pass
    shared = [batch["x"].is_shared() for batch in dl]
    assert len(shared) > 20 and not any(shared) and kept["x"].shape[1] == 2


@pytest.mark.parametrize("padded", [False, True])
def test_same_minibatches_with_and_without_the_ring(data, padded):
    want = reference(data, padded)
    for workers in (1, 3):
        assert [key(b) for b in loader(data, workers, padded=padded)] == want
        assert [key(b) for b in loader(data, workers, ring=0, padded=padded)] == want


def test_pinned_memory_and_persistent_workers(data):
    want = reference(data)
    dl = loader(data, 2, persistent_workers=True, pin_memory=torch.cuda.is_available())
    for epoch in range(2):
        dl.dataset.set_epoch(0)
        assert [batch_key(b) for b in dl] == want


def test_a_minibatch_larger_than_the_slots_grows_the_ring():
    ring = shm_ring.WorkerRing(slots=2)
    small = ring.pack({"x": torch.ones(4)})
    first = ring.slot_bytes
    big = ring.pack({"x": torch.arange(100_000.0)})  # a new, larger ring
    assert isinstance(small["x"], shm_ring.RingTensor) and isinstance(big["x"], shm_ring.RingTensor)
    assert ring.slot_bytes >= 100_000 * 4 > first and big["x"].lease.key != small["x"].lease.key
    ring.take()  # the reader gathered part of a minibatch into the open slot; the rest is
    huge = ring.pack({"x": torch.zeros(300_000)})  # too large: sent the usual way, ring grows
    assert isinstance(huge["x"], torch.Tensor) and ring.slot_bytes >= 300_000 * 4
    assert torch.equal(huge["x"], torch.zeros(300_000))
    too_big = shm_ring.WorkerRing(slots=8).pack({"x": torch.zeros(64 << 20, dtype=torch.uint8)})
    assert isinstance(too_big["x"], torch.Tensor)  # 8 slots of it would pass the ring's limit


def shipped(batch):
    """The batch as the main process receives it (DataLoader pickles with ForkingPickler,
    which shares torch storages instead of copying them)."""
    import torch.multiprocessing  # noqa: F401  (registers torch's reductions)
    from multiprocessing.reduction import ForkingPickler

    return pickle.loads(ForkingPickler.dumps(batch))


def test_references_rebuild_as_tensors_over_the_slot_and_free_it():
    ring = shm_ring.WorkerRing(slots=1)
    batch = ring.pack({"x": torch.arange(6.0).reshape(2, 3), "y": (torch.ones(2), None)})
    received = shipped(batch)
    assert received["x"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert received["y"][0].tolist() == [1.0, 1.0] and received["y"][1] is None
    x_view = received["x"][1]
    del received, batch
    gc.collect()
    assert not isinstance(ring.pack({"x": torch.zeros(1)})["x"], shm_ring.RingTensor)  # in use
    del x_view
    gc.collect()
    assert isinstance(ring.pack({"x": torch.zeros(1)})["x"], shm_ring.RingTensor)  # free again


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.bfloat16])
def test_every_dtype_rebuilds_with_its_shape(dtype):
    ring = shm_ring.WorkerRing(slots=2)
    x = (torch.arange(24) % 3).to(dtype).reshape(2, 3, 4)
    received = shipped(ring.pack({"x": x}))["x"]
    assert received.dtype == dtype and received.shape == (2, 3, 4) and torch.equal(received, x)


def test_ring_option_is_checked(data):
    with pytest.raises(ConfigError, match="worker_ring should be a slot count >= 0"):
        MinibatchDataset(factory(data), SIZE, worker_ring=-1)
