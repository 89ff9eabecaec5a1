"""One iterator or source shared by several threads (issue 15, item 8): every element
is delivered exactly once (the threads' union is the single-thread stream as a
multiset), a state taken meanwhile is one between two elements, and a reader that
re-enters itself gets an error instead of waiting for itself; each bounded in time.

Before the gates: 4 threads on one TFRecordDataset delivered 55,906 records for
20,000, a shuffle 80,000 for 20,000; ``next_minibatch`` duplicated rows and then
raised ``KeyError``; the adapters' generators raised ``generator already executing``."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from minibatcher import MinibatchSource
from minibatcher.gate import Gate, SharedIterator
from minibatcher.nmt import create_vocab_tables, get_iterator
from minibatcher.tfdata import Dataset, TFRecordDataset, TextLineDataset
from minibatcher.tfdata.io import TFRecordWriter

from .engine.fake import ArrayDeserializer, sequence_values
from .nmt.corpus import make_corpus
from .tfdata.resume import snapshot

THREADS = 4
DEADLINE_S = 60


def drain(take: Callable[[], Any], threads: int = THREADS) -> list[Any]:
    """Calls ``take()`` on ``threads`` threads until each gets None (the end);
    everything taken, in no particular order. Fails on an error or after DEADLINE_S."""
    got: list[list[Any]] = [[] for _ in range(threads)]
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def run(k: int) -> None:
        start.wait()
        try:
            while (item := take()) is not None:
                got[k].append(item)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    workers = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(DEADLINE_S)
    assert not any(w.is_alive() for w in workers), f"still reading after {DEADLINE_S} s"
    assert not errors, f"a thread failed: {errors[0]!r}"
    return [x for part in got for x in part]


def hashable(element: Any) -> str:
    """An element's :func:`snapshot`, hashable."""
    return repr(snapshot(element))


def take_from(it: Any, key: Callable[[Any], Any] = hashable) -> Callable[[], Any]:
    def take() -> Any:
        try:
            return key(next(it))
        except StopIteration:
            return None
    return take


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("records")
    paths = [str(folder / f"r{i}.tfrecord") for i in range(3)]
    for i, path in enumerate(paths):
        with TFRecordWriter(path) as w:
            for j in range(7000):
                w.write(f"{i}-{j}".encode())
    return paths


def _odd(x: Any) -> Any:
    return x % 2 == 1


def _lines(path: Any) -> Any:
    return TextLineDataset(path)


PIPELINES: dict[str, Callable[[list[str]], Dataset]] = {
    "TFRecordDataset": lambda p: TFRecordDataset(p[0]),
    "TFRecordDataset, shuffle": lambda p: TFRecordDataset(p).shuffle(500, seed=3),
    "TFRecordDataset, interleave": lambda p: Dataset.from_tensor_slices(p).interleave(
        TFRecordDataset, cycle_length=2, block_length=3),
    "range, batch (a view)": lambda p: Dataset.range(20000).batch(3),
    "range, filter, map": lambda p: Dataset.range(20000).filter(_odd).map(lambda x: x * 2),
    "parallel map, prefetch": lambda p: Dataset.range(5000).map(
        lambda x: x + 1, num_parallel_calls=3).prefetch(4),
    "unseeded shuffle, repeat": lambda p: Dataset.range(3000).shuffle(100).repeat(3),
    "group_by_window": lambda p: Dataset.range(6000).group_by_window(
        lambda x: x % 3, lambda k, w: w.batch(4), window_size=4),
}


@pytest.mark.parametrize("name", PIPELINES)
def test_a_tfdata_iterator_shared_by_threads_delivers_every_element_once(records, name) -> None:
    expected = [hashable(x) for x in PIPELINES[name](records)]
    got = drain(take_from(iter(PIPELINES[name](records))))
    assert len(got) == len(expected) and Counter(got) == Counter(expected)


def test_states_taken_while_threads_read_are_states_between_two_elements(records) -> None:
    make = PIPELINES["TFRecordDataset, shuffle"]
    expected = [hashable(x) for x in make(records)]
    it = iter(make(records))
    states: list[dict] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set() and len(states) < 40:
            states.append(json.loads(json.dumps(it.get_state())))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        drain(take_from(it), threads=3)
    finally:
        done.set()
        watcher.join(DEADLINE_S)
    assert len(states) >= 2
    for state in states[:: max(1, len(states) // 6)]:
        again = iter(make(records))
        again.set_state(state)
        rest = [hashable(x) for x in again]
        assert rest == expected[len(expected) - len(rest):], "a torn state"


def test_an_nmt_iterator_shared_by_threads_delivers_every_batch_once(tmp_path: Path) -> None:
    src, tgt, vocab = (str(p) for p in make_corpus(tmp_path, 3000, seed=2))

    def make() -> Dataset:
        table, _ = create_vocab_tables(vocab, vocab, share_vocab=True)
        return get_iterator(TextLineDataset(src), TextLineDataset(tgt), table, table,
                            batch_size=8, sos="<s>", eos="</s>", random_seed=4, num_buckets=3,
                            src_max_len=20, tgt_max_len=20)

    expected = [hashable(x) for x in make()]
    got = drain(take_from(iter(make())))
    assert len(expected) > 100 and Counter(got) == Counter(expected)


def _engine_source(**options: Any) -> MinibatchSource:
    lengths = 1 if options.get("frame_mode") else ([1, 3, 2] * 700)[:2000]
    return MinibatchSource(ArrayDeserializer([50] * 40, lengths=lengths), max_sweeps=2,
                           randomization_window_in_chunks=4, **options)


def _sequences(minibatch: Any) -> Any:
    return None if not minibatch else tuple(sequence_values(minibatch))


@pytest.mark.parametrize("options", [{}, {"truncation_length": 2}, {"frame_mode": True}],
                         ids=["sequences", "bptt", "frames"])
def test_a_minibatch_source_shared_by_threads_delivers_every_sequence_once(options) -> None:
    def rows(source: MinibatchSource) -> Callable[[], Any]:
        def take() -> Any:
            mb = source.next_minibatch(7)
            return None if not mb else tuple(mb["x"].values.ravel().tolist())
        return take

    single = rows(_engine_source(**options))
    expected = list(iter(single, None))
    got = drain(rows(_engine_source(**options)))
    assert Counter(got) == Counter(expected)


def test_minibatches_and_checkpoints_shared_by_threads() -> None:
    expected = [_sequences(mb) for mb in _engine_source().minibatches(9)]
    source = _engine_source()
    it = source.minibatches(9)
    states = []

    def take() -> Any:
        states.append(source.get_checkpoint_state())
        try:
            return _sequences(next(it))
        except StopIteration:
            return None

    assert Counter(drain(take)) == Counter(expected)
    for state in states[:: len(states) // 5]:  # each a state between two minibatches
        again = _engine_source()
        again.restore_from_checkpoint(json.loads(json.dumps(state)))
        rest = [_sequences(mb) for mb in again.minibatches(9)]
        assert rest == expected[len(expected) - len(rest):]


def test_the_torch_iterators_shared_by_threads(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from minibatcher.torch import MinibatchDataset, PipelineDataset

    from .adapters.helpers import factory, sequence_rows, write_ctf

    data = write_ctf(tmp_path / "d.ctf", 500)
    dataset = MinibatchDataset(factory(data, num_threads=2), 16, rank=0, world_size=1)
    expected = [tuple(sequence_rows(b)) for b in dataset]
    assert Counter(drain(take_from(iter(dataset), lambda b: tuple(sequence_rows(b))))) == \
        Counter(expected)
    pipeline = PipelineDataset(lambda: Dataset.range(1000).shuffle(50, seed=1).batch(5))
    expected = [tuple(b.tolist()) for b in pipeline]
    assert Counter(drain(take_from(iter(pipeline), lambda b: tuple(b.tolist())))) == \
        Counter(expected)


def test_the_jax_global_batches_shared_by_threads(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    from minibatcher.jax import GlobalBatches

    from .adapters.helpers import factory, write_ctf

    data = write_ctf(tmp_path / "d.ctf", 600)

    def key(batch: dict) -> Any:
        return np.asarray(batch["x"]).tobytes()

    batches = GlobalBatches(factory(data), 8, process_index=0, process_count=1)
    expected = [key(b) for b in batches]
    assert Counter(drain(take_from(iter(batches), key))) == Counter(expected)


def _calls_its_own_iterator(holder: list) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        if x == 5:
            next(holder[0])
        return True
    return f


@pytest.mark.parametrize("view", [True, False], ids=["a view (its block refill)", "a filter"])
def test_a_pipeline_that_calls_its_own_iterator_is_an_error_not_a_hang(view) -> None:
    holder: list = []
    f = _calls_its_own_iterator(holder)
    ds = Dataset.range(10).map(lambda x: x + 0 * f(x)) if view else Dataset.range(10).filter(f)
    holder.append(iter(ds))
    got = drain(lambda: _next_or_error(holder[0]), threads=1)
    assert any(isinstance(x, RuntimeError) and "this tfdata iterator was entered again by the "
               "thread that is inside it" in str(x) for x in got), got


def _next_or_error(it: Any) -> Any:
    try:
        return next(it)
    except StopIteration:
        return None
    except RuntimeError as e:
        return e


def test_the_gate_lets_one_thread_in_at_a_time_and_wakes_the_waiter() -> None:
    gate, inside, most = Gate("a test object"), [0], [0]

    def take() -> Any:
        with gate:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
            threading.Event().wait(0.0005)  # lets the others run into the gate
            inside[0] -= 1
            take.n += 1  # type: ignore[attr-defined]
            return None if take.n > 400 else take.n  # type: ignore[attr-defined]

    take.n = 0  # type: ignore[attr-defined]
    got = drain(take, threads=6)
    assert most[0] == 1 and sorted(got) == list(range(1, 401))


def test_a_shared_generator_delivers_each_item_once() -> None:
    def slow() -> Any:
        for i in range(300):
            threading.Event().wait(0.0001)  # the GIL is released inside the generator
            yield i

    assert sorted(drain(take_from(SharedIterator(slow(), "a generator"), int))) == \
        list(range(300))


def test_an_iterator_that_pickled_still_does() -> None:
    """The gate does not travel: a pickled (or deep-copied) iterator has a free one."""
    import copy
    import pickle

    it = iter(Dataset.range(5))
    next(it)
    again = pickle.loads(pickle.dumps(it))
    assert [int(x) for x in again] == [1, 2, 3, 4]
    assert [int(x) for x in copy.deepcopy(it)] == [1, 2, 3, 4]
