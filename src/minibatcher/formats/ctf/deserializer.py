"""``CTFDeserializer``: CNTK text format files as a minibatcher deserializer.

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher import StreamDef
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("0 |x 1 2 |y 3:1\\n0 |x 3 4\\n1 |x 5 6 |y 0:2\\n")
    >>> d = CTFDeserializer(str(p), {"x": StreamDef(shape=2), "y": StreamDef(shape=5, is_sparse=True)})
    >>> chunk = d.load_chunk(0)
    >>> chunk.streams[0].values.tolist(), chunk.streams[1].sequence_offsets.tolist()
    ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [0, 1, 2])
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from ...args import check_bool, check_int, precision_of
from ...budget import ErrorBudget
from ...deserializer import ChunkData, Deserializer, KeptChunks, SequenceTable, StreamChunk
from ...errors import ConfigError, FormatError
from ...log import Tracer
from ...streams import StreamDef, StreamInformation, as_stream_defs
from ..guarded_file import GuardedFile
from .auto_streams import survey_stream_defs
from .backend import IMPLEMENTATIONS, backend
from .diagnostics import CTFDiagnostics, CTFStats
from .index import CTFIndex, index_file
from .index_cache import load_index, save_index
from .pieces import PieceHelpers, piece_bounds

DEFAULT_CHUNK_SIZE = 32 << 20
READ_BLOCK = 1 << 20  # a chunk is read and parsed in blocks of about this many bytes


def _blocks(starts: np.ndarray, ends: np.ndarray, size: int) -> list[tuple[int, int]]:
    """Consecutive runs ``[lo, hi)`` of whole sequences spanning about ``size`` bytes.

    Example:
        >>> _blocks(np.array([0, 4, 8, 12]), np.array([4, 8, 12, 30]), 9)
        [(0, 2), (2, 3), (3, 4)]
    """
    runs, lo = [], 0
    while lo < len(starts):
        hi = max(lo + 1, int(np.searchsorted(ends, starts[lo] + size, side="right")))
        runs.append((lo, hi))
        lo = hi
    return runs


def _check_filename(filename: str | os.PathLike) -> Path:
    if isinstance(filename, (str, os.PathLike)) and os.fspath(filename) not in ("", b""):
        return Path(filename)
    raise ConfigError(f"filename should be the path of a CTF file, but got filename={filename!r}")


def _main_stream(defs: Mapping[str, StreamDef]) -> int:
    flagged = [name for name, sd in defs.items() if sd.defines_mb_size]
    if len(flagged) > 1:
        raise ConfigError("only one stream may set defines_mb_size=True, but "
                          f"{len(flagged)} do: {', '.join(flagged)}")
    return list(defs).index(flagged[0]) if flagged else -1


def _check_aliases(defs: Mapping[str, StreamDef]) -> list[str]:
    aliases = [sd.alias(name) for name, sd in defs.items()]
    for name, alias in zip(defs, aliases):
        if any(c in alias for c in " \t|") or not alias.isascii() or not alias.isprintable():
            raise ConfigError(f"stream {name!r} has field={alias!r}; expected printable ASCII "
                              "without spaces, tabs or '|' (the name used after '|' in the file)")
        if aliases.count(alias) > 1:
            raise ConfigError(f"field {alias!r} is used by more than one stream; each stream needs "
                              "its own name in the file")
    return aliases


class CTFDeserializer(Deserializer):
    """Reads a CNTK text format (CTF) file.

    Args:
        filename: the CTF file.
        streams: ``StreamDefs`` (or a dict) of the inputs to read (``None``:
            the inputs found by a survey of the file, see ``auto_streams``); ``field``
            is the name used after ``|`` in the file.
        skip_sequence_ids: treat every line as its own sequence.
        max_errors: malformed items tolerated (skipped and reported) before
            reading fails; each location is counted once for the reader's life,
            including what follows from it (a row or sequence left short).
        skip_incomplete_sequences: what happens to a sequence in which some
            stream has no sample (its samples were rejected, or it never names
            the stream). ``False`` (CNTK): reading fails, whatever
            ``max_errors`` is. ``True``: the sequence is skipped (not
            delivered; it keeps its place in the order), counted in
            ``stats.skipped_sequences`` and logged; a stream missing without a
            rejected sample costs one error of the budget.
        trace_level: 0 errors only, 1 warnings, 2 information.
        chunk_size_in_bytes: target size of a chunk (the unit of loading,
            randomization and distribution).
        cache_index: reuse/write an index cache next to the file.
        precision: ``"float"`` (float32) or ``"double"`` (float64).
        keep_data_in_memory: keep every parsed chunk for the reader's life.
        impl: ``"native"`` (C++) or ``"python"`` (the reference parser).
        progress: called with ``(bytes_indexed, file_size)`` while indexing.
        on_error: called with the message of every error charged to the budget.
        on_skip: called with the message of every sequence skipped by
            ``skip_incomplete_sequences``.
    """

    def __init__(self, filename: str | os.PathLike,
                 streams: Mapping[str, StreamDef] | None = None, *,
                 skip_sequence_ids: bool = False, max_errors: int = 0, trace_level: int = 1,
                 chunk_size_in_bytes: int = DEFAULT_CHUNK_SIZE, cache_index: bool = False,
                 precision: str = "float", keep_data_in_memory: bool = False,
                 impl: str = "native", progress: Callable[[int, int], object] | None = None,
                 on_error: Callable[[str], object] | None = None,
                 skip_incomplete_sequences: bool = False,
                 on_skip: Callable[[str], object] | None = None) -> None:
        self.path = _check_filename(filename)
        if streams is None:  # beyond CNTK: the inputs found by a survey of the file
            streams = survey_stream_defs(self.path)
        self._defs = as_stream_defs(streams)
        self._aliases = _check_aliases(self._defs)
        self._main = _main_stream(self._defs)
        self._dtype = precision_of(precision)
        self._chunk_size = check_int("chunk_size_in_bytes", chunk_size_in_bytes, 1,
                                     expected="a positive int")
        if impl not in IMPLEMENTATIONS:
            backend(impl)  # raises the error listing the valid values
        self._impl, self._skip_ids, self._cache = impl, bool(skip_sequence_ids), bool(cache_index)
        self._kept = KeptChunks(keep_data_in_memory)
        self._helpers = PieceHelpers()
        self._skip_incomplete = check_bool("skip_incomplete_sequences", skip_incomplete_sequences)
        self._tracer = Tracer(trace_level)
        self._budget = ErrorBudget(max_errors, str(self.path))
        self._file = GuardedFile(self.path, what="CTF file")
        self._index = self._load_index(progress)
        self._chunk_starts = self._index.chunk_starts(self._chunk_size, self._file.size, self._impl)
        self._diag = CTFDiagnostics(str(self.path), self._file.read_excerpt, list(self._defs),
                                    self._aliases,
                                    [sd.dim for sd in self._defs.values()], self._index.keys,
                                    self._budget, self._tracer, on_error, self._skip_incomplete,
                                    on_skip)
        self._report_index()

    def _index_options(self) -> dict[str, Any]:
        main_alias = self._aliases[self._main] if self._main >= 0 else ""
        return {"format": "ctf", "indexer": 1, "skip_sequence_ids": self._skip_ids,
                "main_alias": main_alias}

    def _load_index(self, progress: Callable[[int, int], object] | None) -> CTFIndex:
        options = self._index_options()
        size = self._file.size
        if self._cache and (cached := load_index(self._file, options)) is not None:
            self._tracer.info("%s: loaded the index from its cache", self.path)
            if progress is not None:
                progress(size, size)
            return cached
        report = None if progress is None else (lambda done: progress(done, size))
        index = index_file(self._file, skip_sequence_ids=self._skip_ids,
                           main_alias=options["main_alias"], impl=self._impl, progress=report)
        if self._cache:
            save_index(self._file, options, index)
        return index

    def _report_index(self) -> None:
        stats, idx = self._diag.stats, self._index
        stats.ignored_lines, stats.dropped_sequences = idx.ignored_lines, len(idx.dropped_offsets)
        if stats.dropped_sequences:
            head, shown = self._diag.where(int(idx.dropped_offsets[0]), int(idx.dropped_lines[0]))
            self._tracer.warning(
                "%s: skipping %d sequence(s) without the input %r that defines the minibatch size "
                "(first at %s)\n%s", self.path, stats.dropped_sequences, self._aliases[self._main],
                head, shown)
        for position in idx.repeated_ids().tolist():
            self._charge_repeated_id(position)
        if idx.num_sequences == 0:
            why = (f"every row lacks the input {self._aliases[self._main]!r} that defines the "
                   "minibatch size" if self._main >= 0 else "it has only blank and comment lines")
            raise FormatError(f"{self.path}: no sequence to read: {why}")

    def _charge_repeated_id(self, position: int) -> None:
        idx = self._index
        key = int(idx.keys[position])
        first = int(np.flatnonzero(idx.keys == idx.keys[position])[0])
        head, shown = self._diag.where(int(idx.offsets[position]), int(idx.lines[position]))
        message = (f"{head}: sequence id {key} was already used by the sequence at line "
                   f"{int(idx.lines[first])}; expected an id to repeat only on consecutive lines "
                   f"(these lines are read as a separate sequence)\n{shown}")
        self._diag.charge(("repeated_id", int(idx.offsets[position])), message)
        self._diag.stats.repeated_ids += 1
        self._tracer.warning("%s", message)

    # -- Deserializer -------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def streams(self) -> list[StreamInformation]:
        return [StreamInformation(name, i, sd.dim, sd.is_sparse, np.dtype(self._dtype),
                                  sd.defines_mb_size, sample_shape=sd.sample_shape)
                for i, (name, sd) in enumerate(self._defs.items())]

    @property
    def index(self) -> CTFIndex:
        """The file's sequence index."""
        return self._index

    @property
    def stats(self) -> CTFStats:
        """Counts of everything skipped or repaired so far."""
        return self._diag.stats

    @property
    def keeps_chunks(self) -> bool:
        return self._kept.keep

    def table(self) -> SequenceTable:
        return SequenceTable(self._index.keys, self._index.rows, self._chunk_starts)

    def fingerprint(self) -> dict[str, Any]:
        streams = [[name, alias, sd.dim, sd.is_sparse, sd.defines_mb_size]
                   for (name, sd), alias in zip(self._defs.items(), self._aliases)]
        fingerprint = {"format": "ctf", "size": self._file.size, "probe": self._file.ends_digest(),
                       "sequences": self._index.num_sequences,
                       "samples": int(self._index.rows.sum()), "streams": streams,
                       "skip_sequence_ids": self._skip_ids,
                       "precision": np.dtype(self._dtype).name,
                       "chunk_size_in_bytes": self._chunk_size}
        if self._skip_incomplete:  # only when set: older checkpoints stay valid
            fingerprint["skip_incomplete_sequences"] = True
        return fingerprint

    def load_chunk(self, chunk_id: int) -> ChunkData:
        if not 0 <= chunk_id < len(self._chunk_starts) - 1:
            raise IndexError(f"chunk_id should be in [0, {len(self._chunk_starts) - 1}), "
                             f"but got chunk_id={chunk_id}")
        return self._kept.get(chunk_id, self._parse_chunk)

    def _parse_chunk(self, chunk_id: int) -> ChunkData:
        self._file.check()
        first, stop = int(self._chunk_starts[chunk_id]), int(self._chunk_starts[chunk_id + 1])
        out = self._parse(chunk_id, first, stop)
        self._file.check()  # changed while it was read: discard, never mix versions
        skipped = self._diag.process(chunk_id, first, out)
        return ChunkData(tuple(self._stream_chunk(sd, s) for sd, s in zip(self._defs.values(),
                                                                         out["streams"])), skipped)

    def _parse(self, chunk_id: int, first: int, stop: int) -> dict[str, Any]:
        """The parse of sequences ``[first, stop)``: natively in pieces on idle
        cores (``pieces.py``); what a helper parsed is kept only when appending
        it is exact, else this thread parses it again."""
        idx = self._index
        offsets = idx.offsets[first:stop].astype(np.int64)
        bounds = [0, stop - first]
        if self._impl == "native":
            bounds = piece_bounds(offsets, offsets + idx.sizes[first:stop], self._helpers.cpus)
        main = self._parser(chunk_id, first, stop, first)
        if len(bounds) == 2:
            self._feed(main, first, stop)
            return main.finish()

        def piece(j: int, into: Any) -> Any:
            self._feed(into, first + bounds[j], first + bounds[j + 1])
            return into

        helped = self._helpers.run(
            len(bounds) - 1, lambda i: not piece(i, main).aborted,
            lambda j: piece(j, self._parser(chunk_id, first + bounds[j], first + bounds[j + 1],
                                            first)))
        for j, part in helped:
            if main.aborted:
                break
            if isinstance(part, Exception) or not main.append(part):
                for k in range(j, len(bounds) - 1):  # this thread parses the rest itself
                    piece(k, main)
                break
        return main.finish()

    def _parser(self, chunk_id: int, first: int, stop: int, chunk_first: int) -> Any:
        """A parser of sequences ``[first, stop)``, which begin at ``first - chunk_first``
        of the chunk (size hints for ``[first, stop)``)."""
        idx = self._index
        last = stop - 1
        return backend(self._impl).parser(
            self._aliases, [sd.dim for sd in self._defs.values()],
            [sd.is_sparse for sd in self._defs.values()], self._main, self._dtype is np.float64,
            self._diag.error_limit(chunk_id), 64, int(idx.rows[first:stop].sum()),
            int(idx.offsets[last]) + int(idx.sizes[last]) - int(idx.offsets[first]), stop - first,
            skip_incomplete=self._skip_incomplete, first_sequence=first - chunk_first)

    def _feed(self, parser: Any, first: int, stop: int) -> None:
        """Feeds sequences ``[first, stop)`` to ``parser`` in blocks of about ``READ_BLOCK``."""
        idx = self._index
        offsets = idx.offsets[first:stop].astype(np.int64)
        for lo, hi in _blocks(offsets, offsets + idx.sizes[first:stop], READ_BLOCK):
            start = int(offsets[lo])
            end = int(offsets[hi - 1]) + int(idx.sizes[first + hi - 1])
            parser.feed(self._file.read(start, end), start, offsets[lo:hi] - start,
                        idx.sizes[first + lo:first + hi], idx.rows[first + lo:first + hi],
                        idx.lines[first + lo:first + hi])
            if parser.aborted:
                break

    @staticmethod
    def _stream_chunk(sd: StreamDef, s: dict[str, Any]) -> StreamChunk:
        offsets = np.zeros(len(s["sequence_samples"]) + 1, dtype=np.int64)
        np.cumsum(s["sequence_samples"], out=offsets[1:])
        if sd.is_sparse:
            return StreamChunk.sparse(s["values"], s["indices"], s["indptr"], offsets)
        return StreamChunk.dense(s["values"].reshape(-1, sd.dim), offsets)
