"""PipelineDataset: tfdata pipelines (TFDS folders, nmt's get_iterator, plain tf.data-style
pipelines) in a DataLoader: epoch e is the pipeline's e-th iteration in any process, and a
checkpoint taken before any element restores the rest exactly."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.utils.data import DataLoader  # noqa: E402
from torchdata.stateful_dataloader import StatefulDataLoader  # noqa: E402

from minibatcher import tfdata, tfds  # noqa: E402
from minibatcher.errors import CheckpointError, ConfigError  # noqa: E402
from minibatcher.nmt import iterator_utils, vocab_utils  # noqa: E402
from minibatcher.tfds.testing import write_dataset  # noqa: E402
from minibatcher.torch import PipelineDataset  # noqa: E402

pytestmark = pytest.mark.usefixtures("quiet_loader_warnings")


def numbers(kind: str = "view") -> tfdata.Dataset:
    ds = tfdata.Dataset.range(40).shuffle(16, seed=3)
    if kind == "filtered":  # no random access: restores replay the shuffle's input
        ds = tfdata.Dataset.range(60).filter(lambda x: x % 3 != 0).shuffle(16, seed=3)
    return ds.map(lambda x: x * 2).batch(4)


def tfds_folder(root: Path) -> Path:
    return write_dataset(root, {"train": [7, 0, 5, 9]})


def tfds_pipeline(folder: str) -> tfdata.Dataset:
    config = tfds.ReadConfig(shuffle_seed=5, interleave_cycle_length=2)
    return tfds.builder_from_directory(folder).as_dataset(
        "train", shuffle_files=True, read_config=config).shuffle(6, seed=2).batch(3)


def nmt_pipeline(folder: str) -> tfdata.Dataset:
    table, _ = vocab_utils.create_vocab_tables(f"{folder}/vocab", f"{folder}/vocab", True)
    return iterator_utils.get_iterator(
        tfdata.TextLineDataset(f"{folder}/src"), tfdata.TextLineDataset(f"{folder}/tgt"), table,
        table, batch_size=4, sos="<s>", eos="</s>", random_seed=7, num_buckets=2)


@pytest.fixture(scope="module")
def pipelines(tmp_path_factory):
    root = tmp_path_factory.mktemp("pipelines")
    words = ["a", "b", "c", "d", "e"]
    (root / "vocab").write_text("<unk>\n<s>\n</s>\n" + "\n".join(words) + "\n")
    rng = np.random.default_rng(0)
    for name in ("src", "tgt"):
        (root / name).write_text("".join(" ".join(rng.choice(words, rng.integers(1, 6))) + "\n"
                                         for _ in range(60)))
    return {"numbers": functools.partial(numbers, "view"),
            "filtered": functools.partial(numbers, "filtered"),
            "tfds": functools.partial(tfds_pipeline, str(tfds_folder(root / "tfds"))),
            "nmt": functools.partial(nmt_pipeline, str(root))}


def key(batch) -> str:
    """A comparable snapshot of an element (tensors, arrays, named tuples, dicts)."""
    def plain(x):
        if isinstance(x, torch.Tensor):
            return x.tolist()
        if isinstance(x, np.ndarray):
            return x.tolist()
        if isinstance(x, dict):
            return {k: plain(v) for k, v in sorted(x.items())}
        if isinstance(x, (tuple, list)):
            return [plain(v) for v in x]
        return x if x is None or isinstance(x, (int, float, str)) else repr(x)
    return json.dumps(plain(batch), default=str)


def iteration(make, e: int) -> list[str]:
    """The e-th iteration of the pipeline in one process (tf.data's epochs)."""
    pipeline = make()
    for _ in range(e):
        iter(pipeline)
    return [key(torch.utils.data.default_convert(x)) for x in pipeline]


@pytest.mark.parametrize("name", ["numbers", "filtered", "tfds", "nmt"])
def test_epoch_e_is_the_eth_iteration_in_any_process(pipelines, name):
    make = pipelines[name]
    want = [iteration(make, e) for e in range(3)]
    assert want[0] != want[1] and sorted(want[0]) != [] and len(want[0]) == len(want[1])
    for workers, persistent in ((0, False), (1, False), (1, True)):
        dataset = PipelineDataset(make)
        loader = DataLoader(dataset, batch_size=None, num_workers=workers,
                            persistent_workers=persistent)
        for e in range(3):
            dataset.set_epoch(e)
            assert [key(b) for b in loader] == want[e], (workers, persistent, e)


@pytest.mark.parametrize("name", ["numbers", "filtered", "tfds", "nmt"])
@pytest.mark.parametrize("workers", [0, 1])
def test_resume_before_every_element_with_stateful_dataloader(pipelines, name, workers):
    make, epoch = pipelines[name], 1
    want = iteration(make, epoch)
    for cut in range(len(want) + 1):
        dataset = PipelineDataset(make)
        dataset.set_epoch(epoch)
        loader = StatefulDataLoader(dataset, batch_size=None, num_workers=workers)
        it, got = iter(loader), []
        for _ in range(cut):
            got.append(key(next(it)))
        state = json.loads(json.dumps(loader.state_dict()))
        del it
        fresh = StatefulDataLoader(PipelineDataset(make), batch_size=None, num_workers=workers)
        fresh.load_state_dict(state)
        assert got + [key(b) for b in fresh] == want, cut


def test_state_in_the_reading_process_and_persistent_workers_follow_the_main_process(pipelines):
    make = pipelines["numbers"]
    want = iteration(make, 2)
    reader = PipelineDataset(make)
    reader.set_epoch(2)
    it = iter(reader)
    head = [key(torch.utils.data.default_convert(next(it))) for _ in range(3)]
    state = reader.state_dict()
    assert state["epoch"] == 2 and json.loads(json.dumps(state)) == state
    dataset = PipelineDataset(make)
    loader = DataLoader(dataset, batch_size=None, num_workers=1, persistent_workers=True)
    assert [key(b) for b in loader] == iteration(make, 0)  # the worker starts (epoch 0)
    dataset.load_state_dict(state)  # the persistent worker takes it at its next iteration
    assert head + [key(b) for b in loader] == want


def test_the_main_process_cannot_take_a_worker_s_state(pipelines):
    dataset = PipelineDataset(pipelines["numbers"])
    loader = DataLoader(dataset, batch_size=None, num_workers=1)
    next(iter(loader))
    with pytest.raises(ConfigError, match="use torchdata's StatefulDataLoader"):
        dataset.state_dict()


def test_errors(pipelines):
    with pytest.raises(ConfigError, match="num_workers should be 0 or 1"):
        list(DataLoader(PipelineDataset(pipelines["numbers"]), batch_size=None, num_workers=2))
    with pytest.raises(ConfigError, match="make_pipeline should be a zero-argument callable"):
        PipelineDataset(42)
    dataset = PipelineDataset(pipelines["numbers"])
    with pytest.raises(ConfigError, match="epoch should be a non-negative int"):
        dataset.set_epoch(-1)
    for bad, field in (({"format": "x"}, "format"), ({**dataset.state_dict(), "epoch": "1"},
                                                      "'epoch'"),
                       ({**dataset.state_dict(), "iterator": [1]}, "'iterator'")):
        with pytest.raises(CheckpointError, match=field):
            dataset.load_state_dict(bad)
    other = PipelineDataset(pipelines["filtered"])
    other.load_state_dict({**dataset.state_dict(),
                           "iterator": _state_after_one(pipelines["numbers"])})
    with pytest.raises(CheckpointError, match="cannot restore this checkpoint"):
        next(iter(other))


def _state_after_one(make) -> dict:
    it = iter(make())
    next(it)
    return it.get_state()
