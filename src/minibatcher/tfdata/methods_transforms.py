"""``Dataset`` methods that reshape or filter a stream: ``unbatch``, ``rebatch``,
``window``, ``scan``, ``take_while``, ``unique``, ``cache``, ``ignore_errors``,
``ragged_batch`` (a mixin of :class:`~minibatcher.tfdata.Dataset`; each method builds the
node of its module).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> [int(x) for x in Dataset.range(7).batch(3).unbatch().take_while(lambda x: x < 5)]
    [0, 1, 2, 3, 4]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .dataset import Dataset


class TransformMethods:
    """``Dataset``'s reshaping and filtering methods (see the module docstring).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> [int(x) for x in Dataset.from_tensor_slices([1, 2, 1]).unique()]
        [1, 2]
    """

    def unbatch(self, name: str | None = None) -> "Dataset":
        """Each element split along its first dimension into that many elements.

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> [int(x) for x in Dataset.range(5).batch(2).unbatch()]
            [0, 1, 2, 3, 4]
        """
        from .unbatching import UnbatchDataset
        return UnbatchDataset(self)  # type: ignore[arg-type]

    def rebatch(self, batch_size: Any, drop_remainder: bool = False,
                name: str | None = None) -> "Dataset":
        """Batched elements re-cut into batches of ``batch_size`` (an int, or a list
        of sizes used in turn): ``unbatch().batch(n)`` without unbatching.

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> [b.tolist() for b in Dataset.range(7).batch(4).rebatch([1, 2])]
            [[0], [1, 2], [3], [4, 5], [6]]
        """
        from .unbatching import RebatchDataset
        return RebatchDataset(self, batch_size, drop_remainder)  # type: ignore[arg-type]

    def window(self, size: int, shift: int | None = None, stride: int = 1,
               drop_remainder: bool = False, name: str | None = None) -> "Dataset":
        """Windows of ``size`` elements (every ``stride``-th), starting every
        ``shift`` elements; each window is a dataset (a structure of datasets
        for structured elements).

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> ds = Dataset.range(7).window(3, shift=2)
            >>> [[int(x) for x in w] for w in ds]
            [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]
        """
        from .windowing import WindowDataset
        return WindowDataset(self, size, shift, stride, drop_remainder)  # type: ignore[arg-type]

    def scan(self, initial_state: Any, scan_func: Callable[[Any, Any], Any],
             name: str | None = None) -> "Dataset":
        """``scan_func(state, element) -> (new_state, output)`` over the elements.

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> [int(x) for x in Dataset.range(4).scan(0, lambda s, x: (s + 1, s + x))]
            [0, 2, 4, 6]
        """
        from .scan import ScanDataset
        return ScanDataset(self, initial_state, scan_func)  # type: ignore[arg-type]

    def take_while(self, predicate: Callable[..., Any], name: str | None = None) -> "Dataset":
        """The elements before the first one for which ``predicate`` is false.

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> ds = Dataset.from_tensor_slices([1, 2, 7, 1])
            >>> [int(x) for x in ds.take_while(lambda x: x < 5)]
            [1, 2]
        """
        from .selection import TakeWhileDataset
        return TakeWhileDataset(self, predicate)  # type: ignore[arg-type]

    def unique(self, name: str | None = None) -> "Dataset":
        """The first occurrence of each element (int32, int64 or string elements).

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> list(Dataset.from_tensor_slices(["a", "b", "a"]).unique())
            [b'a', b'b']
        """
        from .selection import UniqueDataset
        return UniqueDataset(self)  # type: ignore[arg-type]

    def cache(self, filename: str = "", name: str | None = None) -> "Dataset":
        """The elements of the first complete iteration, kept (in memory, or in
        ``filename + ".mbcache"``) and read by every later iteration instead of
        the input.

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> ds = Dataset.range(5).shuffle(5, seed=2).cache()
            >>> [int(x) for x in ds] == [int(x) for x in ds]
            True
        """
        import os
        if filename is None or os.fsdecode(filename) == "":
            from .caching import CacheDataset
            return CacheDataset(self)  # type: ignore[arg-type]
        from .cache_files import FileCacheDataset
        return FileCacheDataset(self, filename)  # type: ignore[arg-type]

    def ignore_errors(self, log_warning: bool = False, name: str | None = None) -> "Dataset":
        """The elements whose production did not raise (the others are counted, and
        logged with ``log_warning``).

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> [int(x) for x in Dataset.range(4).map(lambda x: 6 // int(x)).ignore_errors()]
            [6, 3, 2]
        """
        from .ignoring import IgnoreErrorsDataset
        return IgnoreErrorsDataset(self, log_warning)  # type: ignore[arg-type]

    def ragged_batch(self, batch_size: int, drop_remainder: bool = False,
                     row_splits_dtype: Any = "int64", name: str | None = None) -> "Dataset":
        """Batches whose components of varying shape are ``tfdata.RaggedTensor`` s
        (row offsets + values); scalars and fixed shapes batch densely, as in TF.

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> ds = Dataset.range(5).batch(2).ragged_batch(2)
            >>> [(b.to_list(), b.row_splits.tolist()) for b in ds]
            [([[0, 1], [2, 3]], [0, 2, 4]), ([[4]], [0, 1])]
        """
        from .ragged_batching import RaggedBatchDataset
        return RaggedBatchDataset(self, batch_size, drop_remainder,  # type: ignore[arg-type]
                                  row_splits_dtype)
