"""TF's kernel tests for ``tf.data.Options`` (tensorflow/python/data/kernel_tests/options_test.py),
ported with their literal expectations, in our words and with TF 2.21's field names
(``experimental_optimization.autotune`` of older TF is ``autotune.enabled`` in 2.21).

Not ported: the proto round trips (``_to_proto``/``_from_proto``: TF internals), the
``tf.function``/graph round-trip persistence tests and ``testOptionsGraphRoundTripOptimization``
(graph mode, ``assert_next``), and ``testNestedDataset`` (1000 nested ``concatenate``s: options
handle it, but ``concatenate``'s views recurse past Python's recursion limit; reported to the
owner of ``concatenate``).
"""

from __future__ import annotations

import pytest

from minibatcher.tfdata import Dataset, OptimizationOptions, Options, ThreadingOptions


def test_options_default() -> None:
    assert Dataset.range(0).options() == Options()


def test_options_once() -> None:
    options = Options()
    assert Dataset.range(0).with_options(options).options() == options


def test_options_twice_same() -> None:
    options = Options()
    options.autotune.enabled = True
    ds = Dataset.range(0).with_options(options).with_options(options)
    assert ds.options() == options


def test_options_twice_different_options() -> None:
    options1, options2 = Options(), Options()
    options1.autotune.enabled = True
    options2.experimental_deterministic = False
    ds = Dataset.range(0).with_options(options1).with_options(options2)
    assert ds.options().autotune.enabled is True
    assert ds.options().experimental_deterministic is False


def test_options_twice_same_option() -> None:
    options1, options2 = Options(), Options()
    options1.autotune.enabled = False
    options2.autotune.enabled = True
    ds = Dataset.range(0).with_options(options1).with_options(options2)
    assert ds.options().autotune.enabled is True


def test_options_merge_options_from_multiple_inputs() -> None:
    options1, options2 = Options(), Options()
    options1.autotune.enabled = True
    options2.experimental_deterministic = True
    ds = Dataset.zip((Dataset.range(0).with_options(options1),
                      Dataset.range(0).with_options(options2)))
    assert ds.options().autotune.enabled is True
    assert ds.options().experimental_deterministic is True


def test_options_have_defaults() -> None:
    options1, options2 = Options(), Options()
    assert options1.experimental_optimization is not options2.experimental_optimization
    assert options1.experimental_threading is not options2.experimental_threading
    assert options1.experimental_optimization == OptimizationOptions()
    assert options1.experimental_threading == ThreadingOptions()


def test_mutating_options_raise_value_error() -> None:
    options1, options2 = Options(), Options()
    options1.experimental_slack = True
    options2.autotune.enabled = True
    ds = Dataset.range(0).with_options(options1).map(lambda x: 2 * x).with_options(options2)
    with pytest.raises(ValueError):
        ds.options().experimental_deterministic = True


def test_persistence_options_set_before_a_map() -> None:
    # testPersistenceOptionsSetOutsideFunction without the tf.function around the map
    options = Options()
    options.experimental_slack = True
    ds = Dataset.range(5).with_options(options).map(lambda x: 10 * x)
    assert ds.options().experimental_slack is True
    assert [int(x) for x in ds] == [0, 10, 20, 30, 40]
