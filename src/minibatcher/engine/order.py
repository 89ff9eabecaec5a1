"""Sweep orders: which sequence sits at each position of a sweep.

An order is a pure function ``(table, seed, sweep) -> SweepPlan``; nothing
about it depends on what was read before, so any position can be reached by
computing its sweep's plan and seeking (docs/design/order-and-timeline.md).

* :class:`FileOrder`: CNTK's ``NoRandomizer`` (chunks and sequences in file order).
* :class:`BlockRandomOrder`: CNTK's block randomizer, bit for bit (mt19937_64
  chunk shuffle + windowed sequence swaps, seed = ``seed + sweep``).

Example:
    >>> import numpy as np
    >>> from minibatcher.deserializer import SequenceTable
    >>> t = SequenceTable(np.arange(10, dtype=np.uint64), np.ones(10, np.int64), np.arange(0, 11, 2))
    >>> BlockRandomOrder(window=2**64 - 1, sample_based=True).plan(t, seed=0, sweep=0).sequences.tolist()
    [6, 3, 1, 5, 9, 0, 4, 2, 7, 8]
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..args import check_int
from ..deserializer import SequenceTable


@dataclass(frozen=True, eq=False)
class SweepPlan:
    """One sweep: the original sequence index at every position, the budget
    lengths in that order with their prefix sums, and each position's source
    chunk (its randomized chunk position: the unit of distribution).

    Example:
        >>> p = SweepPlan.of(np.array([1, 0]), np.array([2, 3]), np.array([0, 0], np.int32))
        >>> p.prefix.tolist(), p.num_samples, p.position_of_sample(2)
        ([0, 3, 5], 5, 1)
    """

    sequences: np.ndarray
    lengths: np.ndarray
    prefix: np.ndarray
    source_chunk: np.ndarray

    @classmethod
    def of(cls, sequences: np.ndarray, table_lengths: np.ndarray,
           source_chunk: np.ndarray) -> "SweepPlan":
        """Builds a plan from the order and the table's lengths (in file order).

        Example:
            >>> SweepPlan.of(np.array([0]), np.array([4]), np.zeros(1, np.int32)).num_samples
            4
        """
        index = np.int32 if len(sequences) < 2**31 else np.int64  # plans are O(sequences)
        sequences = np.asarray(sequences).astype(index, copy=False)
        lengths = np.asarray(table_lengths)[sequences]
        prefix = np.zeros(len(sequences) + 1, dtype=np.int64)
        np.cumsum(lengths, out=prefix[1:])
        return cls(sequences, lengths, prefix, np.asarray(source_chunk, dtype=np.int32))

    @property
    def num_sequences(self) -> int:
        """Positions in the sweep."""
        return len(self.sequences)

    @property
    def num_samples(self) -> int:
        """Samples in the sweep."""
        return int(self.prefix[-1])

    def position_of_sample(self, offset: int) -> int:
        """The first position whose sequence starts at or after ``offset``
        (CNTK's seek rule: a sequence straddling the offset is skipped).

        Example:
            >>> SweepPlan.of(np.array([0, 1]), np.array([2, 2]), np.zeros(2, np.int32)).position_of_sample(1)
            1
        """
        return int(self.prefix.searchsorted(offset, side="left"))

    def sample_at(self, position: int) -> int:
        """Where the sequence at ``position`` starts in the sweep (``prefix[position]``)."""
        return int(self.prefix[position])

    def length_at(self, position: int) -> int:
        """The budget length of the sequence at ``position``."""
        return int(self.lengths[position])


class Order(abc.ABC):
    """A pure ``(table, seed, sweep) -> SweepPlan`` function.

    Example:
        >>> FileOrder().describe()
        {'order': 'file'}
    """

    randomized: bool = False

    @abc.abstractmethod
    def plan(self, table: SequenceTable, seed: int, sweep: int) -> SweepPlan:
        """The plan of ``sweep``."""

    @abc.abstractmethod
    def describe(self) -> dict[str, Any]:
        """Small JSON-able description (part of the checkpoint fingerprint)."""


class FileOrder(Order):
    """Chunks and sequences in file order (CNTK's ``NoRandomizer``).

    Example:
        >>> t = SequenceTable(np.zeros(3, np.uint64), np.ones(3, np.int64), np.array([0, 2, 3]))
        >>> FileOrder().plan(t, 0, 5).sequences.tolist()
        [0, 1, 2]
    """

    def plan(self, table: SequenceTable, seed: int, sweep: int) -> SweepPlan:
        n = table.num_sequences
        chunk = np.repeat(np.arange(table.num_chunks, dtype=np.int32), table.chunk_sequences())
        return SweepPlan.of(np.arange(n), table.lengths, chunk)

    def describe(self) -> dict[str, Any]:
        return {"order": "file"}


class BlockRandomOrder(Order):
    """CNTK's block randomizer (``BlockRandomizer``), bit for bit.

    ``window`` counts samples when ``sample_based`` else chunks; the seed of
    sweep ``s`` is ``seed + s`` (64-bit on every platform).

    Example:
        >>> BlockRandomOrder(window=0, sample_based=False)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option window should be a positive randomization window, but got window=0; use randomize=False to read in file order
    """

    randomized = True

    def __init__(self, window: int, sample_based: bool) -> None:
        window = check_int("window", window, 1, expected="a positive randomization window",
                           advice="use randomize=False to read in file order")
        self.window = min(window, 2**64 - 1)
        self.sample_based = bool(sample_based)

    def plan(self, table: SequenceTable, seed: int, sweep: int) -> SweepPlan:
        from .. import _native

        out = _native.block_randomize(table.chunk_sequences().astype(np.int64),
                                      table.chunk_samples().astype(np.int64), self.window,
                                      self.sample_based, (int(seed) + int(sweep)) % 2**64)
        return SweepPlan.of(out["sequences"], table.lengths, out["source_chunk"])

    def describe(self) -> dict[str, Any]:
        unit = "samples" if self.sample_based else "chunks"
        return {"order": "block_random", "window": self.window, "unit": unit}
