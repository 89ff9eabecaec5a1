"""``tf.data.experimental.at(dataset, index)``: one element of a dataset without iterating it.

TF answers from its datasets' random access (``range``, ``from_tensor_slices``, ``batch``,
``map``, ``shard``, ``skip``, ``take``, ``repeat``, ...); ours from the pipeline's view
(docs/design/tfdata-state.md), which every dataset that can seek has: TF's ops, and file
readers and ``enumerate`` too. As TF: an index outside ``[0, cardinality)`` is
``OutOfRangeError``, an infinite dataset ``FailedPreconditionError``, a dataset whose
elements need the ones before them (``filter``, ``interleave``, ...) ``UnimplementedError``.
Random access through a ``shuffle`` is refused (``FailedPreconditionError``): TF answers it
from a permutation of the whole input that its iterations never use, which we do not
reproduce.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> int(at(Dataset.range(10).shard(5, 2), 1))
    7
    >>> at(Dataset.range(10).take(3), 3)
    Traceback (most recent call last):
    ...
    minibatcher.tfdata.errors.OutOfRangeError: Index out of range [0, 3): 3
"""

from __future__ import annotations

from typing import Any

from .arguments import tf_int
from .core import INFINITE
from .dataset import Dataset
from .errors import FailedPreconditionError, OutOfRangeError, UnimplementedError
from .options import ACTIVE
from .transforms import is_random


def at(dataset: Dataset, index: Any) -> Any:
    """Element ``index`` of ``dataset`` (see the module docstring).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> [int(at(Dataset.range(11).skip(3), i)) for i in (0, 7)]
        [3, 10]
        >>> at(Dataset.range(3).repeat(), 0)
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.FailedPreconditionError: Dataset with infinite cardinality does not support random access.
    """
    index = tf_int("index", index)
    if dataset.cardinality() == INFINITE:
        raise FailedPreconditionError("Dataset with infinite cardinality does not support "
                                      "random access.")
    if is_random(dataset):
        raise FailedPreconditionError(
            "random access through a shuffle is not provided: TF answers it from a permutation "
            "of the whole input that its iterations never use; iterate the dataset (or skip "
            "to the element) instead")
    if not dataset._has_view():
        raise UnimplementedError(f"Random access is not implemented for dataset "
                                 f"{type(dataset).__name__}: its elements need the ones "
                                 f"before them")
    token = ACTIVE.set(dataset.options())  # a view may depend on the options (a cycle)
    try:
        view = dataset._make_view(None)
        if not 0 <= index < len(view):
            raise OutOfRangeError(f"Index out of range [0, {len(view)}): {index}")
        return view[index]
    finally:
        ACTIVE.reset(token)
