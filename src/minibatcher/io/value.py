"""``cntk.core.Value``-style values and ``cntk.io.MinibatchData``'s constructor, for user sources.

CNTK's user minibatch sources build their minibatches as
``MinibatchData(Value(batch=array), num_sequences, num_samples, sweep_end)`` and
``Value.one_hot(batch=[[index, ...], ...], num_classes)``; ported code runs with only its import
changed (``from minibatcher.io import MinibatchData, Value``). A :class:`Value` is a batch of
sequences (dense: an array ``(sequences, samples, *sample_shape)``, a 2-D array of one-sample
rows without a sequence axis, or a list of arrays / SciPy CSR matrices, one per sequence; sparse:
``one_hot``); :class:`MinibatchData` accepts CNTK's ``(value, num_sequences, num_samples,
sweep_end)`` as well as the engine's own arguments, and checks the counts against the value.

Example:
    >>> labels = Value(batch=np.array([[[1, 0, 0]], [[0, 0, 1]]], np.float32))
    >>> words = Value.one_hot([[1, 4], [2]], 5)
    >>> d = MinibatchData(words, 2, 3, True)
    >>> labels.shape, d.shape, d.is_sparse, d.number_of_samples, d.end_of_sweep
    ((2, 1, 3), (2, 2, 5), True, 3, True)
"""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

from ..engine.minibatch import MinibatchData as _EngineData
from ..streams import StreamInformation

__all__ = ["MinibatchData", "Value"]


def _one_hot_rows(sequence: Sequence[Any], sample_shape: tuple[int, ...]) -> Any:
    """One sequence of indices as a CSR matrix of ``len / rows`` samples (each sample
    ``prod(sample_shape[:-1])`` one-hot rows of ``sample_shape[-1]`` classes)."""
    from scipy import sparse

    classes, rows = sample_shape[-1], int(np.prod(sample_shape[:-1], dtype=np.int64))
    index = np.asarray(sequence, dtype=np.int64).reshape(-1)
    if len(index) % rows or ((index < 0) | (index >= classes)).any():
        raise ValueError(f"one_hot indices should be in [0, {classes}) and a multiple of {rows} "
                         f"per sequence (sample shape {sample_shape}), but got {list(sequence)}")
    samples = len(index) // rows
    columns = (np.arange(len(index)) % rows) * classes + index
    return sparse.csr_matrix((np.ones(len(index), np.float32),
                              (np.arange(len(index)) // rows, columns)),
                             shape=(samples, rows * classes))


class Value:
    """A batch of sequences (``cntk.core.Value``'s construction; see the module docstring).

    Args:
        shape, dtype: an all-zero dense value of this shape (when ``batch`` is not given).
        batch: an array ``(sequences, samples, *sample_shape)``, a 2-D array (one sample per
            row, no sequence axis), a list of arrays or SciPy CSR matrices (one per
            sequence), or a Value.
        seq_starts: one bool per sequence; False continues the sequence of the previous
            minibatch in the same row (the mask then starts it with 1, not 2).
        device: accepted for CNTK compatibility (values live in host memory).

    Example:
        >>> v = Value(batch=[np.ones((2, 3), np.float32), np.zeros((1, 3), np.float32)])
        >>> v.shape, v.mask.tolist(), len(v)
        ((2, 2, 3), [[2, 1], [2, 0]], 2)
    """

    def __init__(self, shape: Any = None, dtype: Any = None, batch: Any = None,
                 seq_starts: Sequence[bool] | None = None, device: Any = None) -> None:
        if batch is None:
            if shape is None or dtype is None:
                raise ValueError("Value needs batch=..., or both shape and dtype")
            batch = np.zeros(tuple(shape), dtype=dtype)
        if isinstance(batch, Value):
            self._data = batch._data
        else:
            self._data = _minibatch_of(batch, np.dtype(dtype) if dtype is not None else None)
        if seq_starts is not None:
            starts = [bool(s) for s in seq_starts]
            if len(starts) != self._data.num_sequences:
                raise ValueError(f"seq_starts should have one bool per sequence "
                                 f"({self._data.num_sequences}), but got {len(starts)}")
            self._data.segment_starts = np.array([0 if s else 1 for s in starts], np.int64)

    @staticmethod
    def one_hot(batch: Any, num_classes: int | Sequence[int], dtype: Any = None,
                device: Any = None) -> "Value":
        """A sparse value whose sequences are one-hot samples of ``batch``'s indices
        (``num_classes``: the classes, or a sample shape whose last axis is one-hot).

        Example:
            >>> v = Value.one_hot([[1, 5, 3, 2], [4, 1]], (2, 6))
            >>> v.shape, v.as_sequences()[1].toarray().nonzero()[1].tolist()
            ((2, 2, 2, 6), [4, 7])
        """
        shape = (int(num_classes),) if isinstance(num_classes, numbers.Integral) else tuple(
            int(n) for n in num_classes)
        batch = batch.tolist() if isinstance(batch, np.ndarray) else batch
        try:
            first = batch[0][0]
        except (IndexError, KeyError, TypeError):
            raise ValueError("one_hot input should be a list of lists of integers") from None
        if not isinstance(first, numbers.Integral) or isinstance(first, bool):
            raise ValueError("supplied data to one_hot() must be of type integer and not "
                             f"{type(first).__name__!r} since it is index data")
        dtype = np.dtype(np.float32 if dtype is None else dtype)
        info = StreamInformation("value", 0, "sparse", dtype, shape)
        value = Value.__new__(Value)
        value._data = _EngineData.from_sequences(
            info, [_one_hot_rows(s, shape).astype(dtype) for s in batch])
        return value

    @property
    def shape(self) -> tuple[int, ...]:
        """``(sequences, max samples, *sample_shape)`` (no sequence axis: ``(samples, ...)``).

        Example:
            >>> Value(batch=np.ones((3, 2), np.float32)).shape
            (3, 2)
        """
        return self._data.shape

    @property
    def mask(self) -> np.ndarray:
        """2 where a sequence begins, 1 for its other samples, 0 for padding.

        Example:
            >>> Value.one_hot([[1, 2, 0], [2]], 3).mask.tolist()
            [[2, 1, 1], [2, 0, 0]]
        """
        return self._data.mask

    @property
    def is_sparse(self) -> bool:
        """Whether the value is sparse (``one_hot``, or CSR sequences).

        Example:
            >>> Value.one_hot([[1]], 3).is_sparse, Value(batch=np.ones((1, 3))).is_sparse
            (True, False)
        """
        return self._data.is_sparse

    @property
    def dtype(self) -> np.dtype:
        """float32 or float64.

        Example:
            >>> Value.one_hot([[1]], 3, dtype=np.float64).dtype
            dtype('float64')
        """
        return self._data.stream.dtype

    def asarray(self) -> Any:
        """As ``MinibatchData.asarray()`` (dense: padded data; sparse: CSR per sequence).

        Example:
            >>> Value(batch=[np.ones((2, 1)), np.ones((1, 1))]).asarray()[:, :, 0].tolist()
            [[1.0, 1.0], [1.0, 0.0]]
        """
        return self._data.asarray()

    def as_sequences(self, variable: Any = None) -> list[Any]:
        """One array (or CSR matrix) per sequence, without padding.

        Example:
            >>> [s.toarray().tolist() for s in Value.one_hot([[1], [0]], 2).as_sequences()]
            [[[0.0, 1.0]], [[1.0, 0.0]]]
        """
        return self._data.as_sequences(variable)

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"Value(shape={self.shape}, is_sparse={self.is_sparse})"


def _minibatch_of(batch: Any, dtype: np.dtype | None) -> _EngineData:
    """The engine's minibatch data of a dense array or a list of sequences."""
    from scipy import sparse

    items = list(batch) if isinstance(batch, (list, tuple)) else None
    first = items[0] if items else batch
    is_sparse = sparse.issparse(first)
    dtype = dtype or np.dtype(getattr(first, "dtype", np.float32))
    dtype = dtype if dtype in (np.float32, np.float64) else np.dtype(np.float32)
    if items is not None:
        sample = tuple(first.shape[1:]) if not is_sparse else (first.shape[1],)
        info = StreamInformation("value", 0, "sparse" if is_sparse else "dense", dtype, sample)
        return _EngineData.from_sequences(info, [np.asarray(i, dtype) if not is_sparse else i
                                                 for i in items])
    array = np.asarray(batch, dtype=dtype)
    if array.ndim < 2:
        raise ValueError(f"Value batch should have a batch axis and a sample axis, but got an "
                         f"array of shape {array.shape}")
    flat = array.ndim == 2
    info = StreamInformation("value", 0, "dense", dtype, array.shape[1:] if flat else
                             array.shape[2:])
    data = _EngineData.from_sequences(info, array if flat else list(array))
    data.has_sequence_axis = not flat
    return data


class MinibatchData(_EngineData):
    """``cntk.io.MinibatchData``: CNTK's ``(value, num_sequences, num_samples, sweep_end)``
    for user sources, or the engine's own arguments.

    Example:
        >>> d = MinibatchData(Value(batch=np.ones((1, 2, 3), np.float32)), 1, 2, False)
        >>> d.number_of_sequences, d.number_of_samples, d.asarray().shape
        (1, 2, (1, 2, 3))
        >>> MinibatchData(Value(batch=np.ones((1, 2, 3), np.float32)), 1, 5, False)
        Traceback (most recent call last):
        ...
        ValueError: MinibatchData num_samples should be the value's 2 samples, but got num_samples=5
    """

    def __init__(self, value: Any, *args: Any, **kwargs: Any) -> None:
        if not isinstance(value, Value):
            super().__init__(value, *args, **kwargs)
            return
        names = ("num_sequences", "num_samples", "sweep_end")
        given = dict(zip(names, args), **kwargs)
        data = value._data
        for name, actual in (("num_sequences", data.num_sequences),
                             ("num_samples", data.num_samples)):
            if name in given and int(given[name]) != actual:
                raise ValueError(f"MinibatchData {name} should be the value's {actual} "
                                 f"{name[4:]}, but got {name}={given[name]}")
        super().__init__(data.stream, data.values, data.lengths, data.keys,
                         bool(given.get("sweep_end", False)), data.layout,
                         segment_starts=data.segment_starts)
        self.has_sequence_axis = data.has_sequence_axis
