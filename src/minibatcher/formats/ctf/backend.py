"""Choice between the native CTF kernels and the pure-Python reference.

Both expose ``build_index(data, skip_sequence_ids, main_alias, progress)`` and
``parse(data, base_offset, offsets, sizes, rows, lines, aliases, dims, sparse,
main_stream, is_double, error_limit, warning_limit, skip_incomplete=False)``,
``chunk_starts(offsets, sizes, max_chunk)`` and ``parser(aliases, dims, sparse,
main_stream, is_double, error_limit, warning_limit, *size_hints,
skip_incomplete=False, first_sequence=0)`` (an object
with ``feed(data, base_offset, offsets, sizes, rows, lines)``, ``aborted`` and
``finish()``; issues count sequences from ``first_sequence``) with identical
results. The native parser also has ``append(later)``: the parse of a chunk in
pieces (``pieces.py``).

Example:
    >>> backend("python").build_index(b"|a 1\\n", False, "")["keys"].tolist()
    [0]
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable

import numpy as np

from ...errors import ConfigError
from . import reference

IMPLEMENTATIONS = ("native", "python")


def _as_uint8(data: Any) -> np.ndarray:
    if isinstance(data, np.ndarray) and data.dtype == np.uint8:
        return data
    return np.frombuffer(data, dtype=np.uint8)


def _native() -> SimpleNamespace:
    from ... import _native as n  # the compiled extension

    def build_index(data: Any, skip_sequence_ids: bool, main_alias: str,
                    progress: Callable[[int], object] | None = None) -> dict[str, Any]:
        return n.ctf_build_index(_as_uint8(data), skip_sequence_ids, main_alias, progress)

    def parse(data: Any, base_offset: int, offsets: Any, sizes: Any, rows: Any, lines: Any,
              *args: Any, **kwargs: Any) -> dict[str, Any]:
        arrays = [np.ascontiguousarray(a, dtype=np.int64) for a in (offsets, sizes, rows, lines)]
        return n.ctf_parse(_as_uint8(data), int(base_offset), *arrays, *args, **kwargs)

    def chunk_starts(offsets: np.ndarray, sizes: np.ndarray, max_chunk: int) -> np.ndarray:
        return n.ctf_chunk_starts(np.ascontiguousarray(offsets), np.ascontiguousarray(sizes),
                                  int(max_chunk))

    return SimpleNamespace(build_index=build_index, parse=parse, chunk_starts=chunk_starts,
                           parser=_NativeParser)


class _NativeParser:
    """``_native.CtfParserFloat``/``Double`` behind the reference parser's signature."""

    def __init__(self, aliases: Any, dims: Any, sparse: Any, main_stream: int, is_double: bool,
                 error_limit: int, warning_limit: int, rows_hint: int = 0, bytes_hint: int = 0,
                 sequences_hint: int = 0, skip_incomplete: bool = False,
                 first_sequence: int = 0) -> None:
        from ... import _native as n

        cls = n.CtfParserDouble if is_double else n.CtfParserFloat
        self._parser = cls(list(aliases), [int(d) for d in dims], [bool(s) for s in sparse],
                           int(main_stream), int(error_limit), int(warning_limit), int(rows_hint),
                           int(bytes_hint), int(sequences_hint), bool(skip_incomplete),
                           int(first_sequence))

    @property
    def aborted(self) -> bool:
        return self._parser.aborted

    @property
    def next_sequence(self) -> int:
        return self._parser.next_sequence

    def append(self, later: "_NativeParser") -> bool:
        """Appends what ``later`` parsed (the sequences right after this
        parser's); False, changing nothing, when that would not be exact."""
        return self._parser.append(later._parser)

    def feed(self, data: Any, base_offset: int, *spans: Any) -> None:
        arrays = [np.ascontiguousarray(a, dtype=np.int64) for a in spans]
        self._parser.feed(_as_uint8(data), int(base_offset), *arrays)

    def finish(self) -> dict[str, Any]:
        return self._parser.finish()


def _chunk_starts(offsets: np.ndarray, sizes: np.ndarray, max_chunk: int) -> np.ndarray:
    """Reference of CNTK's greedy chunking (``mb::ctf::chunk_starts``)."""
    starts: list[int] = []
    begin = end = 0
    for i, (offset, size) in enumerate(zip(offsets.tolist(), sizes.tolist())):
        if not starts or (end - begin) + size > max_chunk:
            starts.append(i)
            begin = offset
        end = offset + size
    return np.array(starts + [len(offsets)], dtype=np.int64)


def backend(impl: str) -> SimpleNamespace:
    """The kernels of ``impl`` (``"native"`` or ``"python"``).

    Example:
        >>> backend("fortran")
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: impl should be one of 'native', 'python', but got impl='fortran'
    """
    if impl == "native":
        return _native()
    if impl == "python":
        return SimpleNamespace(build_index=reference.build_index, parse=reference.parse,
                               chunk_starts=_chunk_starts, parser=reference.ReferenceParser)
    valid = ", ".join(repr(i) for i in IMPLEMENTATIONS)
    raise ConfigError(f"impl should be one of {valid}, but got impl={impl!r}")
