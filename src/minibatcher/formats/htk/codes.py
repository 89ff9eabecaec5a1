"""The named result codes of the HTK core: the C++ ``enum class`` values (``cpp/htk/*.h``)
as Python enums, and HTK's parameter kind bits, so no reader compares with bare numbers.

``tests/formats/htk/test_codes.py`` checks every name and value against the C++ headers.

Example:
    >>> HeaderIssue.TRUNCATED == 6, ReadFailure(3).name, MlfIssue.NO_LABELS.value
    (True, 'OUT_OF_RANGE', 13)
    >>> kind_base(FESTREAM | COMPRESSED), bool((9 | HAS_CRC) & COMPRESSED)
    (12, False)
"""

from __future__ import annotations

import enum

__all__ = ["COMPRESSED", "FESTREAM", "HAS_CRC", "HAS_VQ", "QUALIFIER_BITS", "HeaderIssue",
           "MlfIssue", "ReadFailure", "ScpIssue", "kind_base"]

COMPRESSED = 0o2000   # _C: int16 values with a scale (A) and an offset (B) per value
HAS_CRC = 0o10000     # _K: a checksum after the frames
HAS_VQ = 0o40000      # _V: vector-quantized (not supported)
FESTREAM = 12         # a base kind with a 16-byte GUID after the header
QUALIFIER_BITS = 0o77  # the base kind is parmKind & 0o77; the rest are qualifiers


def kind_base(kind: int) -> int:
    """The base parameter kind of a parmKind (its qualifiers removed).

    Example:
        >>> kind_base(6 | 0o100 | COMPRESSED)
        6
    """
    return int(kind) & QUALIFIER_BITS


class HeaderIssue(enum.IntEnum):
    """Why an HTK file header cannot be used; values equal ``mb::htk::HeaderIssue``.

    Example:
        >>> HeaderIssue(7).name, HeaderIssue.TRUNCATED.skips_only_the_missing_part
        ('BAD_CRC', True)
    """

    NONE = 0
    TOO_SHORT = 1
    UNSUPPORTED_KIND = 2
    VQ = 3
    BAD_SAMPLE_SIZE = 4
    BAD_SAMPLE_COUNT = 5
    TRUNCATED = 6
    BAD_CRC = 7
    READ_ERROR = 8

    @property
    def skips_only_the_missing_part(self) -> bool:
        """A truncated file is usable up to its last whole frame (the utterances reaching
        past it are skipped); every other issue makes the whole file unusable."""
        return self is HeaderIssue.TRUNCATED


class ReadFailure(enum.IntEnum):
    """Why a frame read failed; values equal ``mb::htk::ReadFailure`` (``ReadError.code``).

    Example:
        >>> ReadFailure.SHORT_READ.value, ReadFailure(2).name
        (1, 'IO_ERROR')
    """

    NONE = 0
    SHORT_READ = 1    # the file ended early: it shrank since it was indexed
    IO_ERROR = 2      # pread failed (errno says why)
    OUT_OF_RANGE = 3  # a range outside the file's frames: a caller's bug


class ScpIssue(enum.IntEnum):
    """What is wrong with an SCP line; values equal ``mb::htk::ScpIssue``.

    Example:
        >>> ScpIssue.START_AFTER_END.value
        6
    """

    NONE = 0
    MISSING_COMMA = 1
    MISSING_BRACKET = 2
    TRAILING_TEXT = 3
    BAD_START = 4
    BAD_END = 5
    START_AFTER_END = 6
    EMPTY_NAME = 7
    EMPTY_PATH = 8
    IDX_FILE = 9


class MlfIssue(enum.IntEnum):
    """What is wrong with an MLF entry; values equal ``mb::htk::MlfIssue``.

    Example:
        >>> MlfIssue(6).name
        'GAP'
    """

    NONE = 0
    NO_HEADER = 1
    BAD_NAME = 2
    TOO_FEW_COLUMNS = 3
    BAD_TIME = 4
    END_BEFORE_START = 5
    GAP = 6
    OVERLAP = 7
    FIRST_FRAME = 8
    UNKNOWN_LABEL = 9
    BAD_CLASS_ID = 10
    CLASS_ID_TOO_LARGE = 11
    COLUMN_COUNT = 12
    NO_LABELS = 13
    UNTERMINATED = 14
    TOO_LONG = 15
