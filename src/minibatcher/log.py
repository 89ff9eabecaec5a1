"""Logging: every message goes through the ``minibatcher`` logger.

``trace_level`` (CNTK's ``traceLevel``) decides what a reader emits: 0 only
errors, 1 also warnings, 2 also information. Handlers and levels of the
logger itself stay the application's choice.

Example:
    >>> tracer = Tracer(trace_level=0)
    >>> tracer.warns, tracer.informs
    (False, False)
"""

from __future__ import annotations

import enum
import logging

from .errors import ConfigError

logger = logging.getLogger("minibatcher")

TRACE_LEVELS = (0, 1, 2)


class TraceLevel(enum.IntEnum):
    """CNTK's ``cntk.logging.TraceLevel``: accepted wherever ``trace_level`` is.

    Example:
        >>> TraceLevel.Warning == 1, check_trace_level(TraceLevel.Info)
        (True, 2)
    """

    Error = 0
    Warning = 1
    Info = 2


def check_trace_level(trace_level: int) -> int:
    """Validates a trace level.

    Example:
        >>> check_trace_level(3)
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: trace_level should be 0 (errors), 1 (warnings) or 2 (information), but got trace_level=3
    """
    if isinstance(trace_level, bool) or trace_level not in TRACE_LEVELS:
        raise ConfigError(
            "trace_level should be 0 (errors), 1 (warnings) or 2 (information), "
            f"but got trace_level={trace_level!r}"
        )
    return int(trace_level)


class Tracer:
    """Emits warnings and information according to a trace level.

    Example:
        >>> Tracer(2).informs
        True
    """

    def __init__(self, trace_level: int = 1) -> None:
        self.trace_level = check_trace_level(trace_level)

    @property
    def warns(self) -> bool:
        """Whether warnings are emitted (trace level >= 1)."""
        return self.trace_level >= 1

    @property
    def informs(self) -> bool:
        """Whether information is emitted (trace level >= 2)."""
        return self.trace_level >= 2

    def warning(self, message: str, *args: object) -> None:
        """Logs a warning when the trace level allows it."""
        if self.warns:
            logger.warning(message, *args)

    def info(self, message: str, *args: object) -> None:
        """Logs information when the trace level allows it."""
        if self.informs:
            logger.info(message, *args)
