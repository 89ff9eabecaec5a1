"""HTK parameter files: kind names, a writer, and a whole-file reader.

``write_htk`` writes what CNTK and HTK read (big-endian by default, float32,
optionally ``_C`` compressed and/or with the ``_K`` checksum); ``read_htk``
reads a whole file through the same core as the deserializer.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.htk"
    >>> write_htk(p, np.arange(6, dtype=np.float32).reshape(3, 2), kind="MFCC_E_K")
    >>> frames, info = read_htk(p)
    >>> frames.tolist(), info.kind_name, info.period
    ([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], 'MFCC_E_K', 100000)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import ConfigError, FormatError
from ..guarded_file import GuardedFile
from . import reference
from .backend import backend
from .codes import HeaderIssue

BASE_KINDS = {0: "WAVEFORM", 1: "LPC", 2: "LPREFC", 3: "LPCEPSTRA", 4: "LPDELCEP", 5: "IREFC",
              6: "MFCC", 7: "FBANK", 8: "MELSPEC", 9: "USER", 10: "DISCRETE", 11: "PLP",
              12: "FESTREAM"}
QUALIFIERS = (("_E", 0o100), ("_N", 0o200), ("_D", 0o400), ("_A", 0o1000), ("_C", 0o2000),
              ("_Z", 0o4000), ("_K", 0o10000), ("_0", 0o20000), ("_V", 0o40000),
              ("_T", 0o100000))
SUPPORTED = "MFCC, FBANK, USER, PLP and FESTREAM"


def kind_name(kind: int) -> str:
    """HTK's name of a parameter kind with its qualifiers.

    Example:
        >>> kind_name(6 | 0o100 | 0o400 | 0o2000)
        'MFCC_E_D_C'
    """
    base = BASE_KINDS.get(kind & 0o77, f"kind {kind & 0o77}")
    return base + "".join(q for q, bit in QUALIFIERS if kind & bit)


def kind_code(name: str) -> int:
    """The parmKind of a name like ``"MFCC_E_D_A"``.

    Example:
        >>> kind_code("USER_K") == 9 | 0o10000
        True
    """
    base, *quals = name.upper().split("_")
    codes = {v: k for k, v in BASE_KINDS.items()}
    bits = dict(QUALIFIERS)
    if base not in codes or any(f"_{q}" not in bits for q in quals):
        raise ConfigError(f"kind should be an HTK kind like 'MFCC_E_D', but got kind={name!r}")
    return codes[base] | sum(bits[f"_{q}"] for q in quals)


@dataclass(frozen=True)
class HTKInfo:
    """A file's header: frames, period (100 ns), kind, dim, byte order, checksum.

    Example:
        >>> HTKInfo(3, 100000, 9, 2, True, 12).kind_name
        'USER'
    """

    frames: int
    period: int
    kind: int
    dim: int
    big_endian: bool
    data_start: int

    @property
    def kind_name(self) -> str:
        """The kind with its qualifiers (``MFCC_E_D_A``)."""
        return kind_name(self.kind)


def write_htk(path: str | os.PathLike, frames: np.ndarray, *, period: int = 100000,
              kind: str | int = "USER", big_endian: bool = True) -> None:
    """Writes an HTK parameter file (``_C`` compresses to int16, ``_K`` appends the checksum).

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.htk"
        >>> write_htk(p, np.array([[0.0, 1.0], [1.0, 3.0]], np.float32), kind="FBANK_C")
        >>> np.round(read_htk(p)[0], 3).tolist()
        [[0.0, 1.0], [1.0, 3.0]]
    """
    frames = np.asarray(frames, dtype=np.float32)
    if frames.ndim != 2 or frames.shape[1] == 0:
        raise ConfigError(f"frames should be a (frames, dim) array, but got shape {frames.shape}")
    code = kind_code(kind) if isinstance(kind, str) else int(kind)
    order = ">" if big_endian else "<"
    n, dim = frames.shape
    if code & reference.COMPRESSED:
        body, header_frames, sample_size = _compressed(frames, order), n + 4, 2 * dim
    else:
        body, header_frames, sample_size = frames.astype(order + "f4").tobytes(), n, 4 * dim
    header = np.array([(header_frames, period, sample_size, code)],
                      dtype=[("n", order + "i4"), ("p", order + "i4"), ("s", order + "u2"),
                             ("k", order + "u2")]).tobytes()
    if code == reference.FESTREAM:
        header += bytes(16)
    if code & reference.HAS_CRC:
        body += np.array([reference.crc(body, big_endian)], dtype=order + "u2").tobytes()
    Path(path).write_bytes(header + body)


def _compressed(frames: np.ndarray, order: str) -> bytes:
    """HTK's ``_C`` body: the A and B vectors, then ``round(x * A - B)`` as int16 per value
    (a constant column gets A = 1, B = its value)."""
    lo, hi = frames.min(axis=0), frames.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1).astype(np.float32)
    a = np.where(hi > lo, np.float32(2 * 32767) / span, 1).astype(np.float32)
    b = np.where(hi > lo, (hi + lo) * np.float32(32767) / span, hi).astype(np.float32)
    shorts = np.round(frames * a - b).clip(-32767, 32767).astype(order + "i2")
    return np.concatenate([a, b]).astype(order + "f4").tobytes() + shorts.tobytes()


def read_htk(path: str | os.PathLike, *, precision: str = "float",
             impl: str = "native") -> tuple[np.ndarray, HTKInfo]:
    """A whole HTK file as ``(frames, info)``; the ``_K`` checksum is verified.

    Example:
        >>> read_htk("/no/such.htk")
        Traceback (most recent call last):
        ...
        FileNotFoundError: [Errno 2] No such file or directory: '/no/such.htk'
    """
    kernels = backend(impl)
    with GuardedFile(path, what="HTK file") as f:
        fd, size = f.fileno(), f.size
        h = kernels.read_headers(np.array([fd]), np.array([size]), True)
        issue = int(h["issue"][0])
        problem = describe_header_issue(h, 0) if issue else bad_scale(h, 0)
        if problem is not None:
            raise FormatError(f"{path}: {problem}")
        dim, n = int(h["dim"][0]), int(h["samples"][0])
        out = kernels.read_frames(np.array([fd]), np.array([0]), np.array([0]), np.array([n]),
                                  h["data_start"], h["available"], h["sample_size"], h["kind"],
                                  h["swap"], h["a"], h["b"], dim, precision == "double")
        f.check()  # a change that overlapped the read: never mixed data
    if isinstance(out, dict):
        raise FormatError(f"{path}: the file changed or could not be read while reading it")
    big_endian = bool(h["swap"][0]) == np.little_endian
    info = HTKInfo(n, int(h["period"][0]), int(h["kind"][0]), dim, big_endian,
                   int(h["data_start"][0]))
    return out.reshape(n, dim), info


def bad_scale(h: dict, i: int) -> str | None:
    """Why header ``i``'s ``_C`` scale vector (A) cannot decode the file (a value ``x`` is
    stored as ``x * A - B``: a zero or non-finite A would decode to inf or nan), or None.

    Example:
        >>> h = {"kind": [9 | 0o2000], "a": [np.array([2.0, 0.0], np.float32)]}
        >>> print(bad_scale(h, 0).replace("; ", ";\\n"))
        the _C (compressed) file has a scale (A) of 0.0 for value 1 of 2;
        expected a finite non-zero scale for every value (the file is corrupt)
        >>> bad_scale({"kind": [9], "a": [np.zeros(0, np.float32)]}, 0) is None
        True
    """
    a = np.asarray(h["a"][i])
    if not int(h["kind"][i]) & reference.COMPRESSED or not a.size:
        return None
    bad = np.flatnonzero((a == 0) | ~np.isfinite(a))
    if not len(bad):
        return None
    k = int(bad[0])
    return (f"the _C (compressed) file has a scale (A) of {float(a[k])} for value {k} of "
            f"{a.size}; expected a finite non-zero scale for every value (the file is corrupt)")


def describe_header_issue(h: dict, i: int) -> str:
    """What is wrong with header ``i`` of a ``read_headers`` result, in words.

    Example:
        >>> describe_header_issue({"issue": [2], "kind": [10]}, 0)[:45]
        'parameter kind DISCRETE (10) is not supported'
    """
    issue, kind = int(h["issue"][i]), int(h["kind"][i])
    if issue == HeaderIssue.TOO_SHORT:
        return "the file is too short for an HTK header"
    if issue == HeaderIssue.UNSUPPORTED_KIND:
        return (f"parameter kind {kind_name(kind & 0o77)} ({kind & 0o77}) is not supported; "
                f"expected {SUPPORTED} features")
    if issue == HeaderIssue.VQ:
        return f"vector-quantized files (_V, kind {kind_name(kind)}) are not supported"
    if issue == HeaderIssue.BAD_SAMPLE_SIZE:
        size = "2 bytes, _C" if kind & reference.COMPRESSED else "4 bytes, float32"
        return (f"sample size {int(h['sample_size'][i])} bytes is not a positive multiple of the "
                f"value size ({size})")
    if issue == HeaderIssue.BAD_SAMPLE_COUNT:
        return f"the header's sample count is negative ({int(h['samples'][i])})"
    if issue == HeaderIssue.TRUNCATED:
        return (f"the file is truncated: its header promises {int(h['samples'][i])} frames, but "
                f"only {int(h['available'][i])} are present")
    if issue == HeaderIssue.BAD_CRC:
        return (f"the _K checksum does not match: stored {int(h['crc_stored'][i])}, computed "
                f"{int(h['crc_computed'][i])} (the file is corrupt)")
    return "the file could not be read"
