"""``tfds.ReadConfig`` and ``tf.distribute.InputContext``.

Example:
    >>> rc = ReadConfig(shuffle_seed=32, interleave_cycle_length=3)
    >>> rc.cycle_length(disable_shuffling=False), rc.block_length()
    (3, 16)
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional, Sequence

from ..budget import check_max_errors
from ..errors import ConfigError

MISSING = "__missing__"


@dataclasses.dataclass(frozen=True)
class InputContext:
    """``tf.distribute.InputContext``: this input pipeline among several.

    Example:
        >>> InputContext(num_input_pipelines=3, input_pipeline_id=3)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: input_pipeline_id should be in [0, ...), but got ...
    """

    num_input_pipelines: int = 1
    input_pipeline_id: int = 0
    num_replicas_in_sync: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.num_input_pipelines, int) or self.num_input_pipelines < 1:
            raise ConfigError(f"num_input_pipelines should be a positive int, but got "
                              f"num_input_pipelines={self.num_input_pipelines!r}")
        if not isinstance(self.input_pipeline_id, int) or \
                not 0 <= self.input_pipeline_id < self.num_input_pipelines:
            raise ConfigError(f"input_pipeline_id should be in [0, num_input_pipelines="
                              f"{self.num_input_pipelines}), but got input_pipeline_id="
                              f"{self.input_pipeline_id!r}")


@dataclasses.dataclass
class ReadConfig:
    """``tfds.ReadConfig``: how ``as_dataset`` reads the shards (TFDS's fields
    and defaults). Fields about TF's runtime (``options``, ``try_autocache``,
    ``skip_prefetch``, ``num_parallel_calls_*``, ``assert_cardinality``) are
    accepted and do not change the order; ``interleave_cycle_length`` defaults
    to 16 (1 for datasets with ``disable_shuffling``).

    Two fields are minibatcher's, not TFDS's (DECISIONS.md 14): ``verify_crc``
    (default True: every record's data CRC is checked, and a mismatch is an
    error naming the file, the record and its byte offset; False reads
    without the data CRC check) and ``max_errors`` (default 0: up to this
    many corrupted records, over everything the dataset reads, are skipped
    as if they were not in the shards, and counted: see
    :func:`~minibatcher.tfds.skipped_records`; one more raises
    ``ErrorBudgetExceeded``). A bad length CRC or a truncated shard is
    always an error (the shard cannot be framed past it).

    Example:
        >>> ReadConfig(interleave_block_length=0).validate()
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: interleave_block_length should be a positive int, ...
    """

    options: Any = None
    try_autocache: bool = True
    repeat_filenames: bool = False
    add_tfds_id: bool = False
    shuffle_seed: Optional[int] = None
    shuffle_reshuffle_each_iteration: Optional[bool] = None
    interleave_cycle_length: Any = MISSING
    interleave_block_length: Optional[int] = 16
    input_context: Optional[InputContext] = None
    experimental_interleave_sort_fn: Optional[Callable[[Sequence[Any]], Sequence[Any]]] = None
    skip_prefetch: bool = False
    num_parallel_calls_for_decode: Optional[int] = None
    num_parallel_calls_for_interleave_files: Optional[int] = None
    enable_ordering_guard: bool = True
    assert_cardinality: bool = True
    verify_crc: bool = True
    max_errors: int = 0

    def validate(self) -> None:
        """Raises ConfigError naming the first bad field."""
        for name in ("interleave_block_length",):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or v < 1):
                raise ConfigError(f"{name} should be a positive int, but got {name}={v!r}")
        c = self.interleave_cycle_length
        if c not in (MISSING, None, -1) and (not isinstance(c, int) or c < 1):
            raise ConfigError(f"interleave_cycle_length should be a positive int (or -1 for "
                              f"AUTOTUNE), but got interleave_cycle_length={c!r}")
        if self.shuffle_seed is not None and not isinstance(self.shuffle_seed, int):
            raise ConfigError(f"shuffle_seed should be an int or None, but got "
                              f"shuffle_seed={self.shuffle_seed!r}")
        if not isinstance(self.verify_crc, bool):
            raise ConfigError(f"verify_crc should be a bool, but got verify_crc="
                              f"{self.verify_crc!r}")
        check_max_errors(self.max_errors)
        if self.input_context is not None and not hasattr(self.input_context,
                                                          "num_input_pipelines"):
            raise ConfigError("input_context should be an InputContext (num_input_pipelines, "
                              f"input_pipeline_id), but got {self.input_context!r}")

    def cycle_length(self, disable_shuffling: bool) -> int | None:
        """The interleave cycle length in force (16, or 1 for ordered datasets;
        None for AUTOTUNE: the number of cores, as tf.data)."""
        c = self.interleave_cycle_length
        if c is MISSING or c == MISSING:
            return 1 if disable_shuffling else 16
        return None if c in (None, -1) else int(c)

    def block_length(self) -> int:
        """The interleave block length (16 by default)."""
        return 16 if self.interleave_block_length is None else int(self.interleave_block_length)
