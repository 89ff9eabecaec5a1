"""CRC-32C and TensorFlow's masked CRC, as TFRecord framing uses them.

The native core computes CRC-32C with the CPU's instruction (SSE4.2 on x86,
the CRC extension on ARMv8) and a portable slicing-by-8 table otherwise
(docs/design/tfrecord-crc-and-example.md says why it is not a library call).

Example:
    >>> hex(crc32c(b"123456789")), hex(masked_crc32c(b"123456789")), hex(masked_crc32c(b""))
    ('0xe3069283', '0xc78ab0e5', '0xa282ead8')
"""

from __future__ import annotations

from ... import _native

_MASK_DELTA = 0xA282EAD8


def crc32c(data: bytes | bytearray | memoryview, initial: int = 0) -> int:
    """CRC-32C (Castagnoli) of ``data``, extending ``initial``.

    Example:
        >>> crc32c(b"6789", crc32c(b"12345")) == crc32c(b"123456789")
        True
    """
    return int(_native.crc32c(data, initial))


def mask(crc: int) -> int:
    """TensorFlow's masking of a CRC: rotate right by 15 bits, add a constant.

    Example:
        >>> hex(mask(0xE3069283))
        '0xc78ab0e5'
    """
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    """The inverse of :func:`mask`.

    Example:
        >>> unmask(mask(12345))
        12345
    """
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def masked_crc32c(data: bytes | bytearray | memoryview) -> int:
    """The masked CRC-32C stored in TFRecord frames.

    Example:
        >>> hex(masked_crc32c(b"hello"))
        '0x191c1fbb'
    """
    return mask(crc32c(data))
