"""Elastic resume: a run interrupted with N input pipelines continues on M.

Within an epoch, TFDS's order is a pure function of the ReadConfig, the shard
lengths and the epoch, so the examples that old worker ``w`` has read are
known from the number it read (``consumed[w]``): they are a prefix
``[skip, skip + c)`` of each of its file instructions, found by replaying the
interleave cursor on instruction lengths (no data is read). The rest of the
epoch is:

* for each old worker in order, its instructions in its epoch order, each
  cut to the part not read yet (open slots' remainders, then the files it had
  not opened);
* that sequence of examples split into M contiguous parts of equal size
  (the first ``r`` parts one example more), as ``even_splits`` does;
* new worker j reads part j with the same cycle/block interleave and no file
  shuffle (the epoch's file order is already fixed).

``consumed`` can also be read from the old workers' iterator states (the
cursor of as_dataset's read says which instructions were opened and how far
each open one was read, and its instruction order gives the epoch's file
order); the states must be one complete, consistent set (one per worker, in
worker order, of this split and read_config, in one epoch:
:mod:`~minibatcher.tfds.elastic_states`). A state may have
shuffle buffers after as_dataset: the state holds each shuffle's emitted
count and seeds, not its buffer, so the stream positions it read and those
it holds are re-derived by simulating its draws on integers; the held
examples (read, not delivered) come first in the worker's remainder, as
one-record instructions (runs of consecutive records merged).

So every example of the epoch is read exactly once over the old and the new
workers, and the new workers' loads differ by at most one example. Later
epochs use the normal M-worker plan (``InputContext(M, j)``).

Example:
    >>> from minibatcher.tfds.splits import FileInstruction as F
    >>> consumed_per_instruction([0, 1], [4, 4], cycle=2, block=2, count=5)
    {0: 3, 1: 2}
    >>> [(f.filename, f.skip, f.take) for f in even_parts([F("a", 1, 4, 5), F("b", 0, 2, 2)], 2)[1]]
    [('a', 4, 1), ('b', 0, 2)]
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

from ..errors import ConfigError
from .elastic_pieces import (Ranges, consumed_per_instruction, interleave_runs,
                             pieces_from_count, pieces_from_states, worker_config)
from .read_config import InputContext, ReadConfig
from .shard_utils import FileInstruction
from .splits import AbsoluteInstruction, AbstractSplit

__all__ = ["ElasticRemainder", "InstructionSplit", "consumed_per_instruction", "elastic_remainder",
           "even_parts", "interleave_runs"]


def even_parts(pieces: Sequence[FileInstruction], n: int) -> list[list[FileInstruction]]:
    """``pieces`` (a sequence of examples) cut into ``n`` contiguous parts of
    equal size, the first ``total % n`` parts one example longer.

    Example:
        >>> from minibatcher.tfds.shard_utils import FileInstruction as F
        >>> [[f.take for f in part] for part in even_parts([F("a", 0, 3, 3), F("b", 0, 2, 2)], 2)]
        [[3], [2]]
    """
    total = sum(p.take for p in pieces)
    k, r = divmod(total, n)
    bounds = [0]
    for i in range(n):
        bounds.append(bounds[-1] + k + (1 if i < r else 0))
    parts: list[list[FileInstruction]] = [[] for _ in range(n)]
    pos = 0
    for p in pieces:
        start, end = pos, pos + p.take
        for j in range(n):
            lo, hi = max(start, bounds[j]), min(end, bounds[j + 1])
            if lo < hi:
                parts[j].append(FileInstruction(p.filename, p.skip + lo - start, hi - lo,
                                                p.examples_in_shard))
        pos = end
    return parts


@dataclasses.dataclass(frozen=True)
class InstructionSplit(AbstractSplit):
    """A split given directly as file instructions (what
    :meth:`ElasticRemainder.split_for` returns); ``ReadOnlyBuilder.as_dataset``
    reads them in this order, with the read_config's cycle/block interleave.

    Example:
        >>> from minibatcher.tfds.splits import FileInstruction as F
        >>> part = InstructionSplit((F("/d/a", 2, 3, 5), F("/d/b", 0, 1, 1)))
        >>> part.num_examples
        4
    """

    instructions: tuple[FileInstruction, ...]

    def to_absolute(self, split_infos) -> list[AbsoluteInstruction]:  # type: ignore[override]
        """Not available: the instructions are file ranges, not ranges of a
        named split (the builder reads them directly).

        Example:
            >>> InstructionSplit(()).to_absolute({})
            Traceback (most recent call last):
            ...
            TypeError: InstructionSplit holds file instructions, not ranges; pass it to ...
        """
        raise TypeError("InstructionSplit holds file instructions, not ranges; pass it to "
                        "ReadOnlyBuilder.as_dataset")

    @property
    def num_examples(self) -> int:
        """Examples in this part."""
        return sum(f.take for f in self.instructions)


@dataclasses.dataclass(frozen=True)
class ElasticRemainder:
    """The examples of an epoch that N old workers had not read yet.

    ``split_for(m, j)`` is new worker j's part (of m); read it with
    ``builder.as_dataset(part, read_config=...)`` (no ``shuffle_files``).

    Example:
        >>> from minibatcher.tfds.splits import FileInstruction as F
        >>> rest = ElasticRemainder((F("a", 1, 4, 5), F("b", 0, 3, 3)))
        >>> rest.num_examples, [(f.filename, f.skip, f.take) for f in rest.split_for(3, 1).instructions]
        (7, [('a', 4, 1), ('b', 0, 1)])
    """

    pieces: tuple[FileInstruction, ...]

    @property
    def num_examples(self) -> int:
        """Examples left in the epoch."""
        return sum(p.take for p in self.pieces)

    def split_for(self, num_workers: int, index: int) -> InstructionSplit:
        """New worker ``index``'s part when ``num_workers`` continue: a
        contiguous piece of the remainder, the first ``total % num_workers``
        parts one example longer.

        Example:
            >>> from minibatcher.tfds.splits import FileInstruction as F
            >>> rest = ElasticRemainder((F("a", 0, 5, 5),))
            >>> [rest.split_for(2, j).num_examples for j in range(2)]
            [3, 2]
        """
        InputContext(num_workers, index)  # validates
        return InstructionSplit(tuple(even_parts(self.pieces, num_workers)[index]))


def _sorted_instructions(builder, split, rc: ReadConfig) -> list[FileInstruction]:
    """The split's file instructions in as_dataset's input order."""
    fis = builder._instructions(AbstractSplit.from_spec(split))
    if rc.experimental_interleave_sort_fn is not None:
        fis = list(rc.experimental_interleave_sort_fn(fis))
    return fis


def elastic_remainder(builder, split, *, consumed: Sequence[int] | None = None,
                      states: Sequence[Mapping[str, Any]] | None = None,
                      shuffle_files: bool = False, read_config: ReadConfig | None = None,
                      epoch: int = 0) -> ElasticRemainder:
    """What is left of an epoch after ``N`` workers (each with ``InputContext(N, w)``
    and otherwise ``read_config``) read part of ``builder.as_dataset(split, ...)``:
    up to their iterator ``states[w]`` (``get_state()``, whose epoch they carry;
    as_dataset then map/filter/batch/take and ``shuffle`` steps, buffers included),
    or after taking ``consumed[w]`` examples each from as_dataset itself in epoch
    ``epoch`` (with a shuffle buffer after it, the examples taken are not the
    ones delivered: pass ``states``).

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher import tfds
        >>> from minibatcher.tfds.testing import write_dataset
        >>> folder = write_dataset(pathlib.Path(tempfile.mkdtemp()), {"train": [3, 3, 3]})
        >>> b = tfds.builder_from_directory(folder)
        >>> rest = elastic_remainder(b, "train", consumed=[2, 1])
        >>> rest.num_examples, [int(x["id"]) for x in b.as_dataset(rest.split_for(1, 0))]
        (6, [2, 6, 7, 8, 4, 5])
    """
    if (consumed is None) == (states is None):
        raise ConfigError("give either consumed= (examples read per worker) or states= (their "
                          "iterator states), not both or neither")
    base = read_config or ReadConfig()
    base.validate()
    ranges = Ranges(_sorted_instructions(builder, split, base), base)
    disable_shuffling = builder.info.disable_shuffling
    if states is not None:
        return ElasticRemainder(tuple(pieces_from_states(ranges, list(states), shuffle_files,
                                                         disable_shuffling)))
    pieces: list[FileInstruction] = []
    for w, count in enumerate(consumed):  # type: ignore[arg-type]
        rc = worker_config(base, len(consumed), w)  # type: ignore[arg-type]
        pieces += pieces_from_count(ranges, rc, shuffle_files, disable_shuffling, count, epoch)
    return ElasticRemainder(tuple(pieces))
