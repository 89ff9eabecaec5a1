"""TFDS's read order on the tfdata layer (``core/reader.py::_read_files``).

::

    instructions (sorted by experimental_interleave_sort_fn, if given)
      -> shard(num_input_pipelines, input_pipeline_id)        if input_context
      -> shuffle(#instructions, shuffle_seed, reshuffle)       if shuffle_files
      -> repeat()                                              if repeat_filenames
      -> interleave(shard records [skip, skip + take), cycle, block)

Each instruction opens a :class:`~minibatcher.tfds.reader.ShardSource`. TFDS's checks come
first, in its order: an empty read, the ordering guard of ``disable_shuffling`` datasets, more
input pipelines than files.

Example:
    >>> fis = [FileInstruction("/d/a", 0, 3, 3), FileInstruction("/d/b", 1, 2, 3)]
    >>> id_prefixes(fis)
    ['a', 'b']
"""

from __future__ import annotations

import os
import re
from typing import Sequence

import numpy as np

from ..log import logger as log
from ..tfdata import Dataset
from ..tfdata.dataset import AUTOTUNE
from ..tfdata.options import Options
from .read_config import MISSING, ReadConfig
from .reader import ExampleDecoding, ShardCache, ShardSource
from .shard_interleave import ShardInterleave
from .shard_utils import FileInstruction


def id_prefixes(instructions: Sequence[FileInstruction]) -> list[str]:
    """``tfds_id`` prefixes as TFDS makes them (``_get_tfds_id_prefixes``): the
    file name when all files share a folder, else the path from the deepest
    folder that differs (``/a/x/c/f`` and ``/b/x/c/f`` give ``a/x/c/f`` and
    ``b/x/c/f``).

    Example:
        >>> fis = [FileInstruction("/a/b/f1", 0, -1, 1), FileInstruction("/x/y/z/f1", 0, -1, 1)]
        >>> id_prefixes(fis)
        ['b/f1', 'z/f1']
    """
    dirnames = {f.dirname() for f in instructions}
    if len(dirnames) == 1:
        return [f.basename() for f in instructions]
    suffix = os.path.commonprefix([d[::-1] for d in dirnames])[::-1]
    # TFDS puts the common suffix into the pattern unescaped; so do we, for the same ids
    pattern = re.compile(rf".*\/([^/]+{suffix}/[^/]+)")
    return [pattern.sub(r"\1", f.filename) for f in instructions]


def _check_input_context(count: int, read_config: ReadConfig) -> None:
    ctx = read_config.input_context
    if ctx is not None and ctx.num_input_pipelines > 1 and count < ctx.num_input_pipelines:
        raise ValueError(
            f"Cannot shard the pipeline with given `input_context`.`num_shards={count}` but "
            f"`num_input_pipelines={ctx.num_input_pipelines}`. This means that some workers "
            "won't read any data. To shard the data, you may want to use the subsplit API "
            "instead: https://www.tensorflow.org/datasets/splits")


def instruction_order(count: int, read_config: ReadConfig, shuffle_files: bool) -> Dataset:
    """The dataset of instruction numbers in reading order: sharded per input
    pipeline, then shuffled (iterating it again gives the next epoch's order).

    Example:
        >>> from minibatcher.tfds import InputContext
        >>> rc = ReadConfig(input_context=InputContext(2, 1))
        >>> [int(i) for i in instruction_order(5, rc, shuffle_files=False)]
        [1, 3]
    """
    inst = Dataset.from_tensor_slices(np.arange(count, dtype=np.int64))
    ctx = read_config.input_context
    if ctx is not None:
        _check_input_context(count, read_config)
        inst = inst.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
    if shuffle_files:
        reshuffle = read_config.shuffle_reshuffle_each_iteration
        inst = inst.shuffle(count, seed=read_config.shuffle_seed,
                            reshuffle_each_iteration=True if reshuffle is None else reshuffle)
    return inst


def check_ordered_read(read_config: ReadConfig, cycle_length: int | None,
                       shuffle_files: bool) -> None:
    """TFDS's ordering guard for datasets with ``disable_shuffling``: file
    shuffling or a cycle length other than 1 raise (a warning with
    ``enable_ordering_guard=False``).

    Example:
        >>> check_ordered_read(ReadConfig(), 16, False)
        Traceback (most recent call last):
        ...
        ValueError: Dataset is an ordered dataset ('disable_shuffling=True'), but examples will not be read in order because `ReadConfig.interleave_cycle_length != 1`.
    """
    problems = []
    if shuffle_files:
        problems.append("Dataset is an ordered dataset ('disable_shuffling=True'), but examples "
                        "will not be read in order because `shuffle_files=True`.")
    if cycle_length != 1:
        problems.append("Dataset is an ordered dataset ('disable_shuffling=True'), but examples "
                        "will not be read in order because `ReadConfig.interleave_cycle_length "
                        "!= 1`.")
    if problems and read_config.enable_ordering_guard:
        raise ValueError("\n".join(problems))
    if problems:
        log.warning("\n".join(problems))


def read_files(instructions: Sequence[FileInstruction], read_config: ReadConfig,
               shuffle_files: bool, decoding: ExampleDecoding | None,
               disable_shuffling: bool = False) -> Dataset:
    """The dataset of examples of ``instructions`` in TFDS's order
    (``Reader.read_files``: TFDS's checks and errors, in its order).

    Example:
        >>> read_files([], ReadConfig(), False, None)
        Traceback (most recent call last):
        ...
        ValueError: Instruction [] corresponds to no data!
    """
    if not instructions:
        raise ValueError(f"Instruction {list(instructions)} corresponds to no data!")
    fis = list(instructions)
    if read_config.experimental_interleave_sort_fn is not None:
        fis = list(read_config.experimental_interleave_sort_fn(fis))
    if disable_shuffling:
        check_ordered_read(read_config, read_config.cycle_length(True), shuffle_files)
    cache = ShardCache(read_config)
    if decoding is not None:
        decoding = decoding.for_read(read_config.num_parallel_calls_for_decode)
    sources = [ShardSource(fi, p, cache, decoding, read_config.add_tfds_id)
               for fi, p in zip(fis, id_prefixes(fis))]
    read: Dataset = shard_read(sources, read_config, shuffle_files, disable_shuffling, cache)
    if isinstance(read_config.options, Options):  # TFDS: ds.with_options(read_config.options)
        read = read.with_options(read_config.options)
    return read


def shard_read(sources: Sequence[ShardSource], read_config: ReadConfig, shuffle_files: bool,
               disable_shuffling: bool, cache: ShardCache) -> ShardInterleave:
    """The read op over the sources of the (sorted) file instructions: the
    instruction order, then the interleave (TFDS's ``assert_cardinality`` when
    the config asks and no input context shards the read).

    Example:
        >>> fis = [FileInstruction("/d/a", 0, 3, 3), FileInstruction("/d/b", 0, 2, 2)]
        >>> cache = ShardCache()
        >>> read = shard_read([ShardSource(f, "", cache, None, False) for f in fis],
        ...                   ReadConfig(), False, False, cache)
        >>> read.cycle, read.block, read.cardinality()
        (2, 16, 5)
    """
    order = instruction_order(len(sources), read_config, shuffle_files)
    if read_config.repeat_filenames:
        order = order.repeat()
    asserted = read_config.assert_cardinality and not read_config.input_context \
        and not cache.skipping  # skipped records would make a read shorter than asserted
    total = sum(s.instruction.take for s in sources)
    npc = read_config.num_parallel_calls_for_interleave_files
    return ShardInterleave(order, sources, read_config.cycle_length(disable_shuffling),
                           read_config.block_length(), cache, total if asserted else None,
                           AUTOTUNE if npc == MISSING else npc, read_config.repeat_filenames,
                           read_config.options if isinstance(read_config.options, Options)
                           else None)


def skipped_records(dataset: Dataset) -> int:
    """Corrupted records skipped so far by the ``as_dataset`` reads inside
    ``dataset`` (``ReadConfig(max_errors=N)``; each record counted once, over
    all iterations). A minibatcher extension.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher import tfds
        >>> from minibatcher.tfds.testing import write_dataset
        >>> b = tfds.builder_from_directory(write_dataset(pathlib.Path(tempfile.mkdtemp()),
        ...                                               {"train": [2]}))
        >>> ds = b.as_dataset("train", read_config=tfds.ReadConfig(max_errors=5)).batch(2)
        >>> _ = list(ds); skipped_records(ds)
        0
    """
    seen: set[int] = set()
    total, todo = 0, [dataset]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ShardInterleave):
            total += node.shards.skipped
        todo.extend(node._inputs())
    return total
