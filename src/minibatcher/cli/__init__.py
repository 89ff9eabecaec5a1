"""The ``minibatcher`` command line: ``demo``, ``inspect``, ``validate``, ``cat`` and ``convert``.

Every command reads every format (CTF, HTK features with SCP lists and MLF
labels, TFRecord, TFDS folders, text, CNTK configs), detected by
:mod:`minibatcher.formats.detect`. Exit status, the same for every
subcommand: 0 on success; 1 when the data is wrong: it has errors
(``validate``), cannot be read, or has no sequence at all (an empty, blank or
comment-only file); 2 when the command line or configuration is wrong (unknown
option, bad ``--stream`` spec, missing file, invalid config, a file named in a
config that does not exist: ``inspect`` and ``validate`` report every section
first). Error advice names the command's flags (``--max-errors N``,
``--base-dir DIR``), not the Python arguments the library's messages name.

Progress bars (files over 64 MiB, with tqdm) are drawn only when stderr is a
terminal, so logs never get ``\\r`` lines; ``--progress`` / ``--no-progress``
force them on or off.

Example:
    >>> main(["demo", "--help"])  # doctest: +ELLIPSIS
    usage: minibatcher demo [-h]
    ...
    0
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from ..errors import ConfigError, MinibatcherError
from . import cat, common, convert, demo, inspect, validate, wording

__all__ = ["build_parser", "main"]

_COMMANDS = (demo, inspect, validate, cat, convert)

_EPILOG = """\
formats (detected from the content, then the name; --format to say it): CTF,
HTK feature files, SCP lists, MLF labels, TFRecord files, TFDS dataset folders,
UTF-8 text, CNTK configs. `minibatcher COMMAND --help` says what each reads.

exit status: 0 success; 1 the data is wrong: it has errors (validate), could not
be read, or has no sequence (an empty, blank or comment-only file); 2 the command
line or configuration is wrong (unknown option, bad --stream spec, missing file,
invalid config, a file named in a config that does not exist). The same for every
command.
Progress bars (files over 64 MiB, conversions) are drawn only when stderr is a
terminal (--progress/--no-progress to force) and need tqdm: pip install 'minibatcher[cli]'."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with one subparser per subcommand.

    Example:
        >>> build_parser().parse_args(["inspect", "data.ctf"]).command
        'inspect'
    """
    parser = argparse.ArgumentParser(
        prog="minibatcher", epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Inspect, validate, print and convert training data of the CNTK / HTK / "
                    "TensorFlow world: CTF, HTK + SCP + MLF, TFRecord, TFDS folders, text.")
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"minibatcher {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _COMMANDS:
        sub = module.add_parser(commands)
        if module is not demo:  # demo reads small files only
            common.add_progress_option(sub)
        sub.set_defaults(run=module.run, flags=wording.flags_of(sub))
    return parser


def _report(args: argparse.Namespace, error: BaseException) -> None:
    message = wording.to_cli(str(error), getattr(args, "flags", {}))
    print(f"minibatcher {args.command}: error: {message}", file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    try:
        with common.progress_mode(getattr(args, "progress", None)), \
                wording.cli_logging(getattr(args, "flags", {})):
            return int(args.run(args))
    except BrokenPipeError:
        raise  # handled by main(); not a problem of the data
    except ConfigError as e:  # includes bad command lines (UsageError)
        _report(args, e)
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as e:
        _report(args, e)
        return 2
    except ImportError as e:  # an optional dependency (pyarrow, tqdm, Pillow) is missing
        _report(args, e)
        return 2
    except (MinibatcherError, OSError) as e:
        _report(args, e)
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line ``argv`` (default: ``sys.argv[1:]``) and returns the exit status.

    Example:
        >>> main(["inspect", "/no/such/file.ctf"])
        2
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version or a usage error
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return _run(args)
    except BrokenPipeError:  # e.g. `minibatcher cat data.ctf | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
