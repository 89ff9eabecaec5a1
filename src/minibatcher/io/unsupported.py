"""``cntk.io`` deserializers that minibatcher does not provide (images, CNTK
binary format, lattices), and the HTK ones when the HTK format layer is absent.

Each name exists, so ``from minibatcher.io import ImageDeserializer`` works;
calling it raises :class:`~minibatcher.errors.NotSupportedError` naming what is
missing (never a ``TypeError`` or ``AttributeError``).

Example:
    >>> ImageDeserializer("map.txt", {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    minibatcher.errors.NotSupportedError: cntk.io.ImageDeserializer reads images; minibatcher has no image support...
"""

from __future__ import annotations

import importlib
from typing import Any, NoReturn

from ..errors import NotSupportedError

__all__ = ["Base64ImageDeserializer", "CBFDeserializer", "HTKFeatureDeserializer",
           "HTKMLFDeserializer", "ImageDeserializer", "LatticeDeserializer"]

_IMAGES = ("reads images; minibatcher has no image support (it reads CTF, HTK and TFRecord data); "
           "convert the images to arrays and use MinibatchSourceFromData or a UserDeserializer")


def _unsupported(name: str, why: str) -> NoReturn:
    raise NotSupportedError(f"cntk.io.{name} {why}")


def ImageDeserializer(filename: str, streams: Any) -> NoReturn:  # noqa: N802 (CNTK's name)
    """CNTK's image reader: not supported.

    Example:
        >>> ImageDeserializer("map.txt", {"features": None})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: cntk.io.ImageDeserializer reads images; ... use MinibatchSourceFromData or a UserDeserializer
    """
    _unsupported("ImageDeserializer", _IMAGES)


def Base64ImageDeserializer(filename: str, streams: Any) -> NoReturn:  # noqa: N802
    """CNTK's base64 image reader: not supported.

    Example:
        >>> Base64ImageDeserializer("f", {})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: cntk.io.Base64ImageDeserializer reads images; ...
    """
    _unsupported("Base64ImageDeserializer", _IMAGES)


def CBFDeserializer(filename: str, streams: Any = None) -> NoReturn:  # noqa: N802
    """CNTK's binary format reader: not supported.

    Example:
        >>> CBFDeserializer("f.bin")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: cntk.io.CBFDeserializer reads CNTK binary format...
    """
    _unsupported("CBFDeserializer", "reads CNTK binary format (CBF) files, which minibatcher does "
                 "not support; convert them to CTF (CNTK's own tools write both) or use a "
                 "UserDeserializer")


def LatticeDeserializer(lattice_index_file: str, streams: Any) -> NoReturn:  # noqa: N802
    """CNTK's lattice reader (sequence training): not supported.

    Example:
        >>> LatticeDeserializer("toc", {})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: cntk.io.LatticeDeserializer reads lattices...
    """
    _unsupported("LatticeDeserializer", "reads lattices for sequence training, which minibatcher "
                 "does not support")


def _htk(name: str) -> Any:
    try:
        return getattr(importlib.import_module("minibatcher.formats.htk"), name)
    except (ImportError, AttributeError):
        _unsupported(name, "needs minibatcher's HTK format layer (minibatcher.formats.htk), "
                     "which this installation does not have")


def HTKFeatureDeserializer(streams: Any, **options: Any) -> Any:  # noqa: N802
    """CNTK's HTK feature reader, from ``minibatcher.formats.htk``.

    Example:
        >>> import pathlib, tempfile
        >>> import numpy as np
        >>> from minibatcher import StreamDef
        >>> from minibatcher.formats.htk import write_htk
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> write_htk(d / "a.htk", np.zeros((3, 2), np.float32))
        >>> _ = (d / "a.scp").write_text("u0=a.htk[0,2]\\n")
        >>> f = HTKFeatureDeserializer({"x": StreamDef(scp=str(d / "a.scp"), shape=2)}, base_dir=d)
        >>> type(f).__module__, f.table().lengths.tolist()
        ('minibatcher.formats.htk.features', [3])
    """
    return _htk("HTKFeatureDeserializer")(streams, **options)


def HTKMLFDeserializer(label_mapping_file: str, streams: Any,  # noqa: N802
                       phoneBoundaries: bool = False, **options: Any) -> Any:  # noqa: N803
    """CNTK's HTK MLF label reader, from ``minibatcher.formats.htk``.

    Example:
        >>> import pathlib, tempfile
        >>> from minibatcher import StreamDef
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (d / "states.list").write_text("s1\\ns2\\n")
        >>> _ = (d / "a.mlf").write_text('#!MLF!#\\n"u0.lab"\\n0 100000 s1\\n100000 300000 s2\\n.\\n')
        >>> labels = HTKMLFDeserializer(str(d / "states.list"),
        ...                             {"y": StreamDef(mlf=str(d / "a.mlf"), shape=2)})
        >>> type(labels).__module__, labels.load_chunk(0).streams[0].indices.tolist()
        ('minibatcher.formats.htk.labels', [0, 1, 1])
    """
    return _htk("HTKMLFDeserializer")(label_mapping_file, streams, phoneBoundaries, **options)
