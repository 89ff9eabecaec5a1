"""``tfds.ReadConfig`` and ``tf.distribute.InputContext``.

Example:
    >>> rc = ReadConfig(shuffle_seed=32, interleave_cycle_length=3)
    >>> rc.cycle_length(disable_shuffling=False), rc.block_length()
    (3, 16)
    >>> ReadConfig(interleave_block_length=None).block_length()  # tf.data's default: 1
    1
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional, Sequence

import numpy as np

from ..budget import check_max_errors
from ..errors import ConfigError
from .file_adapters import FileFormat

MISSING = "__missing__"
MAX_CYCLE_LENGTH = 1 << 20  # the interleave keeps one slot per cycle position
_INT64 = (-(1 << 63), (1 << 63) - 1)


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
    accepted and do not change the order (``options``, a ``tfdata.Options``, is
    applied to the read as TFDS does: ``autotune.cpu_budget`` fixes the
    AUTOTUNE cycle length); ``interleave_cycle_length`` defaults
    to 16 (1 for datasets with ``disable_shuffling``); ``interleave_block_length=None``
    is tf.data's default block length, 1. ``override_buffer_size`` (a read
    buffer size) is accepted and changes nothing; ``file_format`` chooses the
    shard format (only ``'tfrecord'`` shards can be read).

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
        minibatcher.errors.ConfigError: interleave_block_length should be a positive int at most ...
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
    num_parallel_calls_for_interleave_files: Any = MISSING
    enable_ordering_guard: bool = True
    assert_cardinality: bool = True
    override_buffer_size: Optional[int] = None
    file_format: Any = None
    verify_crc: bool = True
    max_errors: int = 0

    def __post_init__(self) -> None:
        if self.num_parallel_calls_for_decode is None:  # TFDS: AUTOTUNE by default
            self.num_parallel_calls_for_decode = -1
        if self.num_parallel_calls_for_interleave_files == MISSING:
            self.num_parallel_calls_for_interleave_files = -1
        if isinstance(self.file_format, str):
            self.file_format = FileFormat.from_value(self.file_format)

    def validate(self) -> None:
        """Raises ConfigError naming the first bad field.

        Example:
            >>> ReadConfig(interleave_cycle_length=10**12).validate()
            Traceback (most recent call last):
            ...
            minibatcher.errors.ConfigError: interleave_cycle_length should be a positive int ...
        """
        _positive("interleave_block_length", self.interleave_block_length, 1 << 62)
        c = self.interleave_cycle_length
        if c not in (MISSING, None, -1):
            _positive("interleave_cycle_length", c, MAX_CYCLE_LENGTH,
                      " (or None/-1 for AUTOTUNE; at most 2**20 files are read at once)")
        if self.shuffle_seed is not None:
            _integer("shuffle_seed", self.shuffle_seed, *_INT64, "an int64 or None")
        for name in ("override_buffer_size", "num_parallel_calls_for_decode",
                     "num_parallel_calls_for_interleave_files"):
            value = getattr(self, name)
            if value is not None and value != MISSING:
                _integer(name, value, -1, 1 << 62, "an int, -1 (AUTOTUNE) or None")
        for name in ("verify_crc", "add_tfds_id", "repeat_filenames", "try_autocache",
                     "skip_prefetch", "enable_ordering_guard", "assert_cardinality"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} should be a bool, but got {name}="
                                  f"{getattr(self, name)!r}")
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
        """The interleave block length (16 by default; None is tf.data's 1)."""
        return 1 if self.interleave_block_length is None else int(self.interleave_block_length)

    def replace(self, **kwargs: Any) -> "ReadConfig":
        """A copy with some fields changed (TFDS's ``ReadConfig.replace``).

        Example:
            >>> ReadConfig().replace(shuffle_seed=3).shuffle_seed
            3
        """
        return dataclasses.replace(self, **kwargs)


def _integer(name: str, value: Any, lo: int, hi: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or \
            not lo <= int(value) <= hi:
        raise ConfigError(f"{name} should be {what}, but got {name}={value!r}")
    return int(value)


def _positive(name: str, value: Any, hi: int, extra: str = "") -> None:
    if value is not None:
        _integer(name, value, 1, hi, f"a positive int at most {hi}{extra}")
