"""Equal work per rank: which minibatches each rank delivers in an epoch.

CNTK's split gives ranks different minibatch counts (whole chunks per rank);
a DDP rank that runs out first hangs the others at their next all-reduce. The
policy (docs/design/equal-work.md), computable by every rank from the plan
alone, with no communication:

* every partition ``p`` has ``n[p]`` minibatches (CNTK's exact split);
* each rank delivers ``Q = sum(n) // W`` minibatches: its own first
  ``min(n[r], Q)``, then, if it has fewer than ``Q``, minibatches that the
  ranks with more than ``Q`` hand over (their minibatches ``Q, Q+1, ...``,
  donors and receivers both in rank order);
* the last ``sum(n) - W*Q`` (< ``W``) minibatches of the epoch are dropped.

So every minibatch of CNTK's distributed epoch is delivered exactly once
across ranks, except fewer than ``W`` minibatches, which are named by the plan.

Example:
    >>> [rank_segments([5, 2, 3], r) for r in range(3)]
    [[Segment(partition=0, first=0, count=3)], [Segment(partition=1, first=0, count=2), Segment(partition=0, first=3, count=1)], [Segment(partition=2, first=0, count=3)]]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Sequence

from ..errors import ConfigError


@dataclass(frozen=True)
class Segment:
    """Minibatches ``first, first+1, ...`` (``count`` of them, ``None``: to the
    end) of partition ``partition``'s epoch.

    Example:
        >>> Segment(1, 0, None).count is None
        True
    """

    partition: int
    first: int
    count: int | None


def _donations(counts: Sequence[int], quota: int) -> Iterator[tuple[int, int]]:
    """``(partition, minibatch)`` beyond the quota, in rank order."""
    for partition, n in enumerate(counts):
        for i in range(quota, n):
            yield partition, i


def rank_segments(counts: Sequence[int], rank: int) -> list[Segment]:
    """What ``rank`` delivers under the equal-work policy, as runs of partitions.

    Example:
        >>> rank_segments([3, 3], 1)
        [Segment(partition=1, first=0, count=3)]
        >>> rank_segments([4, 0], 1)  # partition 1 owns no chunk: it reads two of partition 0's
        [Segment(partition=0, first=2, count=2)]
    """
    world = len(counts)
    quota = sum(counts) // world
    own = min(counts[rank], quota)
    segments = [Segment(rank, 0, own)] if own else []
    need = quota - own
    if not need:
        return segments
    taken_before = sum(max(0, quota - n) for n in counts[:rank])
    items = list(_donations(counts, quota))[taken_before:taken_before + need]
    for partition, index in items:
        last = segments[-1] if segments else None
        if last is not None and last.partition == partition and last.first + last.count == index:
            segments[-1] = Segment(partition, last.first, last.count + 1)
        else:
            segments.append(Segment(partition, index, 1))
    return segments


def dropped(counts: Sequence[int]) -> list[tuple[int, int]]:
    """``(partition, minibatch)`` that no rank delivers (fewer than the ranks).

    Example:
        >>> dropped([5, 2, 4])
        [(0, 4), (2, 3)]
    """
    quota = sum(counts) // len(counts)
    items = list(_donations(counts, quota))
    given = sum(max(0, quota - n) for n in counts)
    return items[given:]


def check_quota(counts: Sequence[int], minibatch_size: int, epoch: int) -> int:
    """The equal minibatch count, or a clear error when it would be 0.

    Example:
        >>> check_quota([1, 0, 0], 8, 0)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: equal_batches=True gives each of 3 ranks 0 minibatches in epoch 0: the epoch has only 1 minibatch(es) of 8 samples in all; use a smaller minibatch_size_in_samples, fewer ranks, or equal_batches=False
    """
    world, total = len(counts), sum(counts)
    if total < world:
        raise ConfigError(f"equal_batches=True gives each of {world} ranks 0 minibatches in epoch "
                          f"{epoch}: the epoch has only {total} minibatch(es) of {minibatch_size} "
                          "samples in all; use a smaller minibatch_size_in_samples, fewer ranks, "
                          "or equal_batches=False")
    return total // world
