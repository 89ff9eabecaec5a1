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
from .minibatch_views import MinibatchValue, PaddedViews  # MinibatchValue: re-exported


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


def _example() -> "MinibatchData":
    """Two sequences (2 and 1 samples) of a 2-dim stream, for the examples."""
    info = StreamInformation("x", 0, 2, False)
    return MinibatchData(info, np.arange(6, dtype=np.float32).reshape(3, 2), np.array([2, 1]),
                         np.array([10, 11], np.uint64), False, SequenceLayout.first_fit([2, 1]))


class MinibatchData(PaddedViews):
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
