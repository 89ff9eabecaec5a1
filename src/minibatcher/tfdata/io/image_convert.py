"""Channel and dtype conversions of decoded images, as TF's decoders and
``tf.image.convert_image_dtype`` do them.

Example:
    >>> rgb = np.array([[[248, 194, 190]]], np.uint8)
    >>> to_channels(rgb, 1, "png").tolist(), to_channels(rgb, 4, "png").tolist()
    ([[[209]]], [[[248, 194, 190, 255]]])
    >>> from minibatcher.tfdata.dtypes import uint16
    >>> convert_dtype(rgb, uint16, png=True).tolist()
    [[[63736, 49858, 48830]]]
"""

from __future__ import annotations

import numpy as np

from ..dtypes import DType
from ..errors import InvalidArgumentError


def _gray(rgb: np.ndarray) -> np.ndarray:
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((299 * r + 587 * g + 114 * b) // 1000).astype(rgb.dtype)[..., None]


def _opaque(arr: np.ndarray) -> np.ndarray:
    return np.full(arr.shape[:-1] + (1,), np.iinfo(arr.dtype).max, arr.dtype)


def to_channels(arr: np.ndarray, channels: int, fmt: str) -> np.ndarray:
    """``arr`` ``[H, W, C]`` with ``channels`` channels (0: as decoded).

    Example:
        >>> gray_alpha = np.array([[[7, 100]]], np.uint8)
        >>> to_channels(gray_alpha, 3, "png").tolist(), to_channels(gray_alpha, 1, "png").tolist()
        ([[[7, 7, 7]]], [[[7]]])
    """
    have = arr.shape[-1]
    if channels in (0, have):
        return arr
    color = arr[..., :3] if have >= 3 else np.repeat(arr[..., :1], 3, axis=-1)
    alpha = arr[..., -1:] if have in (2, 4) else _opaque(arr)
    if channels == 1:
        return _gray(color) if have >= 3 else arr[..., :1]
    if channels == 2:
        return np.concatenate([arr[..., :1] if have < 3 else _gray(color), alpha], axis=-1)
    if channels == 3:
        return color
    return np.concatenate([color, alpha], axis=-1)


def convert_dtype(arr: np.ndarray, dtype: DType, png: bool = False) -> np.ndarray:
    """``tf.image.convert_image_dtype`` for the decoders' dtypes: uint8 -> uint16 by ``* 256``
    (``* 257`` for PNG, which libpng widens itself; PNG floats come from those 16 bits),
    uint16 -> uint8 by ``>> 8``, floats in [0, 1] as ``float32(x) * float32(1 / max)``.

    Example:
        >>> from minibatcher.tfdata.dtypes import float32, uint8
        >>> convert_dtype(np.array([65535, 256], np.uint16), uint8).tolist()
        [255, 1]
        >>> convert_dtype(np.array([255], np.uint8), float32).tolist()
        [1.0]
    """
    target = np.dtype(dtype.as_numpy_dtype)
    if target == arr.dtype:
        return arr
    if png and target.kind == "f" and arr.dtype == np.uint8:  # libpng widens to 16 bits first
        arr = arr.astype(np.uint16) * np.uint16(257)
    if target == np.uint16 and arr.dtype == np.uint8:
        return arr.astype(np.uint16) * np.uint16(257 if png else 256)
    if target == np.uint8 and arr.dtype == np.uint16:
        return (arr >> 8).astype(np.uint8)
    if target.kind == "f":
        scale = target.type(1.0 / np.iinfo(arr.dtype).max)
        return arr.astype(target) * scale
    raise InvalidArgumentError(f"an image decoder's dtype should be uint8, uint16 or a float "
                               f"type, but got dtype={dtype.name}")


__all__ = ["convert_dtype", "to_channels"]
