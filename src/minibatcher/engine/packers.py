"""Packers: turn the enumerator's sequence selections into minibatches.

* :class:`SequencePacker` -- whole sequences; each stream gets CNTK's
  first-fit layout of its own sequence lengths.
* :class:`FramePacker` -- one-sample sequences only (frame mode).
* ``TruncatedBpttPacker`` (in :mod:`.bptt`) -- fixed-width slots.

See docs/design/packing-layout.md.

Example:
    >>> minibatch_counts(10, num_workers=3, worker_rank=0, local_timeline=True)
    (18446744073709551615, 4)
    >>> minibatch_counts(10, num_workers=3, worker_rank=0, local_timeline=False)
    (10, 10)
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .. import _native
from ..deserializer import ChunkData, SequenceTable, StreamChunk
from ..errors import FormatError
from ..log import logger
from ..streams import StreamInformation
from .chunk_cache import ChunkCache
from .enumerator import UNLIMITED, Enumerator, Selection
from .gather import OutputArena, gather_sequences, gather_stream, sample_ranges
from .layout import SequenceLayout
from .minibatch import Minibatch, MinibatchData


def minibatch_counts(size: int, num_workers: int, worker_rank: int,
                     local_timeline: bool) -> tuple[int, int]:
    """``(global, local)`` sample budgets of one request (CNTK's packer rule)."""
    if not local_timeline:
        return size, size
    local = size // num_workers + (1 if size % num_workers > worker_rank else 0)
    if local == 0:
        logger.warning("minibatch size %d is too small for %d workers; worker %d reads 1 sample "
                       "per minibatch", size, num_workers, worker_rank)
        local = 1
    return UNLIMITED, local


@dataclass
class PackerInput:
    """What packers read from: the table, the streams, the chunk cache and the enumerator."""

    table: SequenceTable
    streams: list[StreamInformation]
    cache: ChunkCache
    enumerator: Enumerator
    arena: OutputArena | None = None  # where dense whole-sequence gathers may go

    def __post_init__(self) -> None:
        self._chunk_starts = np.ascontiguousarray(self.table.chunk_starts, dtype=np.int64)

    def picks(self, sequences: Sequence[int] | np.ndarray) -> "Picks":
        """The loaded chunks of these sequences (each chunk once) and where each sequence is.

        Every chunk is requested before the first is waited for, so they parse in parallel."""
        unique, source, within = _native.engine_locate(
            np.asarray(sequences, dtype=np.int64), self._chunk_starts)
        return Picks(self.cache.get_many(unique.tolist()), source, within, unique)

    def gather(self, k: int, picks: "Picks", starts: np.ndarray, lengths: np.ndarray) -> Any:
        """Values of stream ``k`` for sample ranges of the picked sequences' chunks."""
        return gather_stream(self.streams[k], picks.stream(k), picks.source, starts, lengths)

    def sequences(self, k: int, picks: "Picks") -> tuple[Any, np.ndarray]:
        """``(values, lengths)`` of stream ``k`` for the picked whole sequences (one native call)."""
        if picks.chunks[0].streams[k].context is not None:  # HTK context windows: added here
            starts, lengths = picks.ranges(k)
            return self.gather(k, picks, starts, lengths), lengths
        return gather_sequences(self.cache.registry, k, picks.chunks[0].streams[k], picks.ids,
                                picks.source, picks.within, self.streams[k], self.arena)


@dataclass
class Picks:
    """Sequences located in loaded chunks: sequence ``i`` is sequence
    ``within[i]`` of ``chunks[source[i]]``."""

    chunks: list[ChunkData]
    source: np.ndarray
    within: np.ndarray
    ids: np.ndarray  # the chunks' ids (int64)

    def stream(self, k: int) -> list[StreamChunk]:
        """Stream ``k`` of every distinct chunk."""
        return [c.streams[k] for c in self.chunks]

    def ranges(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """First sample and length of every picked sequence in stream ``k``."""
        return sample_ranges(self.stream(k), self.source, self.within)

    def delivered(self) -> np.ndarray | None:
        """Mask of the picks their chunk does not skip (``ChunkData.skipped``);
        None when nothing is skipped (the common case, no work)."""
        if not any(c.skipped for c in self.chunks):
            return None
        skipped = np.zeros(len(self.source), dtype=bool)
        for i, chunk in enumerate(self.chunks):
            if chunk.skipped:
                skipped |= (self.source == i) & np.isin(self.within, chunk.skipped)
        return ~skipped

    def subset(self, mask: np.ndarray) -> "Picks":
        """The picks where ``mask`` is set."""
        return Picks(self.chunks, self.source[mask], self.within[mask], self.ids)


class Packer(abc.ABC):
    """Builds minibatches; its state (if any) is part of checkpoints."""

    skips_by_reading = False  # skipping a minibatch needs its data (BPTT slots, legacy rules)

    def __init__(self, reader: PackerInput) -> None:
        self.reader = reader

    @abc.abstractmethod
    def read(self, size: int, local_timeline: bool) -> tuple[Minibatch | None, bool]:
        """``(minibatch or None when there is no data, end_of_epoch)``."""

    def get_state(self) -> dict[str, Any]:
        """Packer state for a checkpoint."""
        return {}

    def set_state(self, state: dict[str, Any]) -> None:
        """Restores :meth:`get_state`."""

    def reset(self) -> None:
        """Forgets buffered data (after a seek)."""

    def pinned_chunks(self) -> list[int]:
        """Chunks holding data the packer has buffered (they must stay loaded)."""
        return []


class SequencePacker(Packer):
    """Whole sequences, first-fit layout per stream (CNTK's ``SequencePacker``)."""

    def read(self, size: int, local_timeline: bool) -> tuple[Minibatch | None, bool]:
        cfg = self.reader.enumerator.config
        selection = self.reader.enumerator.next_sequences(
            *minibatch_counts(size, cfg.num_workers, cfg.worker_rank, local_timeline))
        if not selection.sequences:
            return None, selection.end_of_epoch
        return self.pack(selection), selection.end_of_epoch  # None: every sequence was skipped

    def layout(self, lengths: np.ndarray, stream: StreamInformation,
               keys: np.ndarray) -> SequenceLayout:
        """The stream's grid for these sequence lengths."""
        return SequenceLayout.first_fit(lengths)

    def pack(self, selection: Selection) -> Minibatch | None:
        """Gathers every stream of the selected sequences (None when the
        deserializer skipped all of them)."""
        indices = selection.indices()
        picks = self.reader.picks(indices)
        keys = self.reader.table.keys[indices]
        delivered = picks.delivered()
        if delivered is not None:
            if not delivered.any():
                return None
            picks, keys = picks.subset(delivered), keys[delivered]
        result = Minibatch()
        layouts: dict[bytes, SequenceLayout] = {}  # streams with equal lengths share one
        for k, info in enumerate(self.reader.streams):
            values, lengths = self.reader.sequences(k, picks)
            layout = layouts.get(signature := lengths.tobytes())
            if layout is None:
                layout = layouts[signature] = self.layout(lengths, info, keys)
            result[info.name] = MinibatchData(info, values, lengths, keys, selection.end_of_sweep,
                                              layout)
        return result


class FramePacker(SequencePacker):
    """Frame mode: every sequence must have exactly one sample in every stream."""

    def layout(self, lengths: np.ndarray, stream: StreamInformation,
               keys: np.ndarray) -> SequenceLayout:
        bad = np.flatnonzero(lengths != 1)
        if len(bad):
            i = int(bad[0])
            raise FormatError(
                f"frame_mode=True needs one-sample sequences, but sequence (key {int(keys[i])}) has "
                f"{int(lengths[i])} samples in stream {stream.name!r}; use frame_mode=False to "
                "read whole sequences")
        return SequenceLayout.frames(len(lengths))
