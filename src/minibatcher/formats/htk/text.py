"""Sequence keys shared by SCP and MLF files, and the line rules of both.

A logical name's key is the name up to its last ``.`` (CNTK's rule, which may
cross ``/``); keys are joined between files through a 64-bit hash that the
native core and this reference compute identically.

Example:
    >>> strip_extension("An4/71/71/cen5-fjam-b.mfc"), strip_extension("noext")
    ('An4/71/71/cen5-fjam-b', 'noext')
    >>> key_hash("a") == key_hash("a") != key_hash("b")
    True
"""

from __future__ import annotations

from typing import Iterator

_MASK = (1 << 64) - 1


def key_hash(key: str | bytes) -> int:
    """FNV-1a over the UTF-8 bytes, then the splitmix64 finalizer.

    Example:
        >>> key_hash("")
        17665956581633026203
    """
    h = 0xCBF29CE484222325
    for c in key.encode("utf-8") if isinstance(key, str) else key:
        h = ((h ^ c) * 0x100000001B3) & _MASK
    h ^= h >> 30
    h = (h * 0xBF58476D1CE4E5B9) & _MASK
    h ^= h >> 27
    h = (h * 0x94D049BB133111EB) & _MASK
    return h ^ (h >> 31)


def strip_extension(name: str) -> str:
    """The key of a logical name (everything before its last ``.``).

    Example:
        >>> strip_extension("a.b/c")
        'a'
    """
    dot = name.rfind(".")
    return name if dot < 0 else name[:dot]


def lines(data: bytes) -> Iterator[tuple[int, int, bytes]]:
    """``(line number, byte offset, line)`` for lines ended by LF, CRLF or a lone CR.

    Example:
        >>> list(lines(b"a\\r\\nb\\rc"))
        [(1, 0, b'a'), (2, 3, b'b'), (3, 5, b'c')]
    """
    pos, number, size = 0, 0, len(data)
    while pos < size:
        start = end = pos
        while end < size and data[end] not in (10, 13):
            end += 1
        pos = end
        if pos < size:
            pos += 1
            if data[end] == 13 and pos < size and data[pos] == 10:
                pos += 1
        number += 1
        yield number, start, data[start:end]


def rstrip(line: bytes) -> bytes:
    """Removes trailing spaces, tabs and carriage returns.

    Example:
        >>> rstrip(b"x \\t\\r")
        b'x'
    """
    return line.rstrip(b" \t\r")


UTF8_BOM = b"\xef\xbb\xbf"


def strip_bom(data: bytes) -> bytes:
    """``data`` without a leading UTF-8 byte order mark (editors on Windows write one; it is
    not part of the first SCP key or of the MLF header). Line numbers are unchanged; byte
    offsets in messages then count from after the mark.

    Example:
        >>> strip_bom(b"\\xef\\xbb\\xbf#!MLF!#\\n"), strip_bom(b"u.mfc=a.htk\\n")
        (b'#!MLF!#\\n', b'u.mfc=a.htk\\n')
    """
    return data[len(UTF8_BOM):] if data.startswith(UTF8_BOM) else data
