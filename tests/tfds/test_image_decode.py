"""Images decoded a block at a time give what Pillow gives one at a time: the native
PNG decoder (8-bit gray, gray+alpha, RGB, RGBA; every scanline filter; IDAT split
anywhere; harmless ancillary chunks) and everything it leaves to Pillow (other
PNGs, damaged files, JPEGs, Pillow's decompression-bomb limit), with the same
pixels, or the same error for the first bad image."""

from __future__ import annotations

import io
import struct
import warnings
import zlib
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minibatcher import _native
from minibatcher.tfdata.parallel import Workers
from minibatcher.tfds.features import Leaf, decode_image
from minibatcher.tfds.image_decode import decode_images

PIL = pytest.importorskip("PIL.Image")
COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + \
        struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def filtered(rows: np.ndarray, filters: list[int], bpp: int) -> bytes:
    """The scanlines of ``rows`` (h, w*c) with the given filter per row."""
    out = bytearray()
    prev = np.zeros(rows.shape[1], np.int64)
    for row, f in zip(rows.astype(np.int64), filters):
        left = np.concatenate([np.zeros(bpp, np.int64), row[:-bpp]])
        corner = np.concatenate([np.zeros(bpp, np.int64), prev[:-bpp]])
        predictor = {0: 0 * row, 1: left, 2: prev, 3: (left + prev) // 2,
                     4: np.array([_paeth(a, b, c) for a, b, c in zip(left, prev, corner)])}[f]
        out += bytes([f]) + bytes(((row - predictor) % 256).astype(np.uint8))
        prev = row
    return bytes(out)


def make_png(pixels: np.ndarray, filters: list[int], pieces: int, extra: list[bytes],
             interlace: int = 0) -> bytes:
    h, w, c = pixels.shape
    ihdr = struct.pack(">IIBBBBB", w, h, 8, COLOR_TYPES[c], 0, 0, interlace)
    data = zlib.compress(filtered(pixels.reshape(h, w * c), filters, c))
    cuts = np.linspace(0, len(data), pieces + 1).astype(int)
    idats = b"".join(chunk(b"IDAT", data[a:b]) for a, b in zip(cuts[:-1], cuts[1:]))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + b"".join(extra) + idats + \
        chunk(b"IEND", b"")


def pillow(blobs: list[bytes], leaf: Leaf) -> Any:
    """Every image decoded alone, or the first one's error."""
    try:
        return [decode_image(b, leaf) for b in blobs]
    except Exception as e:  # noqa: BLE001 - compared with the block's
        return (type(e), str(e).split(" <_io")[0])


def in_block(blobs: list[bytes], leaf: Leaf, workers: Workers | None) -> Any:
    data = np.frombuffer(b"".join(blobs), np.uint8)
    ends = np.cumsum([len(b) for b in blobs]).astype(np.int64)
    try:
        out = decode_images(leaf, data, ends, workers)
    except Exception as e:  # noqa: BLE001
        return (type(e), str(e).split(" <_io")[0])
    return list(out)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return a == b
    return len(a) == len(b) and all(x.dtype == y.dtype and x.shape == y.shape and
                                    np.array_equal(x, y) for x, y in zip(a, b))


HARMLESS = [chunk(b"gAMA", struct.pack(">I", 45455)), chunk(b"sRGB", b"\0"),
            chunk(b"pHYs", struct.pack(">IIB", 2835, 2835, 1)),
            chunk(b"tIME", struct.pack(">HBBBBB", 2020, 1, 2, 3, 4, 5))]
OTHERS = [chunk(b"tEXt", b"Comment\0hello"), chunk(b"bKGD", b"\0\1\0\1\0\1")]


@st.composite
def images(draw: Any) -> tuple[list[bytes], Leaf, list[bool]]:
    c = draw(st.sampled_from([1, 2, 3, 4]))
    h, w = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    n = draw(st.integers(1, 6))
    blobs, native = [], []
    for _ in range(n):
        pixels = np.array(draw(st.lists(st.integers(0, 255), min_size=h * w * c,
                                        max_size=h * w * c)), np.uint8).reshape(h, w, c)
        filters = draw(st.lists(st.integers(0, 4), min_size=h, max_size=h))
        extra = draw(st.lists(st.sampled_from(HARMLESS + OTHERS), max_size=2))
        blob = make_png(pixels, filters, draw(st.integers(1, 3)), extra)
        damage = draw(st.sampled_from(["none", "none", "byte", "cut", "tail", "size"]))
        if damage == "byte":
            k = draw(st.integers(8, len(blob) - 1))
            blob = blob[:k] + bytes([blob[k] ^ draw(st.integers(1, 255))]) + blob[k + 1:]
        elif damage == "cut":
            blob = blob[:draw(st.integers(0, len(blob) - 1))]
        elif damage == "tail":
            blob += b"trailing bytes"
        elif damage == "size":
            blob = make_png(np.zeros((h + 1, w, c), np.uint8), [0] * (h + 1), 1, [])
        blobs.append(blob)
        native.append(damage in ("none", "tail") and not any(e in OTHERS for e in extra))
    return blobs, Leaf(("image",), "Image", np.dtype(np.uint8), (h, w, c)), native


@settings(max_examples=150, deadline=None)
@given(images(), st.sampled_from([1, 3]))
def test_a_block_of_pngs_decodes_as_pillow_decodes_each(case: Any, threads: int) -> None:
    blobs, leaf, _ = case
    workers = Workers(threads) if threads > 1 else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert same(in_block(blobs, leaf, workers), pillow(blobs, leaf))


@settings(max_examples=60, deadline=None)
@given(images())
def test_the_native_decoder_takes_exactly_the_common_pngs(case: Any) -> None:
    """Clean PNGs of the common kinds are decoded natively (with Pillow's pixels);
    the others (unknown chunks, damage) are left to Pillow, never guessed."""
    blobs, leaf, native = case
    data = np.frombuffer(b"".join(blobs), np.uint8)
    ends = np.cumsum([len(b) for b in blobs]).astype(np.int64)
    starts = np.concatenate([[0], ends[:-1]]).astype(np.int64)
    out = np.zeros((len(blobs),) + leaf.shape, np.uint8)
    status = _native.png_decode_into(data, starts, ends, out, -1)
    for i, ok in enumerate(native):
        if ok:
            assert status[i] == 0
        if status[i] == 0:
            assert np.array_equal(out[i], decode_image(blobs[i], leaf))


def test_other_pngs_and_jpegs_go_to_pillow() -> None:
    from PIL import Image

    rgb = (np.arange(5 * 4 * 3) * 7 % 256).astype(np.uint8).reshape(5, 4, 3)
    blobs = []
    for mode, fmt in (("P", "PNG"), ("RGB", "JPEG"), ("I;16", "PNG"), ("RGB", "PNG")):
        buf = io.BytesIO()
        img = Image.fromarray(rgb)
        img = img.convert("I;16") if mode == "I;16" else img.convert(mode)
        img.save(buf, fmt)
        blobs.append(buf.getvalue())
    interlaced = bytearray(make_png(rgb, [0] * 5, 1, []))
    interlaced[28] = 1  # IHDR interlace method (the CRC is now wrong: not native either way)
    status = _native.png_decode_into(np.frombuffer(b"".join(blobs), np.uint8),
                                     np.cumsum([0] + [len(b) for b in blobs[:-1]]),
                                     np.cumsum([len(b) for b in blobs]),
                                     np.zeros((4, 5, 4, 3), np.uint8), -1)
    assert status.tolist() == [1, 1, 1, 0]
    leaf = Leaf(("image",), "Image", np.dtype(np.uint8), (5, 4, 3))
    assert same(in_block(blobs, leaf, Workers(2)), pillow(blobs, leaf))
    assert same(in_block([bytes(interlaced)], leaf, None), pillow([bytes(interlaced)], leaf))


def test_pillow_s_bomb_limit_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    from PIL import Image

    leaf = Leaf(("image",), "Image", np.dtype(np.uint8), (4, 4, 1))
    blob = make_png(np.ones((4, 4, 1), np.uint8), [0] * 4, 1, [])
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 10)
    with pytest.warns(Image.DecompressionBombWarning):
        in_block([blob], leaf, None)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 5)
    assert in_block([blob], leaf, None)[0] is Image.DecompressionBombError
