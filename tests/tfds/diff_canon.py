"""The canonical form of what a TFDS read delivers, shared by the TFDS differential suite's
generator (``tools/tfds_diff_gen.py``, run with TensorFlow) and its test (run without it).

An element is summarised by its example ids (``key``) and a digest of every value in it
(``digest``: dtype, shape and bytes of each leaf, strings as bytes), so the suite checks order,
decoding, padding and dtypes while the committed JSON stays small.

Example:
    >>> import numpy as np
    >>> key({"id": np.int64(3), "tfds_id": b"f__0"}), key((np.array([1, 2]), np.array([5, 6])))
    (3, [[1, 2], [5, 6]])
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np


def key(element: Any) -> Any:
    """The example id(s) of an element: ``id`` of a feature dict (a list when batched), or
    both parts of an ``as_supervised`` pair."""
    if isinstance(element, dict):
        return np.asarray(element["id"]).tolist()
    if isinstance(element, tuple):
        return [np.asarray(x).tolist() for x in element]
    raise TypeError(f"unexpected element {type(element).__name__}")


def tfds_ids(element: Any) -> Any:
    """The ``tfds_id`` of a feature dict as str (a list when batched), else None."""
    if not isinstance(element, dict) or "tfds_id" not in element:
        return None
    value = np.asarray(element["tfds_id"])
    return value.item().decode() if value.ndim == 0 else [v.decode() for v in value.tolist()]


def _leaves(element: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(element, dict):
        return [kv for k in sorted(element) for kv in _leaves(element[k], f"{path}/{k}")]
    if isinstance(element, (tuple, list)):
        return [kv for i, v in enumerate(element) for kv in _leaves(v, f"{path}/{i}")]
    return [(path, element)]


def _canon(value: Any) -> bytes:
    a = np.asarray(value)
    shape = repr(tuple(a.shape)).encode()
    if a.dtype.kind in "OSU":
        items = [v if isinstance(v, bytes) else str(v).encode() for v in a.ravel().tolist()]
        return b"bytes" + shape + b"".join(len(v).to_bytes(4, "little") + v for v in items)
    return a.dtype.str.encode() + shape + np.ascontiguousarray(a).tobytes()


def digest(elements: list[Any]) -> str:
    """sha1 over every leaf of every element (path, dtype, shape, bytes), in order."""
    h = hashlib.sha1()
    for element in elements:
        for path, value in _leaves(element):
            h.update(path.encode() + b"=" + _canon(value) + b";")
    return h.hexdigest()[:16]
