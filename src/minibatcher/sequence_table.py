"""The sequence table: what the engine knows of a deserializer's data before parsing
(each sequence's key and budget length, and the chunk boundaries), and the check of
a sequence index into it. See :mod:`minibatcher.deserializer` for the contract.

Example:
    >>> t = SequenceTable(np.array([7, 9, 4], np.uint64), np.array([2, 3, 1]), np.array([0, 2, 3]))
    >>> t.num_sequences, t.chunk_sequences().tolist(), t.chunk_of(2)
    (3, [2, 1], 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import FormatError

__all__ = ["SequenceTable", "check_sequence_index"]


@dataclass(frozen=True)
class SequenceTable:
    """What the engine knows before parsing: per sequence its key and budget
    length, and the chunk boundaries (``chunk_starts[c]`` is the first
    sequence of chunk ``c``; the last entry is the number of sequences).

    Example:
        >>> t = SequenceTable(np.array([7, 9], np.uint64), np.array([2, 3]), np.array([0, 1, 2]))
        >>> t.num_chunks, t.num_samples, t.chunk_samples().tolist()
        (2, 5, [2, 3])
    """

    keys: np.ndarray
    lengths: np.ndarray
    chunk_starts: np.ndarray

    def __post_init__(self) -> None:
        if len(self.keys) != len(self.lengths) or self.chunk_starts[-1] != len(self.keys):
            raise FormatError("sequence table is inconsistent: keys, lengths and chunks disagree")

    @property
    def num_sequences(self) -> int:
        """Number of sequences in a sweep.

        Example:
            >>> SequenceTable(np.zeros(1, np.uint64), np.ones(1), np.array([0, 1])).num_sequences
            1
        """
        return len(self.keys)

    @property
    def num_chunks(self) -> int:
        """Number of chunks.

        Example:
            >>> SequenceTable(np.zeros(0, np.uint64), np.zeros(0), np.array([0])).num_chunks
            0
        """
        return len(self.chunk_starts) - 1

    @property
    def num_samples(self) -> int:
        """Samples in a sweep (sum of budget lengths).

        Example:
            >>> SequenceTable(np.zeros(2, np.uint64), np.array([1, 4]), np.array([0, 2])).num_samples
            5
        """
        return int(self.lengths.sum())

    def chunk_sequences(self) -> np.ndarray:
        """Sequences per chunk.

        Example:
            >>> SequenceTable(np.zeros(3, np.uint64), np.ones(3), np.array([0, 1, 3])).chunk_sequences().tolist()
            [1, 2]
        """
        return np.diff(self.chunk_starts)

    def chunk_samples(self) -> np.ndarray:
        """Budget samples per chunk.

        Example:
            >>> SequenceTable(np.zeros(3, np.uint64), np.array([1, 2, 3]), np.array([0, 1, 3])).chunk_samples().tolist()
            [1, 5]
        """
        prefix = np.concatenate([[0], np.cumsum(self.lengths, dtype=np.int64)])
        return prefix[self.chunk_starts[1:]] - prefix[self.chunk_starts[:-1]]

    def chunk_of(self, sequence: np.ndarray | int) -> np.ndarray | int:
        """The chunk holding each original sequence index.

        Example:
            >>> SequenceTable(np.zeros(3, np.uint64), np.ones(3), np.array([0, 1, 3])).chunk_of(2)
            1
        """
        found = np.searchsorted(self.chunk_starts, sequence, side="right") - 1
        return int(found) if np.ndim(found) == 0 else found


def check_sequence_index(sequence: Any, count: int, method: str = "key_name") -> int:
    """``sequence`` as an index into a table of ``count`` sequences, or an
    IndexError that points a caller holding a key (``MinibatchData.keys``) to
    :meth:`~minibatcher.deserializer.Deserializer.key_names`.

    Example:
        >>> check_sequence_index(8169491770928374175, 2)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        IndexError: key_name takes a sequence index in [0, 2), but got 8169491770928374175; ...
    """
    i = int(sequence)
    if not 0 <= i < count:
        raise IndexError(f"{method} takes a sequence index in [0, {count}), but got {i}; for "
                         "the name of a key (MinibatchData.keys) use key_names([key]), or the "
                         "minibatch's names (mb[stream].names)")
    return i
