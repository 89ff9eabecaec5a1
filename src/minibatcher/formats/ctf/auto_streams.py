"""Stream declarations found by a survey of a CTF file (``CTFDeserializer(path)``
without ``streams``, and the command line without ``--stream``).

The file is read with pread in blocks of whole lines (no mapping, so a file
that shrinks meanwhile is an error, never a crash).

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"
    >>> _ = p.write_text("|x 1 2 |y 3:1\\n|x 3 4\\n")
    >>> {n: (sd.dim, sd.is_sparse) for n, sd in survey_stream_defs(p).items()}
    {'x': (2, False), 'y': (4, True)}
"""

from __future__ import annotations

import os
from typing import Callable, Sequence

from ...errors import FormatError
from ...streams import StreamDef, StreamDefs
from ..guarded_file import GuardedFile
from .survey import StreamSurvey, survey, survey_file  # noqa: F401 (the examples use survey)

BLOCK_SIZE = 1 << 20


def survey_file_blocks(path: str | os.PathLike, *, block_size: int = BLOCK_SIZE,
                       progress: Callable[[int], object] | None = None) -> list[StreamSurvey]:
    """Surveys a CTF file read in blocks of about ``block_size`` bytes,
    calling ``progress(bytes_read)`` after each block. The file is read through
    a :class:`~minibatcher.formats.guarded_file.GuardedFile`: a FIFO, a device
    or a directory is a ``NotARegularFileError`` (never a hang), a file that
    changes meanwhile a ``FileChangedError``.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.ctf"; _ = p.write_text("|a 1\\n" * 5)
        >>> [(s.name, s.samples) for s in survey_file_blocks(p, block_size=7)]
        [('a', 5)]
    """
    with GuardedFile(path, what="CTF file") as f:
        return survey_file(f, block_size=block_size, progress=progress)


def stream_defs_from_survey(surveys: Sequence[StreamSurvey], where: str = "the file") -> StreamDefs:
    """Declarations that fit a survey: sparse streams with dim = max index + 1,
    dense ones with dim = most values in a sample.

    Example:
        >>> [(n, sd.dim) for n, sd in stream_defs_from_survey(survey(b"|a 1 2\\n")).items()]
        [('a', 2)]
    """
    if not surveys:
        raise FormatError(f"{where}: found no inputs ('|name' samples), so no streams can be "
                          "guessed; declare them with streams=StreamDefs(...)")
    return StreamDefs(**{s.name: StreamDef(shape=s.dim, is_sparse=s.looks_sparse)
                         for s in surveys})


def survey_stream_defs(path: str | os.PathLike) -> StreamDefs:
    """The streams of a CTF file, found by a survey of every line.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "e.ctf"; _ = p.write_text("# only a comment\\n")
        >>> survey_stream_defs(p)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.FormatError: ...e.ctf: found no inputs ('|name' samples), so no streams can be guessed; declare them with streams=StreamDefs(...)
    """
    return stream_defs_from_survey(survey_file_blocks(path), os.fspath(path))
