"""``HTKMLFDeserializer``: frame labels from master label files (``cntk.io``'s).

Example:
    >>> import tempfile, pathlib
    >>> from minibatcher import StreamDef
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "s.list").write_text("sil\\nah\\n")
    >>> _ = (d / "a.mlf").write_text('#!MLF!#\\n"u1.lab"\\n0 200000 sil\\n200000 300000 ah\\n.\\n')
    >>> m = HTKMLFDeserializer(str(d / "s.list"), {"y": StreamDef(mlf=str(d / "a.mlf"), shape=2)})
    >>> chunk = m.load_chunk(0).streams[0]
    >>> chunk.indices.tolist(), m.table().lengths.tolist()
    ([0, 0, 1], [3])
"""

from __future__ import annotations

import hashlib
import os
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ...args import precision_of
from ...deserializer import (ChunkData, Deserializer, SequenceTable, StreamChunk,
                             check_sequence_index)
from ...errors import ConfigError, FormatError
from ...streams import StreamDef, StreamInformation
from ..guarded_file import decode_text, read_small_file
from .backend import IMPLEMENTATIONS, backend
from .chunking import DEFAULT_CHUNK_FRAMES, check_join, chunk_starts_by_frames
from .codes import MlfIssue
from .diagnostics import Diagnostics, HTKStats, NothingToRead, excerpt
from .options import single_stream
from .text import strip_bom

_WHAT = {
    MlfIssue.BAD_NAME: "expected a quoted name like \"utterance.lab\"",
    MlfIssue.TOO_FEW_COLUMNS:
        "a label line needs {columns} columns (start end label ...), but this one has {a}",
    MlfIssue.BAD_TIME:
        "start and end should be non-negative numbers (100 ns units, or frame indices)",
    MlfIssue.END_BEFORE_START: "the range ends at frame {b}, before it starts at frame {a}",
    MlfIssue.GAP: "labels are not consecutive: this range starts at frame {b}, but the previous "
                  "one ended at frame {a} (a gap)",
    MlfIssue.OVERLAP: "labels are not consecutive: this range starts at frame {b}, but the "
                      "previous one ended at frame {a} (an overlap)",
    MlfIssue.FIRST_FRAME: "the first range starts at frame {b}; expected frame 0",
    MlfIssue.UNKNOWN_LABEL: "label {label!r} is not in the label mapping file {states}",
    MlfIssue.BAD_CLASS_ID: "without a label mapping file, column 4 should be the class id (a "
                           "non-negative integer)",
    MlfIssue.CLASS_ID_TOO_LARGE:
        "class id {a} is not below the label dimension {b} (StreamDef shape / labelDim)",
    MlfIssue.COLUMN_COUNT: "without a label mapping file, label lines need exactly 4 columns "
                           "(start end name class-id), but this one has {a}",
    MlfIssue.NO_LABELS: "the entry has no label lines",
    MlfIssue.UNTERMINATED: "the entry has no terminating '.' line",
    MlfIssue.TOO_LONG: "the range reaches past 2^31 frames",
}


def read_state_list(path: str | os.PathLike) -> list[str]:
    """Label names, one per non-empty line; a repeated name is an error.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "s"; _ = p.write_text("a\\n\\nb\\r\\n")
        >>> read_state_list(p)
        ['a', 'b']
    """
    names: list[str] = []
    seen: dict[str, int] = {}
    text = decode_text(read_small_file(path, "label mapping file"), path,
                       "label mapping file").removeprefix("\ufeff")
    for number, line in enumerate(text.splitlines(), 1):
        name = line.strip()
        if not name:
            continue
        if name in seen:
            raise ConfigError(f"{path}:{number}: label {name!r} was already listed at line "
                              f"{seen[name]}; expected every label once (ids are line positions)")
        seen[name] = number
        names.append(name)
    if not names:
        raise ConfigError(f"label mapping file {str(path)!r} lists no labels")
    return names


class _Entries:
    """The entries of all MLF files (valid ones first charged, then kept)."""

    def __init__(self, files: Sequence[str], states: list[str] | None, label_dim: int,
                 diag: Diagnostics, impl: str, states_file: str | None) -> None:
        self.files = list(files)
        self.data = [strip_bom(read_small_file(f, "MLF file")) for f in files]
        parts = [backend(impl).parse_mlf(d, states, label_dim) for d in self.data]
        for f, p in zip(self.files, parts):
            if not p["header_ok"]:
                raise FormatError(f"{f}: expected the MLF header '#!MLF!#' on the first non-empty "
                                  "line; is this a master label file?")
        self.states_file = states_file
        cat = lambda k: np.concatenate([p[k] for p in parts])  # noqa: E731
        self.file_of = np.concatenate([np.full(len(p["keys"]), k, np.int32)
                                       for k, p in enumerate(parts)])
        self._first_entry = np.cumsum([0] + [len(p["keys"]) for p in parts])
        run_bases = np.cumsum([0] + [len(p["run_class"]) for p in parts])
        self.lines, self.offsets, self.keys = cat("lines"), cat("offsets"), cat("keys")
        self.names = [n for p in parts for n in _split(p["key_text"], p["key_ends"])]
        self.frames = cat("frames")
        run_first = np.concatenate([np.concatenate([[0], p["run_ends"]])[:-1] + base
                                    for p, base in zip(parts, run_bases)]).astype(np.int64)
        self._runs = (cat("run_class"), cat("run_length"))
        ok = cat("issues") == 0
        for i in np.flatnonzero(~ok).tolist():
            self._charge(i, parts, diag)
        ok &= self._first_occurrences(ok, diag)
        keep = np.flatnonzero(ok)
        self.keep = keep
        all_counts = np.diff(np.concatenate([run_first, [len(self._runs[0])]]))
        kept_runs = np.repeat(ok, all_counts)  # the runs of the kept entries, in order
        self.run_class, self.run_length = self._runs[0][kept_runs], self._runs[1][kept_runs]
        self.run_ends = np.cumsum(all_counts[keep])

    def where(self, i: int, line: int | None = None) -> str:
        return f"{self.files[int(self.file_of[i])]}:{int(self.lines[i]) if line is None else line}"

    def _charge(self, i: int, parts: list[dict], diag: Diagnostics) -> None:
        k = int(self.file_of[i])
        local = i - int(self._first_entry[k])
        p = parts[k]
        issue, line = int(p["issues"][local]), int(p["issue_lines"][local])
        text = excerpt(self.data[k], int(p["issue_offsets"][local]))
        tokens = text.replace("\t", " ").split()
        what = _WHAT[issue].format(a=int(p["issue_a"][local]), b=int(p["issue_b"][local]),
                                   columns="at least 3" if self.states_file else "4",
                                   label=tokens[2] if len(tokens) > 2 else "",
                                   states=self.states_file)
        diag.charge(("mlf", self.where(i)), f"{self.files[k]}:{line}: entry {self.names[i]!r} "
                    f"(line {int(self.lines[i])}): {what}; the utterance is skipped\n    {text}",
                    skipped=1)

    def _first_occurrences(self, ok: np.ndarray, diag: Diagnostics) -> np.ndarray:
        keep = np.ones(len(ok), dtype=bool)
        valid = np.flatnonzero(ok)
        if len(np.unique(self.keys[valid])) == len(valid):
            return keep
        first: dict[str, int] = {}
        for i in valid.tolist():
            name = self.names[i]
            if name in first:
                keep[i] = False
                diag.stats.duplicates += 1
                diag.charge(("mlf-duplicate", self.where(i)),
                            f"{self.where(i)}: entry {name!r} was already given at "
                            f"{self.where(first[name])}; expected every name once (the first "
                            "entry is kept)", skipped=1)
            else:
                first[name] = i
        if len(set(first)) != len(np.unique(self.keys[ok & keep])):
            raise FormatError(f"{self.files[0]}: two different entry names have the same 64-bit "
                              "key hash; please report this")
        return keep


def _split(text: bytes, ends: np.ndarray) -> list[str]:
    starts = np.concatenate([[0], ends[:-1]]).tolist()
    return [text[a:b].decode("utf-8", errors="replace") for a, b in zip(starts, ends.tolist())]


class HTKMLFDeserializer(Deserializer):
    """Frame labels from MLF files (CNTK's ``HTKMLFDeserializer``), as one-hot
    sparse samples (value 1; 2 on the first frame of every label line with
    ``phone_boundaries``).

    Args:
        label_mapping_file: the state list (one label per line, ids by
            position); ``None`` reads 4-column lines with the class id last.
        streams: one stream, ``StreamDef(mlf=path or [paths], shape=label_dim)``.
        phone_boundaries: mark the first frame of every label line with 2.
        max_errors, trace_level, precision, chunk_frames, impl, on_error: as
            :class:`~minibatcher.formats.htk.HTKFeatureDeserializer`.
    """

    def __init__(self, label_mapping_file: str | os.PathLike | None,
                 streams: Mapping[str, StreamDef], phone_boundaries: bool = False, *,
                 max_errors: int = 0, trace_level: int = 1, precision: str = "float",
                 chunk_frames: int = DEFAULT_CHUNK_FRAMES, impl: str = "native",
                 on_error: Callable[[str], object] | None = None) -> None:
        self._name, self._sd = single_stream(streams, "mlf", "HTKMLFDeserializer")
        if impl not in IMPLEMENTATIONS:
            backend(impl)
        self._dtype, self._boundaries = precision_of(precision), bool(phone_boundaries)
        self._label_dim = self._sd.dim
        states_file = None if label_mapping_file is None else os.fspath(label_mapping_file)
        states = None if states_file is None else read_state_list(states_file)
        self._mlf = [os.fspath(p) for p in self._sd.mlf]
        self._diag = Diagnostics(self._mlf[0], max_errors, trace_level, on_error)
        self._e = _Entries(self._mlf, states, self._label_dim, self._diag, impl, states_file)
        if not len(self._e.keep):
            raise NothingToRead(f"{', '.join(self._mlf)}: no label entry to read "
                                f"({self._diag.stats.skipped_utterances} skipped)",
                                self._diag.stats)
        self._lengths = self._e.frames[self._e.keep].astype(np.int32)
        self._chunk_starts = chunk_starts_by_frames(self._lengths, chunk_frames)
        self._chunk_frames, self._states_file = int(chunk_frames), states_file
        self._states = None if states is None else hashlib.blake2b(
            "\n".join(states).encode(), digest_size=8).hexdigest()  # the label indices
        self.unused_entries = 0

    @property
    def name(self) -> str:
        """The first MLF file's name (for messages).

        Example:
            >>> _example().name
            'a.mlf'
        """
        return os.path.basename(self._mlf[0])

    @property
    def streams(self) -> list[StreamInformation]:
        """The one stream: sparse one-hot labels of ``label_dim`` classes.

        Example:
            >>> info = _example().streams[0]
            >>> info.name, info.dim, info.is_sparse
            ('y', 2, True)
        """
        return [StreamInformation(self._name, 0, self._label_dim, True, np.dtype(self._dtype),
                                  bool(self._sd.defines_mb_size))]

    @property
    def stats(self) -> HTKStats:
        """What was skipped and why (counts).

        Example:
            >>> _example().stats.errors
            0
        """
        return self._diag.stats

    @property
    def splits_into_frames(self) -> bool:
        """True: in frame mode every labelled frame becomes a sequence.

        Example:
            >>> _example().splits_into_frames
            True
        """
        return True

    def table(self) -> SequenceTable:
        """Every valid entry's key and frame count, in MLF order, and the chunks.

        Example:
            >>> _example().table().lengths.tolist()
            [3, 2]
        """
        return SequenceTable(self._e.keys[self._e.keep], self._lengths, self._chunk_starts)

    def key_name(self, sequence: int) -> str:
        """The name (key) of entry ``sequence`` (``*/`` and the extension removed).

        Example:
            >>> _example().key_name(0)
            'u1'
        """
        return self._e.names[int(self._e.keep[check_sequence_index(sequence, len(self._e.keep))])]

    def describe_sequence(self, sequence: int) -> str:
        """The entry's name and where it starts in its MLF, for messages.

        Example:
            >>> _example().describe_sequence(1).split(" (")[0]
            "label entry 'u2'"
        """
        where = self._e.where(int(self._e.keep[sequence]))
        return f"label entry {self.key_name(sequence)!r} ({where})"

    def fingerprint(self) -> dict[str, Any]:
        """What a checkpoint must match: the MLF contents, the label names in index order
        (the label mapping file), counts and options.

        Example:
            >>> fp = _example().fingerprint()
            >>> fp["entries"], fp["frames"], fp["label_dim"]
            (2, 5, 2)
        """
        digest = hashlib.blake2b(digest_size=8)
        for data in self._e.data:
            digest.update(data)
        return {"format": "mlf", "mlf": digest.hexdigest(), "entries": len(self._lengths),
                "frames": int(self._lengths.sum()), "label_dim": self._label_dim,
                "states": self._states, "phone_boundaries": self._boundaries,
                "precision": np.dtype(self._dtype).name, "chunk_frames": self._chunk_frames}

    def join(self, primary: Deserializer, links: np.ndarray) -> np.ndarray:
        """Which of ``primary``'s utterances to keep: ``links[i]`` is the entry here with
        utterance ``i``'s key (-1: none); an utterance without labels, or whose labels cover
        another number of frames, is an error charged to the budget (skipped within it).

        Example:
            >>> from .features import _example as features
            >>> m = _example(max_errors=1, trace_level=0)
            >>> m.join(features(), np.array([0, -1])).tolist(), m.stats.skipped_utterances
            ([True, False], 1)
        """
        where = lambda j: self._e.where(int(self._e.keep[j]))  # noqa: E731
        keep = check_join(primary, links, self._lengths, self._diag,
                          f"labels in {', '.join(self._mlf)}", where, self.key_name)
        self.unused_entries = len(self._lengths) - len(np.unique(links[links >= 0]))
        if self.unused_entries:
            self._diag.tracer.info("%s: %d label entries have no features (not read)", self.name,
                                   self.unused_entries)
        return keep

    def load_chunk(self, chunk_id: int) -> ChunkData:
        """The labels of chunk ``chunk_id``: one sparse sample (class id, value 1) per frame.

        Example:
            >>> labels = _example().load_chunk(0).streams[0]
            >>> labels.indices.tolist(), labels.sequence_offsets.tolist()
            ([0, 0, 1, 1, 0], [0, 3, 5])
        """
        if not 0 <= chunk_id < len(self._chunk_starts) - 1:
            raise IndexError(f"chunk_id should be in [0, {len(self._chunk_starts) - 1}), but got "
                             f"chunk_id={chunk_id}")
        lo, hi = int(self._chunk_starts[chunk_id]), int(self._chunk_starts[chunk_id + 1])
        ends = self._e.run_ends
        r0, r1 = (int(ends[lo - 1]) if lo else 0), int(ends[hi - 1])
        lengths = self._e.run_length[r0:r1]
        classes = np.repeat(self._e.run_class[r0:r1], lengths)
        values = np.ones(len(classes), dtype=self._dtype)
        if self._boundaries:
            starts = np.cumsum(lengths) - lengths
            values[starts[lengths > 0]] = 2
        offsets = np.zeros(hi - lo + 1, dtype=np.int64)
        np.cumsum(self._lengths[lo:hi], out=offsets[1:])
        indptr = np.arange(len(classes) + 1, dtype=np.int64)
        return ChunkData((StreamChunk.sparse(values, classes.astype(np.int32), indptr, offsets),))


def _example(**options: Any) -> HTKMLFDeserializer:
    """Labels of two utterances: u1 = sil sil ah, u2 = ah sil (state list sil, ah)."""
    import pathlib
    import tempfile

    d = pathlib.Path(tempfile.mkdtemp())
    (d / "s.list").write_text("sil\nah\n")
    (d / "a.mlf").write_text('#!MLF!#\n"u1.lab"\n0 200000 sil\n200000 300000 ah\n.\n'
                             '"u2.lab"\n0 100000 ah\n100000 200000 sil\n.\n')
    return HTKMLFDeserializer(str(d / "s.list"), {"y": StreamDef(mlf=str(d / "a.mlf"), shape=2)},
                              **options)
