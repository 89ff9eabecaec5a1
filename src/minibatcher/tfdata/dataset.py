"""``Dataset``: tf.data's names and semantics over NumPy elements, without TensorFlow.

Every method returns a new immutable dataset (a plan). ``iter(ds)`` starts an
iteration; iterating the same dataset again starts the next one, which is
where shuffles with ``reshuffle_each_iteration`` draw new seeds, as in
tf.data. The iterator has ``get_state()``/``set_state()``
(see :mod:`minibatcher.tfdata.iterator`).

Example:
    >>> ds = Dataset.range(10).filter(lambda x: x % 2 == 0).map(lambda x: x * 10).batch(2)
    >>> [b.tolist() for b in ds]
    [[0, 20], [40, 60], [80]]
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from ..state import Fields
from .core import INFINITE, UNKNOWN, Iter, View, view_iter
from .methods_consumers import ConsumerMethods
from .methods_sources import SourceMethods
from .methods_transforms import TransformMethods

AUTOTUNE = -1


class Dataset(SourceMethods, TransformMethods, ConsumerMethods):
    """A lazy, composable dataset (``tf.data.Dataset``).

    Subclasses implement the node protocol (:mod:`minibatcher.tfdata.core`):
    ``_inputs``, ``_spec``, and either ``_make_view(pins)`` (with ``_has_view``)
    or ``_make_iter(state)``; ``pins`` and ``state`` are
    :class:`~minibatcher.state.Fields` (None: a fresh iteration), every field
    read through them validated.

    Example:
        >>> [int(x) for x in Dataset.range(3).repeat(2).skip(1).take(3)]
        [1, 2, 0]
    """

    # -- node protocol (for implementers) ---------------------------------------------------
    def _inputs(self) -> tuple["Dataset", ...]:
        return ()

    def _spec(self) -> dict[str, Any]:
        return {"op": type(self).__name__}

    def _has_view(self) -> bool:
        return False

    def _make_view(self, pins: Fields | None) -> View:
        raise TypeError(f"{type(self).__name__} has no random-access view")

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._has_view():
            return view_iter(self._make_view, state)
        raise NotImplementedError(f"{type(self).__name__} implements neither a view nor an "
                                  "iterator")

    def _cardinality(self) -> int:
        return UNKNOWN

    def _iterate_unread(self) -> None:
        """What making an iterator that is never read does to the pipeline's seed
        generators, as in TF (a finite ``repeat`` makes one more input iterator after
        its last repetition): by default, the inputs' iterators are made too; nodes
        whose TF iterator makes an input's iterator lazily (``shuffle``, a
        ``concatenate``'s second input) or never (``take(0)``, ``repeat(0)``) say so."""
        for node in self._inputs():
            node._iterate_unread()

    def __getattr__(self, name: str) -> Any:
        """Only reached for names the class lacks: tf.data's methods we do not provide
        raise ``NotSupportedError`` saying so (:mod:`.unsupported`), others AttributeError.

        Example:
            >>> Dataset.range(1).snapshot("/tmp/x")
            Traceback (most recent call last):
            ...
            minibatcher.errors.NotSupportedError: Dataset.snapshot (tf.data's snapshot) is not ...
        """
        from .unsupported import missing_attribute
        raise missing_attribute(self, name)

    # -- iteration ---------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Any]:
        from .iterator import DatasetIterator
        return DatasetIterator(self)

    def as_numpy_iterator(self) -> Iterator[Any]:
        """``iter(self)`` (elements are NumPy values already).

        Example:
            >>> next(Dataset.range(5).as_numpy_iterator())
            np.int64(0)
        """
        return iter(self)

    def cardinality(self) -> int:
        """The number of elements, ``INFINITE_CARDINALITY`` (-1) or ``UNKNOWN_CARDINALITY`` (-2).

        Example:
            >>> Dataset.range(7).batch(2).cardinality(), Dataset.range(3).repeat().cardinality()
            (4, -1)
        """
        return self._cardinality()

    def options(self) -> Any:
        """The dataset's ``tfdata.Options``: its inputs' merged, then its own
        ``with_options`` (frozen; see :mod:`minibatcher.tfdata.options`).

        Example:
            >>> Dataset.range(2).options().deterministic is None
            True
        """
        from .options import dataset_options
        return dataset_options(self)

    def with_options(self, options: Any, name: str | None = None) -> "Dataset":
        """This dataset with ``options`` (a ``tfdata.Options``) merged over its own;
        where both set an option, ``options`` wins.

        Example:
            >>> from minibatcher.tfdata import Options
            >>> o = Options(); o.deterministic = False
            >>> Dataset.range(2).with_options(o).batch(2).options().deterministic
            False
        """
        from .with_options import OptionsDataset
        return OptionsDataset(self, options)

    def __len__(self) -> int:
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    # -- transformations ---------------------------------------------------------------------
    def map(self, map_func: Callable[..., Any], num_parallel_calls: int | None = None,
            deterministic: bool | None = None, synchronous: bool | None = None,
            use_unbounded_threadpool: bool = False, name: str | None = None, *,
            executor: str = "threads") -> "Dataset":
        """``map_func`` applied to every element (tuples unpacked into arguments).

        ``num_parallel_calls=N`` (or ``AUTOTUNE``: the schedulable CPUs) runs
        the function on N workers; elements come in input order either way.
        ``executor`` (an extension) picks threads (the default: any function;
        they scale where it releases the GIL, as tfdata.io's parsers and NumPy
        do) or processes (for functions that hold the GIL: Python code, or
        Python around short native calls such as Pillow decoding small images;
        the function must pickle and runs only in the worker processes).
        ``synchronous``, ``use_unbounded_threadpool`` and ``name`` are accepted.

        Example:
            >>> list(Dataset.zip((Dataset.range(2), Dataset.range(2))).map(lambda a, b: a + b))
            [np.int64(0), np.int64(2)]
            >>> [int(x) for x in Dataset.range(4).map(lambda x: x * x, num_parallel_calls=2)]
            [0, 1, 4, 9]
        """
        from .transforms import MapDataset
        return MapDataset(self, map_func, num_parallel_calls, deterministic, executor)

    def filter(self, predicate: Callable[..., Any], name: str | None = None) -> "Dataset":
        """The elements for which ``predicate`` returns a true scalar.

        Example:
            >>> list(Dataset.range(5).filter(lambda x: x > 2))
            [np.int64(3), np.int64(4)]
        """
        from .transforms import FilterDataset
        return FilterDataset(self, predicate)

    def shuffle(self, buffer_size: int, seed: int | None = None,
                reshuffle_each_iteration: bool | None = None, name: str | None = None) -> "Dataset":
        """tf.data's buffer shuffle, bit for bit (Philox4x32-10, TF's seed rules).

        Example:
            >>> ds = Dataset.range(6).shuffle(6, seed=1)
            >>> sorted(ds) == list(range(6)), list(ds) != list(ds)
            (True, True)
        """
        from .shuffle import ShuffleDataset
        return ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count: int | None = None, name: str | None = None) -> "Dataset":
        """``count`` fresh iterations of this dataset (None or -1: forever).

        Example:
            >>> list(Dataset.range(2).repeat(2))
            [np.int64(0), np.int64(1), np.int64(0), np.int64(1)]
        """
        from .positional import RepeatDataset
        return RepeatDataset(self, -1 if count is None else count)

    def shard(self, num_shards: int, index: int, name: str | None = None) -> "Dataset":
        """Elements whose position ``p`` has ``p % num_shards == index``.

        Example:
            >>> list(Dataset.range(7).shard(3, 1))
            [np.int64(1), np.int64(4)]
        """
        from .positional import ShardDataset
        return ShardDataset(self, num_shards, index)

    def skip(self, count: int, name: str | None = None) -> "Dataset":
        """Without the first ``count`` elements (a negative count skips all).

        Example:
            >>> list(Dataset.range(4).skip(2)), list(Dataset.range(4).skip(-1))
            ([np.int64(2), np.int64(3)], [])
        """
        from .positional import SkipDataset
        return SkipDataset(self, count)

    def take(self, count: int, name: str | None = None) -> "Dataset":
        """The first ``count`` elements (a negative count takes all).

        Example:
            >>> list(Dataset.range(4).take(2))
            [np.int64(0), np.int64(1)]
        """
        from .positional import TakeDataset
        return TakeDataset(self, count)

    def enumerate(self, start: int = 0, name: str | None = None) -> "Dataset":
        """``(index, element)`` pairs, the index an int64 counting from ``start``.

        Example:
            >>> list(Dataset.from_tensor_slices(["a"]).enumerate(5))
            [(np.int64(5), b'a')]
        """
        from .combine import EnumerateDataset
        return EnumerateDataset(self, start)

    def concatenate(self, dataset: "Dataset", name: str | None = None) -> "Dataset":
        """This dataset's elements, then ``dataset``'s.

        Example:
            >>> list(Dataset.range(2).concatenate(Dataset.range(5, 6)))
            [np.int64(0), np.int64(1), np.int64(5)]
        """
        from .combine import ConcatenateDataset
        return ConcatenateDataset(self, dataset)

    def interleave(self, map_func: Callable[..., "Dataset"], cycle_length: int | None = None,
                   block_length: int | None = None, num_parallel_calls: int | None = None,
                   deterministic: bool | None = None, name: str | None = None) -> "Dataset":
        """tf.data's cycle/block interleave of the datasets ``map_func`` returns.

        ``cycle_length=None`` follows TF's rule: the schedulable CPU cores, or
        ``min(num_parallel_calls, cores)``, or ``ceil(cores / 3)`` with
        ``num_parallel_calls=AUTOTUNE`` (``Options().autotune.cpu_budget`` fixes
        the core count, making the order the same on every machine).

        Example:
            >>> ds = Dataset.range(1, 4).interleave(
            ...     lambda n: Dataset.range(n * 10, n * 10 + n), cycle_length=2, block_length=1)
            >>> [int(x) for x in ds]
            [10, 20, 21, 30, 31, 32]
        """
        from .interleave import InterleaveDataset
        return InterleaveDataset(self, map_func, cycle_length, block_length, num_parallel_calls)

    def flat_map(self, map_func: Callable[..., "Dataset"], name: str | None = None) -> "Dataset":
        """``interleave(map_func, cycle_length=1)``: each dataset in turn.

        Example:
            >>> [int(x) for x in Dataset.range(3).flat_map(lambda n: Dataset.range(n))]
            [0, 0, 1]
        """
        return self.interleave(map_func, cycle_length=1, block_length=1)

    def batch(self, batch_size: int, drop_remainder: bool = False,
              num_parallel_calls: int | None = None, deterministic: bool | None = None,
              name: str | None = None) -> "Dataset":
        """Consecutive elements stacked into batches.

        Example:
            >>> [b.tolist() for b in Dataset.range(5).batch(2, drop_remainder=True)]
            [[0, 1], [2, 3]]
        """
        from .batching import BatchDataset
        return BatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size: int, padded_shapes: Any = None,
                     padding_values: Any = None, drop_remainder: bool = False,
                     name: str | None = None) -> "Dataset":
        """Batches whose variable dimensions are padded (to the batch's maximum or
        to ``padded_shapes``) with ``padding_values`` (default 0 / ``b""``).

        Example:
            >>> import numpy as np
            >>> ds = Dataset.range(1, 4).map(lambda n: np.arange(n))
            >>> next(iter(ds.padded_batch(2, padding_values=np.int64(-1)))).tolist()
            [[0, -1], [0, 1]]
        """
        from .batching import PaddedBatchDataset
        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def group_by_window(self, key_func: Callable[..., Any],
                        reduce_func: Callable[[Any, "Dataset"], "Dataset"],
                        window_size: int | None = None,
                        window_size_func: Callable[[Any], Any] | None = None,
                        name: str | None = None) -> "Dataset":
        """Per-key windows reduced as soon as they are full; the rest flushed at the
        end in ascending key order.

        Example:
            >>> ds = Dataset.range(7).group_by_window(
            ...     lambda x: x % 2, lambda k, w: w.batch(2), window_size=2)
            >>> [b.tolist() for b in ds]
            [[0, 2], [1, 3], [4, 6], [5]]
        """
        from .grouping import GroupByWindowDataset
        return GroupByWindowDataset(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(self, element_length_func: Callable[..., Any],
                                  bucket_boundaries: list[int], bucket_batch_sizes: list[int],
                                  padded_shapes: Any = None, padding_values: Any = None,
                                  pad_to_bucket_boundary: bool = False, no_padding: bool = False,
                                  drop_remainder: bool = False,
                                  name: str | None = None) -> "Dataset":
        """Length buckets ``[b[i-1], b[i])`` batched with their own batch sizes.

        Example:
            >>> import numpy as np
            >>> ds = Dataset.from_tensor_slices([1, 3, 1, 3, 5]).map(lambda n: np.ones(n))
            >>> [b.shape for b in ds.bucket_by_sequence_length(len, [2, 4], [2, 2, 2])]
            [(2, 1), (2, 3), (1, 5)]
        """
        from .grouping import bucket_by_sequence_length
        return bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                         bucket_batch_sizes, padded_shapes, padding_values,
                                         pad_to_bucket_boundary, no_padding, drop_remainder)

    def prefetch(self, buffer_size: int, name: str | None = None) -> "Dataset":
        """Accepted for compatibility: elements, order and state are unchanged.

        Example:
            >>> list(Dataset.range(2).prefetch(AUTOTUNE))
            [np.int64(0), np.int64(1)]
        """
        from .transforms import PrefetchDataset
        return PrefetchDataset(self, buffer_size)

    def apply(self, transformation_func: Callable[["Dataset"], "Dataset"]) -> "Dataset":
        """``transformation_func(self)``.

        Example:
            >>> list(Dataset.range(3).apply(lambda d: d.skip(2)))
            [np.int64(2)]
        """
        return transformation_func(self)
