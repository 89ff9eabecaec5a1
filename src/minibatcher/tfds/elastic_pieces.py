"""The unread pieces of each old worker's part of an epoch, as file instructions
(for :func:`~minibatcher.tfds.elastic_remainder`): from its iterator state
(:mod:`~minibatcher.tfds.elastic_states`) or from a count of examples taken.

Example:
    >>> from minibatcher.tfds.shard_utils import FileInstruction as F
    >>> runs = [(0, 0, 2), (1, 0, 2), (0, 2, 1)]  # instruction, first offset, length
    >>> ranges = _FakeRanges([F("a", 0, 4, 4), F("b", 0, 4, 4)])
    >>> [(f.filename, f.skip, f.take) for f in _held_pieces(ranges, runs, [1, 2, 3])]
    [('a', 1, 1), ('b', 0, 2)]
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from .elastic_states import WorkerState, buffered, check_distinct, check_epochs, check_read
from .read_config import InputContext, ReadConfig
from .read_order import shard_read
from .reader import ShardCache, ShardSource
from .shard_interleave import ShardReadCursor
from ..errors import ConfigError
from .shard_utils import FileInstruction


def interleave_runs(order: Sequence[int], takes: Sequence[int], cycle: int, block: int,
                    count: int) -> list[tuple[int, int, int]]:
    """The first ``count`` elements of an interleave (tf.data's cursor, spec
    §3.2) as runs ``(instruction, first offset, length)`` in stream order;
    ``order`` is the input order of instruction numbers, ``takes`` their
    lengths. No data is read.

    Example:
        >>> interleave_runs([0, 1], [4, 4], cycle=2, block=2, count=5)
        [(0, 0, 2), (1, 0, 2), (0, 2, 1)]
    """
    slots: list[list[int] | None] = [None] * cycle
    ci = bi = nxt = 0
    runs: list[tuple[int, int, int]] = []
    while count > 0:
        slot = slots[ci]
        if slot is not None:
            inst, pos = slot
            if pos >= takes[inst]:
                slots[ci], bi, ci = None, 0, (ci + 1) % cycle
                continue
            n = min(block - bi, takes[inst] - pos, count)
            runs.append((inst, pos, n))
            slot[1], count, bi = pos + n, count - n, bi + n
            if bi == block:
                bi, ci = 0, (ci + 1) % cycle
        elif nxt < len(order):
            slots[ci], nxt = [order[nxt], 0], nxt + 1
        elif any(s is not None for s in slots):
            bi, ci = 0, (ci + 1) % cycle
        else:
            raise ConfigError(f"consumed counts more examples than the worker's part of the "
                              f"split holds ({count} too many)")
    return runs


def consumed_per_instruction(order: Sequence[int], takes: Sequence[int], cycle: int, block: int,
                             count: int) -> dict[int, int]:
    """How many examples of each instruction the first ``count`` elements of
    an interleave take (see :func:`interleave_runs`).

    Example:
        >>> consumed_per_instruction([1, 0], [2, 5], cycle=2, block=1, count=4)
        {1: 2, 0: 2}
    """
    done: dict[int, int] = {}
    for inst, first, n in interleave_runs(order, takes, cycle, block, count):
        done[inst] = first + n
    return done


class Ranges:
    """The split's file instructions in as_dataset's input order, and the
    records each one's stream holds: all of ``[skip, skip + take)``, or only
    the good ones when corrupted records are skipped (``max_errors``; then
    the instructions' ranges are verified once, as the readers do).

    Example:
        >>> r = Ranges([FileInstruction("/d/a", 2, 3, 5)], ReadConfig())
        >>> r.takes, r.position(0, 1), r.rest(0, 1)
        ([3], 3, FileInstruction(filename='/d/a', skip=3, take=2, examples_in_shard=5))
    """

    def __init__(self, fis: Sequence[FileInstruction], rc: ReadConfig) -> None:
        self.fis, self.rc = list(fis), rc
        self.cache = ShardCache(rc)
        self.sources = [ShardSource(f, "", self.cache, None, False) for f in self.fis]
        self.takes = [len(s) for s in self.sources] if self.cache.skipping else \
            [f.take for f in self.fis]

    def position(self, i: int, offset: int) -> int:
        """The shard position of element ``offset`` of instruction ``i``'s stream."""
        good = self.sources[i].positions() if self.cache.skipping else None
        return self.fis[i].skip + offset if good is None else int(good[offset])

    def rest(self, i: int, offset: int) -> FileInstruction:
        """Instruction ``i`` from element ``offset`` of its stream on."""
        f = self.fis[i]
        at = self.position(i, offset)
        return FileInstruction(f.filename, at, f.skip + f.take - at, f.examples_in_shard)


class _FakeRanges(Ranges):
    """Ranges without files (examples only)."""

    def __init__(self, fis: Sequence[FileInstruction]) -> None:
        self.fis, self.takes = list(fis), [f.take for f in fis]

    def position(self, i: int, offset: int) -> int:
        return self.fis[i].skip + offset


def _held_pieces(ranges: Ranges, runs: Sequence[tuple[int, int, int]],
                held: Sequence[int]) -> list[FileInstruction]:
    """The examples at stream positions ``held`` (of the stream ``runs``
    describe) as file instructions, one per run of consecutive records."""
    out: list[FileInstruction] = []
    r = start = 0  # run r covers stream positions [start, start + its length)
    for p in sorted(held):
        while p >= start + runs[r][2]:
            start += runs[r][2]
            r += 1
        inst, first, _ = runs[r]
        f, skip = ranges.fis[inst], ranges.position(inst, first + p - start)
        last = out[-1] if out else None
        if last is not None and last.filename == f.filename and last.skip + last.take == skip:
            out[-1] = FileInstruction(f.filename, last.skip, last.take + 1, f.examples_in_shard)
        else:
            out.append(FileInstruction(f.filename, skip, 1, f.examples_in_shard))
    return out


def _unread_pieces(ranges: Ranges, order: Sequence[int],
                  done: dict[int, int]) -> list[FileInstruction]:
    """Each instruction of ``order`` cut to the part not read yet."""
    return [ranges.rest(i, done.get(i, 0)) for i in order if done.get(i, 0) < ranges.takes[i]]


def worker_config(base: ReadConfig, n: int, w: int, plan: Any = None) -> ReadConfig:
    """Worker ``w``'s read config; a single worker whose read had no input
    context (no ``shard`` step in its plan) is rebuilt without one.

    Example:
        >>> worker_config(ReadConfig(), 3, 1).input_context
        InputContext(num_input_pipelines=3, input_pipeline_id=1, num_replicas_in_sync=1)
        >>> worker_config(ReadConfig(), 1, 0, [["source", {}]]).input_context is None
        True
    """
    if n == 1 and plan is not None and all(s[0] != "shard" for s in plan):
        return dataclasses.replace(base, input_context=None)
    return dataclasses.replace(base, input_context=InputContext(n, w))


def pieces_from_states(ranges: Ranges, states: Sequence[Any], shuffle_files: bool,
                       disable_shuffling: bool) -> list[FileInstruction]:
    """What the old workers have not delivered, worker after worker: the
    examples their shuffle buffers hold, then the unread rest of their
    instructions (refusing a set of states that does not belong together).

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher import tfds
        >>> from minibatcher.tfds.testing import write_dataset
        >>> b = tfds.builder_from_directory(write_dataset(pathlib.Path(tempfile.mkdtemp()),
        ...                                               {"train": [3, 2]}))
        >>> it = iter(b.as_dataset("train")); _ = next(it)
        >>> ranges = Ranges(b.info.splits["train"].file_instructions, ReadConfig())
        >>> [(f.basename()[-14:], f.skip, f.take)
        ...  for f in pieces_from_states(ranges, [it.get_state()], False, False)]
        [('00000-of-00002', 1, 2), ('00001-of-00002', 0, 2)]
    """
    check_distinct(states)
    workers = [WorkerState.parse(s, w) for w, s in enumerate(states)]
    cursors = []
    for w, worker in enumerate(workers):
        rc = worker_config(ranges.rc, len(states), w, worker.plan)
        read = shard_read(ranges.sources, rc, shuffle_files, disable_shuffling, ranges.cache)
        check_read(worker, read, w, shuffle_files)
        cursors.append(worker.read_cursor(read))
    check_epochs(cursors, [worker.read for worker in workers])
    pieces: list[FileInstruction] = []
    for worker, cursor in zip(workers, cursors):
        pieces += _pieces_of(ranges, worker, cursor)
    return pieces


def _pieces_of(ranges: Ranges, worker: WorkerState, cursor: ShardReadCursor
               ) -> list[FileInstruction]:
    order = cursor.full_order()
    read, held = buffered(worker.shuffles, sum(ranges.takes[i] for i in order))
    if read is None:  # no buffer: the read's cursor is current
        return _unread_pieces(ranges, order, cursor.read_per_instruction())
    runs = interleave_runs(order, ranges.takes, cursor.node.cycle, cursor.node.block, read)
    done = {inst: first + n for inst, first, n in runs}
    return _held_pieces(ranges, runs, held) + _unread_pieces(ranges, order, done)


def pieces_from_count(ranges: Ranges, rc: ReadConfig, shuffle_files: bool,
                      disable_shuffling: bool, count: int, epoch: int) -> list[FileInstruction]:
    """What one old worker has not read after taking ``count`` examples from
    as_dataset in ``epoch``.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher import tfds
        >>> from minibatcher.tfds.testing import write_dataset
        >>> b = tfds.builder_from_directory(write_dataset(pathlib.Path(tempfile.mkdtemp()),
        ...                                               {"train": [3, 2]}))
        >>> ranges = Ranges(b.info.splits["train"].file_instructions, ReadConfig())
        >>> [(f.skip, f.take) for f in pieces_from_count(ranges, ReadConfig(), False, False, 4, 0)]
        [(1, 1)]
    """
    read = shard_read(ranges.sources, rc, shuffle_files, disable_shuffling, ranges.cache)
    for _ in range(epoch + 1):  # each iteration of the dataset is the next epoch's order
        order = [int(i) for i in read.order]
    done = consumed_per_instruction(order, ranges.takes, read.cycle, read.block, int(count))
    return _unread_pieces(ranges, order, done)
