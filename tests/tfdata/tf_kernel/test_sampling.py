"""TF's kernel tests for ``sample_from_datasets`` and ``choose_from_datasets``
(tensorflow/python/data/kernel_tests/sample_from_datasets_test.py,
choose_from_datasets_test.py), ported with their literal expectations, in our words.

Weights "of type tensor" are NumPy arrays here. Not ported: the ``tf.function`` case of the
rerandomization tests (TF's function tracing); the checkpoint test of choose_from_datasets
uses NumPy's shuffle for its choice indices instead of ``stateless_shuffle``.
"""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.tfdata import Dataset, errors, random_seed_scope

from ..resume import assert_resumes_exactly


def weights_of(values: list[float], kind: str):
    if kind == "list":
        return values
    if kind == "array":
        return np.asarray(values)
    return Dataset.from_tensors(np.asarray(values)).repeat()


def chi2(expected, actual) -> float:
    expected, actual = np.asarray(expected), np.asarray(actual)
    return float(np.sum((actual - expected) ** 2 / expected, axis=0))


@pytest.mark.parametrize("kind", ["list", "array", "dataset"])
def test_sample_from_datasets(kind: str) -> None:
    rng = np.random.default_rng(3)
    probs_list = [[0.85, 0.05, 0.1], list(rng.random(5) / rng.random(5).sum()), [1.0]]
    with random_seed_scope(1619):
        for probs in probs_list:
            probs = list(np.asarray(probs) / np.sum(probs))
            dataset = Dataset.sample_from_datasets(
                [Dataset.from_tensors(i).repeat() for i in range(len(probs))],
                weights_of(probs, kind)).take(5000)
            freqs = np.bincount([int(x) for x in dataset], minlength=len(probs))
            assert chi2(probs, freqs / 5000) < 1e-2


def _three() -> list[Dataset]:
    return [Dataset.from_tensors(np.int64(-1)), Dataset.from_tensors(np.int64(1)).repeat(),
            Dataset.range(10).repeat()]


@pytest.mark.parametrize("kind", ["list", "array", "dataset"])
def test_stopping_and_skipping_on_empty_dataset(kind: str) -> None:
    stopped = Dataset.sample_from_datasets(_three(), weights=weights_of([0.5, 0.1, 0.4], kind),
                                           stop_on_empty_dataset=True)
    assert [int(x) for x in stopped].count(-1) == 1
    skipped = Dataset.sample_from_datasets(_three(), weights=weights_of([0.5, 0.1, 0.4], kind),
                                           stop_on_empty_dataset=False).take(100)
    samples = [int(x) for x in skipped]
    assert len(samples) == 100 and samples.count(-1) == 1


@pytest.mark.parametrize("kind", ["list", "array", "dataset"])
def test_zero_weights_and_empty_datasets(kind: str) -> None:
    twice = [Dataset.from_tensors(-1).repeat(2), Dataset.from_tensors(1).repeat(2)]
    ds = Dataset.sample_from_datasets(twice, weights=weights_of([0.0, 1.0], kind),
                                      stop_on_empty_dataset=True)
    assert [int(x) for x in ds] == [1, 1]
    empty = [Dataset.range(0), Dataset.range(1).repeat()]
    ds = Dataset.sample_from_datasets(empty, weights=weights_of([1.0, 0.0], kind),
                                      stop_on_empty_dataset=True)
    assert list(ds) == []


def test_a_zero_weight_in_a_weights_dataset_warns_nothing() -> None:
    # ours, not TF's: TF takes log(0) = -inf silently; NumPy's log warned the user
    import warnings

    twice = [Dataset.from_tensors(-1).repeat(2), Dataset.from_tensors(1).repeat(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = Dataset.sample_from_datasets(twice, weights=weights_of([0.0, 1.0], "dataset"),
                                          stop_on_empty_dataset=True)
        assert [int(x) for x in ds] == [1, 1]


def test_skipping_datasets_with_zero_weight() -> None:
    ds = Dataset.sample_from_datasets([Dataset.from_tensors(-1).repeat(), Dataset.from_tensors(1)],
                                      weights=np.asarray([0.0, 1.0]), stop_on_empty_dataset=False)
    assert [int(x) for x in ds] == [1]
    ds = Dataset.sample_from_datasets([Dataset.from_tensors(-1).repeat(),
                                       Dataset.from_tensors(1).repeat()],
                                      weights=np.asarray([0.0, 0.0]), stop_on_empty_dataset=False)
    assert list(ds) == []


def test_cardinality() -> None:
    ds = Dataset.sample_from_datasets([Dataset.from_tensors([1.0]).repeat(),
                                       Dataset.from_tensors([2.0]).repeat()])
    assert ds.cardinality() == -1


def test_nested() -> None:
    ds = Dataset.sample_from_datasets([Dataset.range(10).window(2),
                                       Dataset.range(10, 20).window(2)], weights=[0.3, 0.7])
    next(iter(ds.flat_map(lambda x: x)))


@pytest.mark.parametrize("rerandomize", [None, True, False])
@pytest.mark.parametrize("repeat", [False, True])
def test_rerandomize_each_iteration(rerandomize: bool | None, repeat: bool) -> None:
    ds = Dataset.sample_from_datasets([Dataset.range(0, 10), Dataset.range(100, 110)], seed=42,
                                      weights=[0.5, 0.5], stop_on_empty_dataset=True,
                                      rerandomize_each_iteration=rerandomize)
    if repeat:
        epochs = [int(x) for x in ds.repeat(2)]
        first, second = epochs[:len(epochs) // 2], epochs[len(epochs) // 2:]
    else:
        first, second = [int(x) for x in ds], [int(x) for x in ds]
    assert (first != second) == bool(rerandomize)


def test_errors() -> None:
    with pytest.raises(ValueError, match="should have the same length"):
        Dataset.sample_from_datasets([Dataset.range(10), Dataset.range(20)],
                                     weights=[0.25, 0.25, 0.25, 0.25])
    with pytest.raises(TypeError, match="`tf.float32` or `tf.float64`"):
        Dataset.sample_from_datasets([Dataset.range(10), Dataset.range(20)], weights=[1, 1])
    with pytest.raises(TypeError, match="must have compatible"):
        Dataset.sample_from_datasets([Dataset.from_tensors(0), Dataset.from_tensors(0.0)])
    with pytest.raises(ValueError, match="Invalid `datasets`. `datasets` should not be empty."):
        Dataset.sample_from_datasets(datasets=[], weights=[])


def test_sample_checkpoint() -> None:
    assert assert_resumes_exactly(lambda: Dataset.sample_from_datasets(
        [Dataset.from_tensors(i).repeat(None) for i in range(2)], [0.5, 0.5], seed=1813)
        .take(100)) == 100


WORDS = [b"foo", b"bar", b"baz"]


def test_choose_from_datasets() -> None:
    choice = np.random.default_rng(0).integers(3, size=15).astype(np.int64)
    ds = Dataset.choose_from_datasets([Dataset.from_tensors(w).repeat() for w in WORDS],
                                      Dataset.from_tensor_slices(choice))
    assert list(ds) == [WORDS[i] for i in choice]


@pytest.mark.parametrize("stop, expected", [
    (True, [b"foo", b"foo"]),
    (False, [b"foo", b"foo", b"bar", b"bar", b"bar", b"baz", b"baz", b"baz"])])
def test_choose_on_empty_dataset(stop: bool, expected: list[bytes]) -> None:
    datasets = [Dataset.from_tensors(b"foo").repeat(2), Dataset.from_tensors(b"bar").repeat(),
                Dataset.from_tensors(b"baz").repeat()]
    choice = Dataset.from_tensor_slices(np.asarray([0, 0, 0, 1, 1, 1, 2, 2, 2], np.int64))
    assert list(Dataset.choose_from_datasets(datasets, choice, stop_on_empty_dataset=stop)) == \
        expected


def test_choose_with_empty_choices_and_nested() -> None:
    datasets = [Dataset.from_tensors(w).repeat() for w in WORDS]
    assert list(Dataset.choose_from_datasets(datasets, choice_dataset=Dataset.range(0),
                                             stop_on_empty_dataset=False)) == []
    ds = Dataset.choose_from_datasets([Dataset.range(10).window(2),
                                       Dataset.range(10, 20).window(2)],
                                      Dataset.range(2).repeat(5)).flat_map(lambda x: x)
    expected = [v for i in range(5) for j in range(2) for v in (10 * j + 2 * i, 10 * j + 2 * i + 1)]
    assert [int(x) for x in ds] == expected


def test_choose_errors() -> None:
    two = [Dataset.from_tensors(0), Dataset.from_tensors(1)]
    with pytest.raises(TypeError, match="tf.int64"):
        Dataset.choose_from_datasets(two, choice_dataset=Dataset.from_tensors(1.0))
    with pytest.raises(TypeError, match="scalar"):
        Dataset.choose_from_datasets(two, choice_dataset=Dataset.from_tensors([1.0]))
    with pytest.raises(errors.InvalidArgumentError, match="out of range"):
        list(Dataset.choose_from_datasets([Dataset.from_tensors(0)],
                                          choice_dataset=Dataset.from_tensors(np.int64(1))))
    with pytest.raises(ValueError, match=r"Invalid `datasets`. `datasets` should not be empty."):
        Dataset.choose_from_datasets(datasets=[], choice_dataset=Dataset.from_tensors(1.0))
    with pytest.raises(TypeError, match=r"`choice_dataset` should be a `tf.data.Dataset`"):
        Dataset.choose_from_datasets([Dataset.range(42)], choice_dataset=None)


def test_choose_checkpoint() -> None:
    indices = np.repeat(np.arange(5, dtype=np.int64), 20)
    np.random.default_rng(12).shuffle(indices)
    assert assert_resumes_exactly(lambda: Dataset.choose_from_datasets(
        [Dataset.range(20) for _ in range(5)], Dataset.from_tensor_slices(indices))) == 100
