"""``tfdata.Options``: TF 2.21's fields, types and merge rule; options flow through the plan
(inputs merged in order, a later ``with_options`` wins) and reach every node while the pipeline
runs (``pipeline_options``)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from minibatcher.errors import CheckpointError
from minibatcher.tfdata import AutoShardPolicy, Dataset, Options
from minibatcher.tfdata.options import deterministic, pipeline_options
from tests.tfdata.resume import assert_resumes_exactly

# TF 2.21: dir() of tf.data.Options() and of its groups, without methods
TF_FIELDS = {
    None: ["autotune", "dataset_name", "deterministic", "experimental_deterministic",
           "experimental_distribute", "experimental_external_state_policy",
           "experimental_optimization", "experimental_service", "experimental_slack",
           "experimental_symbolic_checkpoint", "experimental_threading",
           "experimental_warm_start", "framework_type", "threading"],
    "autotune": ["autotune_algorithm", "cpu_budget", "enabled", "initial_parallelism",
                 "min_parallelism", "ram_budget"],
    "experimental_distribute": ["auto_shard_policy", "num_devices"],
    "experimental_optimization": ["apply_default_optimizations", "filter_fusion",
                                  "filter_parallelization", "inject_prefetch",
                                  "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
                                  "map_parallelization", "noop_elimination", "parallel_batch",
                                  "seq_interleave_prefetch", "shuffle_and_repeat_fusion"],
    "threading": ["max_intra_op_parallelism", "private_threadpool_size"],
}


@pytest.mark.parametrize("group", list(TF_FIELDS), ids=str)
def test_options_have_tf_fields(group: str | None) -> None:
    obj = Options() if group is None else getattr(Options(), group)
    fields = sorted(set(obj._fields()) | set(getattr(obj, "_ALIASES", {})))
    assert fields == TF_FIELDS[group]


def test_defaults_types_and_aliases() -> None:
    o = Options()
    assert o.deterministic is None and o.experimental_warm_start is None
    assert o.experimental_distribute.auto_shard_policy == AutoShardPolicy.AUTO
    with pytest.raises(TypeError, match=r"option deterministic should be a bool, but got "
                                        r"deterministic=1 \(int\)"):
        o.deterministic = 1
    with pytest.raises(AttributeError, match="Cannot set the property foo on Options"):
        o.foo = 1
    o.experimental_threading.private_threadpool_size = True  # TF: bool is an int
    assert o.threading.private_threadpool_size is True
    o.experimental_deterministic = False
    assert o.deterministic is False and o.experimental_deterministic is False


def test_merge_rule(caplog: pytest.LogCaptureFixture) -> None:
    a, b = Options(), Options()
    a.framework_type, b.framework_type = ["a"], ["b"]
    a.deterministic, b.deterministic = True, False
    with caplog.at_level(logging.WARNING, logger="minibatcher.tfdata"):
        merged = Dataset.range(1).with_options(a).with_options(b).options()
    assert merged.framework_type == ["a", "b"] and merged.deterministic is False
    assert "Changing the value of option deterministic from True to False" in caplog.text
    # an unset (default) later value does not undo an earlier one
    assert Dataset.range(1).with_options(a).with_options(Options()).options().deterministic


def test_with_options_copies_and_checks_its_argument() -> None:
    o = Options()
    o.deterministic = False
    ds = Dataset.range(2).with_options(o)
    o.deterministic = True
    assert ds.options().deterministic is False
    with pytest.raises(TypeError, match="options should be a tfdata.Options, but got int"):
        Dataset.range(2).with_options(3)


def test_options_of_datasets_inside_functions_do_not_flow_out() -> None:
    o = Options()
    o.deterministic = False
    inner = Dataset.range(2).with_options(o)
    assert Dataset.range(3).interleave(lambda x: inner).options().deterministic is None
    assert Dataset.range(3).with_options(o).interleave(lambda x: inner).options() == \
        Dataset.range(1).with_options(o).options()


def _seen(ds: Dataset) -> list[str]:
    return [str(x) for x in ds]


def test_pipeline_options_reach_every_node_while_iterating() -> None:
    o = Options()
    o.deterministic = False
    probe = Dataset.range(3).map(lambda x: str(pipeline_options().deterministic))
    assert _seen(probe) == ["None"] * 3
    assert _seen(probe.with_options(o).filter(lambda s: True)) == ["False"] * 3
    # a nested default pipeline iterated inside a function sees its own (default) options
    nested = Dataset.range(2).map(
        lambda x: str([str(v) for v in probe.take(1)]) + str(pipeline_options().deterministic))
    assert _seen(nested.with_options(o)) == ["['None']False"] * 2
    assert pipeline_options().deterministic is None  # nothing leaks out


def test_deterministic_argument_beats_the_option() -> None:
    o = Options()
    o.deterministic = False
    probe = Dataset.range(1).map(lambda x: f"{deterministic(None)}{deterministic(True)}")
    assert _seen(probe) == ["TrueTrue"]
    assert _seen(probe.with_options(o)) == ["FalseTrue"]


def test_options_during_restore_and_resume() -> None:
    o = Options()
    o.deterministic = False
    o.experimental_optimization.map_fusion = True

    def make() -> Dataset:
        return Dataset.range(9).filter(lambda x: x % 3 != 1).with_options(o).batch(2)

    assert assert_resumes_exactly(make) == 3


def test_checkpoint_refused_when_deterministic_differs() -> None:
    o = Options()
    o.deterministic = False
    it = iter(Dataset.range(4).with_options(o))
    next(it)
    other = iter(Dataset.range(4).with_options(Options()))
    with pytest.raises(CheckpointError, match=r"deterministic=False\) there, but is with_options"
                                              r"\(deterministic=None\) here"):
        other.set_state(it.get_state())


def _rewrites(**fields: bool) -> Options:
    o = Options()
    for name, value in fields.items():
        setattr(o.experimental_optimization, name, value)
    return o


@pytest.mark.parametrize("fields,expected", [
    ({}, [[1, 3, 2, 4], [4, 1, 3, 2], [2, 4, 3, 1]]),
    ({"noop_elimination": False}, [[1, 3, 2, 4], [2, 4, 3, 1], [4, 1, 2, 3]]),
    ({"shuffle_and_repeat_fusion": False}, [[1, 3, 2, 4], [4, 1, 3, 2], [2, 4, 3, 1]]),
    ({"apply_default_optimizations": False}, [[1, 3, 2, 4], [2, 4, 3, 1], [4, 1, 2, 3]]),
    ({"apply_default_optimizations": False, "noop_elimination": True},
     [[1, 3, 2, 4], [4, 1, 3, 2], [2, 4, 3, 1]]),
])
def test_noop_elimination_decides_repeat_1s_extra_iterator(fields: dict, expected: list) -> None:
    # TF 2.21: repeat(1) is removed by noop_elimination; left in place it makes TF's extra
    # input iterator after its repetition (the shuffle below takes iterations 0, 2, 4)
    ds = Dataset.range(4).shuffle(4, seed=0).map(lambda x: x + 1).repeat(1)
    ds = ds.with_options(_rewrites(**fields))
    assert [[int(x) for x in ds] for _ in range(3)] == expected


@pytest.mark.parametrize("fields,expected", [
    ({}, [[3, 2], [2, 3]]), ({"noop_elimination": False}, [[3, 2], [2, 3]]),
    ({"shuffle_and_repeat_fusion": False}, [[3, 2], [2, 1]])])
def test_shuffle_and_repeat_fusion_option(fields: dict, expected: list) -> None:
    # TF 2.21: unfused, the inner shuffle is not started ahead by the fused buffer
    ds = Dataset.range(3).shuffle(7, 42).map(lambda x: x + 1).shuffle(7, 5).repeat().take(2)
    ds = ds.with_options(_rewrites(**fields))
    assert [[int(x) for x in ds] for _ in range(2)] == expected
    # a no-op step between them stops the fusion only without noop_elimination
    noop = Dataset.range(3).shuffle(7, 42).map(lambda x: x + 1).shuffle(7, 5).take(-1)
    noop = noop.repeat().take(2).with_options(_rewrites(**fields))
    unfused = fields.get("noop_elimination") is False or fields.get(
        "shuffle_and_repeat_fusion") is False
    assert [[int(x) for x in noop] for _ in range(2)] == ([[3, 2], [2, 1]] if unfused
                                                           else [[3, 2], [2, 3]])


def test_get_single_element_runs_unoptimized() -> None:
    # TF 2.21 runs get_single_element's dataset without static rewrites (shuffle.repeat
    # unfused): 1 0 2 and then [0, 2, 1, 0, 1, 2]; the fused order would give 1 1 2
    ds = Dataset.range(3).shuffle(3, seed=7).repeat(2).shuffle(100, seed=0)
    first = ds.take(1)
    assert [int(first.get_single_element()) for _ in range(3)] == [1, 0, 2]
    assert [int(x) for x in ds] == [0, 2, 1, 0, 1, 2]
    # reduce runs the optimized (fused) pipeline, as TF's
    fused = Dataset.range(3).shuffle(3, seed=7).repeat(2).shuffle(100, seed=0)
    folded = [int(fused.reduce(np.int64(0), lambda s, x: s * 10 + x)) for _ in range(3)]
    assert folded == [120210, 110220, 221010]


def test_checkpoint_refused_when_the_rewrites_differ() -> None:
    def make(options: Options) -> Dataset:
        return Dataset.range(4).shuffle(4, seed=0).repeat(2).with_options(options)
    it = iter(make(_rewrites(shuffle_and_repeat_fusion=False)))
    next(it)
    with pytest.raises(CheckpointError, match="shuffle_and_repeat_fusion"):
        iter(make(Options())).set_state(it.get_state())
    assert assert_resumes_exactly(lambda: make(_rewrites(apply_default_optimizations=False))) == 8
