"""Elements as bytes: the one encoding of ``cache(filename)``, ``save``/``load`` and of
the values a checkpoint has to carry (``scan``'s state, a float ``counter``).

An encoded element is ``b"MBE1"``, a little-endian ``uint32`` length, a JSON
header, then the leaves' bytes back to back. The header is
``{"s": skeleton, "l": [leaf, ...]}``: the skeleton is the element's structure
with ``null`` at each leaf (``{"t": [...]}`` a tuple, ``{"t": [...], "n":
name, "f": fields}`` a namedtuple, ``{"d": {key: ...}}`` a dict), and each
leaf says how to read its bytes:

* ``{"k": "a", "dt": "<i8", "sh": [2, 3]}``: a NumPy array (C order);
* ``{"k": "s", "dt": "<f4"}``: a NumPy scalar;
* ``{"k": "b", "n": 5}``: a ``bytes`` value;
* ``{"k": "o", "sh": [2], "n": [1, 3]}``: an array of ``bytes`` (their lengths);
* ``{"k": "r", "u": length or null, "p": [values, row_splits]}``: a ``RaggedTensor`` (its
  values, themselves a leaf, then its row splits, both encoded as leaves);
* ``{"k": "sp", "p": [indices, values, dense_shape]}``: a ``SparseTensor``.

Leaf order is :func:`~minibatcher.tfdata.structure.flatten`'s. The format is
versioned by its magic; a header that does not describe its payload is a
:class:`~minibatcher.errors.FormatError`.

Example:
    >>> import numpy as np
    >>> value = (np.int64(3), {"w": np.array([b"a", b"bc"], dtype=object)}, b"x")
    >>> back = decode_element(encode_element(value))
    >>> back[0], back[1]["w"].tolist(), back[2]
    (np.int64(3), [b'a', b'bc'], b'x')
"""

from __future__ import annotations

import base64
import collections
import json
import struct
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import FormatError
from .ragged_tensor import RaggedTensor
from .sparse_tensor import SparseTensor
from .structure import flatten, pack_as

MAGIC = b"MBE1"
_HEAD = struct.Struct("<4sI")


def _skeleton(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {"d": {str(k): _skeleton(value[k]) for k in sorted(value)}}
    if isinstance(value, tuple):
        out: dict[str, Any] = {"t": [_skeleton(v) for v in value]}
        if hasattr(value, "_fields"):
            out["n"], out["f"] = type(value).__name__, list(value._fields)
        return out
    return None


def _template(skeleton: Any) -> Any:
    if skeleton is None:
        return 0
    if not isinstance(skeleton, dict):
        raise FormatError(f"an encoded element's structure is damaged: {skeleton!r}")
    if "d" in skeleton:
        return {k: _template(v) for k, v in skeleton["d"].items()}
    parts = [_template(v) for v in skeleton["t"]]
    if "n" in skeleton:
        return collections.namedtuple(skeleton["n"], skeleton["f"])(*parts)  # type: ignore[misc]
    return tuple(parts)


def _parts(kind: str, parts: list[Any], **extra: Any) -> tuple[dict[str, Any], list[bytes]]:
    heads, chunks = [], []
    for part in parts:
        head, data = _leaf(part)
        heads.append(head)
        chunks.extend(data)
    return {"k": kind, **extra, "p": heads}, chunks


def _leaf(value: Any) -> tuple[dict[str, Any], list[bytes]]:
    if isinstance(value, bytes):
        return {"k": "b", "n": len(value)}, [value]
    if isinstance(value, RaggedTensor):
        return _parts("r", [value.values, value.row_splits], u=value.uniform_row_length)
    if isinstance(value, SparseTensor):
        return _parts("sp", [value.indices, value.values, value.dense_shape])
    arr = np.asarray(value)
    if arr.dtype == object:
        items = [bytes(v) for v in arr.reshape(-1)]
        return {"k": "o", "sh": list(arr.shape), "n": [len(v) for v in items]}, items
    kind = "s" if isinstance(value, np.generic) else "a"
    head: dict[str, Any] = {"k": kind, "dt": arr.dtype.str}
    if kind == "a":
        head["sh"] = list(arr.shape)
    return head, [np.ascontiguousarray(arr).tobytes()]


def encode_element(element: Any) -> bytes:
    """``element`` (NumPy leaves and ``bytes`` in tuples and dicts) as bytes.

    Example:
        >>> encode_element(np.int32(7))[:4]
        b'MBE1'
    """
    heads, chunks = [], []
    for leaf in flatten(element):
        head, data = _leaf(leaf)
        heads.append(head)
        chunks.extend(data)
    header = json.dumps({"s": _skeleton(element), "l": heads}, separators=(",", ":")).encode()
    return b"".join([_HEAD.pack(MAGIC, len(header)), header, *chunks])


def _read_leaf(head: Any, data: memoryview, at: int) -> tuple[Any, int]:
    kind = head.get("k") if isinstance(head, dict) else None
    if kind == "b":
        n = int(head["n"])
        return bytes(data[at:at + n]), at + n
    if kind == "o":
        out = np.empty(int(np.prod(head["sh"], dtype=np.int64)), dtype=object)
        for i, n in enumerate(head["n"]):
            out[i] = bytes(data[at:at + n])
            at += n
        return out.reshape(head["sh"]), at
    if kind in ("r", "sp"):
        parts = []
        for part in head["p"]:
            value, at = _read_leaf(part, data, at)
            parts.append(value)
        if kind == "sp":
            return SparseTensor(*parts), at
        return RaggedTensor(parts[0], parts[1], head["u"]), at
    if kind in ("a", "s"):
        dtype = np.dtype(head["dt"])
        shape = head.get("sh", [])
        n = dtype.itemsize * int(np.prod(shape, dtype=np.int64))
        arr = np.frombuffer(data[at:at + n], dtype=dtype).reshape(shape).copy()
        return (arr[()] if kind == "s" else arr), at + n
    raise FormatError(f"an encoded element has a leaf of unknown kind: {head!r}")


def decode_element(data: bytes | memoryview) -> Any:
    """The element :func:`encode_element` encoded (a ``FormatError`` when damaged).

    Example:
        >>> decode_element(encode_element({"a": np.arange(2)}))["a"].tolist()
        [0, 1]
    """
    view = memoryview(data)
    try:
        magic, size = _HEAD.unpack_from(view)
        if magic != MAGIC:
            raise ValueError(f"magic {magic!r} instead of {MAGIC!r}")
        header = json.loads(bytes(view[_HEAD.size:_HEAD.size + size]))
        at = _HEAD.size + size
        leaves = []
        for head in header["l"]:
            leaf, at = _read_leaf(head, view, at)
            leaves.append(leaf)
        if at != len(view):
            raise ValueError(f"{len(view) - at} bytes after the last leaf")
        template = _template(header["s"])
        return pack_as(template, leaves) if header["s"] is not None else leaves[0]
    except FormatError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, struct.error) as e:
        raise FormatError(f"cannot decode an encoded element ({len(view)} bytes): {e}") from e


def to_text(element: Any) -> str:
    """``element`` as a JSON-able string (base64 of :func:`encode_element`), for states.

    Example:
        >>> from_text(to_text((np.float32(0.5), b"z")))
        (np.float32(0.5), b'z')
    """
    return base64.b64encode(encode_element(element)).decode("ascii")


def from_text(text: str) -> Any:
    """The element :func:`to_text` wrote (a ``FormatError`` when damaged).

    Example:
        >>> from_text("bm90IGFuIGVsZW1lbnQ=")
        Traceback (most recent call last):
        ...
        minibatcher.errors.FormatError: cannot decode an encoded element (14 bytes): ...
    """
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError) as e:
        raise FormatError(f"an encoded element is not base64: {e}") from e
    return decode_element(raw)
