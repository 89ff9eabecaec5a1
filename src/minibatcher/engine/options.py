"""``MinibatchSource`` options, validated once (CNTK's rules and messages).

Example:
    >>> SourceOptions(randomization_window_in_samples=100).order().describe()
    {'order': 'block_random', 'window': 100, 'unit': 'samples'}
    >>> SourceOptions(max_samples=10, max_sweeps=2)
    Traceback (most recent call last):
    ...
    minibatcher.errors.ConfigError: max_samples and max_sweeps are mutually exclusive, but got max_samples=10 and max_sweeps=2; set only one of them
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..args import check_int, is_int, non_negative_int, optional_int, positive_int
from ..errors import ConfigError
from ..log import check_trace_level
from .enumerator import MAX_EPOCH_SIZE
from .frame_plan import FrameOrder
from .order import BlockRandomOrder, FileOrder, Order

INFINITELY_REPEAT = 2**64 - 1
FULL_DATA_SWEEP = 2**64 - 2
DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS = 128


@dataclass(frozen=True)
class SourceOptions:
    """Every option of :class:`MinibatchSource` (see its docstring)."""

    max_samples: int = INFINITELY_REPEAT
    max_sweeps: int = INFINITELY_REPEAT
    randomize: bool = True
    randomization_window_in_chunks: int | None = None  # DEFAULT_... unless a sample window is set
    randomization_window_in_samples: int = 0
    randomization_seed: int = 0
    frame_mode: bool = False
    truncation_length: int = 0
    trace_level: int = 1
    num_workers: int = 1
    worker_rank: int = 0
    cross_sweep_boundaries: bool = True
    local_timeline: bool = True
    num_threads: int | None = None
    prefetch_chunks: int | None = None
    utterances_per_minibatch: int | Sequence[int] = 0  # the legacy HTK reader's rules (.legacy)
    truncated_by_minibatch: bool = False
    full_minibatches: bool = False

    def __post_init__(self) -> None:
        for name in ("max_samples", "max_sweeps", "randomization_window_in_samples",
                     "randomization_seed", "truncation_length"):  # NumPy integers become ints
            object.__setattr__(self, name, non_negative_int(name, getattr(self, name)))
        object.__setattr__(self, "randomization_window_in_chunks", optional_int(
            "randomization_window_in_chunks", self.randomization_window_in_chunks, 0))
        if self.max_samples != INFINITELY_REPEAT and self.max_sweeps != INFINITELY_REPEAT:
            raise ConfigError("max_samples and max_sweeps are mutually exclusive, but got "
                              f"max_samples={self.max_samples} and max_sweeps={self.max_sweeps}; "
                              "set only one of them")
        if self.max_samples == 0 or self.max_sweeps == 0:
            raise ConfigError("max_samples and max_sweeps should be positive (or INFINITELY_REPEAT)")
        if self.randomization_window_in_chunks and self.randomization_window_in_samples:
            raise ConfigError("randomization_window_in_chunks and randomization_window_in_samples are "
                              "mutually exclusive, but got randomization_window_in_chunks="
                              f"{self.randomization_window_in_chunks} and randomization_window_in_"
                              f"samples={self.randomization_window_in_samples}; set only one")
        if self.frame_mode and self.truncation_length:
            raise ConfigError("frame_mode=True and truncation_length > 0 are mutually exclusive; "
                              "frames have no time axis to truncate")
        if self.randomization_seed >= 2**64:
            raise ConfigError(f"randomization_seed should be below 2**64, but got {self.randomization_seed}")
        check_trace_level(self.trace_level)
        self._check_workers()
        for name in ("num_threads", "prefetch_chunks"):
            object.__setattr__(self, name, optional_int(name, getattr(self, name), 1))
        legacy_rules(self)

    def _check_workers(self) -> None:
        w = positive_int("num_workers", self.num_workers)
        r = check_int("worker_rank", self.worker_rank, 0, w - 1, expected=f"in [0, num_workers={w})")
        object.__setattr__(self, "num_workers", w)
        object.__setattr__(self, "worker_rank", r)

    def order(self) -> Order:
        """The sweep order these options select.

        Example:
            >>> SourceOptions(randomize=False).order().describe()
            {'order': 'file'}
        """
        order = self._sequence_order()
        return FrameOrder(order) if self.frame_mode else order  # frame mode: windowed plans

    def _sequence_order(self) -> Order:
        if not self.randomize:
            return FileOrder()
        if self.randomization_window_in_samples:
            return BlockRandomOrder(self.randomization_window_in_samples, sample_based=True)
        chunks = self.randomization_window_in_chunks
        if chunks is None:
            chunks = DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS
        return BlockRandomOrder(chunks, sample_based=False) if chunks else FileOrder()


def epoch_size_of(options: SourceOptions, sweep_size: int) -> int:
    """Samples in the (single) epoch of ``max_samples`` / ``max_sweeps``.

    Example:
        >>> epoch_size_of(SourceOptions(max_sweeps=3), 10), epoch_size_of(SourceOptions(max_samples=FULL_DATA_SWEEP), 10)
        (30, 10)
    """
    if options.max_sweeps not in (INFINITELY_REPEAT, FULL_DATA_SWEEP):
        size = options.max_sweeps * sweep_size
    elif options.max_sweeps == FULL_DATA_SWEEP or options.max_samples == FULL_DATA_SWEEP:
        size = sweep_size
    elif options.max_samples == INFINITELY_REPEAT:
        size = MAX_EPOCH_SIZE
    else:
        size = options.max_samples
    if size > MAX_EPOCH_SIZE:
        raise ConfigError(f"the epoch is too large ({size} samples); the limit is {MAX_EPOCH_SIZE}")
    return size


def utterance_counts(value: Any) -> list[int]:
    """``utterances_per_minibatch`` (an int, or one int per epoch; none negative) as a list.

    Example:
        >>> utterance_counts(2), utterance_counts((1, 3))
        ([2], [1, 3])
        >>> utterance_counts([])
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: option nbruttsineachrecurrentiter should be one or more positive integers (one per epoch), but got nbruttsineachrecurrentiter=[]
    """
    counts = [value] if is_int(value) else list(value) if isinstance(value, (list, tuple)) else []
    if not counts or not all(is_int(c) and c >= 0 for c in counts):
        raise ConfigError("option nbruttsineachrecurrentiter should be one or more positive "
                          f"integers (one per epoch), but got nbruttsineachrecurrentiter={value!r}")
    return [int(c) for c in counts]


def legacy_rules(options: SourceOptions) -> dict[str, Any]:
    """The legacy ``HTKMLFReader``'s rules in force (``{}`` when no legacy option
    is set; :mod:`.legacy` has their packers), as a checkpoint's fingerprint
    records them; refuses the combinations CNTK has not.

    Example:
        >>> legacy_rules(SourceOptions(utterances_per_minibatch=[0, 2], truncated_by_minibatch=True))
        {'utterances_per_minibatch': [1, 2], 'truncated_by_minibatch': True, 'full_minibatches': False}
        >>> legacy_rules(SourceOptions())
        {}
    """
    o = options
    if not (o.utterances_per_minibatch or o.truncated_by_minibatch or o.full_minibatches):
        return {}
    counts = utterance_counts(o.utterances_per_minibatch)
    if o.truncated_by_minibatch:
        if o.frame_mode or o.truncation_length:
            raise ConfigError("option truncated_by_minibatch needs frame_mode=False and no "
                              f"truncation_length, but got frame_mode={o.frame_mode}"
                              f", truncation_length={o.truncation_length}")
        counts = [max(1, n) for n in counts]
    elif counts[0] and (o.frame_mode or o.truncation_length):
        raise ConfigError("utterance mode (nbruttsineachrecurrentiter) needs "
                          "frameMode=false and no truncation")
    return {"utterances_per_minibatch": counts,
            "truncated_by_minibatch": bool(o.truncated_by_minibatch),
            "full_minibatches": bool(o.full_minibatches) and o.frame_mode}
