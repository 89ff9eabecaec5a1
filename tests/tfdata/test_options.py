"""``tfdata.Options``: TF 2.21's fields, types and merge rule; options flow through the plan
(inputs merged in order, a later ``with_options`` wins) and reach every node while the pipeline
runs (``pipeline_options``)."""

from __future__ import annotations

import logging

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
