"""Block execution changes nothing observable: every op gives the same elements,
the same states before every element and the same next epoch with block
execution on and off, with num_parallel_calls 1..4, and when its iterator is
read in blocks of random sizes."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from minibatcher.formats.tfrecord import TFRecordWriter, encode_example
from minibatcher import tfdata
from minibatcher.tfdata import (Dataset, SourceDataset, TextLineDataset, TFRecordDataset,
                                random_seed_scope)
from minibatcher.tfdata import io as tfio
from minibatcher.tfdata.block import block_execution
from minibatcher.tfdata.rows import Rows

from .resume import snapshot

SPEC = {"image": tfio.FixedLenFeature([], "string"), "label": tfio.FixedLenFeature([], "int64")}


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """5 TFRecord shards of small Examples (lengths 7, 0, 12, 5, 9)."""
    folder = tmp_path_factory.mktemp("blocks")
    paths, k = [], 0
    for i, n in enumerate([7, 0, 12, 5, 9]):
        paths.append(str(folder / f"s{i}.tfrecord"))
        with TFRecordWriter(paths[-1]) as w:
            for _ in range(n):
                w.write(encode_example({"image": [bytes([k % 251] * (3 + k % 4))],
                                        "label": np.array([k])}))
                k += 1
    (folder / "t.txt").write_bytes(b"".join(b"line %d\n" % i for i in range(30)))
    return paths + [str(folder / "t.txt")]


def _parse(r: Any) -> Any:
    return tfio.parse_single_example(r, SPEC)


def pipelines(files: list[str]) -> dict[str, Callable[[], Dataset]]:
    """One pipeline per op (and the common compositions); each is built anew."""
    shards, text = files[:-1], files[-1]
    records = lambda n=None: TFRecordDataset(shards, num_parallel_reads=n)  # noqa: E731
    return {
        "range map batch": lambda: Dataset.range(23).map(lambda x: x * 2).batch(4),
        "slices dict shuffle batch": lambda: Dataset.from_tensor_slices(
            {"a": np.arange(20), "b": [str(i) for i in range(20)]}).shuffle(6, seed=1).batch(3),
        "records": lambda: records(),
        "records batch": lambda: records().batch(5),
        "records interleaved": lambda: records(3),
        "records interleaved shuffle parse batch": lambda: records(2).shuffle(9, seed=2)
            .map(_parse).batch(4),
        "records parse padded": lambda: records().map(_parse)
            .map(lambda e: np.frombuffer(e["image"], np.uint8)).padded_batch(3),
        "records shuffle parse batch(drop)": lambda: records().shuffle(10, seed=3).map(_parse)
            .batch(4, drop_remainder=True),
        "batch then parse_example": lambda: records(4).batch(6).map(
            lambda r: tfio.parse_example(r, SPEC)),
        "text skip take shard": lambda: TextLineDataset(text).skip(2).take(20).shard(3, 1),
        "text interleave": lambda: TextLineDataset([text, text], num_parallel_reads=2).batch(7),
        "filter shuffle (no view)": lambda: Dataset.range(40).filter(lambda x: x % 3 != 0)
            .shuffle(7, seed=4).map(lambda x: (x, -x)).batch(5),
        "filter skip take shard": lambda: Dataset.range(50).filter(lambda x: x % 2 == 0)
            .skip(2).take(15).shard(2, 0).batch(3),
        "repeat of a shuffle": lambda: Dataset.range(9).shuffle(4, seed=6).repeat(3).batch(4),
        "repeat view": lambda: Dataset.range(5).repeat(3).batch(4),
        "interleave of shuffles": lambda: Dataset.range(4).interleave(
            lambda n: Dataset.range(n * 10, n * 10 + 6).shuffle(3, seed=1), cycle_length=2,
            block_length=3).batch(5),
        "interleave generator input": lambda: Dataset.from_generator(lambda: iter(range(5)))
            .interleave(lambda n: Dataset.range(n + 1), cycle_length=3).batch(2),
        "zip enumerate concatenate": lambda: Dataset.zip((Dataset.range(8), records()))
            .enumerate().concatenate(Dataset.zip((Dataset.range(2), records().take(2)))
                                     .enumerate()),
        "group_by_window": lambda: Dataset.range(40).shuffle(10, seed=5).group_by_window(
            lambda x: x % 3, lambda k, w: w.batch(2), window_size=3),
        "map npc=3": lambda: records(2).map(_parse, num_parallel_calls=3).batch(4),
        "parse decode_raw reshape (lifted)": lambda: records(2).shuffle(9, seed=2).map(_parse)
            .map(lambda e: (np.reshape(tfio.decode_raw(e["image"], tfdata.uint8, fixed_length=4),
                                       (2, 2)).astype(np.int32) * 2, e["label"] + 1)).batch(4),
        "decode_raw indexed (per element)": lambda: records().map(_parse).map(
            lambda e: tfio.decode_raw(e["image"], tfdata.uint8, fixed_length=4)[1]),
        "flat_map of repeats under a shuffle": lambda: Dataset.range(1, 5).flat_map(
            lambda x: Dataset.range(10 * x, 10 * x + 4).shuffle(4, seed=2).repeat(2))
            .shuffle(9, seed=3).batch(3),
        "prefetch": lambda: records(2).shuffle(5, seed=7).prefetch(2).batch(3),
    }


def trace(make: Callable[[], Dataset], limit: int = 200) -> tuple[list[Any], list[str], Any]:
    """Elements, the state before each (and after the last), and the next epoch."""
    with random_seed_scope(None):
        ds = make()
        it = iter(ds)
        elements, states = [], []
        while len(elements) < limit:
            states.append(json.dumps(it.get_state(), sort_keys=True))
            try:
                elements.append(snapshot(next(it)))
            except StopIteration:
                break
        return elements, states, [snapshot(x) for x in ds.take(limit)]


@pytest.mark.parametrize("name", sorted(pipelines(["f"] * 6)))
def test_block_execution_on_and_off_agree(shards: list[str], name: str) -> None:
    make = pipelines(shards)[name]
    with block_execution(False):
        off = trace(make)
    with block_execution(True):
        on = trace(make)
    assert len(off[0]) > 2
    assert on[0] == off[0], "elements differ"
    assert on[1] == off[1], "states differ"
    assert on[2] == off[2], "the next epoch differs"


@pytest.mark.parametrize("npc", [1, 2, 3, 4])
def test_num_parallel_calls_changes_nothing(shards: list[str], npc: int) -> None:
    def make(parallel: int | None) -> Dataset:
        return TFRecordDataset(shards[:-1], num_parallel_reads=3).interleave(
            lambda r: Dataset.from_tensors(r).repeat(2), cycle_length=4,
            num_parallel_calls=parallel, deterministic=True).map(
            lambda r: _parse(r)["label"] * 2, num_parallel_calls=parallel,
            deterministic=True).batch(5)

    with block_execution(False):
        reference = trace(lambda: make(None))
    assert trace(lambda: make(npc)) == reference


@pytest.mark.parametrize("name", ["records interleaved shuffle parse batch",
                                  "filter shuffle (no view)", "interleave of shuffles",
                                  "records shuffle parse batch(drop)", "map npc=3"])
def test_blocks_of_random_sizes_read_what_the_element_path_reads(shards: list[str],
                                                                  name: str) -> None:
    """An iterator read with next_block(n) for random n: the same elements, and
    after every block the element path's state (at its end: after StopIteration)."""
    make = pipelines(shards)[name]
    with block_execution(False):
        it = make()._make_iter(None)
        elements, states = [], [it.state()]
        for x in it:
            elements.append(snapshot(x))
            states.append(it.state())
        end_state = it.state()
    rng = random.Random(name)
    with block_execution(True):
        it = make()._make_iter(None)
        got: list[Any] = []
        while True:
            n = rng.randint(1, 7)
            block = it.next_block(n)
            assert block.error is None
            got += [snapshot(x) for x in block.elements()]
            assert it.state() == (end_state if len(block) < n else states[len(got)])
            if len(block) < n:
                break
    assert got == elements


def test_a_failing_map_function_fails_at_its_element_on_both_paths() -> None:
    def make() -> Dataset:
        return Dataset.range(30).map(lambda x: 10 // int(x - 13)).batch(1)

    def run() -> list[Any]:
        out: list[Any] = []
        it = iter(make())
        for _ in range(20):
            try:
                out.append(next(it).tolist())
            except ZeroDivisionError:
                out.append("error")
            except StopIteration:
                break
        return out

    with block_execution(False):
        off = run()
    with block_execution(True):
        on = run()
    assert on == off and off[13] == "error" and off[:13] == [[10 // (x - 13)] for x in range(13)]


def test_a_failing_map_over_an_iterator_goes_on_after_its_element() -> None:
    def make() -> Dataset:
        return Dataset.range(20).filter(lambda x: x != 3).map(lambda x: 10 // int(x - 7)).batch(4)

    def run() -> tuple[list[Any], list[Any]]:
        out, states = [], []
        it = iter(make())
        while True:
            states.append(it.get_state())
            try:
                out.append(next(it).tolist())
            except ZeroDivisionError:
                out.append("error")
            except StopIteration:
                return out, states

    with block_execution(False):
        off = run()
    with block_execution(True):
        on = run()
    assert on == off and "error" in off[0]


def test_the_lifted_parse_is_one_call_per_block(shards: list[str]) -> None:
    """map(parse_single_example) over records runs once per block (the lift), and
    gives what parse_single_example gives per record."""
    calls = []

    def parse(r: Any) -> Any:
        calls.append(type(r).__name__)
        return tfio.parse_single_example(r, SPEC)

    with block_execution(True):
        got = [snapshot(x) for x in TFRecordDataset(shards[:-1]).map(parse).batch(8)]
    assert set(calls) == {"RecordBlock"} and len(calls) <= 3
    with block_execution(False):
        assert got == [snapshot(x) for x in TFRecordDataset(shards[:-1]).map(parse).batch(8)]


def test_decode_raw_and_reshape_are_lifted_too(shards: list[str]) -> None:
    calls = []

    def decode(e: Any) -> Any:
        calls.append(isinstance(e["image"], Rows))
        return np.reshape(tfio.decode_raw(e["image"], tfdata.uint8, fixed_length=4), (2, 2))

    with block_execution(True):
        list(TFRecordDataset(shards[:-1]).map(_parse).map(decode).batch(8))
    assert set(calls) == {True} and len(calls) <= 3


def test_a_function_that_only_computes_is_never_called_with_a_block() -> None:
    seen = []
    with block_execution(True):
        list(Dataset.range(10).map(lambda x: seen.append(type(x)) or x).batch(5))
    assert set(seen) == {np.int64}


def test_records_read_by_position_in_any_order(shards: list[str]) -> None:
    source = SourceDataset(TFRecordDataset(shards[:1]).sources[0])
    view = source._make_view(None)
    order = np.array([6, 0, 3, 3, 5])
    assert view.gather(order).elements() == [view[int(i)] for i in order]
    assert view.block(2, 5).elements() == view.read(2, 5)


def test_the_block_switch_is_scoped(tmp_path: Path) -> None:
    from minibatcher.tfdata.block import blocks_enabled

    with block_execution(False):
        assert not blocks_enabled()
        with block_execution(True):
            assert blocks_enabled()
        assert not blocks_enabled()
    assert blocks_enabled()


def test_the_differential_suite_answers_the_same_without_blocks() -> None:
    """Every pipeline of the differential suite against TF (tests/tfdata/test_tf_diff.py)
    gives the same answer (elements of 2 epochs, or the same error) with block
    execution off; with it on (the default) it is compared with TensorFlow's."""
    from .test_tf_diff import CASES, ours

    def answer(desc: Any, blocks: bool) -> str:
        with block_execution(blocks):
            try:
                return json.dumps(ours(desc), sort_keys=True, default=repr)
            except Exception as e:  # noqa: BLE001 - an error when building: the same one
                return f"{type(e).__name__}: {e}"

    differ = [case["desc"] for case in CASES
              if answer(case["desc"], True) != answer(case["desc"], False)]
    assert len(CASES) > 100 and not differ, differ[:3]


def test_a_batch_of_records_is_an_object_array_of_bytes_without_leaks() -> None:
    # filled natively, slot by slot (the None np.empty put there is released)
    import sys

    from minibatcher.tfdata.block import RecordsBlock

    block = RecordsBlock.from_list([b"ab", b"", b"cde", b"f" * 600])
    before = sys.getrefcount(None)
    for _ in range(1000):  # a slot's None kept (or released twice) would move its count by 6000
        whole, part = block.batch(0, 4), block.batch(1, 3)
        refs = sys.getrefcount(whole[0])  # the array's slot and the call's argument
        assert refs == 2 and whole.dtype == object and whole.flags.c_contiguous
        assert whole.tolist() == [b"ab", b"", b"cde", b"f" * 600] and part.tolist() == [b"", b"cde"]
    del whole, part
    assert abs(sys.getrefcount(None) - before) < 100
