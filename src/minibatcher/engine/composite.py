"""Joining several deserializers by sequence key (CNTK's ``Bundler``).

The first deserializer is primary: it defines the chunks and the order. A
primary sequence whose key is missing from any other deserializer is dropped
(counted and reported); chunks left empty disappear. A sequence's budget
length is the longest over deserializers, or the length in the deserializer
that owns the ``defines_mb_size`` stream.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher import CTFDeserializer, StreamDef
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.ctf").write_text("0 |x 1\\n0 |x 2\\n1 |x 3\\n2 |x 4\\n")
    >>> _ = (d / "b.ctf").write_text("0 |y 10\\n2 |y 30\\n")
    >>> c = CompositeDeserializer([CTFDeserializer(str(d / "a.ctf"), {"x": StreamDef()}, trace_level=0),
    ...                            CTFDeserializer(str(d / "b.ctf"), {"y": StreamDef()})], trace_level=0)
    >>> c.table().keys.tolist(), c.dropped_sequences
    ([0, 2], 1)
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any, Sequence

import numpy as np

from ..deserializer import ChunkData, ContextWindow, Deserializer, SequenceTable, StreamChunk
from ..errors import ConfigError
from ..log import Tracer
from ..streams import StreamInformation
from .gather import gather_dense, gather_rows, gather_sparse, sample_ranges


def _find(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Index of the first sequence with each wanted key, -1 when absent."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    at = np.searchsorted(sorted_keys, wanted, side="left")
    at_clipped = np.minimum(at, max(len(keys) - 1, 0))
    found = (at < len(keys)) & (sorted_keys[at_clipped] == wanted) if len(keys) else at < 0
    return np.where(found, order[at_clipped] if len(keys) else -1, -1)


def _picked(sources: Sequence[StreamChunk], source: np.ndarray, within: np.ndarray,
            info: StreamInformation) -> StreamChunk:
    """Sequence ``within[i]`` of ``sources[source[i]]``, for every i, as one stream chunk."""
    starts, lengths = sample_ranges(sources, source, within)
    offsets = np.zeros(len(within) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    window = sources[0].context if sources else None
    if window is not None:  # keep the base rows; the window applies at gather time
        if any(c.context is None or c.context.bounds is not None for c in sources):
            raise ValueError("a composite can only pick whole sequences of context chunks")
        return StreamChunk.dense(gather_rows(sources, source, starts, lengths), offsets,
                                 ContextWindow(window.left, window.right))
    if info.is_sparse:
        m = gather_sparse(sources, source, starts, lengths, info.dim, info.dtype)
        return StreamChunk.sparse(m.data, m.indices, m.indptr, offsets)
    return StreamChunk.dense(gather_dense(sources, source, starts, lengths, info.dim, info.dtype),
                             offsets)


class CompositeDeserializer(Deserializer):
    """Several deserializers read as one (streams concatenated in order)."""

    def __init__(self, deserializers: Sequence[Deserializer], trace_level: int = 1) -> None:
        if len(deserializers) < 2:
            raise ConfigError("a composite needs at least two deserializers")
        self.parts = list(deserializers)
        self._tracer = Tracer(trace_level)
        self._infos = self._check_streams()
        tables = [d.table() for d in self.parts]
        primary = tables[0]
        self._links = [_find(t.keys, primary.keys) for t in tables[1:]]
        valid = np.ones(primary.num_sequences, dtype=bool)
        reported = np.zeros(primary.num_sequences, dtype=bool)
        for part, link in zip(self.parts[1:], self._links):
            keep = part.join(self.parts[0], link)
            if keep is None:
                valid &= link >= 0
            else:
                valid &= keep
                reported |= ~keep
        self.dropped_sequences = int((~valid).sum())
        self._report_dropped(primary, valid, reported)
        self._build_table(tables, valid)
        self._lock = threading.Lock()
        self._secondary: list[dict[int, ChunkData]] = [{} for _ in self.parts[1:]]

    def _check_streams(self) -> list[StreamInformation]:
        infos = [i for d in self.parts for i in d.streams]
        names = [i.name for i in infos]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ConfigError(f"stream names must be unique across deserializers, but "
                              f"{', '.join(map(repr, duplicates))} appear more than once")
        owners = [k for k, d in enumerate(self.parts) for i in d.streams if i.defines_mb_size]
        if len(owners) > 1:
            raise ConfigError("only one stream may set defines_mb_size=True across deserializers, "
                              f"but {len(owners)} do")
        self._owner = owners[0] if owners else -1
        return [replace(i, stream_id=n) for n, i in enumerate(infos)]

    def _report_dropped(self, primary: SequenceTable, valid: np.ndarray,
                        reported: np.ndarray) -> None:
        unreported = ~valid & ~reported
        if valid.any() and unreported.any():
            missing = primary.keys[unreported][:5].tolist()
            self._tracer.warning("%s: dropping %d sequence(s) whose key is missing in another "
                                 "deserializer (first keys: %s)", self.name,
                                 int(unreported.sum()), missing)
        if not valid.any():
            names = ", ".join(d.name for d in self.parts[1:])
            raise ConfigError(
                f"could not reconcile data between deserializers: no sequence key of "
                f"{self.parts[0].name} (first keys: {primary.keys[:5].tolist()}) is found in {names}; "
                "the keys of logical sequences must match (sequence ids, or line numbers in files "
                "without ids)")

    def _build_table(self, tables: list[SequenceTable], valid: np.ndarray) -> None:
        primary = tables[0]
        if self._owner == 0:
            lengths = primary.lengths
        elif self._owner > 0:
            lengths = tables[self._owner].lengths[np.maximum(self._links[self._owner - 1], 0)]
        else:
            lengths = np.max([primary.lengths] + [t.lengths[np.maximum(link, 0)]
                                                  for t, link in zip(tables[1:], self._links)], axis=0)
        kept = np.flatnonzero(valid)
        chunk_of_kept = primary.chunk_of(kept)
        self._chunk_ids, counts = np.unique(chunk_of_kept, return_counts=True)
        starts = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        self._kept = kept
        self._table = SequenceTable(primary.keys[kept], lengths[kept], starts)

    # -- Deserializer -------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return "+".join(d.name for d in self.parts)

    @property
    def streams(self) -> list[StreamInformation]:
        return list(self._infos)

    def table(self) -> SequenceTable:
        return self._table

    def fingerprint(self) -> dict[str, Any]:
        return {"composite": [d.fingerprint() for d in self.parts]}

    def load_chunk(self, chunk_id: int) -> ChunkData:
        t = self._table
        kept = self._kept[t.chunk_starts[chunk_id]:t.chunk_starts[chunk_id + 1]]
        primary_chunk = int(self._chunk_ids[chunk_id])
        primary = self.parts[0]
        within = kept - primary.table().chunk_starts[primary_chunk]
        data = primary.load_chunk(primary_chunk)
        n = len(primary.streams)
        one = np.zeros(len(within), dtype=np.int32)
        streams = [s if len(within) == s.num_sequences else _picked([s], one, within, info)
                   for s, info in zip(data.streams, self._infos[:n])]
        skipped = np.isin(within, data.skipped) if data.skipped else np.zeros(len(within), bool)
        for k, part in enumerate(self.parts[1:]):
            chunks, source, picks = self._secondary_chunks(k, part, self._links[k][kept])
            infos = self._infos[n:n + len(part.streams)]
            streams += [_picked([c.streams[j] for c in chunks], source, picks, info)
                        for j, info in enumerate(infos)]
            n += len(part.streams)
            for i, chunk in enumerate(chunks):  # a part skipped its sequence: skip the joined one
                if chunk.skipped:
                    skipped |= (source == i) & np.isin(picks, chunk.skipped)
        return ChunkData(tuple(streams), tuple(np.flatnonzero(skipped).tolist()))

    def _secondary_chunks(self, k: int, part: Deserializer,
                          picks: np.ndarray) -> tuple[list[ChunkData], np.ndarray, np.ndarray]:
        """The distinct loaded chunks of the picked sequences of secondary ``k``
        (a small cache keeps recently used ones), each pick's chunk among them,
        and its index within that chunk."""
        table = part.table()
        chunk_ids = np.asarray(table.chunk_of(picks), dtype=np.int64)
        unique, source = np.unique(chunk_ids, return_inverse=True)
        if part.keeps_chunks:  # it keeps every chunk itself: no second copy here
            chunks = [part.load_chunk(c) for c in unique.tolist()]
            return chunks, source.astype(np.int32).reshape(-1), picks - table.chunk_starts[chunk_ids]
        with self._lock:
            cache = self._secondary[k]
            for c in unique.tolist():
                if c not in cache:
                    cache[c] = part.load_chunk(c)
            chunks = [cache[c] for c in unique.tolist()]
            for c in [c for c in cache if c not in set(unique.tolist())][:-2]:
                del cache[c]
        return chunks, source.astype(np.int32).reshape(-1), picks - table.chunk_starts[chunk_ids]

    @property
    def keeps_chunks(self) -> bool:
        return all(d.keeps_chunks for d in self.parts)

    @property
    def splits_into_frames(self) -> bool:
        return all(d.splits_into_frames for d in self.parts)

    def describe_sequence(self, sequence: int) -> str:
        return self.parts[0].describe_sequence(int(self._kept[sequence]))

    def key_names(self, keys: Any) -> list[str] | None:
        """The names the first part that names its sequences gives (keys are joined)."""
        for part in self.parts:
            names = part.key_names(keys)
            if names is not None:
                return names
        return None
