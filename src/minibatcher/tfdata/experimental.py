"""``tf.data.experimental``'s names, for code written against them (``tfdata.experimental.X``).

Most are the older spellings of ``Dataset`` methods: the transformations return a function
for ``Dataset.apply`` (``ds.apply(experimental.unbatch())``), the rest call the method.
Names of ``tf.data.experimental`` (TF 2.21) not provided raise ``NotSupportedError`` saying so.

Example:
    >>> from minibatcher.tfdata import Dataset, experimental
    >>> ds = Dataset.range(6).batch(4).apply(experimental.unbatch())
    >>> [int(x) for x in ds.apply(experimental.scan(0, lambda s, x: (s + 1, x * s)))]
    [0, 1, 4, 9, 16, 25]
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .core import INFINITE as INFINITE_CARDINALITY
from .core import UNKNOWN as UNKNOWN_CARDINALITY
from .dataset import AUTOTUNE, Dataset
from .options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ServiceOptions,
    ThreadingOptions,
)

Transformation = Callable[[Dataset], Dataset]


def Counter(start: Any = 0, step: Any = 1, dtype: Any = np.int64) -> Dataset:  # noqa: N802
    """``Dataset.counter(start, step, dtype)``.

    Example:
        >>> [int(x) for x in Counter(2, 2).take(2)]
        [2, 4]
    """
    return Dataset.counter(start, step, dtype)


def RandomDataset(seed: int | None = None, rerandomize_each_iteration: bool | None = None,  # noqa: N802
                  name: str | None = None) -> Dataset:
    """``Dataset.random(seed, rerandomize_each_iteration)``.

    Example:
        >>> [int(x) for x in RandomDataset(seed=42).take(1)]
        [2985944072]
    """
    return Dataset.random(seed, rerandomize_each_iteration)


def at(dataset: Dataset, index: int) -> Any:
    """``tf.data.experimental.at``: element ``index`` without iterating
    (:mod:`~minibatcher.tfdata.random_access`).

    Example:
        >>> int(at(Dataset.range(10).batch(3), 1)[0])
        3
    """
    from .random_access import at as element_at
    return element_at(dataset, index)


def cardinality(dataset: Dataset) -> int:
    """``dataset.cardinality()``.

    Example:
        >>> cardinality(Dataset.range(3).repeat()) == INFINITE_CARDINALITY
        True
    """
    return dataset.cardinality()


def get_single_element(dataset: Dataset) -> Any:
    """``dataset.get_single_element()``.

    Example:
        >>> int(get_single_element(Dataset.range(1)))
        0
    """
    return dataset.get_single_element()


def get_structure(dataset_or_iterator: Any) -> Any:
    """The element spec of a dataset (or of an iterator's dataset).

    Example:
        >>> get_structure(Dataset.range(1))
        TensorSpec(shape=(), dtype=tf.int64, name=None)
    """
    dataset = getattr(dataset_or_iterator, "_dataset", dataset_or_iterator)
    return dataset.element_spec


def from_list(elements: list[Any], name: str | None = None) -> Dataset:
    """A dataset of the given elements (each a structure of values; TF's conversions).

    Example:
        >>> [(int(a), b) for a, b in from_list([(1, "a"), (2, "b")])]
        [(1, b'a'), (2, b'b')]
    """
    from .scan import as_state
    from .sources import ElementsSource, SourceDataset
    if not elements:
        raise ValueError("Invalid `elements`. `elements` should not be empty.")
    return SourceDataset(ElementsSource([as_state(e) for e in elements]))


def sample_from_datasets(datasets: list[Dataset], weights: Any = None, seed: int | None = None,
                         stop_on_empty_dataset: bool = False) -> Dataset:
    """``Dataset.sample_from_datasets``.

    Example:
        >>> len(list(sample_from_datasets([Dataset.range(2), Dataset.range(3)], seed=1)))
        5
    """
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets: list[Dataset], choice_dataset: Dataset,
                         stop_on_empty_dataset: bool = True) -> Dataset:
    """``Dataset.choose_from_datasets``.

    Example:
        >>> [int(x) for x in choose_from_datasets([Dataset.range(2)], Dataset.range(1))]
        [0]
    """
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def save(dataset: Dataset, path: str, compression: str | None = None,
         shard_func: Callable[..., Any] | None = None, checkpoint_args: Any = None) -> None:
    """``dataset.save(path, ...)``.

    Example:
        >>> import pathlib, tempfile
        >>> path = str(pathlib.Path(tempfile.mkdtemp()) / "s"); save(Dataset.range(2), path)
        >>> [int(x) for x in load(path)]
        [0, 1]
    """
    dataset.save(path, compression, shard_func, checkpoint_args)


def load(path: str, element_spec: Any = None, compression: str | None = None,
         reader_func: Callable[[Dataset], Dataset] | None = None) -> Dataset:
    """``Dataset.load(path, ...)`` (see :func:`save`)."""
    return Dataset.load(path, element_spec, compression, reader_func)


def _method(name: str, doc: str) -> Callable[..., Transformation]:
    def transformation(*args: Any, **kwargs: Any) -> Transformation:
        return lambda dataset: getattr(dataset, name)(*args, **kwargs)
    transformation.__name__ = transformation.__qualname__ = name
    transformation.__doc__ = doc
    return transformation


unbatch = _method("unbatch", "``lambda ds: ds.unbatch()`` (for ``Dataset.apply``).")
unique = _method("unique", "``lambda ds: ds.unique()``.")
scan = _method("scan", "``lambda ds: ds.scan(initial_state, scan_func)``.")
take_while = _method("take_while", "``lambda ds: ds.take_while(predicate)``.")
ignore_errors = _method("ignore_errors", "``lambda ds: ds.ignore_errors(log_warning)``.")
group_by_window = _method("group_by_window",
                          "``lambda ds: ds.group_by_window(key_func, reduce_func, ...)``.")
bucket_by_sequence_length = _method("bucket_by_sequence_length",
                                    "``lambda ds: ds.bucket_by_sequence_length(...)``.")
enumerate_dataset = _method("enumerate", "``lambda ds: ds.enumerate(start)``.")
dense_to_ragged_batch = _method("ragged_batch", "``lambda ds: ds.ragged_batch(batch_size, "
                                "drop_remainder, row_splits_dtype)``.")


def shuffle_and_repeat(buffer_size: int, count: int | None = None,
                       seed: int | None = None) -> Transformation:
    """``lambda ds: ds.shuffle(buffer_size, seed).repeat(count)`` (TF's definition).

    Example:
        >>> ds = Dataset.range(3).apply(shuffle_and_repeat(3, 2, seed=1))
        >>> sorted(int(x) for x in ds)
        [0, 0, 1, 1, 2, 2]
    """
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(map_func: Callable[..., Any], batch_size: int,
                  num_parallel_batches: int | None = None, drop_remainder: bool = False,
                  num_parallel_calls: int | None = None) -> Transformation:
    """``lambda ds: ds.map(map_func).batch(batch_size, drop_remainder)``.

    Example:
        >>> [b.tolist() for b in Dataset.range(3).apply(map_and_batch(lambda x: x * 2, 2))]
        [[0, 2], [4]]
    """
    return lambda dataset: dataset.map(map_func, num_parallel_calls).batch(batch_size,
                                                                            drop_remainder)


def parallel_interleave(map_func: Callable[..., Dataset], cycle_length: int,
                        block_length: int = 1, sloppy: bool | None = False,
                        buffer_output_elements: int | None = None,
                        prefetch_input_elements: int | None = None) -> Transformation:
    """``lambda ds: ds.interleave(map_func, cycle_length, block_length)`` (the order of
    ``sloppy=False``; buffering arguments are about TF's threads).

    Example:
        >>> ds = Dataset.range(2).apply(parallel_interleave(lambda x: Dataset.range(x, 4, 2), 2))
        >>> [int(x) for x in ds]
        [0, 1, 2, 3]
    """
    deterministic = None if sloppy is None else not sloppy
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length,
                                              deterministic=deterministic)


_PROVIDED = sorted(n for n in dir() if not n.startswith("_") and n[0].isalpha() and n not in (
    "annotations", "Any", "Callable", "Dataset", "Transformation", "np"))


def __getattr__(name: str) -> Any:
    """tf.data.experimental's other names: ``NotSupportedError`` saying so (names that are
    not TF's: ``AttributeError``).

    Example:
        >>> __getattr__("no_such_name")
        Traceback (most recent call last):
        ...
        AttributeError: module 'minibatcher.tfdata.experimental' has no attribute 'no_such_name'
    """
    from .unsupported import MISSING_IN_EXPERIMENTAL, missing_module_name

    raise missing_module_name("tf.data.experimental", __name__, name, MISSING_IN_EXPERIMENTAL,
                              _PROVIDED)


__all__ = ["AUTOTUNE", "AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions", "Counter",
           "DistributeOptions", "ExternalStatePolicy", "INFINITE_CARDINALITY",
           "OptimizationOptions", "RandomDataset", "ServiceOptions", "ThreadingOptions",
           "UNKNOWN_CARDINALITY", "at", "bucket_by_sequence_length", "cardinality",
           "choose_from_datasets", "dense_to_ragged_batch", "enumerate_dataset", "from_list",
           "get_single_element", "get_structure", "group_by_window", "ignore_errors", "load",
           "map_and_batch", "parallel_interleave", "sample_from_datasets", "save", "scan",
           "shuffle_and_repeat", "take_while", "unbatch", "unique"]
