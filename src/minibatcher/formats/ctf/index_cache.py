"""Index cache: the CTF index stored next to the data file.

A cache is used only when its format version, the data file's identity
(size, modification time, inode, status-change time and a digest of its
first and last 64 KiB) and every index-affecting option match; anything else
(stale, foreign, truncated, corrupt, or a copy of the data made with
``cp -p`` or ``tar``, which keeps the modification time but not the inode) is
ignored with a warning and rebuilt. The status-change time cannot be set
back, so an edit that keeps the size and restores the modification time is
caught too. The cache is read into memory with ``pread`` (never mapped: a
cache rewritten in place while in use must not crash the process). Writes are
atomic (temporary file + rename); when the data folder is read-only the cache
goes to ``$MINIBATCHER_CACHE_DIR`` or ``~/.cache/minibatcher``. See
docs/ctf-format.md, "Index cache".

Example:
    >>> import tempfile, pathlib
    >>> from ..guarded_file import GuardedFile
    >>> d = pathlib.Path(tempfile.mkdtemp()); f = d / "x.ctf"; _ = f.write_bytes(b"|a 1\\n")
    >>> from .index import build_ctf_index
    >>> idx = build_ctf_index(str(f), f.read_bytes(), skip_sequence_ids=False, main_alias="", impl="python")
    >>> opts = {"skip_sequence_ids": False, "main_alias": ""}
    >>> with GuardedFile(f) as data:
    ...     save_index(data, opts, idx) is not None, load_index(data, opts).keys.tolist()
    (True, [0])
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ...log import logger
from ..guarded_file import GuardedFile
from .index import ARRAY_FIELDS, CTFIndex

MAGIC = b"MBCTFIDX"
FORMAT_VERSION = 3  # 2: narrow integer arrays, named checksum; 3: inode and ctime


def _checksum(payload: bytes | memoryview, algorithm: str | None = None) -> list[Any]:
    """``[algorithm, value]``: xxh3 when the optional ``xxhash`` package is
    installed (about 10x faster), CRC-32 from zlib otherwise.

    Example:
        >>> _checksum(b"abc", "crc32")
        ['crc32', 891568578]
    """
    if algorithm in (None, "xxh3_64"):
        try:
            import xxhash
        except ImportError:
            if algorithm == "xxh3_64":
                raise ValueError("it was checksummed with xxh3 and xxhash is not installed") from None
        else:
            return ["xxh3_64", xxhash.xxh3_64_intdigest(payload)]
    return ["crc32", zlib.crc32(payload)]


def data_identity(file: GuardedFile) -> dict[str, Any]:
    """What a cache must match: size, modification time, inode, status-change
    time (as the file was opened) and a digest of its first and last 64 KiB
    (:meth:`GuardedFile.ends_digest`).

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "f"; _ = p.write_bytes(b"abc")
        >>> sorted(data_identity(GuardedFile(p)))
        ['ctime_ns', 'inode', 'mtime_ns', 'probe', 'size']
    """
    i = file.identity
    return {"size": i.size, "mtime_ns": i.mtime_ns, "inode": i.ino, "ctime_ns": i.ctime_ns,
            "probe": file.ends_digest()}


def _options_digest(options: dict[str, Any]) -> str:
    text = json.dumps(options, sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


def _user_cache_dir() -> Path:
    env = os.environ.get("MINIBATCHER_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "minibatcher"


def cache_candidates(path: Path, options: dict[str, Any]) -> list[Path]:
    """Where a cache for ``path`` and ``options`` may live, in lookup order.

    Example:
        >>> cache_candidates(Path("/d/x.ctf"), {})[0].name.startswith("x.ctf.")
        True
    """
    name = f"{path.name}.{_options_digest(options)}.mbidx"
    folder_key = hashlib.blake2b(str(path.resolve()).encode(), digest_size=8).hexdigest()
    return [path.with_name(name), _user_cache_dir() / f"{folder_key}-{name}"]


def _encode(identity: dict[str, Any], options: dict[str, Any], index: CTFIndex) -> bytes:
    arrays = index.arrays()
    payload = b"".join(np.ascontiguousarray(a).tobytes() for a in arrays.values())
    algorithm, checksum = _checksum(payload)
    header = {
        "data": identity,
        "options": options,
        "scalars": index.scalars(),
        "arrays": [[n, a.dtype.str, len(a)] for n, a in arrays.items()],
        "checksum": [algorithm, checksum],
    }
    blob = json.dumps(header, sort_keys=True).encode()
    blob += b" " * (-(len(blob) + 16) % 8)
    return MAGIC + struct.pack("<II", FORMAT_VERSION, len(blob)) + blob + payload


def _arrays(payload: memoryview, layout: list[list[Any]]) -> dict[str, np.ndarray]:
    arrays, at = {}, 0
    for name, dtype, length in layout:
        dtype = np.dtype(dtype)
        arrays[name] = np.frombuffer(payload, dtype=dtype, count=length, offset=at)
        at += dtype.itemsize * length
    if at != len(payload) or sorted(arrays) != sorted(ARRAY_FIELDS):
        raise ValueError("the arrays do not match the payload")
    return arrays


def _decode(raw: bytes | bytearray, identity: dict[str, Any], options: dict[str, Any]) -> CTFIndex:
    if raw[:8] != MAGIC:
        raise ValueError("not a minibatcher index cache")
    version, size = struct.unpack_from("<II", raw, 8)
    if version != FORMAT_VERSION:
        raise ValueError(f"format version {version}, expected {FORMAT_VERSION}")
    header = json.loads(raw[16:16 + size])
    if header["data"] != identity:
        changed = [k for k in sorted(identity) if header["data"].get(k) != identity[k]]
        raise ValueError("the data file is not the one the cache was written for (its "
                         f"{', '.join(changed)} differ: edited, replaced or copied since)")
    if header["options"] != options:
        raise ValueError("it was written with other index options")
    payload = memoryview(raw)[16 + size:]
    algorithm, expected = header["checksum"]
    if _checksum(payload, algorithm) != [algorithm, expected]:
        raise ValueError("checksum mismatch (corrupt or truncated)")
    arrays = _arrays(payload, header["arrays"])
    for array in arrays.values():
        array.flags.writeable = False
    return CTFIndex.from_parts(arrays, header["scalars"])


def _read(path: Path) -> bytearray:
    """The whole cache file, read with pread (a short read is a FileChangedError)."""
    with GuardedFile(path, what="index cache") as f:
        raw = bytearray(f.size)
        f.read_into(raw, 0)
        f.check()
        return raw


def load_index(file: GuardedFile, options: dict[str, Any]) -> CTFIndex | None:
    """A valid cached index of the open data ``file`` for ``options``, or None.
    The arrays are read-only and live in memory (no mapping of the cache).

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.ctf"; _ = p.write_bytes(b"|a 1\\n")
        >>> load_index(GuardedFile(p), {}) is None
        True
    """
    path = Path(file.path)
    candidates = [c for c in cache_candidates(path, options) if c.exists()]
    if not candidates:
        return None
    identity = data_identity(file)
    for candidate in candidates:
        try:
            return _decode(_read(candidate), identity, options)
        except (ValueError, KeyError, TypeError, AttributeError, struct.error, OSError) as e:
            logger.warning("ignoring the index cache %s: %s; rebuilding the index", candidate, e)
    return None


def _write_atomically(target: Path, blob: bytes, mode: int) -> bool:
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
        return True
    except OSError as e:
        logger.info("cannot write the index cache %s: %s", target, e)
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        return False


def save_index(file: GuardedFile, options: dict[str, Any], index: CTFIndex) -> Path | None:
    """Writes the cache of the open data ``file`` atomically; returns where, or
    None when no folder is writable.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.ctf"; _ = p.write_bytes(b"|a 1\\n")
        >>> f = GuardedFile(p); idx = load_index(f, {})
        >>> save_index(f, {}, idx) is None  # no index to save: nothing written
        True
    """
    if index is None:
        return None
    path = Path(file.path)
    try:
        blob = _encode(data_identity(file), options, index)
        mode = os.fstat(file.fileno()).st_mode & 0o666  # readable by whoever may read the data
    except OSError:
        return None
    for target in cache_candidates(path, options):
        if _write_atomically(target, blob, mode):
            return target
    logger.warning("could not write an index cache for %s anywhere; it will be rebuilt next time", path)
    return None
