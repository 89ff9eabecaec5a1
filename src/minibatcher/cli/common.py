"""Helpers shared by the subcommands: stream specs, files, progress bars, formatting.

Example:
    >>> name, sd = parse_stream_spec("words:5000:sparse:w")
    >>> name, sd.field, sd.dim, sd.is_sparse
    ('words', 'w', 5000, True)
"""

from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from ..errors import ConfigError, FormatError
from ..formats.detect import FORMATS, Detected, UnknownFormatError, detect_format
from ..formats.guarded_file import file_kind
from ..formats.ctf.auto_streams import stream_defs_from_survey, survey_file_blocks
from ..formats.ctf.survey import StreamSurvey, survey  # noqa: F401 (the examples use survey)
from ..streams import StreamDef, StreamDefs

#: Files above this size get progress bars (when tqdm is installed).
LARGE_FILE = 64 << 20

STREAM_FORMS = ("NAME:DIM:dense", "NAME:DIM:sparse", "NAME:DIM:dense:ALIAS",
                "NAME:DIM:sparse:ALIAS")


class UsageError(ConfigError):
    """A bad command line (exit status 2).

    Example:
        >>> issubclass(UsageError, ConfigError)
        True
    """


def parse_stream_spec(text: str) -> tuple[str, StreamDef]:
    """``NAME:DIM:dense|sparse[:ALIAS]`` as ``(name, StreamDef)``.

    Example:
        >>> parse_stream_spec("x:3:dense")[1].dim
        3
        >>> parse_stream_spec("x:3")
        Traceback (most recent call last):
        ...
        minibatcher.cli.common.UsageError: --stream should be one of NAME:DIM:dense, NAME:DIM:sparse, NAME:DIM:dense:ALIAS, NAME:DIM:sparse:ALIAS (e.g. --stream features:784:dense or --stream words:50000:sparse:w), but got --stream='x:3'
    """
    parts = text.split(":")
    ok = len(parts) in (3, 4) and all(parts) and parts[2] in ("dense", "sparse")
    if ok and parts[1].isascii() and parts[1].isdigit() and int(parts[1]) > 0:
        alias = parts[3] if len(parts) == 4 else None
        return parts[0], StreamDef(field=alias, shape=int(parts[1]), is_sparse=parts[2] == "sparse")
    raise UsageError(f"--stream should be one of {', '.join(STREAM_FORMS)} (e.g. --stream "
                     "features:784:dense or --stream words:50000:sparse:w), but got "
                     f"--stream={text!r}")


def stream_defs(specs: Sequence[str]) -> StreamDefs:
    """The ``StreamDefs`` of several ``--stream`` specs (names must differ).

    Example:
        >>> list(stream_defs(["a:1:dense", "b:9:sparse"]))
        ['a', 'b']
    """
    defs: dict[str, StreamDef] = {}
    for text in specs:
        name, sd = parse_stream_spec(text)
        if name in defs:
            raise UsageError(f"--stream names should be distinct, but got {name!r} twice")
        defs[name] = sd
    return StreamDefs(**defs)


def with_main_stream(defs: StreamDefs, name: str | None) -> StreamDefs:
    """``defs`` with ``defines_mb_size=True`` on stream ``name`` (None: unchanged).

    Example:
        >>> with_main_stream(stream_defs(["a:1:dense", "b:1:dense"]), "b")["b"].defines_mb_size
        True
    """
    if name is None:
        return defs
    if name not in defs:
        raise UsageError(f"--defines-mb-size should name one of the streams ({', '.join(defs)}), "
                         f"but got --defines-mb-size={name!r}")
    return StreamDefs(**{n: replace(sd, defines_mb_size=n == name) for n, sd in defs.items()})


def describe_stream(name: str, sd: StreamDef) -> str:
    """A ``--stream`` spec that declares ``sd``.

    Example:
        >>> describe_stream("w", StreamDef(field="W", shape=9, is_sparse=True))
        'w:9:sparse:W'
    """
    spec = f"{name}:{sd.dim}:{'sparse' if sd.is_sparse else 'dense'}"
    return spec if sd.field in (None, name) else f"{spec}:{sd.field}"


def check_positive(option: str, value: int | None, minimum: int = 1) -> None:
    """Raises :class:`UsageError` unless ``value`` is None or at least ``minimum``.

    Example:
        >>> check_positive("--count", 0)
        Traceback (most recent call last):
        ...
        minibatcher.cli.common.UsageError: option --count should be an int >= 1, but got --count=0
    """
    if value is not None and value < minimum:
        raise UsageError(f"option {option} should be an int >= {minimum}, but got "
                         f"{option}={value}")


def existing_file(path: str, what: str = "FILE") -> Path:
    """``path`` as a Path; :class:`UsageError` (naming the argument ``what``)
    when it is not an existing regular file.

    Example:
        >>> existing_file("/no/such/file.ctf")
        Traceback (most recent call last):
        ...
        minibatcher.cli.common.UsageError: FILE should be an existing file, but got FILE='/no/such/file.ctf' (no such file)
    """
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{what} should be an existing file, but got {what}={path!r} "
                         "(no such file)")
    kind = file_kind(p.stat().st_mode)
    if kind != "a regular file":
        raise UsageError(f"{what} should be a regular file, but got {what}={path!r} ({kind})")
    return p


#: ``--max-errors`` of ``inspect`` and ``validate`` by default: every problem is counted.
COUNT_ALL = 1_000_000


def add_max_errors_option(parser: Any, default: int | None, what: str) -> None:
    """Adds ``--max-errors N`` (``what`` says what happens past N).

    Example:
        >>> p = argparse.ArgumentParser(); add_max_errors_option(p, 0, "stop")
        >>> p.parse_args(["--max-errors", "3"]).max_errors
        3
    """
    parser.add_argument("--max-errors", type=int, default=default, metavar="N",
                        help=f"{what} (default: %(default)s)")


def add_verify_crc_option(parser: Any, what: str) -> None:
    """Adds ``--no-verify-crc`` (``verify_crc=False`` of the Python API); ``what`` says which
    checksums it skips.

    Example:
        >>> p = argparse.ArgumentParser(); add_verify_crc_option(p, "TFRecord data CRCs")
        >>> p.parse_args([]).verify_crc, p.parse_args(["--no-verify-crc"]).verify_crc
        (True, False)
    """
    parser.add_argument("--no-verify-crc", dest="verify_crc", action="store_false",
                        help=f"read without checking {what}")


def add_format_option(parser: argparse.ArgumentParser) -> None:
    """Adds ``--format`` (the input's format; default: detected).

    Example:
        >>> p = argparse.ArgumentParser(); add_format_option(p)
        >>> p.parse_args(["--format", "scp"]).format
        'scp'
    """
    parser.add_argument("--format", choices=list(FORMATS), default=None, type=str.lower,
                        help="the input's format (default: detected from its content, then "
                             "its extension); one of: " + ", ".join(FORMATS))


def detect(path: str, args: argparse.Namespace, what: str = "FILE") -> Detected:
    """The format of ``path`` (``--format`` when given); a missing path is a
    :class:`UsageError` naming the argument ``what``.

    Example:
        >>> detect("/no/such.ctf", argparse.Namespace(format=None))
        Traceback (most recent call last):
        ...
        minibatcher.cli.common.UsageError: FILE should be an existing file, but got FILE='/no/such.ctf' (no such file)
    """
    if not Path(path).exists():
        existing_file(path, what)
    try:
        return detect_format(path, getattr(args, "format", None))
    except UnknownFormatError as e:
        if Path(path).is_dir():  # a folder that is no dataset: a bad argument
            raise UsageError(f"{what} should be a file or a TFDS dataset folder, but got "
                             f"{what}={path!r}: {str(e).split(': ', 1)[-1]}") from None
        raise


def compression_of(path: str | Path, given: str | None) -> str:
    """``--compression`` when given, else the TFRecord file's own (detected).

    Example:
        >>> compression_of("any.tfrecord", "GZIP")
        'GZIP'
    """
    from ..formats.sniff import tfrecord_compression

    return given if given else tfrecord_compression(str(path))


#: ``--progress`` / ``--no-progress`` of the running command (None: only on a
#: terminal). Set for the duration of one command by :func:`progress_mode`.
_PROGRESS: ContextVar[bool | None] = ContextVar("minibatcher_progress", default=None)


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    """Adds ``--progress`` / ``--no-progress`` to a subcommand.

    Example:
        >>> p = argparse.ArgumentParser(); add_progress_option(p)
        >>> p.parse_args([]).progress, p.parse_args(["--no-progress"]).progress
        (None, False)
    """
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bars on stderr for files over 64 MiB (default: only when "
                             "stderr is a terminal, so logs get no '\\r' lines; needs tqdm)")


@contextmanager
def progress_mode(enabled: bool | None) -> Iterator[None]:
    """Runs a command with ``--progress`` (True), ``--no-progress`` (False) or
    the default (None: bars only when stderr is a terminal).

    Example:
        >>> with progress_mode(False):
        ...     showing_progress()
        False
    """
    token = _PROGRESS.set(enabled)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def showing_progress() -> bool:
    """Whether progress bars are drawn now: ``--progress``, or by default when
    stderr is a terminal (never into a log file or a pipe).

    Example:
        >>> with progress_mode(True):
        ...     showing_progress()
        True
    """
    mode = _PROGRESS.get()
    if mode is not None:
        return mode
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


@contextmanager
def progress_bar(total: int, desc: str, unit: str = "B",
                 enabled: bool = True) -> Iterator[Callable[[int], None]]:
    """Yields ``update(done)``, drawing a tqdm bar on stderr when ``enabled``,
    :func:`showing_progress` and tqdm is installed (``pip install
    'minibatcher[cli]'``), else nothing.

    Example:
        >>> with progress_bar(10, "reading", enabled=False) as update:
        ...     update(10)
    """
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    if not enabled or tqdm is None or not showing_progress():
        yield lambda done: None
        return
    scale = unit == "B"
    with tqdm(total=total, desc=desc, unit=unit, unit_scale=scale,
              unit_divisor=1024 if scale else 1000, file=sys.stderr, leave=False) as bar:
        yield lambda done: bar.update(max(0, done - bar.n))


def survey_file(path: Path) -> list[StreamSurvey]:
    """Surveys a CTF file (plain block reads), with a progress bar when it is large.

    A file without samples is an error of the data (exit status 1).

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "f.ctf"; _ = p.write_bytes(b"|a 1 |b 2\\n")
        >>> [s.name for s in survey_file(p)]
        ['a', 'b']
    """
    size = path.stat().st_size
    with progress_bar(size, "survey", enabled=size > LARGE_FILE) as update:
        surveys = survey_file_blocks(path, progress=update)
    if not surveys:
        why = "the file is empty" if size == 0 else "no line has an input sample ('|name ...')"
        raise FormatError(f"{path}: no sequence to read: {why}")
    return surveys


def surveyed_streams(surveys: Sequence[StreamSurvey]) -> StreamDefs:
    """Stream declarations that fit the survey: sparse streams with dim = max
    index + 1, dense ones with dim = most values in a sample.

    Example:
        >>> defs = surveyed_streams(survey(b"|a 1 2 |b 7:1\\n"))
        >>> [describe_stream(n, sd) for n, sd in defs.items()]
        ['a:2:dense', 'b:8:sparse']
    """
    if not surveys:
        raise UsageError("found no inputs ('|name' samples) in the file, so no streams can be "
                         "guessed; pass --stream NAME:DIM:dense|sparse")
    return stream_defs_from_survey(surveys)


def format_number(value: float) -> str:
    """A value as ``%g`` with up to 7 significant digits.

    Example:
        >>> format_number(0.1), format_number(123917.0), format_number(-9.19)
        ('0.1', '123917', '-9.19')
    """
    return f"{float(value):.7g}"


def human_size(size: int) -> str:
    """A byte count for people.

    Example:
        >>> human_size(512), human_size(3 << 20)
        ('512 B', '3.0 MiB')
    """
    value, unit = float(size), "B"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            break
        value /= 1024
    return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
