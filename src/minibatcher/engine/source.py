"""``MinibatchSource``: CNTK's minibatch source, deterministic and exactly resumable.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher import CTFDeserializer, StreamDef
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("".join(f"|x {i}\\n" for i in range(5)))
    >>> src = MinibatchSource(CTFDeserializer(str(p), {"x": StreamDef(shape=1)}),
    ...                       randomize=False, max_sweeps=1)
    >>> [mb["x"].values.ravel().tolist() for mb in src.minibatches(2)]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Iterator, Sequence

from .. import exit_guard
from ..args import check_int, non_negative_int
from ..deserializer import Deserializer
from ..errors import ConfigError
from ..gate import Gate, SharedIterator, gated
from ..state import Fingerprint
from ..streams import StreamInformation
from .chunk_cache import ChunkCache
from .enumerator import MAX_EPOCH_SIZE, EpochConfig, make_enumerator
from .frames import FrameTable, FrameView
from .gather import OutputArena
from .legacy import make_packer
from .minibatch import Minibatch
from .options import FULL_DATA_SWEEP, INFINITELY_REPEAT, SourceOptions, epoch_size_of
from .packers import PackerInput, minibatch_counts
from .schedule import ChunkSchedule
from .source_args import (StreamInfos, as_deserializer, check_frames, check_minibatch_size,
                          deserializer_threads)
from .source_state import SourceCheckpoints
from .worker_shares import warn_if_unbalanced

# StreamInfos is re-exported: it lives in .source_args
__all__ = ["MinibatchSource", "StreamInfos", "INFINITELY_REPEAT", "FULL_DATA_SWEEP"]


def _example(**options: Any) -> "MinibatchSource":
    """A source over a small temporary CTF file, for the examples."""
    import tempfile

    from ..formats.ctf import CTFDeserializer
    from ..streams import StreamDef

    path = os.path.join(tempfile.mkdtemp(), "example.ctf")
    with open(path, "w") as f:
        f.write("|x 1\n|x 2\n")
    return MinibatchSource(CTFDeserializer(path, {"x": StreamDef(shape=1)}), **options)


class MinibatchSource(SourceCheckpoints):
    """Reads minibatches from one or more deserializers (joined by sequence key).

    Mirrors ``cntk.io.MinibatchSource``: ``max_samples`` / ``max_sweeps`` bound
    the (single) epoch; ``randomize`` with a window in chunks or samples
    selects CNTK's block randomizer (seed of sweep ``s`` = ``randomization_seed
    + s``); ``frame_mode`` and ``truncation_length`` choose the packing;
    ``num_workers`` / ``worker_rank`` split the data. Beyond CNTK:
    ``cross_sweep_boundaries=False`` and ``local_timeline=False`` give the
    legacy readers' minibatches, ``num_threads`` parse ahead in parallel,
    ``prefetch_chunks`` bounds how many chunks are parsed ahead, and
    checkpoints restore exactly in every mode. ``trace_level`` (an int or a
    ``TraceLevel``) applies to the engine's own messages (joining
    deserializers); each deserializer has its own. CNTK's
    ``multithreaded_deserializer`` is accepted: ``False`` parses on one
    thread, ``None``/``True`` on ``num_threads``. The parameters up to
    ``randomize`` keep CNTK's positional order; the rest are keyword-only.

    ``randomization_window_in_chunks`` defaults to
    ``DEFAULT_RANDOMIZATION_WINDOW_IN_CHUNKS`` (128) unless a window in
    samples is given; ``randomize=False`` (or a window of 0) reads in file order.

    The legacy ``HTKMLFReader``'s rules (``utterances_per_minibatch``,
    ``truncated_by_minibatch``, ``full_minibatches``; :mod:`.legacy`) select
    their packers; ``from_config`` sets them for such reader sections.

    Several threads may share a source: each ``next_minibatch``,
    ``skip_minibatch``, ``start_epoch``, ``get_checkpoint_state`` and
    ``restore_from_checkpoint`` runs alone (the source's gate), so every
    minibatch is delivered to exactly one thread.
    """

    def __init__(self, deserializers: Deserializer | Sequence[Deserializer],
                 max_samples: int = INFINITELY_REPEAT, max_sweeps: int = INFINITELY_REPEAT,
                 randomization_window_in_chunks: int | None = None,
                 randomization_window_in_samples: int = 0, randomization_seed: int = 0,
                 trace_level: int = 1, multithreaded_deserializer: bool | None = None,
                 frame_mode: bool = False, truncation_length: int = 0, randomize: bool = True, *,
                 num_workers: int = 1, worker_rank: int = 0, cross_sweep_boundaries: bool = True,
                 local_timeline: bool = True, num_threads: int | None = None,
                 prefetch_chunks: int | None = None,
                 utterances_per_minibatch: int | Sequence[int] = 0,
                 truncated_by_minibatch: bool = False, full_minibatches: bool = False) -> None:
        exit_guard.check()
        self._gate = Gate("this MinibatchSource")  # one reading method at a time
        num_threads = deserializer_threads(multithreaded_deserializer, num_threads)
        self.options = SourceOptions(
            max_samples, max_sweeps, randomize, randomization_window_in_chunks,
            randomization_window_in_samples, randomization_seed, frame_mode, truncation_length,
            trace_level, num_workers, worker_rank, cross_sweep_boundaries, local_timeline,
            num_threads, prefetch_chunks, utterances_per_minibatch, truncated_by_minibatch,
            full_minibatches)
        self._deserializer = as_deserializer(deserializers, self.options.trace_level)
        if self.options.frame_mode and self._deserializer.splits_into_frames:
            self._deserializer = FrameView(self._deserializer)  # every frame a sequence
        self._table = self._deserializer.table()
        if self.options.frame_mode and not isinstance(self._table, FrameTable):
            check_frames(self._table, self._deserializer.name)
        self._streams = StreamInfos(self._deserializer.streams)
        o = self.options
        self._enumerator = make_enumerator(self._table, o.order(), o.randomization_seed)
        threads = o.num_threads or min(8, os.cpu_count() or 1)
        self._ahead = o.prefetch_chunks or max(1, threads)
        self._cache = ChunkCache(self._deserializer, threads)
        reader = PackerInput(self._table, self._deserializer.streams, self._cache, self._enumerator)
        self._packer = make_packer(reader, o)
        self._workers = (o.num_workers, o.worker_rank)
        self._explicit_epoch = False
        self._started = self._end = False
        self._schedules: dict[int, ChunkSchedule] = {}
        self._fingerprint: Fingerprint | None = None
        self._names: Any = None  # the deserializer's key_names, False when it has none
        self._shares_checked: tuple[int, int, int] | None = None

    # -- public API -----------------------------------------------------------------------------

    @classmethod
    def from_config(cls, config: str | os.PathLike, section: str | None = None, *,
                    overrides: Mapping[str, str] | None = None,
                    base_dir: str | os.PathLike | None = None, max_errors: int | None = None,
                    **options: Any) -> "MinibatchSource":
        """The source of a BrainScript/legacy ``reader`` section (a path or the text).

        ``section`` names the block whose ``reader`` is used (``None``: a
        top-level ``reader``); ``overrides`` are top-level assignments applied
        like CNTK's command line (``{"defMBSize": "true"}``); relative ``file``
        paths resolve against ``base_dir``, by default the config file's
        folder (the working directory when ``config`` is text); a missing file
        raises ``FileNotFoundError`` naming the key, the path tried and
        ``base_dir``; ``max_errors`` (when given) replaces every deserializer's
        ``maxErrors``; ``options`` override :class:`MinibatchSource` options.
        """
        from ..config.reader import source_arguments

        deserializers, merged = source_arguments(config, section, overrides=overrides,
                                                 base_dir=base_dir, max_errors=max_errors,
                                                 **options)
        return cls(deserializers, **merged)

    @property
    def streams(self) -> StreamInfos:
        """The streams delivered, by name (``source.streams.features`` works too)."""
        return self._streams

    def stream_infos(self) -> list[StreamInformation]:
        """The streams delivered, in stream-id order (CNTK's ``stream_infos()``).

        Example:
            >>> [i.m_name for i in _example().stream_infos()]
            ['x']
        """
        return list(self._streams.values())

    def stream_info(self, name: str) -> StreamInformation:
        """``streams[name]`` with an error listing the valid names."""
        if name not in self._streams:
            raise ConfigError(f"no stream named {name!r}; streams: {', '.join(self._streams)}")
        return self._streams[name]

    def __getitem__(self, name: str) -> StreamInformation:
        """``source['features']``: the stream's ``StreamInformation`` (as ``stream_info``).

        Example:
            >>> _example()["x"].dim
            1
        """
        return self.stream_info(name)

    def is_infinite(self) -> bool:
        """True when neither ``max_samples`` nor ``max_sweeps`` limits the reading.

        Example:
            >>> _example().is_infinite(), _example(max_sweeps=1).is_infinite()
            (True, False)
        """
        return (self.options.max_samples == INFINITELY_REPEAT
                and self.options.max_sweeps == INFINITELY_REPEAT)

    @property
    def sweep_size(self) -> int:
        """Samples in one sweep (budget units)."""
        return self._enumerator.sweep_size

    @property
    def deserializer(self) -> Deserializer:
        """The (possibly composite) deserializer read from."""
        return self._deserializer

    @gated
    def next_minibatch(self, minibatch_size_in_samples: int, input_map: Mapping | None = None,
                       device: Any = None, num_data_partitions: int | None = None,
                       partition_index: int | None = None) -> Minibatch | dict:
        """The next minibatch as ``{stream name: MinibatchData}``; ``{}`` once the epoch ended."""
        exit_guard.check()
        size = check_minibatch_size(minibatch_size_in_samples)
        self._set_workers(num_data_partitions, partition_index)
        if not self._started:
            self._start(self._v2_epoch())
        self._check_shares()
        minibatch = None
        while minibatch is None and not self._end:
            minibatch, self._end = self._packer.read(size, self.options.local_timeline)
            self._update_cache()
        if minibatch is None:
            return Minibatch()
        self._attach_names(minibatch)
        if input_map is not None:
            return {key: minibatch[info] for key, info in input_map.items()}
        return minibatch

    def minibatches(self, minibatch_size_in_samples: int) -> Iterator[Minibatch]:
        """Minibatches until the epoch ends (an iterator that threads may share).

        Example:
            >>> source = _example(randomize=False, max_sweeps=2)   # 2 sweeps of 2 samples
            >>> [mb["x"].values.ravel().tolist() for mb in source.minibatches(3)]
            [[1.0, 2.0, 1.0], [2.0]]
        """
        return SharedIterator(self._minibatches(minibatch_size_in_samples),
                              "this MinibatchSource's minibatches()")

    def _minibatches(self, minibatch_size_in_samples: int) -> Iterator[Minibatch]:
        while True:
            minibatch = self.next_minibatch(minibatch_size_in_samples)
            if not minibatch:
                return
            yield minibatch

    @gated
    def start_epoch(self, epoch: int, epoch_size: int = FULL_DATA_SWEEP, *,
                    num_data_partitions: int | None = None,
                    partition_index: int | None = None) -> None:
        """Legacy epochs: reading continues at the first sequence starting at or
        after ``epoch * epoch_size`` and stops at ``(epoch + 1) * epoch_size``
        (``FULL_DATA_SWEEP`` = one sweep). ``num_data_partitions`` /
        ``partition_index`` set the distributed split first, as in :meth:`next_minibatch`."""
        size = self.sweep_size if epoch_size in (FULL_DATA_SWEEP, INFINITELY_REPEAT) else epoch_size
        size = check_int("epoch_size", size, 1, MAX_EPOCH_SIZE,
                         expected="a positive int or FULL_DATA_SWEEP")
        epoch = non_negative_int("epoch", epoch)
        self._set_workers(num_data_partitions, partition_index)
        self._explicit_epoch = True
        self._start(self._epoch_config(size, epoch))

    @gated
    def skip_minibatch(self, minibatch_size_in_samples: int, num_data_partitions: int | None = None,
                       partition_index: int | None = None) -> bool:
        """Moves past the next minibatch exactly as :meth:`next_minibatch` would,
        without loading or packing its data (truncated BPTT reads it: its slots
        need the data); ``False`` once the epoch has ended. Readers that split one
        stream between processes skip the minibatches of the others with it.

        Example:
            >>> source = _example(randomize=False, max_sweeps=1)
            >>> source.skip_minibatch(1), source.next_minibatch(1)["x"].values.ravel().tolist()
            (True, [2.0])
            >>> source.skip_minibatch(1)
            False
        """
        if self._packer.skips_by_reading:
            return bool(self.next_minibatch(minibatch_size_in_samples, None, None,
                                            num_data_partitions, partition_index))
        size = check_minibatch_size(minibatch_size_in_samples)
        self._set_workers(num_data_partitions, partition_index)
        if not self._started:
            self._start(self._v2_epoch())
        while not self._end:
            cfg = self._enumerator.config
            selection = self._enumerator.next_sequences(*minibatch_counts(
                size, cfg.num_workers, cfg.worker_rank, self.options.local_timeline))
            self._end = selection.end_of_epoch
            if len(selection):
                return True
        return False

    @gated
    def set_output_arena(self, arena: OutputArena | None) -> None:
        """Lends memory for the dense values of whole-sequence minibatches (frame
        and sequence mode): each gather writes into ``arena.take()`` while room
        is left, else into a new array. The values are then views of that
        memory, valid until the lender reuses it. The DataLoader worker ring
        uses it so that minibatches are gathered straight into shared memory.

        Example:
            >>> import numpy as np
            >>> class Arena:   # lends 64 bytes, used from the front
            ...     buffer, taken = np.zeros(64, np.uint8), 0
            ...     def take(self): return self.buffer[self.taken:]
            ...     def used(self, nbytes): self.taken += nbytes
            >>> source, arena = _example(randomize=False), Arena()
            >>> source.set_output_arena(arena)
            >>> values = source.next_minibatch(3)["x"].values   # sweep 0, then 1 of sweep 1
            >>> values.ravel().tolist(), arena.taken, np.shares_memory(values, arena.buffer)
            ([1.0, 2.0, 1.0], 12, True)
        """
        self._packer.reader.arena = arena

    def close(self) -> None:
        """Stops background parsing and frees loaded chunks."""
        self._cache.close()

    def __enter__(self) -> "MinibatchSource":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ------------------------------------------------------------------------------

    def _check_shares(self) -> None:
        """Warns once per epoch and worker layout when this worker's share is empty or small."""
        config = self._enumerator.config
        layout = (config.epoch_index, config.num_workers, config.worker_rank)
        if layout != self._shares_checked and self.options.trace_level >= 1 and not self._end:
            self._shares_checked = layout
            sweep = min(self._enumerator.position, config.end - 1) // max(self.sweep_size, 1)
            warn_if_unbalanced(self._enumerator, max(sweep, 0), self._table.num_chunks,
                               self._deserializer.name)

    def _attach_names(self, minibatch: Minibatch) -> None:
        """Lets ``MinibatchData.names`` give the sequence names of readers that have them."""
        if self._names is None:
            named = self._deserializer.key_names(self._table.keys[:0]) is not None  # no lookup yet
            self._names = self._deserializer.key_names if named else False
        if self._names:
            for data in minibatch.values():
                data.names_of = self._names

    def _epoch_config(self, size: int, index: int) -> EpochConfig:
        return EpochConfig(size, index, self._workers[0], self._workers[1],
                           self.options.cross_sweep_boundaries)

    def _v2_epoch(self) -> EpochConfig:
        return self._epoch_config(epoch_size_of(self.options, self.sweep_size), 0)

    def _start(self, config: EpochConfig) -> None:
        self._enumerator.start_epoch(config)
        self._packer.reset()
        self._started, self._end = True, False
        self._schedules.clear()
        self._update_cache()

    def _set_workers(self, count: int | None, rank: int | None) -> None:
        if count is None and rank is None:
            return
        workers = (1 if count is None else check_int("num_data_partitions", count, 1),
                   0 if rank is None else check_int("partition_index", rank, 0))
        if workers != self._workers:
            cfg = self._enumerator.config
            new = EpochConfig(cfg.epoch_size, cfg.epoch_index, *workers, cfg.allow_cross)
            self._workers, self._enumerator.config = workers, new
            self._fingerprint = None
            self._schedules.clear()

    def _schedule(self, sweep: int) -> ChunkSchedule:
        schedule = self._schedules.get(sweep)
        if schedule is None:
            plan, e = self._enumerator.plan(sweep), self._enumerator
            schedule = ChunkSchedule(self._table, plan, (*e.owner(sweep), e.config.num_workers,
                                                         e.config.worker_rank))
            self._schedules = {s: v for s, v in self._schedules.items() if s >= sweep - 1}
            self._schedules[sweep] = schedule
        return schedule

    def _update_cache(self) -> None:
        if self._enumerator.position >= self._enumerator.config.end:
            self._cache.want(self._packer.pinned_chunks())  # the epoch is over: read nothing ahead
            return
        sweep, position = self._enumerator.cursor()
        wanted = self._schedule(sweep).wanted(position, self._ahead)
        next_sweep_start = (sweep + 1) * self.sweep_size
        if len(wanted) < self._ahead and self._enumerator.config.end > next_sweep_start:
            wanted += self._schedule(sweep + 1).first_chunks(self._ahead - len(wanted))
        self._cache.want(self._packer.pinned_chunks() + wanted)
