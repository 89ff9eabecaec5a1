"""``MinibatchSourceFromData`` and ``UserMinibatchSource`` (``cntk.io``'s Python sources).

``MinibatchSourceFromData`` reads in-memory arrays through the engine, so it
also randomizes (``randomize=True``), splits across workers and restores
checkpoints exactly; by default it reads in order and, as CNTK, no
minibatch crosses the end of the data. ``UserMinibatchSource`` is CNTK's base
class for sources that build minibatches themselves; a reader that should get
the engine's randomization, workers and checkpoints is better written as a
:class:`~minibatcher.io.UserDeserializer`.

Example:
    >>> import numpy as np
    >>> X = np.arange(15, dtype=np.float32).reshape(5, 3)
    >>> s = MinibatchSourceFromData(dict(x=X), max_samples=len(X))
    >>> s.next_minibatch(3)[s.streams["x"]].data.asarray().tolist()
    [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]
    >>> s.next_minibatch(3)[s.streams["x"]].shape, s.next_minibatch(3)
    ((2, 3), {})
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..engine.minibatch import Minibatch, MinibatchData
from ..engine.options import INFINITELY_REPEAT
from ..engine.source import MinibatchSource, StreamInfos
from ..errors import ConfigError
from ..streams import StreamInformation
from ..user_deserializer import UserDeserializer, _is_csr

__all__ = ["MinibatchSourceFromData", "UserMinibatchSource"]

SEQUENCES_PER_CHUNK = 4096


def _length(value: Any) -> int:
    return len(value) if isinstance(value, (list, tuple)) else int(value.shape[0])


def _dtype(value: Any) -> np.dtype:
    first = value[0] if isinstance(value, (list, tuple)) and len(value) else value
    dtype = np.dtype(getattr(first, "dtype", np.float32))
    return dtype if dtype in (np.float32, np.float64) else np.dtype(np.float32)


def _sample_shape(value: Any, sequences: bool) -> tuple[int, ...]:
    first = value[0] if sequences else value
    shape = tuple(getattr(first, "shape", np.shape(first)))[1:]
    return shape or (1,)


class _Arrays(UserDeserializer):
    """In-memory streams as a :class:`UserDeserializer`, chunked by sequence count."""

    def __init__(self, data_streams: Mapping[str, Any]) -> None:
        super().__init__()
        if not isinstance(data_streams, Mapping) or not data_streams:
            raise ConfigError("data_streams should be a non-empty dict {name: data} (or "
                              f"{{name: (data, type)}}), but got {data_streams!r}")
        self.data = {n: v[0] if isinstance(v, tuple) else v for n, v in data_streams.items()}
        self.is_sequence = {n: isinstance(v, list) for n, v in self.data.items()}
        for name, value in self.data.items():
            if not (self.is_sequence[name] or isinstance(value, np.ndarray) or _is_csr(value)):
                raise ConfigError(f"data of stream {name!r} should be a numpy array, a SciPy CSR "
                                  "matrix or a list of them (one per sequence), but got "
                                  f"{type(value).__name__}")
        counts = {n: _length(v) for n, v in self.data.items()}
        if len(set(counts.values())) != 1 or 0 in counts.values():
            raise ConfigError("every stream should hold the same, non-zero number of sequences, "
                              f"but got {counts}")
        self.count = next(iter(counts.values()))

    def stream_infos(self) -> list[StreamInformation]:
        return [StreamInformation(n, i, "sparse" if _is_csr(v if not self.is_sequence[n] else v[0])
                                  else "dense", _dtype(v), _sample_shape(v, self.is_sequence[n]))
                for i, (n, v) in enumerate(self.data.items())]

    def num_chunks(self) -> int:
        return -(-self.count // SEQUENCES_PER_CHUNK)

    def _range(self, chunk_id: int) -> slice:
        return slice(chunk_id * SEQUENCES_PER_CHUNK, (chunk_id + 1) * SEQUENCES_PER_CHUNK)

    def sequence_lengths(self, chunk_id: int) -> np.ndarray:
        part = self._range(chunk_id)
        lengths = [np.array([_length(s) for s in v[part]]) if self.is_sequence[n]
                   else np.ones(len(range(self.count)[part]), np.int64)
                   for n, v in self.data.items()]
        return np.max(lengths, axis=0)

    def get_chunk(self, chunk_id: int) -> dict[str, Any]:
        part = self._range(chunk_id)
        return {n: v[part] for n, v in self.data.items()}


class MinibatchSourceFromData(MinibatchSource):
    """In-memory data as a minibatch source (``cntk.io.MinibatchSourceFromData``).

    ``data_streams`` maps names to a numpy array ``(samples, *shape)`` or a
    SciPy CSR matrix (one sample per row, no sequence axis), or to a list of
    them (one per sequence); ``(data, type)`` tuples are accepted and the type
    ignored. The data is not copied. Beyond CNTK, ``options`` are
    :class:`MinibatchSource` options (``randomize=True``, ``max_sweeps``,
    ``num_workers``...). Workers split sequences as the engine does (CNTK
    strided inside each minibatch).

    Example:
        >>> s = MinibatchSourceFromData({"x": [np.ones((3, 2)), np.ones((2, 2))]})
        >>> mb = s.next_minibatch(4); mb["x"].shape, mb["x"].num_sequences
        ((1, 3, 2), 1)
    """

    def __init__(self, data_streams: Mapping[str, Any], max_samples: int = INFINITELY_REPEAT,
                 **options: Any) -> None:
        self._arrays = _Arrays(data_streams)
        defaults = {"randomize": False, "cross_sweep_boundaries": False, "num_threads": 1}
        super().__init__(self._arrays, max_samples=max_samples, **{**defaults, **options})

    def next_minibatch(self, minibatch_size_in_samples: int, input_map: Mapping | None = None,
                       device: Any = None, num_data_partitions: int | None = None,
                       partition_index: int | None = None) -> Minibatch | dict:
        """As :meth:`MinibatchSource.next_minibatch`; streams given as arrays have no sequence axis.

        Example:
            >>> s = MinibatchSourceFromData({"a": np.zeros((4, 2)), "b": [np.zeros((1, 1))] * 4})
            >>> mb = s.next_minibatch(2); mb["a"].shape, mb["b"].shape
            ((2, 2), (2, 1, 1))
        """
        result = super().next_minibatch(minibatch_size_in_samples, input_map, device,
                                        num_data_partitions, partition_index)
        for data in result.values():
            data.has_sequence_axis = self._arrays.is_sequence[data.stream.name]
        return result


class UserMinibatchSource:
    """Base class of sources that build minibatches themselves (``cntk.io.UserMinibatchSource``).

    Subclasses implement ``stream_infos()`` and ``next_minibatch(num_samples,
    number_of_workers=1, worker_rank=0, device=None)`` returning
    ``{StreamInformation: MinibatchData}`` (build each with
    :meth:`MinibatchData.from_sequences`), and may override
    ``get_checkpoint_state()`` / ``restore_from_checkpoint(state)``.

    Example:
        >>> class One(UserMinibatchSource):
        ...     def stream_infos(self):
        ...         return [StreamInformation("x", 0, "dense", np.float32, (2,))]
        ...     def next_minibatch(self, num_samples, workers=1, rank=0, device=None):
        ...         info = self.streams.x
        ...         return {info: MinibatchData.from_sequences(info, [np.ones((1, 2))])}
        >>> s = One(); s["x"].dim, s.next_minibatch(1)[s.streams.x].shape, s.is_infinite()
        (2, (1, 1, 2), False)
    """

    def __init__(self) -> None:
        infos = list(self.stream_infos())
        if not infos or not all(isinstance(i, StreamInformation) for i in infos):
            raise ConfigError(f"{type(self).__name__}.stream_infos() should return a non-empty "
                              f"list of StreamInformation, but got {infos!r}")
        self.streams = StreamInfos(infos)

    def stream_infos(self) -> list[StreamInformation]:
        """The streams (to implement).

        Example:
            >>> UserMinibatchSource()
            Traceback (most recent call last):
            ...
            NotImplementedError: should return a list of StreamInformation for all streams
        """
        raise NotImplementedError("should return a list of StreamInformation for all streams")

    def stream_info(self, name: str) -> StreamInformation:
        """The stream called ``name``, with an error listing the valid names.

        Example:
            >>> _Counter().stream_info("n").dim
            1
        """
        if name not in self.streams:
            raise ConfigError(f"no stream named {name!r}; streams: {', '.join(self.streams)}")
        return self.streams[name]

    def __getitem__(self, name: str) -> StreamInformation:
        return self.stream_info(name)

    def next_minibatch(self, num_samples: int, number_of_workers: int = 1, worker_rank: int = 0,
                       device: Any = None) -> Mapping[StreamInformation, MinibatchData]:
        """The next minibatch (to implement); ``{}`` at the end.

        Example:
            >>> _Counter().next_minibatch(2)[_Counter().streams.n].values.ravel().tolist()
            [0.0, 1.0]
        """
        raise NotImplementedError("should return a dict {StreamInformation: MinibatchData}")

    def get_checkpoint_state(self) -> dict[str, Any]:
        """The state to checkpoint (override to support checkpoints; default ``{}``).

        Example:
            >>> _Counter().get_checkpoint_state()
            {}
        """
        return {}

    def restore_from_checkpoint(self, state: Mapping[str, Any]) -> None:
        """Restores ``state``; the default accepts only the empty state.

        Example:
            >>> _Counter().restore_from_checkpoint({"position": 2})
            Traceback (most recent call last):
            ...
            NotImplementedError: to restore checkpoints of a UserMinibatchSource, implement restore_from_checkpoint(state)
        """
        if state:
            raise NotImplementedError("to restore checkpoints of a UserMinibatchSource, implement "
                                      "restore_from_checkpoint(state)")

    def is_infinite(self) -> bool:
        """Whether the source never ends (CNTK's default: False).

        Example:
            >>> _Counter().is_infinite()
            False
        """
        return False


class _Counter(UserMinibatchSource):
    """Delivers 0, 1, 2, ... (for the examples)."""

    def stream_infos(self) -> list[StreamInformation]:
        return [StreamInformation("n", 0, "dense", np.float32, (1,))]

    def next_minibatch(self, num_samples: int, number_of_workers: int = 1, worker_rank: int = 0,
                       device: Any = None) -> dict[StreamInformation, MinibatchData]:
        values = np.arange(num_samples, dtype=np.float32).reshape(-1, 1)
        return {self.streams.n: MinibatchData.from_sequences(self.streams.n, values)}
