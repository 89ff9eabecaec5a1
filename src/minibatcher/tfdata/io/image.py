"""``tf.io.decode_image`` / ``decode_jpeg`` / ``decode_png`` / ``decode_gif`` / ``decode_bmp``
with Pillow: TF's format detection, ``channels``, ``dtype``, ``expand_animations``, the
formats each op accepts, and TF's errors.

As in TF 2.21, ``decode_jpeg``/``decode_png``/``decode_gif`` decode JPEG, PNG and GIF alike
(not BMP), ``decode_jpeg`` and ``decode_png`` refuse animated GIFs, ``decode_gif`` gives
``[frames, H, W, 3]``. Channel conversions follow TF's decoders: gray to RGB repeats, RGB to
gray is ``(299 R + 587 G + 114 B) // 1000`` for PNG/GIF/BMP and libjpeg's luma for JPEG, an
added alpha is opaque. ``dtype`` converts as ``tf.image.convert_image_dtype``. Differences
(docs/tfdata.md): JPEG pixels are TF's ``dct_method="INTEGER_ACCURATE"`` ones (TF's default
fast IDCT differs by a few levels); 16-bit colour PNGs decode only to uint8 (Pillow keeps 8
bits of them).

Example:
    >>> import io as _io
    >>> from PIL import Image
    >>> buf = _io.BytesIO(); Image.new("RGB", (2, 1), (10, 20, 30)).save(buf, "PNG")
    >>> decode_png(buf.getvalue()).tolist()
    [[[10, 20, 30], [10, 20, 30]]]
    >>> decode_image(buf.getvalue(), channels=1, dtype="float32").shape
    (1, 2, 1)
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from ...errors import NotSupportedError
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from .image_convert import convert_dtype, to_channels

_UNKNOWN = "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required."


def image_format(data: bytes) -> str | None:
    """The format TF's decoders detect from the first bytes (None: unknown).

    Example:
        >>> image_format(b"\\x89PNG\\r\\n\\x1a\\n..."), image_format(b"nope")
        ('png', None)
    """
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:4] == b"GIF8":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def _pillow() -> Any:
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow is a dependency of the tfds extra
        raise NotSupportedError("tfdata.io's image decoders need Pillow: pip install "
                                "'minibatcher[tfds]'") from None
    return Image


def _open(data: bytes, fmt: str) -> Any:
    try:
        im = _pillow().open(io.BytesIO(data))
    except Exception:  # noqa: BLE001 - Pillow raises many types for bad data
        if fmt == "png":
            raise InvalidArgumentError("Invalid PNG. Failed to initialize decoder.") from None
        raise InvalidArgumentError(f"Invalid {fmt.upper()} data: Pillow cannot identify it") \
            from None
    try:
        im.load()
    except Exception as e:  # noqa: BLE001
        raise InvalidArgumentError(f"Invalid {fmt.upper()} data: {e}") from None
    return im


def _png_16bit_color(data: bytes) -> bool:
    """Whether a PNG's IHDR says 16 bits per sample in colour or gray+alpha."""
    return len(data) > 25 and data[24] == 16 and data[25] in (2, 4, 6)


def _frames(im: Any) -> list[np.ndarray]:
    out = []
    for i in range(getattr(im, "n_frames", 1)):
        im.seek(i)
        out.append(np.asarray(im.convert("RGB")))
    return out


def _still(data: bytes, fmt: str, gray: bool) -> np.ndarray:
    """One image as [H, W, C] (uint8, or uint16 for 16-bit gray PNG)."""
    im = _open(data, fmt)
    if fmt == "jpeg" and gray and im.mode != "L":
        im = _pillow().open(io.BytesIO(data))
        im.draft("L", im.size)  # libjpeg's own luma, as TF's decoder with channels=1
        im.load()
    mode = im.mode
    if mode in ("I;16", "I;16B", "I;16L", "I"):
        arr = np.asarray(im).astype(np.uint16)
        return arr[..., None]
    if mode == "P":
        im = im.convert("RGBA" if "transparency" in im.info else "RGB")
    elif mode == "1":
        im = im.convert("L")
    arr = np.asarray(im)
    return arr[..., None] if arr.ndim == 2 else arr


def _check_channels(fmt: str, channels: int) -> None:
    if fmt == "gif" and channels not in (0, 3):
        raise InvalidArgumentError(f"channels must be 0 or 3 for GIF, got {channels}")
    if fmt == "bmp" and channels not in (0, 3, 4):
        raise InvalidArgumentError(f"`channels` must be 0, 3 or 4 for BMP, but got {channels}")
    if fmt == "jpeg" and channels == 4:
        raise InvalidArgumentError("JPEG does not support 4 channels")


def _decode(data: Any, channels: int | None, op: str, animations: bool,
            eight_bits: bool = True) -> np.ndarray:
    data = bytes(data)
    fmt = image_format(data)
    if fmt is None:
        raise InvalidArgumentError(_UNKNOWN)
    if fmt == "webp":
        raise NotSupportedError("WebP images are not decoded by tfdata.io (TF 2.21 decodes them)")
    ch = int(channels or 0)
    if ch not in (0, 1, 2, 3, 4):
        raise InvalidArgumentError(f"channels must be 0, 1, 2, 3 or 4, but got channels={ch}")
    _check_channels(fmt, ch)
    if fmt == "bmp" and op not in ("DecodeBmp", "DecodeImage"):
        raise InvalidArgumentError("Trying to decode BMP format using a wrong op. Use "
                                   f"`decode_bmp` or `decode_image` instead. Op used: {op}")
    if op == "DecodeBmp" and fmt != "bmp":
        _open(data, fmt)  # TF reports a broken image before the wrong op
        names = {"png": "PNG", "jpeg": "JPEG", "gif": "GIF"}
        raise InvalidArgumentError(f"Trying to decode {names[fmt]} format using DecodeBmp op. "
                                   f"Use `decode_{fmt}` or `decode_image` instead.")
    if fmt == "gif":
        frames = _frames(_open(data, fmt))
        if len(frames) > 1 and not animations:
            raise InvalidArgumentError(f"Got {len(frames)} frames, but animated gifs can only be "
                                       "decoded by tf.io.decode_gif or tf.io.decode_image")
        return np.stack(frames)
    if fmt == "png" and _png_16bit_color(data) and (ch in (1, 2) or not eight_bits):
        raise NotSupportedError("a 16-bit colour PNG decodes only to uint8 with its own "
                                "channels, 3 or 4 here (Pillow keeps 8 bits of each sample)")
    still = _still(data, fmt, ch == 1)
    return to_channels(still, ch, fmt)[None]


def decode_image(contents: Any, channels: int | None = None, dtype: Any = "uint8",
                 name: str | None = None, expand_animations: bool = True) -> np.ndarray:
    """``tf.io.decode_image``: JPEG, PNG, GIF or BMP as ``[H, W, C]`` (a GIF as
    ``[frames, H, W, 3]`` unless ``expand_animations=False``, which keeps the first frame),
    converted to ``dtype`` (uint8, uint16 or float32 in [0, 1]).

    Example:
        >>> decode_image(b"not an image")
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.InvalidArgumentError: Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.
    """
    dtype = as_dtype(dtype)
    frames = _decode(contents, channels, "DecodeImage", True, dtype.name == "uint8")
    fmt = image_format(bytes(contents[:12]))
    out = frames if fmt == "gif" and expand_animations else frames[0]
    return convert_dtype(out, dtype, png=fmt == "png")


def decode_png(contents: Any, channels: int = 0, dtype: Any = "uint8",
               name: str | None = None) -> np.ndarray:
    """``tf.io.decode_png``: ``[H, W, C]`` uint8 or uint16 (also JPEG and still GIF).

    Example:
        >>> decode_png(b"BM....", channels=1)
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.InvalidArgumentError: `channels` must be 0, 3 or 4 for BMP, but got 1
    """
    dtype = as_dtype(dtype)
    out = _decode(contents, channels, "DecodePng", False, dtype.name == "uint8")[0]
    return convert_dtype(out, dtype, png=image_format(bytes(contents[:12])) == "png")


def decode_jpeg(contents: Any, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1,
                dct_method: str = "", name: str | None = None) -> np.ndarray:
    """``tf.io.decode_jpeg``: ``[H, W, C]`` uint8 (also PNG and still GIF). Pixels equal TF's
    with ``dct_method="INTEGER_ACCURATE"``; TF's default (``""``, its fast integer IDCT)
    differs by a few levels (libjpeg's accurate IDCT is used here for every method).
    ``fancy_upscaling``, ``try_recover_truncated`` and ``acceptable_fraction`` are accepted;
    ``ratio`` other than 1 is not supported.

    Example:
        >>> decode_jpeg(b"\\xff\\xd8\\xff", ratio=2)
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: decode_jpeg(ratio=2) is not supported (Pillow has no exact equivalent of libjpeg's scaled decoding); decode and resize instead
    """
    if ratio != 1:
        raise NotSupportedError(f"decode_jpeg(ratio={ratio}) is not supported (Pillow has no "
                                "exact equivalent of libjpeg's scaled decoding); decode and "
                                "resize instead")
    return convert_dtype(_decode(contents, channels, "DecodeJpeg", False)[0], as_dtype("uint8"))


def decode_gif(contents: Any, name: str | None = None) -> np.ndarray:
    """``tf.io.decode_gif``: ``[frames, H, W, 3]`` uint8 (a PNG or JPEG is one frame).

    Example:
        >>> decode_gif(b"\\x89PNG\\r\\n\\x1a\\n")
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.InvalidArgumentError: Invalid PNG. Failed to initialize decoder.
    """
    frames = _decode(contents, 3, "DecodeGif", True)
    return frames


def decode_bmp(contents: Any, channels: int = 0, name: str | None = None) -> np.ndarray:
    """``tf.io.decode_bmp``: ``[H, W, C]`` uint8 of a BMP image.

    Example:
        >>> decode_bmp(b"GIF89a")
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.InvalidArgumentError: Invalid GIF data: Pillow cannot identify it
    """
    return _decode(contents, channels, "DecodeBmp", False)[0]


__all__ = ["decode_bmp", "decode_gif", "decode_image", "decode_jpeg", "decode_png",
           "image_format"]
