"""``Dataset`` methods that consume a dataset into a value: ``reduce`` and
``get_single_element``, ``save``, and ``element_spec`` (a mixin of
:class:`~minibatcher.tfdata.Dataset`).

Both iterate the dataset once, which starts one iteration of it as TF's ops do
(a reshuffling shuffle inside draws its next order).

Example:
    >>> import numpy as np
    >>> from minibatcher.tfdata import Dataset
    >>> int(Dataset.range(4).reduce(np.int64(0), lambda s, x: s + x))
    6
"""

from __future__ import annotations

from typing import Any, Callable


class ConsumerMethods:
    """``Dataset``'s consuming methods (see the module docstring).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> Dataset.from_tensors(b"x").get_single_element()
        b'x'
    """

    def reduce(self, initial_state: Any, reduce_func: Callable[[Any, Any], Any],
               name: str | None = None) -> Any:
        """``reduce_func(state, element) -> new_state`` folded over the elements;
        returns the final state (the initial one for an empty dataset).

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> Dataset.from_tensor_slices(["a", "b"]).reduce("", lambda s, x: s + x)
            b'ab'
        """
        from .scan import reduce_dataset
        return reduce_dataset(self, initial_state, reduce_func)  # type: ignore[arg-type]

    def get_single_element(self, name: str | None = None) -> Any:
        """The one element of a dataset of exactly one element
        (``InvalidArgumentError`` otherwise, as TF). As TF, the dataset runs without
        the static rewrites (``shuffle(...).repeat(...)`` unfused, ``repeat(1)`` kept:
        :func:`~minibatcher.tfdata.options.static_rewrites`), which shows in when
        shuffles below start their iterations.

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> Dataset.range(0).get_single_element()
            Traceback (most recent call last):
            ...
            minibatcher.tfdata.errors.InvalidArgumentError: Dataset was empty.
        """
        from .errors import InvalidArgumentError
        from .options import UNOPTIMIZED
        token = UNOPTIMIZED.set(True)  # TF runs this dataset without its static rewrites
        try:
            it = iter(self)  # type: ignore[call-overload]
            try:
                element = next(it)
            except StopIteration:
                raise InvalidArgumentError("Dataset was empty.") from None
            try:
                next(it)
            except StopIteration:
                return element
        finally:
            UNOPTIMIZED.reset(token)
        raise InvalidArgumentError("Dataset had more than one element.")

    @property
    def element_spec(self) -> Any:
        """The spec structure of the elements (``TensorSpec``, ``RaggedTensorSpec``,
        ``DatasetSpec`` ...): TF's static rules where they need no function tracing;
        elements made by Python functions report dtypes and ranks from a first element,
        every dimension None (:mod:`.element_spec`).

        Example:
            >>> import numpy as np
            >>> from minibatcher.tfdata import Dataset
            >>> Dataset.from_tensor_slices(np.zeros((4, 3), np.float32)).element_spec
            TensorSpec(shape=(3,), dtype=tf.float32, name=None)
        """
        from .element_spec import element_spec
        return element_spec(self)

    def save(self, path: str, compression: str | None = None,
             shard_func: Callable[..., Any] | None = None, checkpoint_args: Any = None) -> None:
        """Writes one iteration of the dataset to the folder ``path`` (read it back with
        ``Dataset.load``; the format is described in :mod:`.snapshot`).

        Example:
            >>> import pathlib, tempfile
            >>> from minibatcher.tfdata import Dataset
            >>> path = str(pathlib.Path(tempfile.mkdtemp()) / "s")
            >>> Dataset.range(3).save(path)
            >>> [int(x) for x in Dataset.load(path)]
            [0, 1, 2]
        """
        from .snapshot import save
        save(self, path, compression, shard_func, checkpoint_args)  # type: ignore[arg-type]
