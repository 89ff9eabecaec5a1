"""``Dataset``'s static constructors: ``range``, ``from_tensor_slices``, ``from_tensors``,
``from_generator``, ``zip``, ``random``, ``counter``, ``sample_from_datasets``,
``choose_from_datasets``, ``list_files``, ``load`` (a mixin of
:class:`~minibatcher.tfdata.Dataset`; each builds the node of its module).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> [int(x) for x in Dataset.counter(10, -2).take(3)]
    [10, 8, 6]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

if TYPE_CHECKING:
    from .dataset import Dataset


class SourceMethods:
    """``Dataset``'s constructors (see the module docstring).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> Dataset.random(seed=1).cardinality()
        -1
    """

    @staticmethod
    def range(*args: int, output_type: Any = None, name: str | None = None) -> "Dataset":
        """``range(stop)``, ``range(start, stop[, step])`` as int64 scalars.

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> list(Dataset.range(5, 1, -2))
            [np.int64(5), np.int64(3)]
        """
        from .sources import range_dataset
        return range_dataset(*args, output_type=output_type)

    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> "Dataset":
        """One element per row of ``tensors`` (a value or a tuple/dict of values).

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> list(Dataset.from_tensor_slices((["a", "b"], [1, 2])))
            [(b'a', np.int32(1)), (b'b', np.int32(2))]
        """
        from .sources import slices_dataset
        return slices_dataset(tensors)

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> "Dataset":
        """A dataset of the single element ``tensors``.

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> [x.tolist() for x in Dataset.from_tensors([1, 2])]
            [[1, 2]]
        """
        from .sources import tensors_dataset
        return tensors_dataset(tensors)

    @staticmethod
    def from_generator(generator: Callable[..., Any], output_types: Any = None,
                       output_shapes: Any = None, args: Any = None,
                       output_signature: Any = None, name: str | None = None) -> "Dataset":
        """Elements of ``generator(*args)``, called anew for every iteration.

        A restore calls it again and skips what was read (it has no random access).

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> list(Dataset.from_generator(lambda: iter([1, 2])))
            [np.int32(1), np.int32(2)]
        """
        from .generator_dataset import GeneratorDataset
        return GeneratorDataset(generator, output_types, args, output_signature, output_shapes)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: str | None = None) -> "Dataset":
        """Elements of several datasets side by side; stops at the shortest.

        As tf.data (2.13+): ``zip(a, b)``, ``zip((a, b))`` or ``zip(datasets=(a, b))``;
        a (nested) tuple or dict of datasets gives elements of that structure.

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> list(Dataset.zip((Dataset.range(3), Dataset.range(5, 7))))
            [(np.int64(0), np.int64(5)), (np.int64(1), np.int64(6))]
            >>> list(Dataset.zip(datasets={"a": Dataset.range(1)}))
            [{'a': np.int64(0)}]
        """
        from .combine import ZipDataset
        if not args and datasets is None:
            raise TypeError("Must pass at least one dataset to `zip`.")
        if args and datasets is not None:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if args:
            datasets = args[0] if len(args) == 1 else args
        return ZipDataset(datasets)

    @staticmethod
    def random(seed: int | None = None, rerandomize_each_iteration: bool | None = None,
               name: str | None = None) -> "Dataset":
        """Pseudorandom int64 values in ``[0, 2**32)``, forever: TF's values for the
        same seeds (a new draw per iteration only with ``rerandomize_each_iteration``).

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> [int(x) for x in Dataset.random(seed=42).take(2)]
            [2985944072, 4132877644]
        """
        from .random_sources import RandomDataset
        return RandomDataset(seed, rerandomize_each_iteration)

    @staticmethod
    def counter(start: Any = 0, step: Any = 1, dtype: Any = np.int64,
                name: str | None = None) -> "Dataset":
        """``start, start + step, ...`` forever (wrapping around as the dtype does).

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> [int(x) for x in Dataset.counter(dtype=np.int32).take(2)]
            [0, 1]
        """
        from .random_sources import CounterDataset
        return CounterDataset(start, step, dtype)

    @staticmethod
    def sample_from_datasets(datasets: Sequence["Dataset"], weights: Any = None,
                             seed: int | None = None, stop_on_empty_dataset: bool = False,
                             rerandomize_each_iteration: bool | None = None) -> "Dataset":
        """Elements drawn from ``datasets`` at random with ``weights`` (a list, or a
        dataset of weight vectors), exactly as TF draws them for the same seeds.

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> ds = Dataset.sample_from_datasets([Dataset.range(3), Dataset.range(10, 13)], seed=1)
            >>> sorted(int(x) for x in ds)
            [0, 1, 2, 10, 11, 12]
        """
        from .sampling import sample_from_datasets
        return sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset,
                                    rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(datasets: Sequence["Dataset"], choice_dataset: "Dataset",
                             stop_on_empty_dataset: bool = True) -> "Dataset":
        """Element ``i`` taken from ``datasets[c]``, ``c`` the ``i``-th (int64) element
        of ``choice_dataset``.

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> choice = Dataset.range(2).repeat(2)
            >>> [int(x) for x in Dataset.choose_from_datasets(
            ...     [Dataset.range(5), Dataset.range(10, 15)], choice)]
            [0, 10, 1, 11]
        """
        from .sampling import choose_from_datasets
        return choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def list_files(file_pattern: Any, shuffle: bool | None = None, seed: int | None = None,
                   name: str | None = None) -> "Dataset":
        """The files matching ``file_pattern`` (a pattern or a list), sorted, then
        shuffled unless ``shuffle=False`` (TF's matching rules and shuffle order).

        Example:
            >>> import pathlib, tempfile
            >>> from minibatcher.tfdata import Dataset
            >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "x.txt").write_text("x")
            >>> [pathlib.Path(p.decode()).name for p in Dataset.list_files(str(d / "*.txt"))]
            ['x.txt']
        """
        from .listing import list_files
        return list_files(file_pattern, shuffle, seed)

    @staticmethod
    def load(path: str, element_spec: Any = None, compression: str | None = None,
             reader_func: Callable[["Dataset"], "Dataset"] | None = None,
             wait: bool = False) -> "Dataset":
        """The dataset ``Dataset.save`` wrote to ``path``: ``reader_func(shards)``, by
        default an interleave of the shard datasets, as TF reads them.

        Example:
            >>> import pathlib, tempfile
            >>> from minibatcher.tfdata import Dataset
            >>> path = str(pathlib.Path(tempfile.mkdtemp()) / "s")
            >>> Dataset.from_tensor_slices(["a", "b"]).save(path)
            >>> list(Dataset.load(path)), Dataset.load(path).element_spec
            ([b'a', b'b'], TensorSpec(shape=(), dtype=tf.string, name=None))
        """
        from .snapshot import load
        return load(path, element_spec, compression, reader_func, wait)
