"""Pure-Python reference of the native HTK file core (``cpp/htk``): headers
(byte order, kinds, ``_C`` vectors, ``_K`` checksums) and frame reads.

Every function returns exactly what its native twin returns (same keys, same
dtypes); :mod:`.reference` re-exports them.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher.formats.htk.htkfile import write_htk
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.htk"
    >>> write_htk(p, np.ones((3, 2), np.float32), kind="MFCC_K")
    >>> fd = os.open(p, os.O_RDONLY)
    >>> h = read_headers(np.array([fd]), np.array([p.stat().st_size]), True)
    >>> os.close(fd)
    >>> int(h["issue"][0]), int(h["dim"][0]), int(h["samples"][0]), int(h["crc_stored"][0]) > 0
    (0, 2, 3, True)
"""

from __future__ import annotations

import os
import struct
from typing import Any, Sequence

import numpy as np

from .codes import COMPRESSED, FESTREAM, HAS_CRC, HAS_VQ, HeaderIssue, ReadFailure, kind_base

# ---------------------------------------------------------------------- HTK files

HEADER_ISSUES = {int(i): i.name.lower() for i in HeaderIssue if i}
_SUPPORTED_BASES = (6, 7, 9, 11, FESTREAM)


def crc(data: bytes, big_endian: bool) -> int:
    """HTK's checksum over 16-bit words: ``crc = (crc * 65536 + word) % 36897``.

    Example:
        >>> crc(bytes([0, 1, 0, 2]), big_endian=True)
        28641
    """
    words = np.frombuffer(data[: len(data) // 2 * 2], dtype=">u2" if big_endian else "<u2")
    value = 0
    for word in words.tolist():
        value = (value * 65536 + word) % 36897
    return value


def _blank_header() -> dict[str, Any]:
    return dict(issue=0, period=0, sample_size=0, kind=0, dim=0, samples=0, data_start=0,
                available=0, swap=0, crc_stored=0, crc_computed=0, a=np.zeros(0, np.float32),
                b=np.zeros(0, np.float32), guid=bytes(16))


def _kind_issue(h: dict[str, Any]) -> HeaderIssue:
    """NONE, or why the kind or sample size cannot be read; sets ``dim``."""
    kind = h["kind"]
    if kind_base(kind) not in _SUPPORTED_BASES:
        return HeaderIssue.UNSUPPORTED_KIND
    if kind & HAS_VQ:
        return HeaderIssue.VQ
    value_bytes = 2 if kind & COMPRESSED else 4
    if h["sample_size"] == 0 or h["sample_size"] % value_bytes:
        return HeaderIssue.BAD_SAMPLE_SIZE
    h["dim"] = h["sample_size"] // value_bytes
    return HeaderIssue.NONE


def _data_issue(f: int, size: int, head: bytes, h: dict[str, Any], order: str,
                samples: int) -> HeaderIssue:
    """NONE, or why the data cannot be located; reads the FESTREAM GUID and the ``_C``
    vectors and sets ``samples`` and ``data_start``."""
    at, dim = 12, h["dim"]
    if h["kind"] == FESTREAM:
        if len(head) < 28:
            return HeaderIssue.TOO_SHORT
        h["guid"], at = head[12:28], 28
    h["samples"] = samples
    if h["kind"] & COMPRESSED:
        h["samples"] = samples - 4  # HTK counts the A and B vectors as 4 frames
        ab = os.pread(f, 8 * dim, at) if size >= at + 8 * dim else b""
        if len(ab) < 8 * dim:
            return HeaderIssue.TOO_SHORT
        vectors = np.frombuffer(ab, dtype=order + "f4").astype(np.float32)
        h["a"], h["b"], at = vectors[:dim].copy(), vectors[dim:].copy(), at + 8 * dim
    h["data_start"] = at
    return HeaderIssue.BAD_SAMPLE_COUNT if h["samples"] < 0 else HeaderIssue.NONE


def _extent_issue(f: int, size: int, h: dict[str, Any], order: str, verify: bool) -> HeaderIssue:
    """NONE, TRUNCATED or BAD_CRC (a wrong ``_K`` checksum); sets ``available`` and the CRCs."""
    at, kind = h["data_start"], h["kind"]
    h["available"] = min(h["samples"], max(0, size - at) // h["sample_size"])
    end = at + h["samples"] * h["sample_size"]
    if size < end + (2 if kind & HAS_CRC else 0):
        return HeaderIssue.TRUNCATED
    if verify and kind & HAS_CRC:
        first = 28 if kind == FESTREAM else 12
        big = h["swap"] == (np.little_endian is True)
        h["crc_computed"] = crc(os.pread(f, end - first, first), big)
        h["crc_stored"] = struct.unpack(order + "H", os.pread(f, 2, end))[0]
        return HeaderIssue.BAD_CRC if h["crc_stored"] != h["crc_computed"] else HeaderIssue.NONE
    return HeaderIssue.NONE


def _header(f: int, size: int, verify: bool) -> dict[str, Any]:
    """One file's header fields and its first problem (``issue``, 0 when none)."""
    h = _blank_header()
    head = os.pread(f, min(size, 28), 0)
    if len(head) < 12:
        return {**h, "issue": HeaderIssue.TOO_SHORT}
    period_le = struct.unpack("<I", head[4:8])[0]
    h["swap"] = int(struct.unpack(">I", head[4:8])[0] < period_le)  # the smaller period wins
    order = ">" if h["swap"] else "<"
    samples, h["period"], h["sample_size"], h["kind"] = struct.unpack(order + "iiHH", head[:12])
    h["issue"] = (_kind_issue(h) or _data_issue(f, size, head, h, order, samples)
                  or _extent_issue(f, size, h, order, verify))
    return h


def read_headers(fds: np.ndarray, sizes: np.ndarray, verify_crc: bool) -> dict[str, Any]:
    """Reads and checks the headers of open files (the native ``htk_read_headers``)."""
    headers = [_header(int(f), int(s), verify_crc) for f, s in zip(fds.tolist(), sizes.tolist())]
    types = {"issue": np.int32, "period": np.int32, "sample_size": np.int32, "kind": np.int32,
             "dim": np.int32, "swap": np.uint8, "crc_stored": np.int32, "crc_computed": np.int32}
    out: dict[str, Any] = {k: np.array([h[k] for h in headers], dtype=t) for k, t in types.items()}
    for k in ("samples", "data_start", "available"):
        out[k] = np.array([h[k] for h in headers], dtype=np.int64)
    for k in ("a", "b", "guid"):
        out[k] = [h[k] for h in headers]
    return out


def read_frames(fds: np.ndarray, header_of: np.ndarray, first: np.ndarray, count: np.ndarray,
                data_start: np.ndarray, available: np.ndarray, sample_size: np.ndarray,
                kind: np.ndarray, swap: np.ndarray, a: list, b: list, dim: int,
                is_double: bool) -> np.ndarray | dict[str, int]:
    """Reads frame ranges (the native ``htk_read_frames``)."""
    parts = []
    for i, (fd, h, lo, n) in enumerate(zip(fds.tolist(), header_of.tolist(), first.tolist(),
                                           count.tolist())):
        if lo < 0 or n < 0 or lo + n > available[h] or sample_size[h] != dim * (
                2 if kind[h] & COMPRESSED else 4):
            return {"range": i, "code": ReadFailure.OUT_OF_RANGE, "errno": 0}
        order = ">" if (swap[h] != 0) == np.little_endian else "<"
        raw = os.pread(fd, n * int(sample_size[h]), int(data_start[h]) + lo * int(sample_size[h]))
        if len(raw) < n * int(sample_size[h]):
            return {"range": i, "code": ReadFailure.SHORT_READ, "errno": 0}
        if kind[h] & COMPRESSED:
            shorts = np.frombuffer(raw, dtype=order + "i2").reshape(n, dim).astype(np.float32)
            with np.errstate(all="ignore"):  # A may be 0 or B huge in a corrupt file, as in C
                values = (shorts + b[h]) / a[h]
        else:
            values = np.frombuffer(raw, dtype=order + "f4").reshape(n, dim)
        parts.append(values.astype(np.float32))
    out = np.concatenate(parts) if parts else np.zeros((0, dim), np.float32)
    return out.astype(np.float64 if is_double else np.float32).ravel()


def context_expand(values: np.ndarray, bounds: Sequence[int], left: int, right: int) -> np.ndarray:
    """Every row with its neighbours, clamped inside its segment (reference of the gather).

    Example:
        >>> context_expand(np.array([[1.], [2.], [3.]]), [0, 2, 3], 1, 1).tolist()
        [[1.0, 1.0, 2.0], [1.0, 2.0, 2.0], [3.0, 3.0, 3.0]]
    """
    rows = []
    for lo, hi in zip(list(bounds)[:-1], list(bounds)[1:]):
        for t in range(lo, hi):
            rows.append(np.concatenate([values[min(max(t + j, lo), hi - 1)]
                                        for j in range(-left, right + 1)]))
    return np.array(rows).reshape(len(rows), values.shape[1] * (1 + left + right))
