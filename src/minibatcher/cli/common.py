"""Helpers shared by the subcommands: stream specs, files, progress bars, formatting.

Example:
    >>> name, sd = parse_stream_spec("words:5000:sparse:w")
    >>> name, sd.field, sd.dim, sd.is_sparse
    ('words', 'w', 5000, True)
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator, Sequence

from ..errors import ConfigError
from ..formats.ctf.survey import StreamSurvey, survey
from ..formats.ctf.survey import survey_file as _survey_open
from ..formats.guarded_file import GuardedFile
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
    if not p.is_file():
        raise UsageError(f"{what} should be a regular file, but got {what}={path!r} (not a file)")
    return p


@contextmanager
def progress_bar(total: int, desc: str, unit: str = "B",
                 enabled: bool = True) -> Iterator[Callable[[int], None]]:
    """Yields ``update(done)``, drawing a tqdm bar on stderr when ``enabled``
    and tqdm is installed (``pip install 'minibatcher[cli]'``), else nothing.

    Example:
        >>> with progress_bar(10, "reading", enabled=False) as update:
        ...     update(10)
    """
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    if not enabled or tqdm is None:
        yield lambda done: None
        return
    scale = unit == "B"
    with tqdm(total=total, desc=desc, unit=unit, unit_scale=scale,
              unit_divisor=1024 if scale else 1000, file=sys.stderr, leave=False) as bar:
        yield lambda done: bar.update(max(0, done - bar.n))


def survey_file(path: Path) -> list[StreamSurvey]:
    """Surveys a CTF file, with a progress bar when it is large.

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "f.ctf"; _ = p.write_bytes(b"|a 1 |b 2\\n")
        >>> [s.name for s in survey_file(p)]
        ['a', 'b']
    """
    with GuardedFile(path, what="CTF file") as f, \
            progress_bar(f.size, "survey", enabled=f.size > LARGE_FILE) as update:
        return _survey_open(f, progress=update)


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
    return StreamDefs(**{s.name: StreamDef(shape=s.dim, is_sparse=s.looks_sparse)
                         for s in surveys})


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
