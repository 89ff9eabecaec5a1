"""What the differential suite's language modules share: the backend that builds a pipeline
(TensorFlow or ``minibatcher.tfdata``) and the named functions' record (tf_diff_lang.py's
``FUNCTIONS``, tf_diff_io_lang.py's ``IO_FUNCTIONS``). Never imports TensorFlow.

Example:
    >>> import types
    >>> b = Backend(Dataset=None, td=types.SimpleNamespace(io="tfdata.io", int64="i64"))
    >>> io_of(b), dtype_of(b, "int64"), b.path("x.bin")
    ('tfdata.io', 'i64', 'x.bin')
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Backend:
    """What builds a pipeline: ``tf`` (TensorFlow) or ``td`` (minibatcher.tfdata) is set.
    ``data`` is the folder of the suite's data files (``{"file": name}`` arguments) and
    ``tmp()`` makes a new empty folder (``save``'s path)."""

    Dataset: Any
    tf: Any = None
    td: Any = None
    data: str = ""
    tmp: Callable[[], str] | None = None

    def path(self, name: str) -> str:
        """The path of the data file (or glob pattern) ``name``."""
        return os.path.join(self.data, name) if self.data else name


def module_of(b: Backend) -> Any:
    """``tf.data`` or ``tfdata`` (where the readers live)."""
    return b.tf.data if b.tf is not None else b.td


def io_of(b: Backend) -> Any:
    """``tf.io`` or ``tfdata.io``."""
    return b.tf.io if b.tf is not None else b.td.io


def dtype_of(b: Backend, name: str) -> Any:
    """The backend's dtype object named ``name`` (``tf.int64`` / ``tfdata.int64``)."""
    return getattr(b.tf if b.tf is not None else b.td, name)


@dataclass(frozen=True)
class Fn:
    """A named function: the element kind it takes and gives, and ``make(backend)`` -> the
    callable. Kinds: ``int`` (int64), ``i32``, ``str``, ``vec`` (1-D int64, ragged), ``svec``
    (1-D strings), ``pair`` ((int64, int64)), ``e:K`` (enumerated K), ``b:K`` (batches of K);
    ``num`` takes int or i32 and ``=`` gives the kind taken; ``ds:K`` is a dataset of K,
    ``bool`` a predicate, ``key`` an int64 key, ``len`` an int32 length, ``window`` a
    ``(key, window)`` reduce function and ``size`` a window size. The kinds of the file and
    parsing cases are listed in tf_diff_io_lang.py."""

    takes: str
    gives: str
    make: Callable[[Backend], Callable[..., Any]]


def same(fn: Callable[..., Any]) -> Callable[[Backend], Callable[..., Any]]:
    """One body for both backends (Python operators)."""
    return lambda b: fn


def split(tf_fn: Callable[[Any], Callable[..., Any]], np_fn: Callable[..., Any]
          ) -> Callable[[Backend], Callable[..., Any]]:
    """A TF body (made from the ``tf`` module) and a NumPy body."""
    return lambda b: tf_fn(b.tf) if b.tf is not None else np_fn


def on_dataset(fn: Callable[[Any], Callable[..., Any]]) -> Callable[[Backend], Callable[..., Any]]:
    """A body made from the backend's ``Dataset`` class."""
    return lambda b: fn(b.Dataset)


def on_backend(fn: Callable[[Backend], Callable[..., Any]]) -> Callable[[Backend], Callable[..., Any]]:
    """A body made from the whole backend (readers, ``io``, dtypes, data files)."""
    return fn
