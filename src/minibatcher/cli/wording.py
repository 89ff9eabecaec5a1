"""Messages in the command line's words: advice that names a Python argument
(``max_errors=N``) names the command's flag instead (``--max-errors N``).

The library words its advice for Python, where most readers are created; the
command line rewrites the arguments it has flags for when it prints a message
(errors, problem lists and log lines alike, whichever thread made them).
Arguments a command has no flag for are marked as Python's.

Example:
    >>> flags = {"max_errors": "--max-errors", "base_dir": "--base-dir"}
    >>> to_cli("use max_errors=N to skip, or verify_crc=False to read without checking", flags)
    'use --max-errors N to skip, or verify_crc=False (Python API) to read without checking'
    >>> to_cli("paths resolve against base_dir=/d; pass another base_dir=DIR to change it", flags)
    'paths resolve against --base-dir /d; pass another --base-dir DIR to change it'
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator, Mapping

#: Python arguments that advice names (``name=N``, ``name=True/False``, ``name=VALUE``).
_ARGUMENTS = ("max_errors", "verify_crc", "skip_incomplete_sequences", "skip_sequence_ids",
              "base_dir", "randomize", "label_dim")
_FLAGS: ContextVar[Mapping[str, str]] = ContextVar("minibatcher_cli_flags", default={})
_PATTERN = re.compile(r"(?<![\w.-])(" + "|".join(_ARGUMENTS) + r")=(N\b|True\b|False\b|[\w./-]+|)")


def flags_of(parser: argparse.ArgumentParser) -> dict[str, str]:
    """The long options of a parser by Python argument name
    (``--max-errors`` -> ``max_errors``, ``--no-verify-crc`` -> ``no_verify_crc``).

    Example:
        >>> p = argparse.ArgumentParser(); _ = p.add_argument("--max-errors", type=int)
        >>> flags_of(p)
        {'help': '--help', 'max_errors': '--max-errors'}
    """
    out: dict[str, str] = {}
    for action in parser._actions:
        for text in action.option_strings:
            if text.startswith("--"):
                out[text[2:].replace("-", "_")] = text
    return out


def _flag(match: re.Match, flags: Mapping[str, str]) -> str:
    name, value = match.group(1), match.group(2)
    if value in ("True", "False"):
        flag = flags.get(name if value == "True" else f"no_{name}")
        return flag if flag else f"{match.group(0)} (Python API)"
    flag = flags.get(name)
    if flag is None:
        return f"{match.group(0)} (Python API)"
    return f"{flag} {value}" if value else f"{flag} "


def to_cli(message: str, flags: Mapping[str, str]) -> str:
    """``message`` with Python arguments replaced by ``flags`` (see the module).

    Example:
        >>> to_cli("(use skip_sequence_ids=True to ignore ids)",
        ...        {"skip_sequence_ids": "--skip-sequence-ids"})
        '(use --skip-sequence-ids to ignore ids)'
    """
    return _PATTERN.sub(lambda m: _flag(m, flags), message)


#: The keys of an ``inspect`` report that hold messages (every other string is data).
MESSAGE_KEYS = ("error", "problem", "first_problems")


def reworded(report: Any) -> Any:
    """``report`` with the messages under :data:`MESSAGE_KEYS` (at any depth) in the running
    command's words (see :func:`cli_logging`); data (file names, labels) is left as it is.

    Example:
        >>> with cli_logging({"max_errors": "--max-errors"}):
        ...     reworded({"file": "max_errors=N.ctf", "sections": [{"error": "use max_errors=N"}]})
        {'file': 'max_errors=N.ctf', 'sections': [{'error': 'use --max-errors N'}]}
    """
    flags = _FLAGS.get()

    def words(value: Any) -> Any:
        if isinstance(value, str):
            return to_cli(value, flags)
        return [words(v) for v in value] if isinstance(value, list) else value

    if isinstance(report, dict):
        return {k: words(v) if k in MESSAGE_KEYS else reworded(v) for k, v in report.items()}
    return [reworded(v) for v in report] if isinstance(report, list) else report


def say(*parts: Any, **kwargs: Any) -> None:
    """``print`` in the running command's words (see :func:`cli_logging`).

    Example:
        >>> with cli_logging({"max_errors": "--max-errors"}):
        ...     say("use max_errors=N")
        use --max-errors N
    """
    print(to_cli(" ".join(str(p) for p in parts), _FLAGS.get()), **kwargs)


class _CliFormatter(logging.Formatter):
    def __init__(self, flags: Mapping[str, str]) -> None:
        super().__init__("minibatcher: %(levelname)s: %(message)s")
        self.flags = flags

    def format(self, record: logging.LogRecord) -> str:
        return to_cli(super().format(record), self.flags)


@contextmanager
def cli_logging(flags: Mapping[str, str]) -> Iterator[None]:
    """Runs one command in its own words: :func:`say` rewrites with ``flags``,
    and the ``minibatcher`` logger's warnings go to stderr, rewritten too
    (unless the application configured a handler of its own).

    Example:
        >>> with cli_logging({}):
        ...     logging.getLogger("minibatcher").handlers[-1].level
        30
    """
    logger = logging.getLogger("minibatcher")
    token = _FLAGS.set(dict(flags))
    handler = None
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setLevel(logging.WARNING)
        handler.setFormatter(_CliFormatter(flags))
        logger.addHandler(handler)
    try:
        yield
    finally:
        if handler is not None:
            logger.removeHandler(handler)
        _FLAGS.reset(token)


__all__ = ["MESSAGE_KEYS", "cli_logging", "flags_of", "reworded", "say", "to_cli"]
