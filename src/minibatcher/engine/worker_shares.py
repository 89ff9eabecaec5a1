"""What each worker's share of a sweep is, and a warning when one is empty or small.

CNTK splits a sweep between workers by whole chunks (randomized reading) or
sequence by sequence (file order), so a worker can own nothing: a one-chunk
file read by two ranks gives rank 1 no sample. :func:`warn_if_unbalanced`
logs a WARNING (through the ``minibatcher`` logger) when this worker's share
of a sweep is empty or under half of the largest one, and names the fix.

Example:
    >>> import numpy as np
    >>> shares_of(np.array([0, 0, 0]), np.array([5, 5, 5]), 0, 2).tolist()
    [15, 0]
    >>> shares_of(None, np.array([5, 5, 5]), 0, 2).tolist()  # round robin
    [10, 5]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..log import logger

#: A share under this fraction of the largest share is reported.
SMALL_SHARE = 0.5


def shares_of(source_chunk: np.ndarray | None, lengths: np.ndarray, base: int,
              num_workers: int) -> np.ndarray:
    """Samples each worker owns in one sweep: ``source_chunk[p] % num_workers``
    owns position ``p`` (block rules), else ``(base + p) % num_workers``."""
    positions = np.arange(len(lengths), dtype=np.int64)
    owner = (np.asarray(source_chunk, np.int64) if source_chunk is not None
             else base + positions) % num_workers
    return np.bincount(owner, weights=np.asarray(lengths, np.float64),
                       minlength=num_workers).astype(np.int64)


def imbalance_message(shares: np.ndarray, rank: int, sweep: int, chunks: int,
                      name: str) -> str | None:
    """The warning for worker ``rank`` (None when its share is fair).

    Example:
        >>> print(imbalance_message(np.array([15, 0]), 1, 0, 1, "d.ctf"))  # doctest: +ELLIPSIS
        worker_rank=1 of num_workers=2 gets no data in sweep 0 of d.ctf (0 of 15 samples; ...
    """
    mine, top, total = int(shares[rank]), int(shares.max()), int(shares.sum())
    if total == 0 or mine >= SMALL_SHARE * top:
        return None
    how = "gets no data" if mine == 0 else f"gets much less data than worker {int(shares.argmax())}"
    return (f"worker_rank={rank} of num_workers={len(shares)} {how} in sweep {sweep} of {name} "
            f"({mine} of {total} samples; the largest share is {top}): the data has {chunks} "
            "chunk(s) and CNTK's split gives whole chunks to workers. Use smaller chunks "
            "(chunk_size_in_bytes= for CTF, chunk_frames= for HTK; config: chunkSizeInBytes) so "
            "that every worker gets a share, or fewer workers")


def warn_if_unbalanced(enumerator: Any, sweep: int, chunks: int, name: str) -> None:
    """Logs the warning for this worker's share of ``sweep`` (see the module).

    Example:
        >>> from minibatcher.engine.enumerator import EpochConfig, make_enumerator
        >>> from minibatcher.engine.order import FileOrder
        >>> from minibatcher.deserializer import SequenceTable
        >>> t = SequenceTable(np.arange(1, dtype=np.uint64), np.ones(1, np.int64), np.array([0, 1]))
        >>> e = make_enumerator(t, FileOrder(), 0)
        >>> e.start_epoch(EpochConfig(epoch_size=1, num_workers=2, worker_rank=1))
        >>> warn_if_unbalanced(e, 0, 1, "one.ctf")  # logs: worker_rank=1 ... gets no data
    """
    config = enumerator.config
    if config.num_workers <= 1:
        return
    source_chunk, base = enumerator.owner(sweep)
    plan = enumerator.plan(sweep)
    if hasattr(plan, "shares"):  # a frame-mode plan: per chunk, no per-frame arrays
        shares = plan.shares(source_chunk is not None, base, config.num_workers)
    else:
        shares = shares_of(source_chunk, plan.lengths, base, config.num_workers)
    message = imbalance_message(shares, config.worker_rank, sweep, chunks, name)
    if message is not None:
        logger.warning(message)


__all__ = ["SMALL_SHARE", "imbalance_message", "shares_of", "warn_if_unbalanced"]
