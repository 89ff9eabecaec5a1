"""``tf.errors``' names for the errors TensorFlow's kernels raise (``tfdata.errors.X``).

Ported ``except tf.errors.InvalidArgumentError:`` clauses work after changing the import.
Each class is also a :class:`~minibatcher.errors.MinibatcherError` and derives from the
built-in exception a Python user expects (``ValueError`` for bad values,
``FileNotFoundError`` for a missing file). ``message`` is the text, as in TF.

Example:
    >>> from minibatcher.tfdata import errors
    >>> try:
    ...     raise errors.InvalidArgumentError("Key: a.  Data types don't match.")
    ... except ValueError as e:
    ...     print(type(e).__name__, e.message)
    InvalidArgumentError Key: a.  Data types don't match.
"""

from __future__ import annotations

from ..errors import MinibatcherError


class OpError(MinibatcherError):
    """The base of the ``tf.errors`` classes (TF's ``OpError``).

    Example:
        >>> OpError("boom").message
        'boom'
    """

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args)

    @property
    def message(self) -> str:
        """The error's text."""
        return str(self.args[0])

    def __str__(self) -> str:
        return self.message


class InvalidArgumentError(OpError, ValueError):
    """An operation got an invalid argument or malformed data (``tf.errors.InvalidArgumentError``).

    Example:
        >>> issubclass(InvalidArgumentError, ValueError)
        True
    """


class DataLossError(OpError, ValueError):
    """Unrecoverable data corruption (``tf.errors.DataLossError``).

    Example:
        >>> issubclass(DataLossError, OpError)
        True
    """


class NotFoundError(OpError, FileNotFoundError):
    """A file or other entity was not found (``tf.errors.NotFoundError``).

    Example:
        >>> issubclass(NotFoundError, FileNotFoundError)
        True
    """


class AlreadyExistsError(OpError, FileExistsError):
    """An entity that should be created already exists (``tf.errors.AlreadyExistsError``;
    a cache file's lock held by another caching iterator).

    Example:
        >>> issubclass(AlreadyExistsError, FileExistsError)
        True
    """


class OutOfRangeError(OpError, IndexError):
    """An operation ran past the end of its input (``tf.errors.OutOfRangeError``).

    Example:
        >>> issubclass(OutOfRangeError, IndexError)
        True
    """


class FailedPreconditionError(OpError, RuntimeError):
    """The operation was rejected because the system is not in a state to run
    it (``tf.errors.FailedPreconditionError``; e.g. ``assert_cardinality``
    seeing more or fewer elements than asserted).

    Example:
        >>> issubclass(FailedPreconditionError, RuntimeError)
        True
    """


class UnimplementedError(OpError, NotImplementedError):
    """The operation is not implemented for this input (``tf.errors.UnimplementedError``;
    e.g. random access to a dataset whose elements need the ones before them).

    Example:
        >>> issubclass(UnimplementedError, NotImplementedError)
        True
    """


__all__ = ["AlreadyExistsError", "DataLossError", "FailedPreconditionError", "InvalidArgumentError",
           "NotFoundError", "OpError", "OutOfRangeError", "UnimplementedError"]
