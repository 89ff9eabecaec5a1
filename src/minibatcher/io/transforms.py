"""``minibatcher.io.transforms``: CNTK's image transforms (``cntk.io.transforms``).

minibatcher reads no images (CNTK's ``ImageDeserializer`` is out of scope), so
each transform raises :class:`~minibatcher.errors.NotSupportedError` naming
the missing image support. Importing the module works, so scripts that import
it without using it still run.

Example:
    >>> import minibatcher.io.transforms as xforms
    >>> xforms.crop(crop_type="center")
    Traceback (most recent call last):
    ...
    minibatcher.errors.NotSupportedError: cntk.io.transforms.crop is an image transform for CNTK's ImageDeserializer; minibatcher has no image support (it reads CTF, HTK and TFRecord data), so image transforms are not available
"""

from __future__ import annotations

from typing import Any, NoReturn

from ..errors import NotSupportedError

__all__ = ["color", "crop", "mean", "scale"]


def _unsupported(name: str) -> NoReturn:
    raise NotSupportedError(
        f"cntk.io.transforms.{name} is an image transform for CNTK's ImageDeserializer; "
        "minibatcher has no image support (it reads CTF, HTK and TFRecord data), so image "
        "transforms are not available")


def crop(*args: Any, **kwargs: Any) -> NoReturn:
    """CNTK's crop transform: not supported (no image support).

    Example:
        >>> crop()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: cntk.io.transforms.crop is an image transform...
    """
    _unsupported("crop")


def scale(*args: Any, **kwargs: Any) -> NoReturn:
    """CNTK's scale transform: not supported (no image support).

    Example:
        >>> scale(width=224)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: cntk.io.transforms.scale is an image transform...
    """
    _unsupported("scale")


def mean(*args: Any, **kwargs: Any) -> NoReturn:
    """CNTK's mean transform: not supported (no image support).

    Example:
        >>> mean("mean.xml")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: cntk.io.transforms.mean is an image transform...
    """
    _unsupported("mean")


def color(*args: Any, **kwargs: Any) -> NoReturn:
    """CNTK's color transform: not supported (no image support).

    Example:
        >>> color(brightness_radius=0.2)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: cntk.io.transforms.color is an image transform...
    """
    _unsupported("color")
