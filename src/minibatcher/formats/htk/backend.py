"""Choice between the native HTK/MLF core and the pure-Python reference.

Both expose ``parse_scp(data, prefix, scp_dir)``, ``parse_mlf(data, states,
label_dim)``, ``read_headers(fds, sizes, verify_crc)`` and
``read_frames(fds, header_of, first, count, data_start, available,
sample_size, kind, swap, a, b, dim, is_double)`` with identical results.

The native ``read_frames`` allocates its output (a chunk's frames) from a pool of
mapped blocks that belongs to the kernels ``backend`` returned: a reader makes its
kernels once, so a chunk it drops leaves its pages for the next one, and the
memory goes back to the system when the reader and its chunks are gone
(docs/design/htk-context-and-frames.md).

Example:
    >>> backend("python").parse_scp(b"x.htk\\n", "", "")["paths"]
    [b'x.htk']
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from ...errors import ConfigError
from . import reference

IMPLEMENTATIONS = ("native", "python")


def _bytes(data: Any) -> np.ndarray:
    if isinstance(data, np.ndarray) and data.dtype == np.uint8:
        return data
    return np.frombuffer(data, dtype=np.uint8)


def _native(keep: int) -> SimpleNamespace:
    from ... import _native as n

    pool = n.BufferPool(keep)

    def read_frames(fds: Any, header_of: Any, first: Any, count: Any, data_start: Any,
                    available: Any, sample_size: Any, kind: Any, swap: Any, a: list, b: list,
                    dim: int, is_double: bool) -> Any:
        i64 = [np.ascontiguousarray(x, dtype=np.int64)
               for x in (fds, header_of, first, count, data_start, available)]
        # mapped, from the pool: a dropped chunk's pages serve the next chunk or go back to
        # the system (never into glibc's heap, where later small blocks would pin them)
        out = pool.empty(int(i64[3].sum()) * int(dim), "float64" if is_double else "float32")
        failure = n.htk_read_frames(*i64, np.ascontiguousarray(sample_size, dtype=np.int32),
                                    np.ascontiguousarray(kind, dtype=np.int32),
                                    np.ascontiguousarray(swap, dtype=np.uint8),
                                    [np.ascontiguousarray(v, dtype=np.float32) for v in a],
                                    [np.ascontiguousarray(v, dtype=np.float32) for v in b],
                                    int(dim), bool(is_double), out)
        return out if failure is None else failure

    return SimpleNamespace(
        parse_scp=lambda data, prefix, scp_dir: n.htk_parse_scp(_bytes(data), prefix, scp_dir),
        parse_mlf=lambda data, states, label_dim: n.htk_parse_mlf(
            _bytes(data), None if states is None else list(states), int(label_dim)),
        read_headers=lambda fds, sizes, verify: n.htk_read_headers(
            np.ascontiguousarray(fds, dtype=np.int64), np.ascontiguousarray(sizes, dtype=np.int64),
            bool(verify)),
        read_frames=read_frames)


def _python() -> SimpleNamespace:
    def parse_scp(data: Any, prefix: str, scp_dir: str) -> dict[str, Any]:
        return reference.parse_scp(bytes(data), prefix, scp_dir)

    def parse_mlf(data: Any, states: Any, label_dim: int) -> dict[str, Any]:
        return reference.parse_mlf(bytes(data), states, label_dim)

    def read_headers(fds: Any, sizes: Any, verify: bool) -> dict[str, Any]:
        return reference.read_headers(np.asarray(fds, dtype=np.int64),
                                      np.asarray(sizes, dtype=np.int64), verify)

    def read_frames(*args: Any) -> Any:
        return reference.read_frames(*[np.asarray(a) if i < 9 else a for i, a in enumerate(args)])

    return SimpleNamespace(parse_scp=parse_scp, parse_mlf=parse_mlf, read_headers=read_headers,
                           read_frames=read_frames)


def backend(impl: str, *, keep: int = 0) -> SimpleNamespace:
    """The kernels of ``impl`` (``"native"`` or ``"python"``).

    ``keep``: how many freed chunk arrays of ``read_frames`` the native kernels keep
    mapped for their next calls (0: each is unmapped when dropped); the Python
    reference allocates with NumPy and ignores it.

    Example:
        >>> backend("native", keep=2).parse_scp(b"x.htk\\n", "", "")["paths"]
        [b'x.htk']
        >>> backend("native", keep=9)
        Traceback (most recent call last):
        ...
        ValueError: keep should be in [0, 8], but got keep=9
        >>> backend("cobol")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: impl should be one of 'native', 'python', but got ...
    """
    if impl == "native":
        return _native(keep)
    if impl == "python":
        return _python()
    valid = ", ".join(repr(i) for i in IMPLEMENTATIONS)
    raise ConfigError(f"impl should be one of {valid}, but got impl={impl!r}")
