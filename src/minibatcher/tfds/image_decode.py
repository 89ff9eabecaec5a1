"""Image features decoded a block at a time: the encoded images of many records
into one ``[n, h, w, c]`` array, on the read's decode workers
(``ReadConfig.num_parallel_calls_for_decode``; docs/tfrecord-tfds.md).

PNGs of the common kinds (8-bit gray, gray+alpha, RGB, RGBA, not interlaced)
of the feature's exact shape are decoded natively (zlib and the scanline
filters in C++, the GIL released, one call per worker's share); every other
image (JPEG, palette or 16-bit PNGs, a damaged file, one of another size) is
decoded by Pillow, as one element is (:func:`~minibatcher.tfds.features.decode_image`),
so pixels and errors are Pillow's either way (tested against Pillow).

Example:
    >>> import io
    >>> from PIL import Image
    >>> from minibatcher.tfds.features import Leaf
    >>> png = io.BytesIO(); Image.new("L", (2, 1), 7).save(png, "PNG")
    >>> data = np.frombuffer(png.getvalue() * 2, np.uint8)
    >>> ends = np.array([len(data) // 2, len(data)])
    >>> leaf = Leaf(("image",), "Image", np.dtype("uint8"), (1, 2, 1))
    >>> out = decode_images(leaf, data, ends, None)
    >>> out.shape, out.ravel().tolist()
    ((2, 1, 2, 1), [7, 7, 7, 7])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _native
from ..tfdata.parallel import Workers, first_failure
from .features import Leaf, decode_image

_PER_WORKER = 32  # images below which one more worker is not worth a hand-off


def _max_pixels() -> int:
    """Pillow's decompression-bomb limit (larger images go to Pillow, which warns)."""
    from PIL import Image

    limit = Image.MAX_IMAGE_PIXELS
    return -1 if limit is None else int(limit)


def _native_shape(leaf: Leaf) -> tuple[int, int, int] | None:
    """``(h, w, c)`` when the native PNG decoder can fill this leaf's arrays (it
    is left out of builds without zlib)."""
    if not hasattr(_native, "png_decode_into"):
        return None
    shape = leaf.shape
    if leaf.dtype != np.uint8 or len(shape) != 3 or None in shape or not 1 <= shape[2] <= 4:
        return None
    return shape  # type: ignore[return-value]


def _ranges(n: int, workers: Workers | None) -> list[tuple[int, int]]:
    parts = 1 if workers is None else max(1, min(workers.n, n // _PER_WORKER))
    bounds = np.linspace(0, n, parts + 1).astype(int).tolist()
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _run(workers: Workers | None, fn: Any, ranges: list[tuple[int, int]]) -> list[Any]:
    """``fn(lo, hi)`` for every range (on the workers when there are several);
    the first failure is raised."""
    if workers is None or len(ranges) == 1:
        return [fn(lo, hi) for lo, hi in ranges]
    results = workers.map(fn, ranges)
    k = first_failure(results)
    if k < len(results):
        raise results[k].error
    return results


def decode_images(leaf: Leaf, data: np.ndarray, ends: np.ndarray,
                  workers: Workers | None) -> np.ndarray | list[np.ndarray]:
    """The images ``data[ends[i-1]:ends[i]]`` decoded as ``leaf`` (one per
    record): one array ``[n, *shape]`` when they all have the leaf's shape,
    else the list of arrays (as Pillow gives them). Raises what Pillow
    raises for a bad image."""
    n = len(ends)
    starts = np.concatenate([np.zeros(1, np.int64), ends[:-1]]).astype(np.int64)
    ends = np.asarray(ends, np.int64)
    shape = _native_shape(leaf)
    if shape is None:
        return _with_pillow(leaf, data, starts, ends, workers)
    out = np.empty((n,) + shape, np.uint8)
    limit = _max_pixels()

    def decode(lo: int, hi: int) -> list[tuple[int, np.ndarray]]:
        status = _native.png_decode_into(data, starts[lo:hi], ends[lo:hi], out[lo:hi], limit)
        return [(i, decode_image(bytes(data[starts[i]:ends[i]]), leaf))
                for i in (lo + np.flatnonzero(status)).tolist()]

    odd = [x for part in _run(workers, decode, _ranges(n, workers)) for x in part]
    if all(image.shape == shape for _, image in odd):
        for i, image in odd:
            out[i] = image
        return out
    images = list(out)
    for i, image in odd:
        images[i] = image
    return images


def _with_pillow(leaf: Leaf, data: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                 workers: Workers | None) -> np.ndarray | list[np.ndarray]:
    def decode(lo: int, hi: int) -> list[np.ndarray]:
        return [decode_image(bytes(data[a:b]), leaf)
                for a, b in zip(starts[lo:hi].tolist(), ends[lo:hi].tolist())]

    images = [x for part in _run(workers, decode, _ranges(len(starts), workers)) for x in part]
    shape = leaf.shape
    if images and None not in shape and all(x.shape == shape for x in images):
        return np.stack(images)
    return images
