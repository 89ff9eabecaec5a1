"""tfdata.io.decode_raw and the image decoders against TensorFlow 2.21's outputs
(tests/data/tf_golden/tf_io/decode.json, written by tools/tf_io_golden.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from minibatcher import tfdata
from minibatcher.errors import NotSupportedError
from minibatcher.tfdata import io

from .golden import cases

CASES = cases("decode.json")
RAW = [c for c in CASES if c.get("fn") == "decode_raw"]
ERRORS = {"InvalidArgumentError": tfdata.errors.InvalidArgumentError,
          "NotFoundError": tfdata.errors.NotFoundError}
# TF words these as a dump of its op registry; we name the dtype and the allowed ones instead
OP_REGISTRY = ("Value for attr", "Could not find device")


def _input(inp: Any) -> Any:
    if isinstance(inp, str):
        return bytes.fromhex(inp)
    return [_input(v) for v in inp] if inp else np.zeros(0, dtype=object)


def check(case: dict[str, Any], run: Any) -> np.ndarray | None:
    """Runs ``run``; checks TF's error, or returns our array for the caller to compare."""
    try:
        out = run()
    except (ValueError, OSError) as e:
        assert "error" in case, f"{case['args']}: we raised {e!r}"
        assert isinstance(e, ERRORS[case["error"]["type"]]), (case["args"], e)
        if not case["error"]["message"].startswith(OP_REGISTRY):
            assert str(e) == case["error"]["message"], case["args"]
        return None
    assert "error" not in case, f"{case['args']}: TF raised {case['error']}"
    assert out.dtype == np.dtype(tfdata.as_dtype(case["expected"]["dtype"]).as_numpy_dtype)
    assert list(out.shape) == case["expected"]["shape"], case["args"]
    return out


@pytest.mark.parametrize("case", RAW, ids=[str(i) for i in range(len(RAW))])
def test_decode_raw_like_tensorflow(case: dict[str, Any]) -> None:
    a = case["args"]
    out = check(case, lambda: io.decode_raw(_input(a["input"]), a["out_type"],
                                            little_endian=a["little_endian"],
                                            fixed_length=a["fixed_length"]))
    if out is not None:
        want = case["expected"]["values"]
        got = out.tolist() if out.dtype.kind != "c" else [[v.real, v.imag] for v in out.ravel()]
        assert got == want, a


IMAGES = {k: bytes.fromhex(v) for k, v in next(c for c in CASES if "images" in c)["images"].items()}
IMAGE_CASES = [c for c in CASES if c.get("fn", "decode_raw") != "decode_raw"]
FUNCTIONS = {"decode_image": io.decode_image, "decode_png": io.decode_png,
             "decode_jpeg": io.decode_jpeg, "decode_gif": io.decode_gif,
             "decode_bmp": io.decode_bmp}


def _call(case: dict[str, Any]) -> np.ndarray:
    args = dict(case["args"])
    data = IMAGES[args.pop("image")]
    return FUNCTIONS[case["fn"]](data, **args)


def _sixteen_bits_needed(args: dict[str, Any]) -> bool:
    return args["image"] == "png16" and (args.get("dtype", "uint8") != "uint8"
                                         or args.get("channels") in (1, 2))


# TF's default JPEG IDCT (INTEGER_FAST) against libjpeg's accurate one: measured 12 levels
# at most on the test images (docs/tfdata.md); INTEGER_ACCURATE cases must match exactly.
FAST_IDCT_BOUND = 12


@pytest.mark.parametrize("case", IMAGE_CASES, ids=[f"{c['fn']}-{i}" for i, c in enumerate(IMAGE_CASES)])
def test_image_decoders_like_tensorflow(case: dict[str, Any]) -> None:
    if _sixteen_bits_needed(case["args"]) and "error" not in case:  # documented difference
        with pytest.raises(NotSupportedError, match="16-bit colour PNG"):
            _call(case)
        return
    out = check(case, lambda: _call(case))
    if out is None:
        return
    want = np.array(case["expected"]["values"], dtype=out.dtype)
    if case["args"]["image"].startswith("jpeg") and \
            case["args"].get("dct_method") != "INTEGER_ACCURATE":
        diff = np.abs(out.astype(np.int64) - want.astype(np.int64))
        scale = 256 if out.dtype == np.uint16 else 1
        assert diff.max() <= FAST_IDCT_BOUND * scale, case["args"]
        return
    assert np.array_equal(out, want), case["args"]
