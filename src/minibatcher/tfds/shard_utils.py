"""``tfds.core.utils.shard_utils``: which records of which shard files a read takes.

A :class:`FileInstruction` says "read ``take`` records of ``filename`` after skipping ``skip``";
``take=-1`` means "to the end of the shard" and is resolved when the instruction is made, as
TFDS does. :func:`get_file_instructions` cuts the examples ``[from_, to)`` of a split out of its
shards; :func:`get_shard_boundaries` and :class:`ShardConfig` are TFDS's rules for writing.

Example:
    >>> [(f.filename, f.skip, f.take) for f in get_file_instructions(3, 7, ["a", "b"], [5, 5])]
    [('a', 3, 2), ('b', 0, 2)]
    >>> FileInstruction("/d/a", 1, -1, 5)
    FileInstruction(filename='/d/a', skip=1, take=4, examples_in_shard=5)
"""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Any, Sequence

DEFAULT_MIN_SHARD_SIZE = 64 << 20
DEFAULT_MAX_SHARD_SIZE = 1024 << 20


@dataclasses.dataclass(frozen=True)
class FileInstruction:
    """Read ``take`` records of ``filename`` (a full path) after skipping ``skip``.

    ``take=-1`` reads to the end of the shard (``take`` becomes
    ``examples_in_shard - skip``). Any other negative ``take`` is kept as TFDS
    keeps it, and the reader then reads to the end of the shard too.

    Example:
        >>> fi = FileInstruction("/data/mnist/3.0.1/mnist-train.tfrecord-00000-of-00001", 0, -1, 9)
        >>> fi.take, fi.takes_all, fi.dirname(), fi.basename()
        (9, True, '/data/mnist/3.0.1', 'mnist-train.tfrecord-00000-of-00001')
        >>> FileInstruction("a", 0, 2, 1)
        Traceback (most recent call last):
        ...
        ValueError: skip (0) + take (2) should be <= examples_in_shard (1)!
    """

    filename: str
    skip: int
    take: int
    examples_in_shard: int

    def __post_init__(self) -> None:
        if self.take == -1:
            object.__setattr__(self, "take", self.examples_in_shard - self.skip)
        if self.examples_in_shard < 0:
            raise ValueError(f"examples_in_shard should be >= 0! Was {self.examples_in_shard}.")
        if self.skip < 0 or self.skip > self.examples_in_shard:
            raise ValueError(f"skip should be between 0 and {self.examples_in_shard}! "
                             f"Was {self.skip}.")
        if self.skip + self.take > self.examples_in_shard:
            raise ValueError(f"skip ({self.skip}) + take ({self.take}) should be <= "
                             f"examples_in_shard ({self.examples_in_shard})!")

    @property
    def takes_all(self) -> bool:
        """Whether every record after ``skip`` is read."""
        return self.skip + self.take == self.examples_in_shard

    @property
    def stop(self) -> int:
        """The position after the last record read (the end of the shard for a
        negative ``take``)."""
        return self.examples_in_shard if self.take < 0 else self.skip + self.take

    def dirname(self) -> str:
        """The folder of the file."""
        return os.path.dirname(self.filename)

    def basename(self) -> str:
        """The file name without its folder."""
        return os.path.basename(self.filename)

    def replace(self, **kwargs: Any) -> "FileInstruction":
        """A copy with some fields changed.

        Example:
            >>> FileInstruction("a", 0, -1, 4).replace(skip=3, take=-1).take
            1
        """
        return dataclasses.replace(self, **kwargs)


def get_file_instructions(from_: int, to: int, filenames: Sequence[str],
                          shard_lengths: Sequence[int],
                          examples_in_shards: Sequence[int] | None = None
                          ) -> list[FileInstruction]:
    """The instructions that read examples ``[from_, to)`` of shards holding
    ``shard_lengths`` examples (empty shards are passed over; a shard read to
    its end gets ``take=-1``). ``examples_in_shards`` gives the physical
    records per file when a shard's logical length is shorter.

    Example:
        >>> get_file_instructions(1, 10, ["f1", "f2", "f3", "f4"], [4, 4, 0, 4])[2]
        FileInstruction(filename='f4', skip=0, take=2, examples_in_shard=4)
    """
    out: list[FileInstruction] = []
    start = 0
    for index, (filename, length) in enumerate(zip(filenames, shard_lengths)):
        if not length:
            continue
        end = start + length
        if from_ < end and to > start:
            skip = from_ - start if from_ > start else 0
            take = to - start - skip if to < end else -1
            if take != 0:
                in_shard = length
                if examples_in_shards is not None:
                    in_shard = examples_in_shards[index]
                    if take == -1 and in_shard != length:
                        take = length - skip
                out.append(FileInstruction(filename, skip, take, in_shard))
        start = end
    return out


def split_file_instruction(file_instruction: FileInstruction,
                           num_splits: int) -> list[FileInstruction]:
    """A whole-shard instruction cut into at most ``num_splits`` consecutive
    parts of ``ceil(take / num_splits)`` records (fewer parts when the shard is short).

    Example:
        >>> [(f.skip, f.take) for f in split_file_instruction(FileInstruction("d", 0, -1, 10), 3)]
        [(0, 4), (4, 4), (8, 2)]
    """
    if not file_instruction.takes_all or file_instruction.skip > 0:
        raise ValueError("Only file instructions that read all rows are supported!")
    per_split = math.ceil(file_instruction.take / num_splits)
    out, index = [], file_instruction.skip
    while index < file_instruction.examples_in_shard:
        take = min(per_split, file_instruction.examples_in_shard - index)
        out.append(file_instruction.replace(skip=index, take=take))
        index += take
    return out


def get_shard_boundaries(num_examples: int, number_of_shards: int) -> list[int]:
    """The end offsets of the shards TFDS's writer makes (rounded even cuts).

    Example:
        >>> get_shard_boundaries(5, 3)
        [2, 3, 5]
    """
    if num_examples == 0:
        raise AssertionError("No examples were yielded.")
    if num_examples < number_of_shards:
        raise AssertionError(f"num_examples ({num_examples}) < number_of_shards "
                             f"({number_of_shards})")
    return [round(num_examples * i / number_of_shards) for i in range(1, number_of_shards + 1)]


@dataclasses.dataclass(frozen=True)
class ShardConfig:
    """How many shards TFDS's writer makes for a split (``num_shards``, or a
    count chosen from the total size between the shard size bounds).

    Example:
        >>> ShardConfig().get_number_shards(total_size=137 << 30, num_examples=1281167)
        1024
    """

    num_shards: int | None = None
    min_shard_size: int = DEFAULT_MIN_SHARD_SIZE
    max_shard_size: int = DEFAULT_MAX_SHARD_SIZE
    overhead: int = 16

    @classmethod
    def calculate_number_shards(cls, total_size: int, num_examples: int,
                                uses_precise_sharding: bool = True) -> int:
        """TFDS's choice: 1024 when the size allows it, else a multiple of
        1024 above, or the largest power of two in 2..512 that fits."""
        total_size += num_examples * cls.overhead
        most = total_size // cls.min_shard_size
        biggest = cls.max_shard_size if uses_precise_sharding else 0.9 * cls.max_shard_size
        least = total_size // biggest
        if least <= 1024 <= most and num_examples >= 1024:
            return 1024
        if least > 1024:
            n = 2048
            while not (n >= least and num_examples >= n):
                n += 1024
            return n
        for n in (512, 256, 128, 64, 32, 16, 8, 4, 2):
            if least <= n <= most and num_examples >= n:
                return n
        return 1

    def get_number_shards(self, total_size: int, num_examples: int,
                          uses_precise_sharding: bool = True) -> int:
        """``num_shards`` when set, else :meth:`calculate_number_shards`."""
        if self.num_shards:
            return self.num_shards
        return self.calculate_number_shards(total_size, num_examples, uses_precise_sharding)
