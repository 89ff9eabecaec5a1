"""``MinibatchData``: one stream of one minibatch, as NumPy arrays.

``values`` holds all samples of the minibatch in sequence order (dense
``(num_samples, dim)`` or a :class:`CSRMatrix`); ``offsets``/``lengths``/
``keys`` describe the sequences; ``layout`` is the packer's grid (CNTK's
``MBLayout``). Nothing here creates per-sample Python objects, and every
derived view (``offsets``, ``sequences``, ``padded()``, ``mask``, ``data``...)
is built once, on first use, and then shared: do not modify them in place.

CNTK's names work too: ``shape`` is the data shape ``(sequences, max length,
*sample shape)``, ``data`` a ``Value``-like view (``asarray()``, ``mask``,
``as_sequences()``), ``len()`` the number of sequences.

Example:
    >>> import numpy as np
    >>> from minibatcher.streams import StreamInformation
    >>> from minibatcher.engine.layout import SequenceLayout
    >>> info = StreamInformation("x", 0, 2, False, np.dtype("float32"))
    >>> mb = MinibatchData(info, np.arange(6, dtype=np.float32).reshape(3, 2),
    ...                    np.array([2, 1]), np.array([10, 11], np.uint64), False,
    ...                    SequenceLayout.first_fit([2, 1]))
    >>> mb.num_sequences, mb.num_samples, mb.offsets.tolist(), len(mb), mb.shape
    (2, 3, [0, 2, 3], 2, (2, 2, 2))
    >>> data, mask = mb.padded()
    >>> data.shape, mask.tolist(), mb.mask.tolist()
    ((2, 2, 2), [[True, True], [True, False]], [[2, 1], [2, 0]])
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Callable, Mapping

import numpy as np

from ..streams import StreamInformation
from .layout import CSRMatrix, SequenceLayout


class DeferredKeys:
    """Sequence keys looked up on first use: ``keys[indices]`` (then ``[kept]``). The packers
    pass one to every stream of a minibatch; frame-mode tables find each frame's utterance
    with a search, which a training loop that never reads ``keys`` need not pay for.

    Example:
        >>> k = DeferredKeys(np.array([5, 6, 7]), np.array([2, 0]), None)
        >>> k().tolist(), k() is k()
        ([7, 5], True)
    """

    def __init__(self, keys: Any, indices: np.ndarray, kept: np.ndarray | None) -> None:
        self._source: tuple | None = (keys, indices, kept)
        self._keys: np.ndarray | None = None

    def __call__(self) -> np.ndarray:
        if self._source is not None:
            keys, indices, kept = self._source
            self._keys = keys[indices] if kept is None else keys[indices[kept]]
            self._source = None
        return self._keys  # type: ignore[return-value]

    def __reduce__(self) -> tuple:
        return _identity, (self(),)  # pickled as the keys (not the table they come from)


def _identity(value: Any) -> Any:
    return value


class MinibatchValue:
    """CNTK's ``Value`` view of a :class:`MinibatchData` (``MinibatchData.data``).

    Example:
        >>> import numpy as np
        >>> from minibatcher.streams import StreamInformation
        >>> from minibatcher.engine.layout import SequenceLayout
        >>> info = StreamInformation("x", 0, 1, False)
        >>> d = MinibatchData(info, np.ones((3, 1), np.float32), [3], [0], True,
        ...                   SequenceLayout.first_fit([3]))
        >>> d.data.shape, d.data.mask.tolist(), d.data.is_sparse
        ((1, 3, 1), [[2, 1, 1]], False)
    """

    def __init__(self, owner: "MinibatchData") -> None:
        self._owner = owner

    def __repr__(self) -> str:
        return f"MinibatchValue(shape={self.shape}, is_sparse={self.is_sparse})"

    @property
    def shape(self) -> tuple[int, ...]:
        """The rectangular data shape (CNTK's ``Value.shape``).

        Example:
            >>> _example().data.shape
            (2, 2, 2)
        """
        return self._owner.shape

    @property
    def mask(self) -> np.ndarray:
        """2 where a sequence begins, 1 valid, 0 padding (CNTK's ``Value.mask``).

        Example:
            >>> _example().data.mask.tolist()
            [[2, 1], [2, 0]]
        """
        return self._owner.mask

    @property
    def is_sparse(self) -> bool:
        """Whether the stream is sparse.

        Example:
            >>> _example().data.is_sparse
            False
        """
        return self._owner.is_sparse

    @property
    def dtype(self) -> np.dtype:
        """The value type.

        Example:
            >>> _example().data.dtype
            dtype('float32')
        """
        return self._owner.stream.dtype

    def asarray(self) -> Any:
        """``MinibatchData.asarray()``.

        Example:
            >>> _example().data.asarray()[1].tolist()
            [[4.0, 5.0], [0.0, 0.0]]
        """
        return self._owner.asarray()

    def as_sequences(self, variable: Any = None) -> list[Any]:
        """``MinibatchData.as_sequences()``.

        Example:
            >>> [len(s) for s in _example().data.as_sequences()]
            [2, 1]
        """
        return self._owner.as_sequences(variable)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = np.asarray(self._owner.padded_data())
        return array if dtype is None else array.astype(dtype)

    def __len__(self) -> int:
        return self.shape[0]


def _example() -> "MinibatchData":
    """Two sequences (2 and 1 samples) of a 2-dim stream, for the examples."""
    info = StreamInformation("x", 0, 2, False)
    return MinibatchData(info, np.arange(6, dtype=np.float32).reshape(3, 2), np.array([2, 1]),
                         np.array([10, 11], np.uint64), False, SequenceLayout.first_fit([2, 1]))


class MinibatchData:
    """One stream's data in a minibatch (mirrors ``cntk.io.MinibatchData``).

    Example:
        >>> d = _example()
        >>> len(d), d.shape, d.keys.tolist()
        (2, (2, 2, 2), [10, 11])
    """

    def __init__(self, stream: StreamInformation, values: np.ndarray | CSRMatrix,
                 lengths: np.ndarray, keys: np.ndarray | DeferredKeys, end_of_sweep: bool,
                 layout: SequenceLayout, padded_layout: SequenceLayout | None = None,
                 segment_starts: np.ndarray | None = None) -> None:
        self.stream = stream
        self.values = values
        self.lengths = np.asarray(lengths, dtype=np.int64)
        self._keys = keys
        self.end_of_sweep = bool(end_of_sweep)
        self.layout = layout
        self._padded_layout = padded_layout
        #: Truncated BPTT: the first sample of each segment within its sequence
        #: (0 starts a sequence, > 0 continues one from the previous minibatch).
        self.segment_starts = segment_starts
        #: False for streams without a sequence axis (``MinibatchSourceFromData``
        #: arrays): ``shape``/``asarray()`` then have no time dimension, as CNTK.
        self.has_sequence_axis = True
        self._padded_data: tuple[Any, np.ndarray] | None = None
        #: Maps keys to sequence names (set by the source for readers that name
        #: their sequences, such as HTK utterances); see :attr:`names`.
        self.names_of: Callable[[np.ndarray], list[str] | None] | None = None

    @classmethod
    def from_sequences(cls, stream: StreamInformation, sequences: Any,
                       end_of_sweep: bool = False) -> "MinibatchData":
        """A minibatch of ``sequences`` (one array ``(length, *sample_shape)`` or
        SciPy CSR matrix per sequence; or one array/matrix whose rows are
        one-sample sequences), for user-written sources.

        Example:
            >>> info = StreamInformation("x", 0, 2, False)
            >>> d = MinibatchData.from_sequences(info, [np.ones((2, 2)), np.zeros((1, 2))], True)
            >>> d.num_sequences, d.num_samples, d.shape, d.end_of_sweep
            (2, 3, (2, 2, 2), True)
        """
        from ..user_deserializer import stream_chunk

        chunk = stream_chunk(stream, sequences, f"MinibatchData.from_sequences({stream.name!r})")
        lengths = np.diff(chunk.sequence_offsets)
        values = chunk.values if not chunk.is_sparse else CSRMatrix(
            chunk.values, chunk.indices, chunk.indptr, (int(chunk.num_samples), stream.dim))
        return cls(stream, values, lengths, np.arange(len(lengths), dtype=np.uint64), end_of_sweep,
                   SequenceLayout.first_fit(lengths))

    def __repr__(self) -> str:
        return (f"MinibatchData(stream={self.stream.name!r}, num_sequences={self.num_sequences}, "
                f"num_samples={self.num_samples}, end_of_sweep={self.end_of_sweep})")

    @property
    def keys(self) -> np.ndarray:
        """The key of each sequence (from the deserializer's table).

        Example:
            >>> _example().keys.tolist()
            [10, 11]
        """
        if isinstance(self._keys, DeferredKeys):
            self._keys = self._keys()
        return self._keys

    @keys.setter
    def keys(self, value: np.ndarray) -> None:
        self._keys = value

    @property
    def names(self) -> list[str] | None:
        """The name of each sequence (``keys`` in words: HTK utterance names,
        MLF entry names), or None when the reader's keys are the names (CTF ids).

        Example:
            >>> d = _example(); d.names_of = lambda keys: [f"utt{int(k)}" for k in keys]
            >>> d.names, _example().names
            (['utt10', 'utt11'], None)
        """
        return None if self.names_of is None else self.names_of(self.keys)

    def __len__(self) -> int:
        """The number of sequences (CNTK's ``len(MinibatchData)``)."""
        return len(self.lengths)

    @property
    def num_sequences(self) -> int:
        """Sequences (or BPTT segments) in the minibatch.

        Example:
            >>> _example().num_sequences
            2
        """
        return len(self.lengths)

    @cached_property
    def num_samples(self) -> int:
        """Samples of this stream in the minibatch.

        Example:
            >>> _example().num_samples
            3
        """
        return int(self.lengths.sum())

    @property
    def number_of_sequences(self) -> int:
        """CNTK's name for :attr:`num_sequences`.

        Example:
            >>> _example().number_of_sequences
            2
        """
        return self.num_sequences

    @property
    def number_of_samples(self) -> int:
        """CNTK's name for :attr:`num_samples`.

        Example:
            >>> _example().number_of_samples
            3
        """
        return self.num_samples

    @property
    def is_sparse(self) -> bool:
        """Whether ``values`` is a :class:`CSRMatrix`.

        Example:
            >>> _example().is_sparse
            False
        """
        return isinstance(self.values, CSRMatrix)

    @property
    def sample_shape(self) -> tuple[int, ...]:
        """The shape of one sample (``stream.sample_shape``, ``(dim,)`` for flat streams).

        Example:
            >>> _example().sample_shape
            (2,)
        """
        return self.stream.sample_shape

    @property
    def shape(self) -> tuple[int, ...]:
        """CNTK's data shape: ``(rows, max length, *sample_shape)``; without a
        sequence axis ``(num_samples, *sample_shape)``.

        Example:
            >>> _example().shape
            (2, 2, 2)
        """
        if not self.has_sequence_axis:
            return (self.num_samples, *self.sample_shape)
        grid = self._grid
        return (*grid.shape, *self.sample_shape)

    @cached_property
    def offsets(self) -> np.ndarray:
        """``num_sequences + 1`` sample offsets into ``values``.

        Example:
            >>> _example().offsets.tolist()
            [0, 2, 3]
        """
        out = np.zeros(len(self.lengths) + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=out[1:])
        return out

    @cached_property
    def sequences(self) -> list[np.ndarray | CSRMatrix]:
        """Per-sequence views of ``values`` (built once).

        Example:
            >>> _example().sequences[1].tolist()
            [[4.0, 5.0]]
        """
        o = self.offsets.tolist()
        if self.is_sparse:
            return [self.values.row_slice(a, b) for a, b in zip(o[:-1], o[1:])]
        return [self.values[a:b] for a, b in zip(o[:-1], o[1:])]

    def dense_values(self) -> np.ndarray:
        """``values`` as a dense ``(num_samples, dim)`` array (built once for sparse).

        Example:
            >>> _example().dense_values().shape
            (3, 2)
        """
        return self._dense if self.is_sparse else self.values

    @cached_property
    def _dense(self) -> np.ndarray:
        return self.values.toarray()

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
            >>> _example().padded()[1].tolist()
            [[True, True], [True, False]]
        """
        return self._padded

    def padded_data(self) -> np.ndarray:
        """The padded data in CNTK's data ``shape`` (``padded()[0]`` with the
        sample shape, or ``values`` reshaped when there is no sequence axis).

        Example:
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
            >>> _example().asarray()[0].tolist()
            [[0.0, 1.0], [2.0, 3.0]]
        """
        if not self.is_sparse or len(self.sample_shape) > 1:
            return self.padded_data()
        return self.as_sequences() if self.has_sequence_axis else self.values.to_scipy()

    def to_torch(self) -> Any:
        """``values`` as a torch tensor sharing memory (sparse: a CSR tensor).

        Example:
            >>> MinibatchData.to_torch.__name__  # needs torch: pip install 'minibatcher[torch]'
            'to_torch'
        """
        from ..adapters.torch import to_tensor

        return to_tensor(self.values)


class Minibatch(dict):
    """``{stream name: MinibatchData}``; also indexable by ``StreamInformation``.

    Example:
        >>> Minibatch().end_of_sweep
        False
    """

    def __getitem__(self, key: str | StreamInformation) -> MinibatchData:
        if isinstance(key, StreamInformation):
            key = key.name
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key.name if isinstance(key, StreamInformation) else key)

    @property
    def end_of_sweep(self) -> bool:
        """True when this minibatch reached or crossed a sweep end.

        Example:
            >>> Minibatch(x=_example()).end_of_sweep
            False
        """
        return any(d.end_of_sweep for d in self.values())

    def arrays(self) -> Mapping[str, np.ndarray | CSRMatrix]:
        """``{name: values}``.

        Example:
            >>> Minibatch(x=_example()).arrays()["x"].shape
            (3, 2)
        """
        return {name: d.values for name, d in self.items()}
