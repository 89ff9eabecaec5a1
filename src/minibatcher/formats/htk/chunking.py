"""CNTK's chunks of utterances and the join checks shared by both deserializers.

Chunks (CNTK's ``HTKDeserializer::InitializeChunkInfos`` in
``Source/Readers/HTKDeserializers/HTKDeserializer.cpp``: 15 minutes of 100 frames a
second, ``ChunkFrames = 90000``): walk the utterances in order and
open a new chunk when the current one already has *more than* 90,000 frames,
so chunks are slightly larger than 90,000 frames (AN4: 90,234, 90,158 and
72,342 frames).

Example:
    >>> chunk_starts_by_frames(np.array([50000, 50000, 10, 90001, 5]), 90000).tolist()
    [0, 2, 4, 5]
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...deserializer import Deserializer
from ...errors import FormatError
from .diagnostics import Diagnostics

DEFAULT_CHUNK_FRAMES = 90000


def chunk_starts_by_frames(lengths: np.ndarray, limit: int = DEFAULT_CHUNK_FRAMES) -> np.ndarray:
    """First utterance of every chunk, then the utterance count."""
    starts, current = [0], 0
    for i, n in enumerate(np.asarray(lengths).tolist()):
        if current > limit:
            starts.append(i)
            current = 0
        current += n
    if not len(lengths):
        return np.zeros(1, dtype=np.int64)
    return np.array(starts + [len(lengths)], dtype=np.int64)


def check_join(primary: Deserializer, links: np.ndarray, lengths: np.ndarray, diag: Diagnostics,
               what: str, where: Callable[[int], str], name: Callable[[int], str]) -> np.ndarray:
    """Charges primary sequences absent here (``links < 0``) or of another
    length than here, and returns which to keep. ``what`` names this side
    ("labels in a.mlf"), ``where(j)``/``name(j)`` locate entry ``j`` here.

    Example:
        >>> from minibatcher.formats.htk.features import _example
        >>> f, diag = _example(), Diagnostics("a.mlf", max_errors=1, trace_level=0)
        >>> check_join(f, np.array([0, 1]), np.array([3, 4]), diag, "labels in a.mlf",
        ...            lambda j: f"a.mlf:{j}", lambda j: f"u{j + 1}").tolist()
        [True, False]
        >>> diag.stats.skipped_utterances   # u2: 2 frames of features, 4 of labels
        1
    """
    keep = links >= 0
    table = primary.table()  # built once: it copies every length
    primary_lengths, primary_keys = np.asarray(table.lengths), np.asarray(table.keys)
    primary_name = getattr(primary, "key_name", None)
    for i in np.flatnonzero(~keep).tolist():
        diag.charge(("missing", int(primary_keys[i])),
                    f"{primary.describe_sequence(i)} has no {what}; the utterance is skipped",
                    skipped=1)
    linked = np.flatnonzero(keep)
    if primary_name is not None:
        _check_names(primary, links, linked, where, name)
    mismatch = linked[np.asarray(lengths)[links[linked]] != primary_lengths[linked]]
    for i in mismatch.tolist():
        j = int(links[i])
        diag.charge(("length", int(primary_keys[i])),
                    f"{primary.describe_sequence(i)} has {int(primary_lengths[i])} frames, but its "
                    f"{what.split(' in ')[0]} at {where(j)} cover {int(np.asarray(lengths)[j])} "
                    "frames; expected the same number (the utterance is skipped)", skipped=1)
        keep[i] = False
    return keep


def _check_names(primary: Deserializer, links: np.ndarray, linked: np.ndarray,
                 where: Callable[[int], str], name: Callable[[int], str]) -> None:
    """Joined sequences must have the same name, not only the same 64-bit key hash."""
    for i in linked.tolist():
        if primary.key_name(i) != name(int(links[i])):
            raise FormatError(f"{primary.describe_sequence(i)} and {where(int(links[i]))} have "
                              "different names but the same 64-bit key hash; please report this")
