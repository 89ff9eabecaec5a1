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
from typing import Any

import numpy as np

from ..deserializer import SequenceTable
from ..errors import FormatError
from ..log import logger
from ..streams import StreamInformation
from .chunk_cache import ChunkCache
from .enumerator import UNLIMITED, Enumerator, Selection
from .gather import OutputArena
from .layout import CSRMatrix, SequenceLayout
from .minibatch import DeferredKeys, Minibatch, MinibatchData

_VIEW, _ARENA = 1, 2  # where ChunkRegistry.assemble put dense values (0: a new array)


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
        self._specs: dict[tuple[bool, bool, bool], list[tuple]] = {}

    def _specs_of(self, frames: bool, layout: bool, gather: bool) -> list[tuple]:
        """The native specs of the streams: (bytes of a row or value, sparse, frames, layout, gather)."""
        key = (frames, layout, gather)
        if key not in self._specs:
            self._specs[key] = [(s.dtype.itemsize * (1 if s.is_sparse else s.dim), s.is_sparse,
                                 frames, layout, gather) for s in self.streams]
        return self._specs[key]

    def assemble(self, sequences: np.ndarray, frames: bool = False,
                 segments: tuple[np.ndarray, np.ndarray] | None = None,
                 gather: bool = True) -> "Assembled":
        """Every stream of these sequences (original indices) in one native call
        (``ChunkRegistry.assemble``: locate, leave out skipped sequences, gather,
        lay out; docs/design/engine-speed.md). Their chunks are loaded first when
        missing: all requested before the first is waited for, so they parse in
        parallel. ``segments``: ``(first sample, samples)`` of each sequence
        (truncated BPTT; no layouts); ``gather=False``: lengths only."""
        sequences = np.ascontiguousarray(sequences, dtype=np.int64)
        specs = self._specs_of(frames, segments is None, gather)
        out = self.arena.take() if self.arena is not None and segments is None and gather else None
        while True:
            missing, ids, kept, streams = self.cache.registry.assemble(
                self._chunk_starts, sequences, specs, segments, out)
            if missing is None:
                return Assembled(self, ids, kept, streams, out)
            self.cache.get_many(missing)


class Assembled:
    """What :meth:`PackerInput.assemble` gathered: per stream the values, lengths and layout.

    Example:
        >>> from minibatcher.engine.source import _example   # a CTF file of |x 1, |x 2
        >>> got = _example(randomize=False)._packer.reader.assemble(np.array([1, 0]))
        >>> len(got), got.lengths(0).tolist(), got.values(0).ravel().tolist()
        (1, [1, 1], [2.0, 1.0])
    """

    def __init__(self, reader: PackerInput, ids: np.ndarray, kept: np.ndarray | None,
                 streams: list[tuple], out: np.ndarray | None) -> None:
        self.reader, self.ids, self.kept, self._streams, self._out = reader, ids, kept, streams, out
        self._layouts: list[SequenceLayout] = []

    def __len__(self) -> int:
        return len(self._streams)

    def lengths(self, k: int) -> np.ndarray:
        """Samples of each delivered sequence (or segment) in stream ``k``."""
        return self._streams[k][4]

    def values(self, k: int) -> np.ndarray | CSRMatrix:
        """Stream ``k``'s values: dense ``(samples, dim)`` or CSR; a view of the chunk when the
        sequences are one contiguous run of one chunk, else in the arena when they went there."""
        info = self.reader.streams[k]
        where, values, indices, indptr, lengths, at, nbytes, _ = self._streams[k]
        if info.is_sparse:
            index_dtype = (self.reader.cache.ready(int(self.ids[0])).streams[k].indices.dtype
                           if len(self.ids) else np.dtype(np.int32))
            return CSRMatrix(values.view(info.dtype), indices.view(index_dtype), indptr,
                             (len(indptr) - 1, info.dim))
        if where == _VIEW:
            chunk = self.reader.cache.ready(int(self.ids[0])).streams[k].values
            return chunk[at:at + int(lengths.sum())]
        if where == _ARENA:
            self.reader.arena.used(nbytes)
            values = self._out[at:at + nbytes]
        return values.view(info.dtype).reshape(-1, info.dim)

    def layout(self, k: int) -> SequenceLayout:
        """Stream ``k``'s layout (streams with equal lengths share one); call in stream order."""
        layout_of, num_rows, width, rows, starts, _ = self._streams[k][7]
        if layout_of >= 0:
            layout = self._layouts[layout_of]
        elif rows is None:
            layout = SequenceLayout.uniform(num_rows, width)
        else:
            layout = SequenceLayout.packed(num_rows, width, rows, starts, self.lengths(k))
        self._layouts.append(layout)
        return layout

    def not_one(self, k: int) -> int:
        """Frame mode: the first sequence of stream ``k`` without exactly one sample, or -1."""
        return self._streams[k][7][5]


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

    frames = False

    def read(self, size: int, local_timeline: bool) -> tuple[Minibatch | None, bool]:
        cfg = self.reader.enumerator.config
        selection = self.reader.enumerator.next_sequences(
            *minibatch_counts(size, cfg.num_workers, cfg.worker_rank, local_timeline))
        if not selection:
            return None, selection.end_of_epoch
        return self.pack(selection), selection.end_of_epoch  # None: every sequence was skipped

    def pack(self, selection: Selection) -> Minibatch | None:
        """Gathers every stream of the selected sequences (None when the
        deserializer skipped all of them)."""
        indices = selection.indices()
        got = self.reader.assemble(indices, self.frames)
        if got.kept is not None and not len(got.kept):
            return None
        keys = DeferredKeys(self.reader.table.keys, indices, got.kept)
        result = Minibatch()
        for k, info in enumerate(self.reader.streams):
            if got.not_one(k) >= 0:
                self._not_one(got, k, keys)
            result[info.name] = MinibatchData(info, got.values(k), got.lengths(k), keys,
                                              selection.end_of_sweep, got.layout(k))
        return result

    def _not_one(self, got: Assembled, k: int, keys: DeferredKeys) -> None:
        """Frame mode: a sequence with more or fewer than one sample is an error."""
        i, stream = got.not_one(k), self.reader.streams[k]
        raise FormatError(
            f"frame_mode=True needs one-sample sequences, but sequence (key {int(keys()[i])}) has "
            f"{int(got.lengths(k)[i])} samples in stream {stream.name!r}; use frame_mode=False to "
            "read whole sequences")


class FramePacker(SequencePacker):
    """Frame mode: every sequence must have exactly one sample in every stream."""

    frames = True
