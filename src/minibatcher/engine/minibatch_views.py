"""The rectangular views of a minibatch stream: CNTK's data ``shape`` ``(rows, max
length, *sample shape)``, ``padded()``, ``mask``, ``asarray()``, ``as_sequences()`` and
CNTK's ``Value`` view (:class:`MinibatchValue`, ``MinibatchData.data``).

:class:`PaddedViews` is a mixin of :class:`~minibatcher.engine.minibatch.MinibatchData`:
it reads its ``values``, ``lengths``, ``offsets``, ``sequences`` and layouts. Every view
is built once, on first use, and then shared: do not modify them in place.

Example:
    >>> from minibatcher.engine.minibatch import _example   # sequences of 2 and 1 samples
    >>> data, mask = _example().padded()
    >>> data.shape, mask.tolist()
    ((2, 2, 2), [[True, True], [True, False]])
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from .layout import SequenceLayout

__all__ = ["MinibatchValue", "PaddedViews"]


class MinibatchValue:
    """CNTK's ``Value`` view of a :class:`~minibatcher.engine.minibatch.MinibatchData`
    (``MinibatchData.data``).

    Example:
        >>> import numpy as np
        >>> from minibatcher.engine.minibatch import MinibatchData
        >>> from minibatcher.streams import StreamInformation
        >>> from minibatcher.engine.layout import SequenceLayout
        >>> info = StreamInformation("x", 0, 1, False)
        >>> d = MinibatchData(info, np.ones((3, 1), np.float32), [3], [0], True,
        ...                   SequenceLayout.first_fit([3]))
        >>> d.data.shape, d.data.mask.tolist(), d.data.is_sparse
        ((1, 3, 1), [[2, 1, 1]], False)
    """

    def __init__(self, owner: Any) -> None:  # the MinibatchData it views
        self._owner = owner

    def __repr__(self) -> str:
        return f"MinibatchValue(shape={self.shape}, is_sparse={self.is_sparse})"

    @property
    def shape(self) -> tuple[int, ...]:
        """The rectangular data shape (CNTK's ``Value.shape``).

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> _example().data.shape
            (2, 2, 2)
        """
        return self._owner.shape

    @property
    def mask(self) -> np.ndarray:
        """2 where a sequence begins, 1 valid, 0 padding (CNTK's ``Value.mask``).

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> _example().data.mask.tolist()
            [[2, 1], [2, 0]]
        """
        return self._owner.mask

    @property
    def is_sparse(self) -> bool:
        """Whether the stream is sparse.

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> _example().data.is_sparse
            False
        """
        return self._owner.is_sparse

    @property
    def dtype(self) -> np.dtype:
        """The value type.

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> _example().data.dtype
            dtype('float32')
        """
        return self._owner.stream.dtype

    def asarray(self) -> Any:
        """``MinibatchData.asarray()``.

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> _example().data.asarray()[1].tolist()
            [[4.0, 5.0], [0.0, 0.0]]
        """
        return self._owner.asarray()

    def as_sequences(self, variable: Any = None) -> list[Any]:
        """``MinibatchData.as_sequences()``.

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> [len(s) for s in _example().data.as_sequences()]
            [2, 1]
        """
        return self._owner.as_sequences(variable)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = np.asarray(self._owner.padded_data())
        return array if dtype is None else array.astype(dtype)

    def __len__(self) -> int:
        return self.shape[0]


class PaddedViews:
    """``MinibatchData``'s rectangular views (see the module docstring).

    Example:
        >>> from minibatcher.engine.minibatch import _example
        >>> _example().mask.tolist()
        [[2, 1], [2, 0]]
    """

    @property
    def shape(self) -> tuple[int, ...]:
        """CNTK's data shape: ``(rows, max length, *sample_shape)``; without a
        sequence axis ``(num_samples, *sample_shape)``.

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> _example().shape
            (2, 2, 2)
        """
        if not self.has_sequence_axis:
            return (self.num_samples, *self.sample_shape)
        grid = self._grid
        return (*grid.shape, *self.sample_shape)

    @cached_property
    def _grid(self) -> np.ndarray:
        layout = self._padded_layout or SequenceLayout.one_per_row(self.lengths)
        return layout.grid()

    @cached_property
    def _padded(self) -> tuple[np.ndarray, np.ndarray]:
        grid = self._grid
        mask = grid >= 0
        values = self.dense_values()
        data = np.zeros(grid.shape + (self.stream.dim,), dtype=values.dtype)
        data[mask] = values[grid[mask]]
        return data, mask

    def padded(self) -> tuple[np.ndarray, np.ndarray]:
        """``(data[rows, max_len, dim], mask[rows, max_len])``: one row per
        sequence (per slot in truncated-BPTT mode), zeros where mask is False.
        Built once; the same arrays are returned on every call.

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> _example().padded()[1].tolist()
            [[True, True], [True, False]]
        """
        return self._padded

    def padded_data(self) -> np.ndarray:
        """The padded data in CNTK's data ``shape`` (``padded()[0]`` with the
        sample shape, or ``values`` reshaped when there is no sequence axis).

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> _example().padded_data().shape
            (2, 2, 2)
        """
        key = (self.has_sequence_axis, self.shape)
        if self._padded_data is None or self._padded_data[0] != key:
            base = self._padded[0] if self.has_sequence_axis else self.dense_values()
            self._padded_data = (key, base.reshape(self.shape))
        return self._padded_data[1]

    @cached_property
    def mask(self) -> np.ndarray:
        """CNTK's mask ``(rows, max_len)`` int8: 2 where a sequence begins, 1
        for its other samples, 0 for padding. A BPTT segment that continues a
        sequence of the previous minibatch starts with 1.

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> _example().mask.tolist()
            [[2, 1], [2, 0]]
        """
        grid = self._grid
        begins = np.zeros(self.num_samples + 1, dtype=np.int8)  # [-1] stays 0 for gaps
        first = self.offsets[:-1][self.lengths > 0]
        if self.segment_starts is not None:
            first = self.offsets[:-1][(np.asarray(self.segment_starts) == 0) & (self.lengths > 0)]
        begins[first] = 1
        return np.where(grid >= 0, 1 + begins[grid], 0).astype(np.int8)

    @cached_property
    def data(self) -> MinibatchValue:
        """CNTK's ``MinibatchData.data``: a ``Value``-like view with ``shape``,
        ``mask``, ``asarray()`` and ``as_sequences()``.

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> _example().data
            MinibatchValue(shape=(2, 2, 2), is_sparse=False)
        """
        return MinibatchValue(self)

    @cached_property
    def _scipy_sequences(self) -> list[Any]:
        return [s.to_scipy() for s in self.sequences]

    def as_sequences(self, variable: Any = None) -> list[Any]:
        """One array per sequence without padding, ``(length, *sample_shape)``
        (sparse: one ``scipy.sparse.csr_matrix`` per sequence, as CNTK).
        ``variable`` is accepted for CNTK compatibility and ignored.

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> _example().as_sequences()[0].tolist()
            [[0.0, 1.0], [2.0, 3.0]]
        """
        if self.is_sparse:
            return self._scipy_sequences
        return self._dense_sequences

    @cached_property
    def _dense_sequences(self) -> list[np.ndarray]:
        shape = self.sample_shape
        return [s.reshape((len(s), *shape)) for s in self.sequences]

    def asarray(self) -> Any:
        """CNTK's ``asarray()``: dense streams give the padded data in
        ``shape`` (zeros as padding); sparse streams give SciPy CSR matrices,
        one per sequence (one for all samples without a sequence axis). A sparse
        stream whose samples have two or more axes has no CSR form (CNTK computes
        the dense data, then refuses it); its padded dense data in ``shape`` is returned.

        Example:
            >>> from minibatcher.engine.minibatch import _example
            >>> _example().asarray()[0].tolist()
            [[0.0, 1.0], [2.0, 3.0]]
        """
        if not self.is_sparse or len(self.sample_shape) > 1:
            return self.padded_data()
        return self.as_sequences() if self.has_sequence_axis else self.values.to_scipy()
