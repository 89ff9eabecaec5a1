"""The pure-Python reference of the native TFRecord framing kernels.

Same inputs, same result dictionaries as ``_native.tfrecord_scan`` /
``tfrecord_read`` / ``tfrecord_read_list``, written for clarity. Every reader
test runs against both (the ``impl`` fixture) and hypothesis compares them on
random and corrupted streams. CRCs come from the ``google-crc32c`` package,
an implementation independent of the native one.

Example:
    >>> frame = bytes.fromhex("0500000000000000eab2043e68656c6c6fbb1f1c19")
    >>> r = read_list(frame * 2, 0, -1, -1, True, False)
    >>> r["records"], r["frames"].tolist(), r["status"]
    ([b'hello', b'hello'], [0, 21], 0)
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from .crc import mask

OK, TRUNCATED, HEADER_CRC, DATA_CRC = 0, 1, 2, 3


def _crc(data: bytes) -> int:
    try:
        import google_crc32c
    except ImportError as e:  # pragma: no cover - the test extra installs it
        raise ImportError("the reference TFRecord reader needs google-crc32c: "
                          "pip install 'minibatcher[test]'") from e
    return mask(google_crc32c.value(bytes(data)))


def _walk(data: Any, pos: int, max_records: int, max_bytes: int, verify: bool,
          skip_bad: bool) -> dict[str, Any]:
    """Walks the frames from ``pos``; returns (frame, length) pairs and the status."""
    buf = bytes(data)
    good: list[tuple[int, int]] = []
    bad: list[int] = []
    walked = nbytes = 0
    status, status_offset = OK, -1
    while pos < len(buf):
        if 0 <= max_records <= walked or (0 <= max_bytes <= nbytes and walked > 0):
            break
        if len(buf) - pos < 12:
            status, status_offset = TRUNCATED, pos
            break
        (length,) = struct.unpack_from("<Q", buf, pos)
        (length_crc,) = struct.unpack_from("<I", buf, pos + 8)
        if length_crc != _crc(buf[pos:pos + 8]):
            status, status_offset = HEADER_CRC, pos
            break
        if len(buf) - pos < 16 or length > len(buf) - pos - 16:
            status, status_offset = TRUNCATED, pos
            break
        payload = buf[pos + 12:pos + 12 + length]
        (data_crc,) = struct.unpack_from("<I", buf, pos + 12 + length)
        if verify and data_crc != _crc(payload):
            if not skip_bad:
                status, status_offset = DATA_CRC, pos
                break
            bad.append(pos)
        else:
            good.append((pos, length))
            nbytes += length
        walked += 1
        pos += length + 16
    return {"good": good, "bad": np.array(bad, dtype=np.int64), "next": pos,
            "status": status, "status_offset": status_offset, "buf": buf}


def _status(w: dict[str, Any]) -> dict[str, Any]:
    return {k: w[k] for k in ("bad", "next", "status", "status_offset")}


def scan(data: Any, pos: int, max_records: int, verify: bool, skip_bad: bool) -> dict[str, Any]:
    """Frame offsets and data lengths of the records from ``pos``.

    Example:
        >>> scan(b"", 0, -1, True, False)["status"]
        0
    """
    w = _walk(data, pos, max_records, -1, verify, skip_bad)
    frames = np.array([f for f, _ in w["good"]], dtype=np.int64)
    lengths = np.array([n for _, n in w["good"]], dtype=np.int64)
    return {"frames": frames, "lengths": lengths, **_status(w)}


def read(data: Any, pos: int, max_records: int, max_bytes: int, verify: bool,
         skip_bad: bool) -> dict[str, Any]:
    """The records from ``pos`` back to back in one array, with their end offsets.

    Example:
        >>> frame = bytes.fromhex("0500000000000000eab2043e68656c6c6fbb1f1c19")
        >>> r = read(frame, 0, -1, -1, True, False)
        >>> bytes(r["data"]), r["ends"].tolist()
        (b'hello', [5])
    """
    w = _walk(data, pos, max_records, max_bytes, verify, skip_bad)
    parts = [w["buf"][f + 12:f + 12 + n] for f, n in w["good"]]
    ends = np.cumsum([len(p) for p in parts], dtype=np.int64)
    return {"data": np.frombuffer(b"".join(parts), dtype=np.uint8),
            "ends": ends, "frames": np.array([f for f, _ in w["good"]], dtype=np.int64),
            **_status(w)}


def read_list(data: Any, pos: int, max_records: int, max_bytes: int, verify: bool,
              skip_bad: bool) -> dict[str, Any]:
    """The records from ``pos`` as a list of ``bytes``."""
    w = _walk(data, pos, max_records, max_bytes, verify, skip_bad)
    return {"records": [w["buf"][f + 12:f + 12 + n] for f, n in w["good"]],
            "frames": np.array([f for f, _ in w["good"]], dtype=np.int64), **_status(w)}


def frame_many(data: Any, ends: Any) -> bytes:
    """Frames records ``data[ends[i-1]:ends[i]]`` back to back.

    Example:
        >>> frame_many(b"hello", [5]).hex()
        '0500000000000000eab2043e68656c6c6fbb1f1c19'
    """
    buf, out, start = bytes(data), [], 0
    for end in ends:
        payload = buf[start:int(end)]
        header = struct.pack("<Q", len(payload))
        out += [header, struct.pack("<I", _crc(header)), payload,
                struct.pack("<I", _crc(payload))]
        start = int(end)
    return b"".join(out)


LENGTH = 4


def check_frames(data: Any, frames: Any, lengths: Any, verify: bool) -> tuple[int, int]:
    """Read by position: record i's frame at ``frames[i]`` should hold
    ``lengths[i]`` data bytes; ``(status, failed index)`` (-1: all good).

    Example:
        >>> frame = bytes.fromhex("0500000000000000eab2043e68656c6c6fbb1f1c19")
        >>> check_frames(frame, [0], [5], True), check_frames(frame, [0], [4], True)
        ((0, -1), (4, 0))
    """
    buf = bytes(data)
    for i, (pos, length) in enumerate(zip(frames, lengths)):
        pos, length = int(pos), int(length)
        status = OK
        if min(pos, length) < 0 or pos + length + 16 > len(buf):
            status = TRUNCATED
        elif struct.unpack_from("<I", buf, pos + 8)[0] != _crc(buf[pos:pos + 8]):
            status = HEADER_CRC
        elif struct.unpack_from("<Q", buf, pos)[0] != length:
            status = LENGTH
        elif verify and struct.unpack_from("<I", buf, pos + 12 + length)[0] != \
                _crc(buf[pos + 12:pos + 12 + length]):
            status = DATA_CRC
        if status != OK:
            return status, i
    return OK, -1


def digest_rows(data: Any, frames: Any, lengths: Any) -> bytes:
    """What a file's content digest is made of: each record's length (8 bytes,
    little-endian) and stored data CRC (4 bytes), for frames whole in ``data``.

    Example:
        >>> frame = bytes.fromhex("0500000000000000eab2043e68656c6c6fbb1f1c19")
        >>> digest_rows(frame, [0], [5]).hex()
        '0500000000000000bb1f1c19'
    """
    buf = bytes(data)
    out = []
    for pos, length in zip(frames, lengths):
        pos, length = int(pos), int(length)
        if min(pos, length) < 0 or pos + length + 16 > len(buf):
            raise ValueError("every frame should lie inside the buffer")
        out.append(struct.pack("<Q", length) + buf[pos + 12 + length:pos + 16 + length])
    return b"".join(out)


def frame_chunk(data: Any, verify: bool) -> dict[str, Any]:
    """A chunk of a file read in order, framed: :func:`scan`'s frames (length
    CRCs checked), ``first_bad`` (the index of the first record whose data CRC
    does not match, -1: none; only with ``verify``) and the stored data CRC of
    every frame (``crcs``; with the lengths, the content digest's rows).

    Example:
        >>> frame = bytes.fromhex("0500000000000000eab2043e68656c6c6fbb1f1c19")
        >>> r = frame_chunk(frame * 2 + frame[:5], True)
        >>> r["frames"].tolist(), r["next"], r["status"], r["first_bad"], r["crcs"].tolist()
        ([0, 21], 42, 1, -1, [421273531, 421273531])
    """
    r = scan(data, 0, -1, False, False)
    buf = bytes(data)
    first_bad, crcs = -1, []
    for i, (pos, length) in enumerate(zip(r["frames"].tolist(), r["lengths"].tolist())):
        stored = struct.unpack_from("<I", buf, pos + 12 + length)[0]
        crcs.append(stored)
        if verify and first_bad < 0 and stored != _crc(buf[pos + 12:pos + 12 + length]):
            first_bad = i
    return {"frames": r["frames"], "lengths": r["lengths"], "crcs": np.array(crcs, np.uint32),
            "next": r["next"], "status": r["status"], "status_offset": r["status_offset"],
            "first_bad": first_bad}
