"""Exceptions raised by minibatcher.

Every error a user can cause derives from :class:`MinibatcherError`, so one
``except MinibatcherError`` catches them all; each also derives from the
built-in exception a Python user would expect (``ValueError`` for bad input,
``FileNotFoundError`` for a missing file).

Example:
    >>> from minibatcher.errors import FormatError, MinibatcherError
    >>> issubclass(FormatError, MinibatcherError) and issubclass(FormatError, ValueError)
    True
"""

from __future__ import annotations


class MinibatcherError(Exception):
    """Base class of every minibatcher error.

    Example:
        >>> try:
        ...     raise ConfigError("option x should be positive, but got x=-1")
        ... except MinibatcherError as e:
        ...     print(e)
        option x should be positive, but got x=-1
    """


class ConfigError(MinibatcherError, ValueError):
    """An option or a configuration file is invalid.

    Example:
        >>> isinstance(ConfigError("bad"), ValueError)
        True
    """


class FormatError(MinibatcherError, ValueError):
    """Malformed input data: the message names the file, line, byte offset and
    what was expected.

    Example:
        >>> FormatError("data.ctf:3 (byte 17): expected '|'").args[0]
        "data.ctf:3 (byte 17): expected '|'"
    """


class ErrorBudgetExceeded(FormatError):
    """More malformed items than ``max_errors`` allows.

    Example:
        >>> issubclass(ErrorBudgetExceeded, FormatError)
        True
    """


class FileChangedError(MinibatcherError, OSError):
    """A file changed (size, modification or status-change time) or was
    truncated after a reader opened it: reading stops instead of mixing old
    and new data.

    Example:
        >>> issubclass(FileChangedError, OSError)
        True
    """


class NotARegularFileError(MinibatcherError, OSError, ValueError):
    """A path names a directory, FIFO, socket or device instead of a regular
    file (reading it by byte range is impossible, and a FIFO would block).

    Example:
        >>> issubclass(NotARegularFileError, OSError), issubclass(NotARegularFileError, ValueError)
        (True, True)
    """


class CheckpointError(MinibatcherError, ValueError):
    """A checkpoint state cannot be restored into this source (other data,
    other options, or an unknown state version).

    Example:
        >>> issubclass(CheckpointError, ValueError)
        True
    """


class NotSupportedError(MinibatcherError, NotImplementedError):
    """A feature of the original system that minibatcher does not provide
    (CNTK's image readers and transforms, for example); the message says which.

    Example:
        >>> issubclass(NotSupportedError, NotImplementedError)
        True
    """


class WorkerError(MinibatcherError, RuntimeError):
    """An error raised in a background worker, re-raised in the caller with
    its origin.

    Example:
        >>> str(WorkerError("parsing chunk 3 of data.ctf failed"))
        'parsing chunk 3 of data.ctf failed'
    """


class WorkerDied(MinibatcherError, RuntimeError):
    """A worker process (a ``PipelineReader``'s, or the process pool of a tfdata
    ``map(..., executor="processes")``) exited while the stream needed it; the
    message names the process, how it ended and what it was running.

    Example:
        >>> str(WorkerDied("worker 1 (pid 42) exited unexpectedly (killed by signal 9)"))
        'worker 1 (pid 42) exited unexpectedly (killed by signal 9)'
    """

