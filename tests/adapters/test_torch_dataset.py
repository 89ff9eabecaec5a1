"""MinibatchDataset in one process: ranks given explicitly, DataLoader workers 0/2/3."""

from __future__ import annotations

import json
from collections import Counter

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.usefixtures("quiet_loader_warnings")

from torch.utils.data import DataLoader  # noqa: E402

from minibatcher.adapters.balance import dropped  # noqa: E402
from minibatcher.errors import CheckpointError, ConfigError  # noqa: E402
from minibatcher.torch import MinibatchDataset  # noqa: E402

from .helpers import batch_key, factory, open_ctf, sequence_rows, write_ctf  # noqa: E402

SIZE = 16  # the fixture `data` (conftest): 240 sequences with a sparse stream



def rank_stream(data, rank, world, workers=0, epoch=0, equal=True, state=None, **kw):
    dataset = MinibatchDataset(factory(data, sparse=True, **kw), SIZE, equal_batches=equal,
                               rank=rank, world_size=world)
    dataset.set_epoch(epoch)
    if state is not None:
        dataset.load_state_dict(state)
    return [batch_key(b) for b in DataLoader(dataset, batch_size=None, num_workers=workers)]


def cntk_partition(data, rank, world, epoch):
    """The rank's minibatches read by MinibatchSource itself (CNTK's split)."""
    source = open_ctf(str(data), sparse=True)
    source.start_epoch(epoch, num_data_partitions=world, partition_index=rank)
    out = []
    while mb := source.next_minibatch(SIZE, None, None, world, rank):
        out.append([(int(a), int(b)) for a, b in mb["x"].values.tolist()])
    return out


@pytest.mark.parametrize("world", [1, 2, 3])
def test_the_rank_stream_does_not_depend_on_loader_workers(data, world):
    for rank in range(world):
        streams = [rank_stream(data, rank, world, workers=k, epoch=1) for k in (0, 2, 3)]
        assert streams[0] == streams[1] == streams[2] and streams[0]


def test_decision_19_equal_work_per_rank(data):
    """CNTK's split gives the ranks different minibatch counts (a DDP job would hang); ours
    gives each rank sum // ranks: the same minibatches, handed over, fewer than ranks left out."""
    world, epoch = 3, 2
    partitions = [cntk_partition(data, r, world, epoch) for r in range(world)]
    counts = [len(p) for p in partitions]
    assert len(set(counts)) > 1, "the scenario should be unbalanced under CNTK's split"
    seen = []
    for rank in range(world):
        dataset = MinibatchDataset(factory(data, sparse=True), SIZE, rank=rank, world_size=world)
        dataset.set_epoch(epoch)
        batches = [sequence_rows(b) for b in DataLoader(dataset, batch_size=None, num_workers=2)]
        assert len(batches) == len(dataset) == sum(counts) // world
        seen += batches
    expected = [mb for p in partitions for mb in p]
    lost = [partitions[p][i] for p, i in dropped(counts)]
    assert Counter(map(tuple, seen)) + Counter(map(tuple, lost)) == Counter(map(tuple, expected))
    samples = Counter(s for mb in seen for s in mb)
    assert max(samples.values()) == 1


def test_equal_batches_false_is_cntks_exact_split(data):
    for rank in range(2):
        dataset = MinibatchDataset(factory(data, sparse=True), SIZE, equal_batches=False, rank=rank,
                                   world_size=2)
        dataset.set_epoch(1)
        got = [sequence_rows(b) for b in DataLoader(dataset, batch_size=None, num_workers=3)]
        assert got == cntk_partition(data, rank, 2, 1)


def test_epochs_are_sweeps_with_their_own_order(data):
    def samples(epoch, workers=0):
        dataset = MinibatchDataset(factory(data), SIZE, rank=0, world_size=1)
        dataset.set_epoch(epoch)
        return [r for b in DataLoader(dataset, batch_size=None, num_workers=workers)
                for r in sequence_rows(b)]

    one, two = samples(0), samples(1)
    assert one != two and sorted(one) == sorted(two)  # the same sweep, randomized with seed + epoch
    assert samples(1, workers=2) == two


@pytest.mark.parametrize("workers", [0, 2])
def test_resume_from_every_position_with_a_plain_dataloader(data, workers):
    world, rank, epoch = 2, 1, 1
    dataset = MinibatchDataset(factory(data, sparse=True), SIZE, rank=rank, world_size=world)
    dataset.set_epoch(epoch)
    reference, states = [], []
    for consumed, batch in enumerate(DataLoader(dataset, batch_size=None, num_workers=workers)):
        states.append(json.loads(json.dumps(dataset.state_dict(consumed=consumed))))
        reference.append(batch_key(batch))
    states.append(dataset.state_dict(consumed=len(reference)))
    for step in list(range(0, len(states), 5)) + [len(states) - 1]:
        for k in {0, 3} if step % 10 == 0 else {workers}:
            got = rank_stream(data, rank, world, workers=k, state=states[step])
            assert got == reference[step:], f"restored at step {step} with {k} workers"


def test_state_in_the_iterating_process_is_exact(data):
    dataset = MinibatchDataset(factory(data, sparse=True), SIZE, rank=0, world_size=2)
    it = iter(dataset)
    for _ in range(7):
        next(it)
    state = dataset.state_dict()
    assert state["step"] == 7 and state["epoch"] == 0
    rest = [batch_key(b) for b in it]
    assert rank_stream(data, 0, 2, state=state) == rest


def test_stateful_dataloader_resumes_exactly(data):
    stateful = pytest.importorskip("torchdata.stateful_dataloader")
    make = factory(data, sparse=True)

    def loader(state=None, workers=2):
        dataset = MinibatchDataset(make, SIZE, rank=1, world_size=3)
        dataset.set_epoch(3)
        dl = stateful.StatefulDataLoader(dataset, batch_size=None, num_workers=workers)
        if state is not None:
            dl.load_state_dict(state)
        return dl

    for workers in (0, 2):
        dl = loader(workers=workers)
        reference, states = [], []
        for batch in dl:
            reference.append(batch_key(batch))
            states.append(json.loads(json.dumps(dl.state_dict())))
        for step in (0, 4, len(states) - 2):
            got = [batch_key(b) for b in loader(states[step], workers)]
            assert got == reference[step + 1:], f"{workers} workers, restored after {step + 1}"


def test_refuses_a_state_of_another_layout_or_other_data(data, tmp_path):
    dataset = MinibatchDataset(factory(data, sparse=True), SIZE, rank=0, world_size=2)
    state = dataset.state_dict()
    with pytest.raises(CheckpointError, match="world_size=2, but this reader has world_size=3"):
        MinibatchDataset(factory(data, sparse=True), SIZE, rank=0, world_size=3).load_state_dict(state)
    other = write_ctf(tmp_path / "other.ctf", sequences=50, seed=1, sparse=True)
    foreign = MinibatchDataset(factory(other, sparse=True), SIZE, rank=0, world_size=2)
    with pytest.raises(CheckpointError, match="holds other data"):
        foreign.load_state_dict(state)
    seeded = MinibatchDataset(factory(data, sparse=True, randomization_seed=5), SIZE, rank=0,
                              world_size=2)
    with pytest.raises(CheckpointError, match="randomization_seed=0, but this source has "
                                              "randomization_seed=5"):
        seeded.load_state_dict(state)


def test_tensors_dense_sparse_and_padded(data):
    dataset = MinibatchDataset(factory(data, sparse=True, randomize=False), SIZE, rank=0,
                               world_size=1)
    batch = next(iter(DataLoader(dataset, batch_size=None, num_workers=2)))
    assert batch["x"].dtype == torch.float32 and batch["x"].shape[1] == 2
    assert batch["y"].layout == torch.sparse_csr and batch["y"].shape == (batch["x"].shape[0], 5)
    rows = sequence_rows(batch)
    assert batch["y"].to_dense().nonzero()[:, 1].tolist() == [(s + r) % 5 for s, r in rows]
    padded = MinibatchDataset(factory(data, randomize=False), SIZE, padded=True, rank=0, world_size=1)
    values, mask = next(iter(padded))["x"]
    assert values.shape[:2] == mask.shape and values[mask].tolist() == [list(map(float, r))
                                                                       for r in rows]


def test_argument_errors(data):
    with pytest.raises(ConfigError, match="rank should be in"):
        MinibatchDataset(factory(data), SIZE, rank=2, world_size=2)
    with pytest.raises(ConfigError, match="given together"):
        MinibatchDataset(factory(data), SIZE, rank=1)
    with pytest.raises(ConfigError, match="epoch should be a non-negative int"):
        MinibatchDataset(factory(data), SIZE).set_epoch(-1)
    with pytest.raises(ConfigError, match="gives each of 3 ranks 0 minibatches"):
        next(iter(MinibatchDataset(factory(data, chunk=1 << 30), 10**6, rank=0, world_size=3)))
    with pytest.raises(TypeError, match="should return a MinibatchSource"):
        next(iter(MinibatchDataset(lambda: 42, SIZE)))


def test_persistent_workers_follow_set_epoch_and_restores(data):
    dataset = MinibatchDataset(factory(data, sparse=True), SIZE, rank=1, world_size=2)
    loader = DataLoader(dataset, batch_size=None, num_workers=2, persistent_workers=True)
    epochs = []
    for epoch in (0, 1, 2):
        dataset.set_epoch(epoch)
        epochs.append([batch_key(b) for b in loader])
    assert epochs == [rank_stream(data, 1, 2, epoch=e) for e in (0, 1, 2)]
    dataset.set_epoch(1)
    state = dataset.state_dict(consumed=5)
    dataset.set_epoch(2)
    dataset.load_state_dict(state)
    assert [batch_key(b) for b in loader] == epochs[1][5:]
