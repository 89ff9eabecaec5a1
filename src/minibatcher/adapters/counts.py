"""Every partition's minibatch count of an epoch, from the plan alone.

With the Python API's local timeline, partition ``r`` of ``W`` takes, in plan
order, the sequences it owns (CNTK's split: by randomized chunk, or round robin
in file order) and packs them greedily: each minibatch takes its first
sequence, then every next one while the partition's share of the minibatch
size (``size // W``, one more for ``r < size % W``) is not exceeded. Counting
those minibatches needs only the sweep plan and the sequence lengths: a jump
per minibatch (``searchsorted`` on the prefix sums), no data. The engine's own
enumerators decide which positions a partition owns, so the rule cannot drift
from the reader; tests compare the counts with skipping through the source.

Example:
    >>> import numpy as np
    >>> greedy_count(np.array([2, 1, 1, 3, 1]), budget=3)  # [2, 1] [1] [3] [1]
    4
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..engine.enumerator import EpochConfig, make_enumerator
from ..engine.packers import minibatch_counts

if TYPE_CHECKING:
    from ..engine.source import MinibatchSource


def greedy_count(lengths: np.ndarray, budget: int) -> int:
    """Minibatches of the greedy packing of ``lengths`` with at most ``budget``
    samples each (a longer sequence makes a minibatch of its own).

    Example:
        >>> import numpy as np
        >>> greedy_count(np.ones(10, np.int64), 4), greedy_count(np.zeros(0, np.int64), 4)
        (3, 0)
    """
    n = len(lengths)
    if n == 0:
        return 0
    if lengths.strides == (0,) or (lengths == lengths[0]).all():  # (0,): a broadcast
        per = max(1, budget // int(lengths[0]))
        return -(-n // per)
    prefix = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=prefix[1:])
    count = start = 0
    while start < n:
        stop = int(np.searchsorted(prefix, prefix[start] + budget, side="right")) - 1
        start = max(stop, start + 1)
        count += 1
    return count


def fast_partition_counts(source: "MinibatchSource", epoch: int, minibatch_size: int,
                          num_partitions: int) -> list[int] | None:
    """Minibatches of each of ``num_partitions`` partitions in epoch (sweep)
    ``epoch``, or ``None`` where this shortcut does not apply (the legacy global
    timeline, truncated BPTT, sequences of budget length 0): then the caller
    skips through each partition instead.

    Example:
        >>> import tempfile, pathlib
        >>> from minibatcher import CTFDeserializer, MinibatchSource, StreamDef
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
        >>> _ = p.write_text("".join(f"|x {i}\\n" for i in range(5)))
        >>> src = MinibatchSource(CTFDeserializer(str(p), {"x": StreamDef()}), randomize=False)
        >>> # file order: each minibatch of 2 is split between the 2 partitions, one each
        >>> fast_partition_counts(src, epoch=0, minibatch_size=2, num_partitions=2)
        [3, 2]
    """
    options = source.options
    table = source.deserializer.table()
    if not options.local_timeline or options.truncation_length or table.lengths.min() <= 0:
        return None
    enumerator = make_enumerator(table, options.order(), options.randomization_seed)
    counts = []
    for rank in range(num_partitions):
        enumerator.start_epoch(EpochConfig(table.num_samples, epoch, num_partitions, rank,
                                           options.cross_sweep_boundaries))
        if enumerator.position >= enumerator.config.end:
            counts.append(0)  # a partition that owns no chunk
            continue
        _, budget = minibatch_counts(minibatch_size, num_partitions, rank, True)
        counts.append(greedy_count(np.asarray(enumerator.owned_lengths(epoch), np.int64), budget))
    return counts
