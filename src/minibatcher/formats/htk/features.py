"""``HTKFeatureDeserializer``: HTK feature files listed in SCP files (``cntk.io``'s).

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher import StreamDef
    >>> from minibatcher.formats.htk.htkfile import write_htk
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> write_htk(d / "a.htk", np.arange(10, dtype=np.float32).reshape(5, 2))
    >>> _ = (d / "a.scp").write_text("u1.mfc=a.htk[0,2]\\nu2.mfc=a.htk[3,4]\\n")
    >>> f = HTKFeatureDeserializer({"x": StreamDef(scp=str(d / "a.scp"), shape=2, context=(1, 1))},
    ...                            base_dir=d)
    >>> f.table().lengths.tolist(), f.streams[0].dim, f.describe_sequence(1).endswith("a.scp:2)")
    ([3, 2], 6, True)
"""

from __future__ import annotations

import hashlib
import os
from typing import Any, Callable, Mapping

import numpy as np

from ... import exit_guard
from ...args import precision_of
from ...deserializer import (ChunkData, ContextWindow, Deserializer, KeptChunks, SequenceTable,
                             StreamChunk, check_sequence_index)
from ...errors import FileChangedError, FormatError
from ...streams import StreamDef, StreamInformation
from .archives import Archives
from .backend import backend
from .chunking import DEFAULT_CHUNK_FRAMES, check_join, chunk_starts_by_frames
from .codes import COMPRESSED, FESTREAM, HAS_CRC, HeaderIssue, ReadFailure
from .diagnostics import Diagnostics, HTKStats, NothingToRead
from .htkfile import bad_scale, describe_header_issue, kind_name
from .options import single_stream
from .scp import ScpRows, load_scp
from .window import FeatureDimError, feature_window  # noqa: F401  (re-exported)

_COMPRESSED_OR_CRC = COMPRESSED | HAS_CRC
# Freed chunk arrays the native reader keeps mapped for its next chunks (backend's ``keep``):
# reusing their pages saves a page fault per 4 KiB. A kept array stands in for a dropped chunk
# (a chunk it does not fit unmaps it first), so peak memory stays that of the live chunks.
KEPT_CHUNK_ARRAYS = 2


class HTKFeatureDeserializer(Deserializer):
    """Reads the utterances of SCP files from HTK feature files (CNTK's ``HTKFeatureDeserializer``).

    Args:
        streams: one stream, ``StreamDef(scp=..., shape=dim, context=(left, right))``.
            Without ``context``, ``shape`` may be the expanded size
            (``dim = file dim x (2k + 1)``, CNTK's rule, e.g. 363 = 33 x 11).
        max_errors: bad lines, files and utterances skipped (and counted)
            before reading fails.
        trace_level: 0 errors only, 1 warnings, 2 information.
        precision: ``"float"`` or ``"double"``.
        base_dir: relative archive paths in the SCP files resolve against it
            (default: the working directory, as CNTK; ``from_config`` passes the
            config file's folder). ``.../NAME`` names a file next to the SCP file.
        prefix_path: CNTK's ``prefixPathInSCP``.
        verify_crc: check the checksum of ``_K`` files (DECISIONS 13).
        chunk_frames: a chunk closes once it holds more than this many frames.
        keep_data_in_memory: keep every loaded chunk.
        impl: ``"native"`` or ``"python"`` (the reference).
        on_error: called with the message of every error charged.
    """

    def __init__(self, streams: Mapping[str, StreamDef], *, max_errors: int = 0,
                 trace_level: int = 1, precision: str = "float",
                 base_dir: str | os.PathLike | None = None, prefix_path: str | None = None,
                 verify_crc: bool = True, chunk_frames: int = DEFAULT_CHUNK_FRAMES,
                 keep_data_in_memory: bool = False, impl: str = "native",
                 on_error: Callable[[str], object] | None = None) -> None:
        self._name, self._sd = single_stream(streams, "scp", "HTKFeatureDeserializer")
        # its own kernels: read_frames' pool of mapped chunk arrays serves this reader alone
        self._kernels = backend(impl, keep=KEPT_CHUNK_ARRAYS)  # a bad impl: the valid ones
        self._impl, self._dtype = impl, precision_of(precision)
        self._kept = KeptChunks(keep_data_in_memory)
        self._scp = [os.fspath(p) for p in self._sd.scp]
        self._diag = Diagnostics(self._scp[0], max_errors, trace_level, on_error)
        # a config's paths say where they came from; "base_dir": the caller's
        self._base_origin = getattr(base_dir, "origin", "base_dir") if base_dir is not None \
            else "the working directory, the default without a config, as CNTK"
        rows = load_scp(self._scp, self._diag, prefix=prefix_path, base_dir=base_dir, impl=impl)
        self._archives = Archives(rows.paths, bool(verify_crc), impl)
        self._rows, self._first, self._count = self._usable(rows)
        self._dim, self._left, self._right = self._window()
        self._chunk_starts = chunk_starts_by_frames(self._count, chunk_frames)
        self._chunk_frames = int(chunk_frames)
        exit_guard.release_at_exit(self, HTKFeatureDeserializer._release_native)

    def _release_native(self) -> None:
        """At interpreter exit (a daemon thread may still hold this reader): drops the kernels
        and their pool of chunk arrays, so that no native object outlives the interpreter (see
        :mod:`minibatcher.exit_guard`); the chunks still alive keep their blocks."""
        self._kernels = None

    # -- indexing -------------------------------------------------------------------------------

    def _usable(self, rows: ScpRows) -> tuple[ScpRows, np.ndarray, np.ndarray]:
        ok = self._file_checks(rows)
        first, count = np.zeros(len(rows.keys), np.int64), np.zeros(len(rows.keys), np.int64)
        a = self._archives
        for i in np.flatnonzero(ok).tolist():
            f = int(rows.path_index[i])
            samples, available = a.header(f, "samples"), a.header(f, "available")
            whole = rows.starts[i] < 0
            lo, hi = (0, samples - 1) if whole else (int(rows.starts[i]), int(rows.ends[i]))
            if hi >= samples or hi < lo:  # hi < lo: a whole archive of 0 frames
                self._diag.charge(("range", rows.where(i)), (
                    f"{rows.where(i)}: the archive {str(a.paths[f])!r} has no frames (an "
                    "utterance of 0 frames is skipped and counted)" if whole else
                    f"{rows.where(i)}: frames [{lo},{hi}] end past the end of archive "
                    f"{str(a.paths[f])!r}, which has {samples} frames (0..{samples - 1})")
                    + f"\n    {rows.line(i)}", skipped=1)
                ok[i] = False
            elif hi >= available:
                ok[i] = False  # in the missing part of a truncated file (charged once per file)
            first[i], count[i] = lo, hi - lo + 1
        if not ok.any():
            raise NothingToRead(f"{', '.join(self._scp)}: no utterance to read: every line was "
                                f"skipped ({self._diag.stats.skipped_utterances} skipped, "
                                f"{self._diag.stats.blank_lines} blank lines)", self._diag.stats)
        return rows.select(ok), first[ok], count[ok]

    def _file_checks(self, rows: ScpRows) -> np.ndarray:
        """False for the rows of files that are missing, unreadable or inconsistent."""
        a, h = self._archives, self._archives.headers
        users = np.bincount(rows.path_index, minlength=len(a.paths))
        first_row = {int(f): i for i, f in reversed(list(enumerate(rows.path_index.tolist())))}
        bad = np.zeros(len(a.paths), dtype=bool)
        self._reference: tuple | None = None
        for f in range(len(a.paths)):
            if f not in first_row:
                continue
            where = rows.where(first_row[f])
            problem = self._open_problem(rows, f)
            advice = None if problem is None else ""  # a missing file: no max_errors advice
            if problem is None:
                j = int(a.header_of[f])
                issue = HeaderIssue(int(h["issue"][j]))
                if issue and not issue.skips_only_the_missing_part:
                    problem = f"archive {str(a.paths[f])!r}: {describe_header_issue(h, j)}"
                elif issue:
                    beyond = self._beyond(rows, f, int(h["available"][j]))
                    self._diag.charge(("file", str(a.paths[f])),
                                      f"{where}: archive {str(a.paths[f])!r}: "
                                      f"{describe_header_issue(h, j)}; {beyond} utterance(s) "
                                      "reaching past its end are skipped", skipped=beyond)
                if problem is None and (scale := bad_scale(h, j)) is not None:
                    problem = f"archive {str(a.paths[f])!r}: {scale}"
                if problem is None:
                    problem = self._consistency(f, j, where)
            if problem is not None:
                bad[f] = True
                self._diag.charge(("file", str(a.paths[f])),
                                  f"{where}: {problem} ({int(users[f])} utterance(s) skipped)",
                                  skipped=int(users[f]), advice=advice)
        return ~bad[rows.path_index]

    def _open_problem(self, rows: ScpRows, f: int) -> str | None:
        """Why archive ``f`` could not be opened (None if it was), with the path rule when a
        relative path is missing."""
        problem = self._archives.errors[f]
        if problem is not None and f in rows.relative and not self._archives.paths[f].exists():
            from ...config.paths import resolution

            rule = resolution(rows.base_dir, self._base_origin, "relative archive paths")
            problem += f"; {rule}, or write '.../NAME' in the SCP for a file next to it"
        return problem

    @staticmethod
    def _beyond(rows: ScpRows, f: int, available: int) -> int:
        mine = rows.path_index == f
        return int((mine & ((rows.starts < 0) | (rows.ends >= available))).sum())

    def _consistency(self, f: int, j: int, where: str) -> str | None:
        h = self._archives.headers
        kind = int(h["kind"][j]) & ~_COMPRESSED_OR_CRC
        guid = h["guid"][j] if kind == FESTREAM else b""
        this = (kind, guid, int(h["dim"][j]), int(h["period"][j]))
        if self._reference is None:
            self._reference, self._reference_file, self._reference_where = this, f, where
            return None
        if this == self._reference:
            return None
        ref = self._reference
        return (f"archive {str(self._archives.paths[f])!r} holds {kind_name(this[0])} frames of "
                f"{this[2]} values every {this[3]} x 100 ns, but "
                f"{str(self._archives.paths[self._reference_file])!r} holds {kind_name(ref[0])} "
                f"frames of {ref[2]} values every {ref[3]} x 100 ns; expected one kind, dim and "
                "period for all files")

    def _window(self) -> tuple[int, int, int]:
        archive = str(self._archives.paths[self._reference_file])
        return feature_window(self._name, self._sd, self._reference[2], archive,
                              self._reference_where)

    # -- Deserializer ---------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The first SCP file's name (for messages).

        Example:
            >>> _example().name
            'a.scp'
        """
        return os.path.basename(self._scp[0])

    @property
    def streams(self) -> list[StreamInformation]:
        """The one stream: dense, ``file dim x (1 + left + right)`` values per frame.

        Example:
            >>> info = _example().streams[0]
            >>> info.name, info.dim, info.is_sparse, info.dtype.name
            ('x', 6, False, 'float32')
        """
        return [StreamInformation(self._name, 0, self._dim, False, np.dtype(self._dtype),
                                  bool(self._sd.defines_mb_size))]

    @property
    def stats(self) -> HTKStats:
        """What was skipped and why (counts).

        Example:
            >>> _example().stats.skipped_utterances
            0
        """
        return self._diag.stats

    @property
    def context(self) -> tuple[int, int]:
        """``(left, right)`` frames of context added to every frame.

        Example:
            >>> _example().context
            (1, 1)
        """
        return self._left, self._right

    @property
    def file_dim(self) -> int:
        """Values per frame in the archives.

        Example:
            >>> _example().file_dim
            2
        """
        return self._reference[2]

    @property
    def keeps_chunks(self) -> bool:
        """Whether loaded chunks stay in memory (``keep_data_in_memory``).

        Example:
            >>> _example().keeps_chunks
            False
        """
        return self._kept.keep

    @property
    def splits_into_frames(self) -> bool:
        """True: in frame mode every frame becomes a sequence (context stays per utterance).

        Example:
            >>> _example().splits_into_frames
            True
        """
        return True

    def table(self) -> SequenceTable:
        """Every usable utterance's key and frame count, in SCP order, and the chunks.

        Example:
            >>> t = _example().table()
            >>> t.lengths.tolist(), t.num_chunks
            ([3, 2], 1)
        """
        return SequenceTable(self._rows.keys, self._count.astype(np.int32), self._chunk_starts)

    def key_name(self, sequence: int) -> str:
        """The logical name (key) of utterance ``sequence``.

        Example:
            >>> _example().key_name(1)
            'u2'
        """
        return self._rows.key_text[check_sequence_index(sequence, len(self._count))]

    def describe_sequence(self, sequence: int) -> str:
        """The utterance's name and its SCP line, for messages.

        Example:
            >>> _example().describe_sequence(0).split(" (")[0]
            "utterance 'u1'"
        """
        return f"utterance {self.key_name(sequence)!r} ({self._rows.where(sequence)})"

    def fingerprint(self) -> dict[str, Any]:
        """What a checkpoint must match: the SCP contents, counts, archives (each one's size
        and a digest of its first and last 64 KiB) and options.

        Example:
            >>> fp = _example().fingerprint()
            >>> fp["utterances"], fp["frames"], fp["context"]
            (2, 5, [1, 1])
        """
        digest = hashlib.blake2b(digest_size=8)
        for data in self._rows.data:
            digest.update(data)
        return {"format": "htk", "scp": digest.hexdigest(), "utterances": len(self._count),
                "frames": int(self._count.sum()), "archives": self._archives.digest(),
                "file_dim": self.file_dim, "context": [self._left, self._right],
                "precision": np.dtype(self._dtype).name, "chunk_frames": self._chunk_frames}

    def join(self, primary: Deserializer, links: np.ndarray) -> np.ndarray:
        """Which of ``primary``'s sequences to keep: ``links[i]`` is the utterance here with
        primary sequence ``i``'s key (-1: none); missing utterances and other frame counts are
        errors charged to the budget (skipped within it).

        Example:
            >>> f = _example()
            >>> f.join(f, np.array([0, 1])).tolist()
            [True, True]
        """
        return check_join(primary, links, self._count, self._diag, f"features in {self.name}",
                          self._rows.where, self.key_name)

    def load_chunk(self, chunk_id: int) -> ChunkData:
        """The base frames of chunk ``chunk_id`` (the context window is added when
        minibatches are gathered).

        Example:
            >>> frames = _example().load_chunk(0).streams[0]
            >>> frames.values.tolist()[:2], frames.sequence_offsets.tolist()
            ([[0.0, 1.0], [2.0, 3.0]], [0, 3, 5])
        """
        if not 0 <= chunk_id < len(self._chunk_starts) - 1:
            raise IndexError(f"chunk_id should be in [0, {len(self._chunk_starts) - 1}), but got "
                             f"chunk_id={chunk_id}")
        return self._kept.get(chunk_id, self._read_chunk)

    def _read_chunk(self, chunk_id: int) -> ChunkData:
        lo, hi = int(self._chunk_starts[chunk_id]), int(self._chunk_starts[chunk_id + 1])
        files = self._rows.path_index[lo:hi]
        a, h = self._archives, self._archives.headers
        used, local = np.unique(a.header_of[files], return_inverse=True)
        with a.open_files(np.unique(files).tolist()) as fds:
            fd = np.array([fds[int(f)] for f in files.tolist()], dtype=np.int64)
            out = self._kernels.read_frames(
                fd, local.reshape(-1), self._first[lo:hi], self._count[lo:hi],
                *(h[k][used] for k in ("data_start", "available", "sample_size", "kind", "swap")),
                [h["a"][u] for u in used.tolist()], [h["b"][u] for u in used.tolist()],
                self.file_dim, self._dtype is np.float64)
        if isinstance(out, dict):
            self._read_failed(lo + int(out["range"]), out)
        offsets = np.zeros(hi - lo + 1, dtype=np.int64)
        np.cumsum(self._count[lo:hi], out=offsets[1:])
        window = ContextWindow(self._left, self._right) if self._left or self._right else None
        return ChunkData((StreamChunk.dense(out.reshape(-1, self.file_dim), offsets, window),))

    def _read_failed(self, row: int, failure: dict[str, int]) -> None:
        path = self._archives.paths[int(self._rows.path_index[row])]
        code = ReadFailure(int(failure["code"]))
        where = f"{self.describe_sequence(row)}: archive {str(path)!r}"
        if code is ReadFailure.SHORT_READ:
            raise FileChangedError(f"{where}: the file ended early; it changed since the reader "
                                   "indexed it (re-create the reader to read the new contents)")
        if code is ReadFailure.IO_ERROR:
            raise OSError(int(failure["errno"]), f"{where}: reading failed "
                          f"({os.strerror(int(failure['errno']))})")
        raise FormatError(f"{where}: the range lies outside the file (please report this)")


def _example() -> HTKFeatureDeserializer:
    """Two utterances (3 and 2 frames of 2 values, 0..9) with one frame of context each side."""
    import pathlib
    import tempfile

    from .htkfile import write_htk

    d = pathlib.Path(tempfile.mkdtemp())
    write_htk(d / "a.htk", np.arange(10, dtype=np.float32).reshape(5, 2))
    (d / "a.scp").write_text("u1.mfc=a.htk[0,2]\nu2.mfc=a.htk[3,4]\n")
    return HTKFeatureDeserializer({"x": StreamDef(scp=str(d / "a.scp"), shape=2, context=(1, 1))},
                                  base_dir=d)
