"""``tf.io.decode_raw`` and the image decoders on small inputs, for ``tools/tf_io_golden.py``.

Images are made here (random pixels; PNG and JPEG by TensorFlow's encoders, GIF and BMP by
Pillow) and stored as hex next to TF's decoded pixels, so the tests decode the same bytes.
"""

from __future__ import annotations

import io
import re
from typing import Any

import numpy as np
import tensorflow as tf
from PIL import Image


def _err(e: BaseException) -> dict[str, str]:
    message = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", str(e))
    message = re.sub(r"\s*\[Op:\w+\]( name: )?$", "", message)
    return {"type": type(e).__name__, "message": message}


def _out(x: Any) -> dict[str, Any]:
    arr = x.numpy()
    values = arr.tolist() if arr.dtype.kind != "c" else [[v.real, v.imag] for v in arr.ravel()]
    return {"dtype": x.dtype.name, "shape": list(arr.shape), "values": values}


def _case(kind: str, args: dict[str, Any], fn: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"fn": kind, "args": args}
    try:
        out["expected"] = _out(fn())
    except Exception as e:  # noqa: BLE001 - TF's errors are expected outcomes
        out["error"] = _err(e)
    return out


def raw_cases() -> list[dict[str, Any]]:
    inputs = [["0102", "0304"], ["01020304"], [], ["", ""], ["0a0b0c"], ["01", "0203"],
              [["3f800000"], ["40000000"]], "6162"]
    out = []
    for inp in inputs:
        data = (bytes.fromhex(inp) if isinstance(inp, str) else
                [[bytes.fromhex(v) for v in r] if isinstance(r, list) else bytes.fromhex(r)
                 for r in inp])
        tensor = tf.constant(data, tf.string) if inp != [] else tf.constant([], tf.string)
        for dtype in ["uint8", "int8", "int16", "uint16", "int32", "int64", "float16", "float32",
                      "float64", "bool", "complex64", "uint32"]:
            wide = dtype in ("int16", "float32", "complex64")
            for little in ((True, False) if wide else (True,)):
                for fixed in ((None, 2, 4, 3, 0) if wide or dtype == "uint8" else (None, 4)):
                    args = {"input": inp, "out_type": dtype, "little_endian": little,
                            "fixed_length": fixed}
                    out.append(_case("decode_raw", args, lambda: tf.io.decode_raw(
                        tensor, tf.as_dtype(dtype), little_endian=little, fixed_length=fixed)))
    return out


def _images() -> dict[str, bytes]:
    rng = np.random.default_rng(3)
    rgb = rng.integers(0, 256, (5, 4, 3), dtype=np.uint8)
    smooth = np.repeat(np.repeat(rgb[:3, :2], 4, 0), 4, 1)  # 12x8 blocks: JPEG stays close
    out = {"png_rgb": tf.io.encode_png(rgb).numpy(),
           "png_gray": tf.io.encode_png(rgb[:, :, :1]).numpy(),
           "png_rgba": tf.io.encode_png(np.concatenate([rgb, rgb[:, :, :1]], 2)).numpy(),
           "png_gray_alpha": tf.io.encode_png(rgb[:, :, :2]).numpy(),
           "png16": tf.io.encode_png(rgb.astype(np.uint16) * 257 + 3).numpy(),
           "jpeg_rgb": tf.io.encode_jpeg(smooth, quality=95).numpy(),
           "jpeg_gray": tf.io.encode_jpeg(smooth[:, :, :1], quality=95).numpy()}
    frames = [Image.fromarray(rgb), Image.fromarray(255 - rgb)]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], loop=0)
    out["gif2"] = buf.getvalue()
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF")
    out["gif1"] = buf.getvalue()
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="BMP")
    out["bmp"] = buf.getvalue()
    out["garbage"] = b"not an image at all"
    out["truncated_png"] = out["png_rgb"][:40]
    return out


def image_cases() -> list[dict[str, Any]]:
    images = _images()
    calls: list[tuple[str, dict[str, Any], Any]] = []
    for name, data in images.items():
        c = tf.constant(data)
        for ch in (None, 1, 3, 4):
            for dtype in ("uint8", "uint16", "float32") if name.startswith("png") else ("uint8",):
                for expand in (True, False) if name.startswith("gif") else (True,):
                    kw = {"channels": ch, "dtype": dtype, "expand_animations": expand}
                    calls.append(("decode_image", dict(image=name, **kw),
                                  lambda c=c, kw=kw: tf.io.decode_image(
                                      c, kw["channels"], tf.as_dtype(kw["dtype"]),
                                      expand_animations=kw["expand_animations"])))
        for ch in (0, 1, 3):
            calls.append(("decode_jpeg", {"image": name, "channels": ch},
                          lambda c=c, ch=ch: tf.io.decode_jpeg(c, channels=ch)))
            if name.startswith("jpeg"):
                calls.append(("decode_jpeg", {"image": name, "channels": ch,
                                              "dct_method": "INTEGER_ACCURATE"},
                              lambda c=c, ch=ch: tf.io.decode_jpeg(
                                  c, channels=ch, dct_method="INTEGER_ACCURATE")))
        for ch in (0, 1, 3, 4):
            for dtype in ("uint8", "uint16"):
                calls.append(("decode_png", {"image": name, "channels": ch, "dtype": dtype},
                              lambda c=c, ch=ch, dt=dtype: tf.io.decode_png(
                                  c, channels=ch, dtype=tf.as_dtype(dt))))
        calls.append(("decode_gif", {"image": name}, lambda c=c: tf.io.decode_gif(c)))
        calls.append(("decode_bmp", {"image": name}, lambda c=c: tf.io.decode_bmp(c)))
    out = [_case(fn, args, call) for fn, args, call in calls]
    return [{"images": {k: v.hex() for k, v in images.items()}}] + out


def decode_cases() -> list[dict[str, Any]]:
    """All decode cases (the first image case holds the image bytes)."""
    return raw_cases() + image_cases()
