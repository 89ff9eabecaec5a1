"""Dataset.interleave: tf.data's cycle/block cursor (spec §3.2), uneven and empty inputs."""

from __future__ import annotations

import pytest

from minibatcher.errors import ConfigError
from minibatcher.tfdata import Dataset


def labelled(lengths: list[int], cycle: int, block: int, source=None) -> list[str]:
    src = source if source is not None else Dataset.range(len(lengths))
    ds = src.interleave(lambda s: Dataset.range(lengths[int(s)]).map(
        lambda i: f"s{int(s)}:{int(i)}"), cycle_length=cycle, block_length=block)
    return list(ds)


def test_spec_example_uneven_and_empty_shards() -> None:
    lengths = [5, 0, 3, 9, 1, 4, 7, 2]
    got = labelled(lengths, cycle=3, block=2)
    assert got[:15] == ("s0:0 s0:1 s2:0 s2:1 s0:2 s0:3 s3:0 s3:1 s2:2 s0:4 s3:2 s3:3 s4:0 s5:0 "
                        "s5:1").split()
    # the rest, hand-traced: slots hold s5 (2 read), s3 (4 read) and nothing (s4 ended); the
    # cursor is at slot 1: s3 x2, open s6 in slot 2 (x2), s5 x2, s3 x2, s6 x2, s5 ends, s3:8 then
    # s3 ends, s6 x2, open s7 in slot 0 (x2), slot 1 stays empty (input exhausted), s6:6
    assert got[15:] == ("s3:4 s3:5 s6:0 s6:1 s5:2 s5:3 s3:6 s3:7 s6:2 s6:3 s3:8 s6:4 s6:5 s7:0 "
                        "s7:1 s6:6").split()
    assert sorted(got) == sorted(f"s{s}:{i}" for s, n in enumerate(lengths) for i in range(n))


def test_tfds_guide_cycle_3_block_2() -> None:
    # the TFDS determinism guide: ImageNet shards of 1251 examples, cycle_length=3, block_length=2
    starts = [0, 1251, 2502]
    ds = Dataset.range(3).interleave(lambda s: Dataset.range(starts[int(s)], starts[int(s)] + 1251),
                                     cycle_length=3, block_length=2)
    assert [int(x) for x in ds.take(20)] == [0, 1, 1251, 1252, 2502, 2503, 2, 3, 1253, 1254, 2504,
                                             2505, 4, 5, 1255, 1256, 2506, 2507, 6, 7]


def test_block_16_then_next_shard() -> None:
    ds = Dataset.range(2).interleave(lambda s: Dataset.range(int(s) * 1251, int(s) * 1251 + 1251),
                                     cycle_length=16, block_length=16)
    assert [int(x) for x in ds.take(20)] == list(range(16)) + [1251, 1252, 1253, 1254]


@pytest.mark.parametrize("cycle, block", [(1, 1), (2, 3), (5, 1), (10, 4)])
def test_every_element_once(cycle: int, block: int) -> None:
    lengths = [3, 0, 0, 4, 1, 6]
    got = labelled(lengths, cycle, block)
    assert sorted(got) == sorted(f"s{s}:{i}" for s, n in enumerate(lengths) for i in range(n))
    if cycle == 1:
        assert got == [f"s{s}:{i}" for s, n in enumerate(lengths) for i in range(n)]


def test_all_empty_and_no_inputs() -> None:
    assert labelled([0, 0, 0], 2, 2) == []
    assert labelled([], 2, 2) == []


def test_input_without_a_view_gives_the_same_order() -> None:
    lengths = [2, 5, 0, 3]
    gen = Dataset.from_generator(lambda: iter(range(4)))
    assert labelled(lengths, 3, 2, gen) == labelled(lengths, 3, 2)


def test_flat_map_is_sequential() -> None:
    assert [int(x) for x in Dataset.range(4).flat_map(lambda n: Dataset.range(n))] == \
        [0, 0, 1, 0, 1, 2]


def test_arguments_and_function_result() -> None:
    with pytest.raises(ConfigError,
                       match=r"cycle_length should be an integer in \[1, 1048576\].*cycle_length=0"):
        Dataset.range(2).interleave(lambda x: Dataset.range(1), cycle_length=0)
    with pytest.raises(ConfigError, match="block_length should be a positive integer, but got block_length=0"):
        Dataset.range(2).interleave(lambda x: Dataset.range(1), cycle_length=1, block_length=0)
    with pytest.raises(TypeError, match="should return a Dataset"):
        list(Dataset.range(2).interleave(lambda x: [1], cycle_length=1))


# -- cycle_length=None: TF 2.21's rule (issue 13.3) ---------------------------------------------

def _order(cycle_length=None, num_parallel_calls=None, budget=None) -> list[int]:
    from minibatcher.tfdata import Options
    ds = Dataset.range(8).interleave(lambda x: Dataset.range(10 * x, 10 * x + 3),
                                     cycle_length=cycle_length,
                                     num_parallel_calls=num_parallel_calls)
    if budget is not None:
        opts = Options()
        opts.autotune.cpu_budget = budget
        ds = ds.with_options(opts)
    return [int(x) for x in ds]


def test_cycle_length_rule() -> None:
    from minibatcher.tfdata.interleave import resolve_cycle_length
    # no num_parallel_calls: the cores; fixed: min(it, cores); AUTOTUNE: ceil(cores / 3)
    assert [resolve_cycle_length(-1, None, c) for c in (1, 2, 16)] == [1, 2, 16]
    assert [resolve_cycle_length(-1, n, 4) for n in (1, 3, 9)] == [1, 3, 4]
    assert [resolve_cycle_length(-1, -1, c) for c in (1, 2, 3, 4, 16)] == [1, 1, 1, 2, 6]
    assert resolve_cycle_length(5, -1, 64) == 5


def test_cycle_length_none_counts_schedulable_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    assert _order() == _order(cycle_length=3)
    assert _order(num_parallel_calls=-1) == _order(cycle_length=1)
    assert _order(num_parallel_calls=2) == _order(cycle_length=2)


def test_cpu_budget_option_makes_the_order_machine_independent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    for cores in ({0}, set(range(12))):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, c=cores: c, raising=False)
        assert _order(budget=5) == _order(cycle_length=5)
        assert _order(num_parallel_calls=-1, budget=7) == _order(cycle_length=3)


def test_a_state_from_another_core_count_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    from minibatcher.errors import CheckpointError
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    ds = Dataset.range(8).interleave(lambda x: Dataset.range(3))
    it = iter(ds)
    next(it)
    state = it.get_state()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    with pytest.raises(CheckpointError, match="cycle_length"):
        iter(ds).set_state(state)


@pytest.mark.parametrize("kwargs", [dict(cycle_length=0), dict(cycle_length=-3),
                                    dict(cycle_length=2, block_length=0),
                                    dict(cycle_length=2, num_parallel_calls=0),
                                    dict(cycle_length=2, num_parallel_calls=3)])
def test_argument_errors_when_built(kwargs: dict) -> None:
    # TF: InvalidArgumentError when the dataset is built (num_parallel_calls above a fixed
    # cycle_length: "`num_parallel_calls` must be either AUTOTUNE or <= cycle_length")
    with pytest.raises(ValueError):
        Dataset.range(3).interleave(lambda x: Dataset.range(x), **kwargs)
