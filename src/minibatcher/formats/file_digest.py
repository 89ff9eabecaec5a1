"""Checkpoint fingerprints of files: their size and a digest of their content.

One rule for every file a reader depends on (docs/design/guarded-files.md):
where the reader's index pass reads the whole file anyway (text lines, the
frames of a TFRecord file) the digest covers the whole content, so a
same-size edit anywhere is refused on restore; elsewhere (HTK archives,
whose index reads only their headers) it covers the first and last 64 KiB.
Paths and times are not part of it: a copied dataset keeps its checkpoints
valid when its bytes are the same.

* :class:`ContentDigest`: bytes fed in order, however they are split (CRC-32C
  per MiB at hardware speed, folded into BLAKE2b).
* :func:`ends_digest`: the first and last 64 KiB of a file.
* :func:`file_fingerprint`: the JSON-able ``[size, digest]`` of a checkpoint.

Example:
    >>> a, b = ContentDigest(), ContentDigest()
    >>> a.update(b"hello "); a.update(b"world"); b.update(b"hello world")
    >>> a.hexdigest() == b.hexdigest() != ContentDigest().hexdigest(), a.size
    (True, 11)
    >>> file_fingerprint(11, a.hexdigest()) == [11, a.hexdigest()]
    True
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable

ENDS = 1 << 16
_BLOCK = 1 << 20


def _crc32c(data: Any, initial: int) -> int:
    from .. import _native

    return int(_native.crc32c(data, initial))


class ContentDigest:
    """A digest of bytes fed in order; how they are split does not matter.

    Each 1 MiB block (by offset) gets a CRC-32C (the CPU's instruction: about
    9 GB/s, cheap next to any index pass); the block CRCs and the total size go
    into a BLAKE2b digest. An edit inside a block changes the digest unless it
    keeps the block's CRC (one chance in 2**32).

    Example:
        >>> d = ContentDigest(); d.update(bytes(3 << 20)); d.size, len(d.hexdigest())
        (3145728, 32)
    """

    def __init__(self) -> None:
        self._blocks = hashlib.blake2b(digest_size=16)
        self._crc = 0
        self._fill = 0
        self.size = 0

    def update(self, data: Any) -> None:
        """Feeds the next bytes (``bytes``, a memoryview or a uint8 array)."""
        view = memoryview(data).cast("B")
        while len(view):
            n = min(len(view), _BLOCK - self._fill)
            self._crc = _crc32c(view[:n], self._crc)
            self._fill += n
            self.size += n
            view = view[n:]
            if self._fill == _BLOCK:
                self._blocks.update(self._crc.to_bytes(4, "little"))
                self._crc, self._fill = 0, 0

    def hexdigest(self) -> str:
        """The digest of everything fed so far (feeding may go on)."""
        h = self._blocks.copy()
        h.update(self._crc.to_bytes(4, "little") + self.size.to_bytes(8, "little"))
        return h.hexdigest()


def content_digest(data: Any) -> str:
    """:class:`ContentDigest` of ``data`` in one go.

    Example:
        >>> content_digest(b"ab") == content_digest(bytearray(b"ab")) != content_digest(b"ba")
        True
    """
    d = ContentDigest()
    d.update(data)
    return d.hexdigest()


def ends_digest(read: Callable[[int, int], Any], size: int) -> str:
    """A digest of the first and last 64 KiB of a file of ``size`` bytes;
    ``read(start, stop)`` gives its bytes (the CTF index cache's probe).

    Example:
        >>> data = bytes(range(256)) * 1000
        >>> ends_digest(lambda a, b: data[a:b], len(data)) == ends_digest(  # a middle edit
        ...     lambda a, b: (data[:100_000] + b"!" + data[100_001:])[a:b], len(data))
        True
    """
    digest = hashlib.blake2b(digest_size=16)
    digest.update(bytes(read(0, min(ENDS, size))))
    if size > ENDS:
        digest.update(bytes(read(max(ENDS, size - ENDS), size)))
    return digest.hexdigest()


def file_fingerprint(size: int, digest: str) -> list[Any]:
    """The JSON-able identity a checkpoint keeps of a file: ``[size, digest]``.

    Example:
        >>> file_fingerprint(3, "ab")
        [3, 'ab']
    """
    return [int(size), str(digest)]

