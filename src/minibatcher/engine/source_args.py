"""What :class:`~minibatcher.engine.source.MinibatchSource` makes of its arguments
before it reads: the one deserializer read from (a list joined by key), the parse
threads (CNTK's ``multithreaded_deserializer``), frame mode's one-sample check, the
minibatch size, and :class:`StreamInfos` (its streams by name).

Example:
    >>> deserializer_threads(False, None), check_minibatch_size(64)
    (1, 64)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterator, Sequence

import numpy as np

from ..args import check_int
from ..deserializer import Deserializer, SequenceTable
from ..errors import ConfigError, FormatError
from ..streams import StreamInformation
from ..user_deserializer import UserDeserializer, adapt
from .composite import CompositeDeserializer

__all__ = ["StreamInfos", "as_deserializer", "check_frames", "check_minibatch_size",
           "deserializer_threads"]


class StreamInfos(Mapping):
    """``{name: StreamInformation}`` with attribute access (``source.streams.features``).

    Example:
        >>> import numpy as np
        >>> s = StreamInfos([StreamInformation("features", 0, 3, False, np.dtype("float32")),
        ...                  StreamInformation("labels", 1, 9, True, np.float64, True)])
        >>> s.features.dim, list(s)
        (3, ['features', 'labels'])
        >>> s
        StreamInfos(features=dense float32 (3,), labels=sparse float64 (9,) defines_mb_size)
    """

    def __init__(self, infos: Sequence[StreamInformation]) -> None:
        self._infos = {i.name: i for i in infos}

    def __getitem__(self, name: str) -> StreamInformation:
        return self._infos[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._infos)

    def __len__(self) -> int:
        return len(self._infos)

    def __getattr__(self, name: str) -> StreamInformation:
        try:
            return self.__dict__["_infos"][name]
        except KeyError:
            raise AttributeError(f"no stream named {name!r}; streams: {', '.join(self._infos)}") from None

    def __repr__(self) -> str:
        parts = [f"{name}={'sparse' if i.is_sparse else 'dense'} {i.dtype} {i.sample_shape}"
                 + (" defines_mb_size" if i.defines_mb_size else "")
                 for name, i in self._infos.items()]
        return f"StreamInfos({', '.join(parts)})"


def deserializer_threads(multithreaded: bool | None, num_threads: int | None) -> int | None:
    """CNTK's ``multithreaded_deserializer``: False parses on one thread, True
    or None (CNTK's "auto") on ``num_threads`` (default: up to 8).

    Example:
        >>> deserializer_threads(None, 4), deserializer_threads(False, None)
        (4, 1)
        >>> deserializer_threads(False, 4)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: multithreaded_deserializer=False parses on one thread, but got num_threads=4; drop one of them
    """
    if multithreaded is None or multithreaded is True:
        return num_threads
    if multithreaded is not False:
        raise ConfigError("multithreaded_deserializer should be None, True or False, but got "
                          f"multithreaded_deserializer={multithreaded!r}")
    if num_threads not in (None, 1):
        raise ConfigError("multithreaded_deserializer=False parses on one thread, but got "
                          f"num_threads={num_threads!r}; drop one of them")
    return 1


def as_deserializer(deserializers: Deserializer | Sequence[Deserializer],
                    trace_level: int) -> Deserializer:
    """The one deserializer read from: the one given, or several joined by sequence key
    (user deserializers adapted).

    Example:
        >>> as_deserializer([], 1)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: deserializers should be a deserializer or a non-empty list of them, but got []
    """
    if isinstance(deserializers, (Deserializer, UserDeserializer)):
        deserializers = [deserializers]
    items = adapt(list(deserializers)) if isinstance(deserializers, (list, tuple)) else []
    if not items or not all(isinstance(d, Deserializer) for d in items):
        raise ConfigError("deserializers should be a deserializer or a non-empty list of them, but "
                          f"got {deserializers!r}")
    return items[0] if len(items) == 1 else CompositeDeserializer(items, trace_level)


def check_frames(table: SequenceTable, name: str) -> None:
    """frame_mode needs one-sample sequences; the index knows the lengths, so
    say so now rather than when the first long sequence is reached.

    Example:
        >>> check_frames(SequenceTable(np.array([7, 9], np.uint64), np.array([1, 3]),
        ...                            np.array([0, 2])), "d.ctf")
        Traceback (most recent call last):
        ...
        minibatcher.errors.FormatError: frame_mode=True needs one-sample sequences, but sequence (key 9) has 3 samples in d.ctf; use frame_mode=False to read whole sequences
    """
    long = np.flatnonzero(np.asarray(table.lengths) != 1)
    if len(long):
        i = int(long[0])
        more = f" (and {len(long) - 1} more)" if len(long) > 1 else ""
        raise FormatError(
            f"frame_mode=True needs one-sample sequences, but sequence (key {int(table.keys[i])}) "
            f"has {int(table.lengths[i])} samples in {name}{more}; use frame_mode=False to read "
            "whole sequences")


def check_minibatch_size(size: Any) -> int:
    """``minibatch_size_in_samples``, a positive int.

    Example:
        >>> check_minibatch_size(0)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option minibatch_size_in_samples should be a positive int, but got minibatch_size_in_samples=0
    """
    return check_int("minibatch_size_in_samples", size, 1, expected="a positive int")
