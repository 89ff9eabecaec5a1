"""Files read whole at once (lists, vocabularies, configs, JSON metadata, text
corpora), by the one rule for every file the project reads
(docs/design/guarded-files.md): opened through :class:`GuardedFile` (regular
files only, checked after the read), UTF-8 text or a ``FormatError`` naming
the file, line and byte offset, JSON or a ``FormatError`` naming the file,
line and column.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "m.json").write_bytes(b'{"n": 1}')
    >>> read_json(d / "m.json", "metadata file")
    {'n': 1}
"""

from __future__ import annotations

import json
import os
from typing import Any

from ..errors import FormatError

__all__ = ["decode_text", "read_json", "read_small_file"]


def read_small_file(path: str | os.PathLike, what: str = "file") -> bytes:
    """The whole content of a file read at once (a list, a vocabulary, a
    config, JSON metadata, a text corpus), by the one rule for every file:
    regular files only (a FIFO, directory or device is a ``NotARegularFileError``
    at once, never a hang), checked after the read (``FileChangedError``).

    Example:
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "v").write_bytes(b"a\\nb\\n")
        >>> read_small_file(d / "v", "vocabulary file")
        b'a\\nb\\n'
        >>> read_small_file(d, "vocabulary file")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotARegularFileError: ...: the vocabulary file is not a regular file but a directory; ...
    """
    from .guarded_file import GuardedFile  # guarded_file re-exports this module's functions

    with GuardedFile(path, what=what) as f:
        return f.read_all()


def decode_text(data: bytes, path: str | os.PathLike, what: str = "file") -> str:
    """``data`` (the content of ``path``) as UTF-8 text; anything else is a
    ``FormatError`` naming the file, the line and the byte offset.

    Example:
        >>> decode_text(b"ok\\n", "v.txt")
        'ok\\n'
        >>> decode_text(b"a\\nb\\xff", "v.txt", "vocabulary file")
        Traceback (most recent call last):
        ...
        minibatcher.errors.FormatError: v.txt:2: the vocabulary file is not UTF-8 text: byte offset 3 is b'\\xff' (invalid start byte); save it as UTF-8
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise FormatError(f"{os.fspath(path)}:{line}: the {what} is not UTF-8 text: byte offset "
                          f"{e.start} is {data[e.start:e.start + 1]!r} ({e.reason}); save it as "
                          "UTF-8") from None


def read_json(path: str | os.PathLike, what: str = "JSON file") -> Any:
    """The JSON value in ``path``, read by :func:`read_small_file` and
    :func:`decode_text`; malformed JSON is a ``FormatError`` naming the file,
    line, column and byte.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "m.json"; _ = p.write_bytes(b'{"n": 1,}')
        >>> read_json(p, "metadata file")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.FormatError: ...m.json:1:9 (byte 8): malformed JSON in the metadata file: Expecting property name enclosed in double quotes
    """
    text = decode_text(read_small_file(path, what), path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(f"{os.fspath(path)}:{e.lineno}:{e.colno} (byte {e.pos}): malformed JSON "
                          f"in the {what}: {e.msg}") from None
