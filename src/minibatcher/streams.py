"""Stream declarations (``StreamDef``) and stream descriptions (``StreamInformation``).

These mirror ``cntk.io.StreamDef`` / ``StreamDefs`` / ``StreamInformation`` so
that CNTK training scripts port by changing the import.

Example:
    >>> from minibatcher import StreamDef, StreamDefs
    >>> defs = StreamDefs(features=StreamDef(field="F", shape=784),
    ...                   labels=StreamDef(field="L", shape=10, defines_mb_size=True))
    >>> defs["labels"].alias("labels"), defs["features"].dim
    ('L', 784)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .errors import ConfigError


def _dim_of(shape: int | tuple[int, ...] | list[int]) -> int:
    if isinstance(shape, (bool, np.bool_)):
        raise ConfigError(f"StreamDef shape should be a positive int, but got shape={shape!r}")
    if isinstance(shape, (int, np.integer)):
        dims = (int(shape),)
    elif isinstance(shape, (tuple, list)) and all(isinstance(d, (int, np.integer)) for d in shape):
        dims = tuple(int(d) for d in shape)
    else:
        raise ConfigError(f"StreamDef shape should be a positive int, but got shape={shape!r}")
    if len(dims) != 1 or dims[0] <= 0:
        raise ConfigError(
            f"StreamDef shape should be a positive int (the sample dimension), but got shape={shape!r}"
        )
    return dims[0]


@dataclass(frozen=True)
class StreamDef:
    """Declares one input stream of a deserializer.

    Args:
        field: the name used in the data file (CTF: the alias after ``|``);
            ``None`` means the stream's own name.
        shape: the sample dimension (dense: values per sample; sparse: the
            upper bound of the indices).
        is_sparse: sparse ``index:value`` samples instead of dense vectors.
        defines_mb_size: minibatch sizes count this stream's samples.

    Example:
        >>> StreamDef(field="x", shape=1000, is_sparse=True).dim
        1000
        >>> StreamDef(shape=0)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: StreamDef shape should be a positive int (the sample dimension), but got shape=0
    """

    field: str | None = None
    shape: int | tuple[int, ...] = 1
    is_sparse: bool = False
    defines_mb_size: bool = False
    context: tuple[int, int] | None = None  # HTK features: (left, right) frames
    scp: tuple[str, ...] | None = None      # HTK features: SCP file(s)
    mlf: tuple[str, ...] | None = None      # HTK labels: MLF file(s)

    def __post_init__(self) -> None:
        _dim_of(self.shape)
        for name in ("scp", "mlf"):
            value = getattr(self, name)
            if value is not None:
                items = [value] if isinstance(value, (str, os.PathLike)) else list(value)
                object.__setattr__(self, name, tuple(os.fspath(p) for p in items))
        if self.context is not None:
            object.__setattr__(self, "context", tuple(int(v) for v in self.context))
        if self.mlf is not None:
            object.__setattr__(self, "is_sparse", True)
        if self.field is not None and (not isinstance(self.field, str) or not self.field):
            raise ConfigError(
                f"StreamDef field should be a non-empty string or None, but got field={self.field!r}"
            )

    @property
    def dim(self) -> int:
        """The sample dimension.

        Example:
            >>> StreamDef(shape=(5,)).dim
            5
        """
        return _dim_of(self.shape)

    def alias(self, name: str) -> str:
        """The name used in the file: ``field``, or the stream name.

        Example:
            >>> StreamDef(shape=2).alias("features")
            'features'
        """
        return self.field if self.field is not None else name


class StreamDefs(dict):
    """An ordered mapping ``stream name -> StreamDef``.

    Example:
        >>> list(StreamDefs(b=StreamDef(shape=1), a=StreamDef(shape=2)))
        ['b', 'a']
    """

    def __init__(self, **streams: StreamDef) -> None:
        for name, sd in streams.items():
            if not isinstance(sd, StreamDef):
                raise ConfigError(
                    f"StreamDefs values should be StreamDef objects, but got {name}={sd!r}"
                )
        super().__init__(streams)


def as_stream_defs(streams: Mapping[str, StreamDef]) -> StreamDefs:
    """Validates a mapping of stream definitions (a ``StreamDefs`` or a dict).

    Example:
        >>> list(as_stream_defs({"x": StreamDef(shape=3)}))
        ['x']
    """
    if isinstance(streams, StreamDefs):
        result = streams
    elif isinstance(streams, Mapping):
        result = StreamDefs(**dict(streams))
    else:
        raise ConfigError(
            f"streams should be a StreamDefs or a dict of StreamDef, but got {type(streams).__name__}"
        )
    if not result:
        raise ConfigError("streams should declare at least one stream, but got none")
    return result


@dataclass(frozen=True)
class StreamInformation:
    """Describes a stream a source delivers (``MinibatchSource.streams[name]``).

    Example:
        >>> info = StreamInformation("features", 0, 784, False, np.dtype("float32"))
        >>> info.shape, info.storage_format
        ((784,), 'dense')
    """

    name: str
    stream_id: int
    dim: int
    is_sparse: bool
    dtype: np.dtype
    defines_mb_size: bool = False

    @property
    def shape(self) -> tuple[int]:
        """The sample shape, ``(dim,)``.

        Example:
            >>> StreamInformation("y", 1, 10, False, np.dtype("float64")).shape
            (10,)
        """
        return (self.dim,)

    @property
    def storage_format(self) -> str:
        """``"dense"`` or ``"sparse_csr"`` (CNTK's names).

        Example:
            >>> StreamInformation("x", 0, 9, True, np.dtype("float32")).storage_format
            'sparse_csr'
        """
        return "sparse_csr" if self.is_sparse else "dense"
