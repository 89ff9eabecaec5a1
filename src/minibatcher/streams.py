"""Stream declarations (``StreamDef``) and stream descriptions (``StreamInformation``).

These mirror ``cntk.io.StreamDef`` / ``StreamDefs`` / ``StreamInformation``
(CNTK 2.7 signatures) so that CNTK training scripts port by changing the import.

Example:
    >>> from minibatcher import StreamDef, StreamDefs
    >>> defs = StreamDefs(features=StreamDef(field="F", shape=784),
    ...                   labels=StreamDef(field="L", shape=10, defines_mb_size=True))
    >>> defs.labels.stream_alias, defs["features"].dim
    ('L', 784)
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from .errors import ConfigError, NotSupportedError

def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def sample_shape_of(shape: Any, what: str = "StreamDef shape") -> tuple[int, ...]:
    """A shape (``int`` or a tuple/list of ints, all positive) as a tuple.

    Example:
        >>> sample_shape_of(3), sample_shape_of([2, 5])
        ((3,), (2, 5))
        >>> sample_shape_of((0,))
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: StreamDef shape should be a positive int or a non-empty tuple of positive ints, but got shape=(0,)
    """
    if _is_int(shape):
        dims: tuple[int, ...] = (int(shape),)
    elif isinstance(shape, (tuple, list)) and shape and all(_is_int(d) for d in shape):
        dims = tuple(int(d) for d in shape)
    else:
        dims = ()
    if not dims or min(dims) <= 0:
        raise ConfigError(f"{what} should be a positive int or a non-empty tuple of positive ints, "
                          f"but got shape={shape!r}")
    return dims


def _paths(name: str, value: Any) -> tuple[str, ...] | None:
    """``scp``/``mlf``: one path or a non-empty list of paths, as a tuple of str."""
    if value is None:
        return None
    items = [value] if isinstance(value, (str, os.PathLike)) else value
    if not isinstance(items, (list, tuple)) or not items or not all(
            isinstance(p, (str, os.PathLike)) and os.fspath(p) for p in items):
        raise ConfigError(f"StreamDef {name} should be a path or a non-empty list of paths, "
                          f"but got {name}={value!r}")
    return tuple(os.fspath(p) for p in items)


def _context(value: Any) -> tuple[int, int] | None:
    if value is None:
        return None
    if (isinstance(value, (tuple, list)) and len(value) == 2
            and all(_is_int(v) and v >= 0 for v in value)):
        return int(value[0]), int(value[1])
    raise ConfigError("StreamDef context should be a pair (left, right) of non-negative ints "
                      f"(frames around each HTK frame), but got context={value!r}")


def _flag(name: str, value: Any, optional: bool = False) -> Any:
    if (value is None and optional) or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    raise ConfigError(f"StreamDef {name} should be True or False{' or None' if optional else ''}, "
                      f"but got {name}={value!r}")


@dataclass(frozen=True)
class StreamDef:
    """Declares one input stream of a deserializer (CNTK's signature).

    Args:
        field: the stream's name in the data (CTF: the alias after ``|``);
            ``None`` means the stream's own name. ``stream_alias`` reads it.
        shape: the sample shape: an int (the dimension) or a tuple of ints
            (data is read flat, ``dim`` = their product; minibatches report
            the tuple). ``None``: unspecified, which CTF reads as dimension 1
            and a deserializer that knows the dimension (HTK headers) fills in.
        is_sparse: sparse ``index:value`` samples (forced True by ``mlf``, as CNTK).
        transforms: image transforms; minibatcher has no image support, so
            only ``None`` or an empty list is accepted.
        context: HTK features: ``(left, right)`` frames of context.
        scp: HTK features: an SCP file or a list of them (kept as a tuple of str).
        mlf: HTK labels: an MLF file or a list of them (kept as a tuple of str).
        broadcast: HTK features: repeat the stream's one frame over the sequence.
        defines_mb_size: minibatch sizes count this stream's samples.

    Example:
        >>> StreamDef(field="x", shape=1000, is_sparse=True).dim
        1000
        >>> StreamDef(shape=(2, 3)).dim, StreamDef(mlf="a.mlf", shape=132).is_sparse
        (6, True)
        >>> StreamDef(shape=0)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: StreamDef shape should be a positive int or a non-empty tuple of positive ints, but got shape=0
    """

    field: str | None = None
    shape: int | tuple[int, ...] | None = None
    is_sparse: bool = False
    transforms: tuple | None = None
    context: tuple[int, int] | None = None
    scp: tuple[str, ...] | None = None
    mlf: tuple[str, ...] | None = None
    broadcast: bool | None = None
    defines_mb_size: bool = False

    def __post_init__(self) -> None:
        if self.field is not None and (not isinstance(self.field, str) or not self.field):
            raise ConfigError("StreamDef field should be a non-empty string or None, but got "
                              f"field={self.field!r}")
        shape = None if self.shape is None else sample_shape_of(self.shape)
        set_ = object.__setattr__
        set_(self, "shape", shape[0] if shape is not None and len(shape) == 1 and _is_int(
            self.shape) else shape)
        set_(self, "is_sparse", _flag("is_sparse", self.is_sparse))
        set_(self, "defines_mb_size", _flag("defines_mb_size", self.defines_mb_size))
        set_(self, "broadcast", _flag("broadcast", self.broadcast, optional=True))
        set_(self, "context", _context(self.context))
        set_(self, "scp", _paths("scp", self.scp))
        set_(self, "mlf", _paths("mlf", self.mlf))
        if self.mlf is not None:
            set_(self, "is_sparse", True)  # CNTK: labels from an MLF are sparse
        set_(self, "transforms", self._transforms(self.transforms))

    @staticmethod
    def _transforms(value: Any) -> tuple | None:
        if value is None:
            return None
        if not isinstance(value, (list, tuple)):
            raise ConfigError("StreamDef transforms should be a list, but got "
                              f"transforms={value!r}")
        if value:
            raise NotSupportedError(
                "StreamDef transforms are image transforms (CNTK's ImageDeserializer); minibatcher "
                "has no image support, so transforms cannot be applied; remove transforms=")
        return ()

    @property
    def stream_alias(self) -> str | None:
        """CNTK's name for ``field``.

        Example:
            >>> StreamDef(field="L", shape=3).stream_alias
            'L'
        """
        return self.field

    @property
    def sample_shape(self) -> tuple[int, ...]:
        """``shape`` as a tuple (``(1,)`` when unspecified).

        Example:
            >>> StreamDef(shape=5).sample_shape, StreamDef().sample_shape
            ((5,), (1,))
        """
        return (1,) if self.shape is None else sample_shape_of(self.shape)

    @property
    def dim(self) -> int:
        """Values per sample: the product of ``shape`` (1 when unspecified).

        Example:
            >>> StreamDef(shape=(5,)).dim
            5
        """
        return math.prod(self.sample_shape)

    def alias(self, name: str) -> str:
        """The name used in the file: ``field``, or the stream name.

        Example:
            >>> StreamDef(shape=2).alias("features")
            'features'
        """
        return self.field if self.field is not None else name


class StreamDefs(dict):
    """An ordered mapping ``stream name -> StreamDef``; attribute access as CNTK's ``Record``.

    Example:
        >>> defs = StreamDefs(b=StreamDef(shape=1), a=StreamDef(shape=2))
        >>> list(defs), defs.a.dim
        (['b', 'a'], 2)
    """

    def __init__(self, **streams: StreamDef) -> None:
        for name, sd in streams.items():
            if not isinstance(sd, StreamDef):
                raise ConfigError(
                    f"StreamDefs values should be StreamDef objects, but got {name}={sd!r}"
                )
        super().__init__(streams)

    def __getattr__(self, name: str) -> StreamDef:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"no stream named {name!r}; streams: {', '.join(self)}") from None


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


_STORAGE = {"dense": False, "sparse": True, "sparse_csr": True, "sparse_csc": True}


def _float_dtype(dtype: Any) -> np.dtype:
    try:
        result = np.dtype(dtype)
    except TypeError:
        result = None
    if result is None or result not in (np.float32, np.float64):
        raise ConfigError(f"StreamInformation dtype should be float32 or float64, but got "
                          f"dtype={dtype!r}")
    return result


@dataclass(frozen=True, init=False)
class StreamInformation:
    """Describes a stream a source delivers (``MinibatchSource.streams[name]``).

    Two signatures: ours, ``(name, stream_id, dim, is_sparse, dtype,
    defines_mb_size=False, *, sample_shape=None)``, and CNTK's, ``(name,
    stream_id, storage_format, dtype, shape)`` with ``storage_format``
    ``'dense'`` or ``'sparse'`` (what a ``UserDeserializer`` returns).

    Example:
        >>> info = StreamInformation("features", 0, 784, False, np.dtype("float32"))
        >>> info.shape, info.storage_format, info.m_name
        ((784,), 'dense', 'features')
        >>> cntk = StreamInformation("x", 1, "sparse", np.float32, (100,))
        >>> cntk.dim, cntk.is_sparse, cntk.sample_shape
        (100, True, (100,))
    """

    name: str
    stream_id: int
    dim: int
    is_sparse: bool
    dtype: np.dtype
    defines_mb_size: bool
    sample_shape: tuple[int, ...]

    def __init__(self, name: str, stream_id: int, dim: int | str | None = None,
                 is_sparse: Any = False, dtype: Any = np.float32, defines_mb_size: bool = False, *,
                 sample_shape: Sequence[int] | None = None, storage_format: str | None = None,
                 shape: Any = None) -> None:
        if isinstance(dim, str):  # CNTK's positional form: (name, id, storage_format, dtype, shape)
            dim, storage_format, dtype, shape = None, dim, is_sparse, dtype
        if storage_format is not None:
            if storage_format not in _STORAGE:
                raise ConfigError("StreamInformation storage_format should be 'dense' or 'sparse', "
                                  f"but got storage_format={storage_format!r}")
            is_sparse = _STORAGE[storage_format]
        if shape is not None or dim is None:
            sample_shape = sample_shape_of(shape, "StreamInformation shape")
            dim = math.prod(sample_shape)
        sample_shape = (int(dim),) if sample_shape is None else sample_shape_of(sample_shape)
        if not isinstance(name, str) or not name:
            raise ConfigError(f"StreamInformation name should be a non-empty string, but got "
                              f"name={name!r}")
        if not _is_int(dim) or dim <= 0 or math.prod(sample_shape) != dim:
            raise ConfigError("StreamInformation dim should be a positive int equal to the "
                              f"product of sample_shape, but got dim={dim!r}, "
                              f"sample_shape={sample_shape}")
        for field, value in (("name", name), ("stream_id", int(stream_id)), ("dim", int(dim)),
                             ("is_sparse", bool(is_sparse)), ("dtype", _float_dtype(dtype)),
                             ("defines_mb_size", bool(defines_mb_size)),
                             ("sample_shape", tuple(sample_shape))):
            object.__setattr__(self, field, value)

    @property
    def shape(self) -> tuple[int, ...]:
        """The sample shape (``sample_shape``; ``(dim,)`` for flat streams).

        Example:
            >>> StreamInformation("y", 1, 10, False, np.dtype("float64")).shape
            (10,)
        """
        return self.sample_shape

    @property
    def m_name(self) -> str:
        """CNTK's name for ``name``.

        Example:
            >>> StreamInformation("y", 1, 10, False).m_name
            'y'
        """
        return self.name

    @property
    def m_id(self) -> int:
        """CNTK's name for ``stream_id``.

        Example:
            >>> StreamInformation("y", 3, 10, False).m_id
            3
        """
        return self.stream_id

    @property
    def storage_format(self) -> str:
        """``"dense"`` or ``"sparse"`` (the names CNTK's ``StreamInformation`` takes and
        gives back; ``"sparse_csr"`` and ``"sparse_csc"`` are accepted as input too).

        Example:
            >>> StreamInformation("x", 0, 9, True, np.dtype("float32")).storage_format
            'sparse'
        """
        return "sparse" if self.is_sparse else "dense"
