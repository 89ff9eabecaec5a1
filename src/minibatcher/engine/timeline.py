"""The values the enumerators take and give: the timeline's limits, an epoch of it
(:class:`EpochConfig`) and what one request took (:class:`Selection`);
:mod:`.enumerator` walks the timeline (docs/design/order-and-timeline.md).

Example:
    >>> c = EpochConfig(epoch_size=10, epoch_index=2, num_workers=2, worker_rank=1)
    >>> c.start, c.end, Selection([3, 1]).sequences
    (20, 30, [3, 1])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError

__all__ = ["MAX_EPOCH_SIZE", "UNLIMITED", "EpochConfig", "Selection"]

UNLIMITED = 2**64 - 1          # CNTK's SIZE_MAX
MAX_EPOCH_SIZE = UNLIMITED // 2


@dataclass(frozen=True)
class EpochConfig:
    """One epoch of the timeline and the reading layout.

    Example:
        >>> EpochConfig(epoch_size=10, epoch_index=2).start
        20
    """

    epoch_size: int
    epoch_index: int = 0
    num_workers: int = 1
    worker_rank: int = 0
    allow_cross: bool = True

    def __post_init__(self) -> None:
        if not 0 < self.epoch_size <= MAX_EPOCH_SIZE:
            raise ConfigError(f"epoch size should be in [1, {MAX_EPOCH_SIZE}], but got "
                              f"epoch_size={self.epoch_size}")
        if self.epoch_index < 0:
            raise ConfigError(f"epoch should be non-negative, but got epoch={self.epoch_index}")
        if self.num_workers < 1 or not 0 <= self.worker_rank < self.num_workers:
            raise ConfigError(f"worker_rank should be in [0, num_workers), but got worker_rank="
                              f"{self.worker_rank} with num_workers={self.num_workers}")

    @property
    def start(self) -> int:
        """First sample position of the epoch."""
        return self.epoch_size * self.epoch_index

    @property
    def end(self) -> int:
        """One past the last sample position of the epoch."""
        return self.start + self.epoch_size


class Selection:
    """What one request took: the original indices of this worker's
    sequences in order, flags, and the samples consumed on the timeline.
    The indices are kept as the walks' arrays; :attr:`sequences` lists them
    (made on first use: the packers read :meth:`indices`).

    Example:
        >>> Selection([3, 1], end_of_sweep=True).end_of_epoch
        False
        >>> s = Selection(); s.extend(np.array([4, 2])); s.sequences, s.indices().tolist(), len(s)
        ([4, 2], [4, 2], 2)
    """

    def __init__(self, sequences: list[int] | None = None, end_of_sweep: bool = False,
                 end_of_epoch: bool = False, global_samples: int = 0,
                 local_samples: int = 0) -> None:
        self.end_of_sweep, self.end_of_epoch = end_of_sweep, end_of_epoch
        self.global_samples, self.local_samples = global_samples, local_samples
        self._parts: list[np.ndarray] = []
        self._list: list[int] | None = None
        if sequences is not None:
            self.sequences = sequences

    def __repr__(self) -> str:
        return (f"Selection(sequences={self.sequences}, end_of_sweep={self.end_of_sweep}, "
                f"end_of_epoch={self.end_of_epoch}, global_samples={self.global_samples}, "
                f"local_samples={self.local_samples})")

    @property
    def sequences(self) -> list[int]:
        """The selected original indices as a list (may be extended in place)."""
        if self._list is None:
            self._list = self.indices().tolist()
            self._parts = []
        return self._list

    @sequences.setter
    def sequences(self, value: list[int]) -> None:
        self._list, self._parts = list(value), []

    def __len__(self) -> int:
        return len(self._list) if self._list is not None else sum(len(p) for p in self._parts)

    def extend(self, indices: np.ndarray) -> None:
        """Appends original sequence indices (an int64 array)."""
        if len(indices):
            if self._list is not None:
                self._list.extend(indices.tolist())
            else:
                self._parts.append(indices)

    def indices(self) -> np.ndarray:
        """The selected indices as an int64 array (no Python loop when they came from walks)."""
        if self._list is not None:
            return np.asarray(self._list, dtype=np.int64)
        if len(self._parts) == 1:
            return self._parts[0]
        return np.concatenate(self._parts) if self._parts else np.zeros(0, np.int64)
