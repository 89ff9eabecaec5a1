"""``minibatcher.open(path)``: the reader of any supported file or folder.

The format is detected as the command line detects it
(:func:`minibatcher.formats.detect.detect_format`: content first, then the
name; ``format=`` to say it), and ``path`` is opened with the reader the
original API names for it; ``options`` go to that reader:

========  ====================================================================
format    returns
========  ====================================================================
ctf       ``CTFDeserializer(path, streams=None, **options)`` (no streams: the
          surveyed ones)
scp       ``HTKFeatureDeserializer({"features": StreamDef(scp=path, context=...)},
          **options)``
mlf       ``HTKMLFDeserializer(labels, {"labels": StreamDef(mlf=path,
          shape=label_dim)}, **options)`` (``label_dim``: default the state
          list's length)
htk       ``read_htk(path)``: ``(frames, info)``
tfrecord  ``tfdata.TFRecordDataset(path, compression_type=...)`` (default: the
          file's own)
tfds      ``tfds.builder_from_directory(path)``
text      ``tfdata.TextLineDataset(path)``
config    ``MinibatchSource.from_config(path, section=None, **options)``
========  ====================================================================

Deserializers go into a :class:`~minibatcher.MinibatchSource` (several are
joined by key).

Example:
    >>> import tempfile, pathlib
    >>> import minibatcher
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "train.txt"
    >>> _ = p.write_text("0 |x 1 2 |y 0:1\\n1 |x 3 4 |y 1:1\\n")
    >>> reader = minibatcher.open(p)  # CTF by its content, whatever its name
    >>> type(reader).__name__, [s.name for s in reader.streams]
    ('CTFDeserializer', ['x', 'y'])
    >>> [list(line) for line in minibatcher.open(p, format="text")][0][:3]
    [48, 32, 124]
"""

from __future__ import annotations

import os
from typing import Any, Callable

from .errors import ConfigError
from .formats.detect import detect_format


def _ctf(path: str, streams: Any = None, **options: Any) -> Any:
    from .formats.ctf import CTFDeserializer

    return CTFDeserializer(path, streams, **options)


def _scp(path: str, context: tuple[int, int] | None = None, **options: Any) -> Any:
    from .formats.htk import HTKFeatureDeserializer
    from .streams import StreamDef

    return HTKFeatureDeserializer({"features": StreamDef(scp=path, context=context)}, **options)


def _mlf(path: str, labels: str | os.PathLike | None = None, label_dim: int | None = None,
         **options: Any) -> Any:
    from .formats.htk import HTKMLFDeserializer, read_state_list
    from .streams import StreamDef

    if label_dim is None:
        if labels is None:
            raise ConfigError("an MLF needs labels= (the state list) or label_dim= (the number "
                              "of classes), but got neither")
        label_dim = len(read_state_list(labels))
    return HTKMLFDeserializer(labels, {"labels": StreamDef(mlf=path, shape=label_dim)}, **options)


def _htk(path: str, **options: Any) -> Any:
    from .formats.htk import read_htk

    return read_htk(path, **options)


def _tfrecord(path: str, compression_type: str | None = None, **options: Any) -> Any:
    from .formats.sniff import tfrecord_compression
    from .tfdata import TFRecordDataset

    if compression_type is None:
        compression_type = tfrecord_compression(path)
    return TFRecordDataset(path, compression_type=compression_type, **options)


def _tfds(path: str, **options: Any) -> Any:
    from .tfds import builder_from_directory

    return builder_from_directory(path, **options)


def _text(path: str, **options: Any) -> Any:
    from .tfdata import TextLineDataset

    return TextLineDataset(path, **options)


def _config(path: str, section: str | None = None, **options: Any) -> Any:
    from .engine.source import MinibatchSource

    return MinibatchSource.from_config(path, section, **options)


OPENERS: dict[str, Callable[..., Any]] = {
    "ctf": _ctf, "scp": _scp, "mlf": _mlf, "htk": _htk, "tfrecord": _tfrecord, "tfds": _tfds,
    "text": _text, "config": _config}


def open(path: str | os.PathLike, *, format: str | None = None, **options: Any) -> Any:
    """The reader of ``path`` (see the module's table); ``options`` go to it.

    Example:
        >>> open("/no/such/file")
        Traceback (most recent call last):
        ...
        FileNotFoundError: [Errno 2] No such file or directory: '/no/such/file'
    """
    found = detect_format(path, format)
    return OPENERS[found.format](found.path, **options)


__all__ = ["OPENERS", "open"]
