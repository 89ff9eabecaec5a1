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

from ..args import bad_option, check_bool, check_int, is_int, optional_int, positive_int
from ..budget import check_max_errors
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
        minibatcher.errors.ConfigError: option input_pipeline_id should be an integer in [0, num_input_pipelines=3), but got input_pipeline_id=3
    """

    num_input_pipelines: int = 1
    input_pipeline_id: int = 0
    num_replicas_in_sync: int = 1

    def __post_init__(self) -> None:
        n = positive_int("num_input_pipelines", self.num_input_pipelines)
        i = check_int("input_pipeline_id", self.input_pipeline_id, 0, n - 1,
                      expected=f"an integer in [0, num_input_pipelines={n})")
        r = positive_int("num_replicas_in_sync", self.num_replicas_in_sync)
        for name, value in (("num_input_pipelines", n), ("input_pipeline_id", i),
                            ("num_replicas_in_sync", r)):
            object.__setattr__(self, name, value)  # NumPy integers become ints


@dataclasses.dataclass
class ReadConfig:
    """``tfds.ReadConfig``: how ``as_dataset`` reads the shards (TFDS's fields
    and defaults). Fields about TF's runtime (``options``, ``try_autocache``,
    ``skip_prefetch``, ``num_parallel_calls_*``, ``assert_cardinality``) are
    accepted and do not change the order (``options``, a ``tfdata.Options``, is
    applied to the read as TFDS does: ``autotune.cpu_budget`` fixes the
    AUTOTUNE cycle length; ``num_parallel_calls_for_decode`` is the number of
    threads that decode images, AUTOTUNE by default: the schedulable CPUs); ``interleave_cycle_length`` defaults
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
        minibatcher.errors.ConfigError: option interleave_block_length should be an integer in [1, 4611686018427387904] or None, but got interleave_block_length=0
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
        """Raises ConfigError naming the first bad field (NumPy integers are
        integers; bools, floats and strings are not).

        Example:
            >>> ReadConfig(interleave_cycle_length=10**12).validate()
            Traceback (most recent call last):
            ...
            minibatcher.errors.ConfigError: option interleave_cycle_length should be an integer in [1, 1048576] (at most 2**20 files are read at once), None or -1 (AUTOTUNE), but got interleave_cycle_length=1000000000000
        """
        optional_int("interleave_block_length", self.interleave_block_length, 1, 1 << 62)
        c = self.interleave_cycle_length
        if c is not None and c != MISSING and not (is_int(c) and c == -1):
            check_int("interleave_cycle_length", c, 1, MAX_CYCLE_LENGTH, expected=(
                f"an integer in [1, {MAX_CYCLE_LENGTH}] (at most 2**20 files are read at "
                "once), None or -1 (AUTOTUNE)"))
        optional_int("shuffle_seed", self.shuffle_seed, *_INT64)
        for name in ("override_buffer_size", "num_parallel_calls_for_decode",
                     "num_parallel_calls_for_interleave_files"):
            optional_int(name, getattr(self, name), -1, 1 << 62)
        for name in ("verify_crc", "add_tfds_id", "repeat_filenames", "try_autocache",
                     "skip_prefetch", "enable_ordering_guard", "assert_cardinality"):
            check_bool(name, getattr(self, name))
        check_max_errors(self.max_errors)
        if self.input_context is not None and not hasattr(self.input_context,
                                                          "num_input_pipelines"):
            raise bad_option("input_context", self.input_context, "an InputContext("
                             "num_input_pipelines, input_pipeline_id) or None")

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
