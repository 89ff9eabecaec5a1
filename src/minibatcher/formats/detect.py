"""Which format a path holds: by its content first, by its name second.

One detection for the command line and :func:`minibatcher.open`. The content
rules, in order (each is cheap: the first 64 KiB of a file at most):

* a folder with ``dataset_info.json`` is a TFDS dataset (``tfds``; a
  ``dataset_info.json`` that is a FIFO or a directory is a ``NotARegularFileError``
  saying so, not a folder without one);
* ``tfrecord``: the first frame's length CRC matches (plain, GZIP or ZLIB);
* ``htk``: the 12-byte header is consistent and its arithmetic (header +
  frames x sample size, + checksum) gives exactly the file's size;
* ``mlf``: the first line is ``#!MLF!#``;
* ``ctf``: every line read is ``[id] |name ...`` (CNTK text format);
* ``config``: a CNTK BrainScript/legacy config with a ``reader`` section;
* ``scp``: every line is ``name=path[start,end]``, ``name=path`` or a feature
  file path;
* ``text``: any other UTF-8 text (tf.data's ``TextLineDataset``, nmt corpora).

Content that proves a format wins over the name; otherwise the extension
decides (``garbage.htk`` is an HTK file that fails its checks, not CTF), and a
file that neither tells is a :class:`UnknownFormatError` listing what was tried.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "train.txt").write_text("0 |x 1 2 |y 0:1\\n")
    >>> found = detect_format(d / "train.txt")
    >>> found.format, found.reason
    ('ctf', "every line is '[id] |name values' (CNTK text format)")
    >>> _ = (d / "blob.bin").write_bytes(bytes(range(256)))
    >>> detect_format(d / "blob.bin")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    minibatcher.formats.detect.UnknownFormatError: .../blob.bin: cannot tell the format: ...
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import FormatError
from . import sniff
from .guarded_file import check_regular

#: Every format, with what it is (in messages and ``--help``).
FORMATS: dict[str, str] = {
    "ctf": "CNTK text format (CTF)",
    "htk": "an HTK parameter file (speech features)",
    "scp": "an SCP list of HTK feature files",
    "mlf": "an HTK master label file (#!MLF!#)",
    "tfrecord": "TFRecord records (tf.train.Examples or any bytes; plain, GZIP or ZLIB)",
    "tfds": "a TFDS dataset folder (dataset_info.json, features.json, TFRecord shards)",
    "text": "UTF-8 text, one example per line (tf.data's TextLineDataset, nmt corpora)",
    "config": "a CNTK BrainScript/legacy config with a reader section",
}

#: File name endings that name a format when the content does not prove one.
EXTENSIONS: dict[str, str] = {
    ".ctf": "ctf", ".htk": "htk", ".mfc": "htk", ".mfcc": "htk", ".fbank": "htk", ".plp": "htk",
    ".chunk": "htk", ".scp": "scp", ".mlf": "mlf", ".tfrecord": "tfrecord",
    ".tfrecords": "tfrecord", ".tfrec": "tfrecord", ".txt": "text", ".cntk": "config",
    ".config": "config", ".bs": "config",
}
_SHARD = re.compile(r"\.tfrecords?-\d+-of-\d+$")


class UnknownFormatError(FormatError):
    """A file whose format neither its content nor its name tells (exit status 1).

    Example:
        >>> issubclass(UnknownFormatError, FormatError)
        True
    """


@dataclass(frozen=True)
class Detected:
    """What :func:`detect_format` found: the ``format`` (a key of
    :data:`FORMATS`), the ``path`` and the ``reason`` in words.

    Example:
        >>> Detected("ctf", "a.ctf", "named *.ctf").describe()
        'a.ctf: CNTK text format (CTF) (named *.ctf)'
    """

    format: str
    path: str
    reason: str

    def describe(self) -> str:
        """The path, the format and why, for people."""
        return f"{self.path}: {FORMATS[self.format]} ({self.reason})"


def format_by_name(path: str | os.PathLike) -> str | None:
    """The format a file's name suggests (None: the name says nothing).

    Example:
        >>> format_by_name("mnist-train.tfrecord-00003-of-00008"), format_by_name("a.MLF")
        ('tfrecord', 'mlf')
    """
    name = os.path.basename(os.fspath(path))
    if _SHARD.search(name):
        return "tfrecord"
    return EXTENSIONS.get(os.path.splitext(name)[1].lower())


def check_format(value: str | None, what: str = "format") -> str | None:
    """Validates a format name given by a user (None: detect).

    Example:
        >>> check_format("CTF")
        'ctf'
        >>> check_format("csv")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: format should be one of ctf, htk, ..., but got format='csv'
    """
    from ..errors import ConfigError

    if value is None:
        return None
    if not isinstance(value, str) or value.lower() not in FORMATS:
        raise ConfigError(f"{what} should be one of {', '.join(FORMATS)}, but got "
                          f"{what}={value!r}")
    return value.lower()


def detect_format(path: str | os.PathLike, format: str | None = None) -> Detected:
    """The format of ``path`` (``~`` expanded; ``format`` given: taken as is, after checks).

    Raises ``FileNotFoundError`` for a missing path, ``NotARegularFileError``
    for a FIFO or device, :class:`UnknownFormatError` when nothing tells.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "l.mlf"
        >>> _ = p.write_text('#!MLF!#\\n"a.lab"\\n0 1 s 0\\n.\\n')
        >>> detect_format(p).format, detect_format(p, "text").reason
        ('mlf', 'given as format')
    """
    name = os.path.expanduser(os.fspath(path))
    given = check_format(format)
    if not os.path.exists(name):
        raise FileNotFoundError(2, "No such file or directory", name)
    if given is not None:
        return Detected(given, name, "given as format")
    if os.path.isdir(name):
        return Detected("tfds", name, _folder_reason(Path(name)))
    verdict = sniff.by_content(name)
    if verdict.strong:
        return Detected(verdict.format, name, verdict.reason)
    by_name = format_by_name(name)
    if by_name is not None:
        ending = Path(name).suffix or os.path.basename(name)
        return Detected(by_name, name, f"named *{ending}" + (
            f"; its content alone would be {verdict.reason}" if verdict.reason else ""))
    if verdict.format is not None:
        return Detected(verdict.format, name, verdict.reason)
    raise UnknownFormatError(
        f"{name}: cannot tell the format: its content is none of the known formats and its "
        f"name has no known extension. Tried: {'; '.join(verdict.tried)}. Give the format "
        f"(CLI: --format NAME, Python: format=NAME; one of {', '.join(FORMATS)}) or an "
        f"extension ({', '.join(sorted(set(EXTENSIONS)))})")


def _folder_reason(folder: Path) -> str:
    """Why a folder is a TFDS dataset, or a :class:`UnknownFormatError` saying
    what it lacks (naming the version folders of a dataset's own folder); a
    ``dataset_info.json`` that is there but is no regular file is named as what it is."""
    info = folder / "dataset_info.json"
    if os.path.lexists(info):
        check_regular(info, "dataset_info.json")
        return "a folder with dataset_info.json"
    versions = sorted(p.name for p in folder.iterdir()
                      if os.path.lexists(p / "dataset_info.json")) \
        if os.access(folder, os.R_OK) else []
    if versions:
        raise UnknownFormatError(
            f"{folder}: a TFDS dataset's folder holds one folder per version; give one of them: "
            + ", ".join(str(folder / v) for v in versions))
    raise UnknownFormatError(
        f"{folder}: a folder is read only as a TFDS dataset, but it has no dataset_info.json "
        "(give a file, or the folder TFDS prepared, e.g. ~/tensorflow_datasets/mnist/3.0.1)")


__all__ = ["Detected", "EXTENSIONS", "FORMATS", "UnknownFormatError", "check_format",
           "detect_format", "format_by_name"]
