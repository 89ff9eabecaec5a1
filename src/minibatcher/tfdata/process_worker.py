"""A worker process of ``map(..., executor="processes")`` and what it sends back
(:mod:`~minibatcher.tfdata.process_pool` is the consumer's side).

A worker holds the map function (sent once) and maps the chunks of elements
it is sent, in order. Results that are arrays of one layout (an array of at
least one dimension and no Python objects, or a tuple, namedtuple or
sorted-key dict of such, the same dtypes and shapes for the whole chunk) are
written straight into columns in the worker's ring slot, and only their
layout goes through the pipe; the consumer copies the columns into the
block's (a batch is then a slice). Other results are pickled into the slot,
their arrays out of band. A call that raises gives a
:class:`~minibatcher.tfdata.parallel.Failure` whose exception carries the
worker's traceback in a note; an element or a result that does not pickle is
a failure at its place.

Example:
    >>> import numpy as np
    >>> leaves = []; layout(np.zeros((2, 3), np.uint8), leaves), len(leaves)
    ((dtype('uint8'), (2, 3)), 1)
    >>> layout({"b": np.zeros(1), "a": np.zeros(1)}, []) is None  # keys not sorted
    True
"""

from __future__ import annotations

import pickle
import traceback
from typing import Any, Callable

import numpy as np

from ..process_channel import WorkerEnd
from .block import pack_like
from .parallel import Failure, apply_chunk

_ALIGN = 64


def worker_main(conn: Any, ring: Any) -> None:
    """A worker process: holds the function, maps the chunks it is sent, until
    it is told to stop (or the main process is gone).

    Example:
        >>> import multiprocessing
        >>> from minibatcher.process_channel import pack, unpack
        >>> main, mine = multiprocessing.Pipe()
        >>> for message in (("fn", abs), ("chunk", [-2, 3]), ("stop",)):
        ...     main.send_bytes(pack(None, message, 0))
        >>> worker_main(mine, None); unpack(None, main.recv_bytes())
        ('list', [2, 3])
    """
    end = WorkerEnd(conn, ring)
    fn: Callable[..., Any] | None = None
    k = 0
    while True:
        try:
            message = end.receive()
        except EOFError:  # the main process is gone
            return
        if message[0] == "stop":
            return
        if message[0] == "fn":
            fn = message[1]
            continue
        results = _results(fn, message[1])
        columns = None if ring is None else _columns(ring, k, results)
        if columns is not None:
            end.tell(columns)
        else:
            try:
                end.send(("list", results), k)
            except Exception:  # noqa: BLE001 - a result or error that does not pickle
                end.send(("list", [_sendable(r) for r in results]), k)
        k += 1


class Unpicklable:
    """An element that could not be sent to a worker (its error text).

    Example:
        >>> Unpicklable("TypeError: no").text
        'TypeError: no'
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def picklable(items: list[Any]) -> list[Any]:
    """``items``, with each element that does not pickle replaced by an
    :class:`Unpicklable` (its worker answers with the error at its place).

    Example:
        >>> [type(x).__name__ for x in picklable([1, lambda: 0])]
        ['int', 'Unpicklable']
    """
    out: list[Any] = []
    for x in items:
        try:
            pickle.dumps(x, protocol=5, buffer_callback=lambda b: None)
            out.append(x)
        except Exception as e:  # noqa: BLE001 - the element's error
            out.append(Unpicklable(f"{type(e).__name__}: {e}"))
    return out


def _results(fn: Any, items: list[Any]) -> list[Any]:
    """``fn`` over ``items``; failures carry the worker's traceback as a note."""
    out = []
    for x in items:
        if type(x) is Unpicklable:
            out.append(Failure(TypeError(
                f"map(..., executor='processes') sends each element to a worker process, but "
                f"this element does not pickle ({x.text}); use executor='threads' for "
                "elements that do not pickle")))
            continue
        out.extend(apply_chunk(fn, (x,)))
        if type(out[-1]) is Failure:
            e = out[-1].error
            e.add_note("(its traceback in the worker:\n" +
                       "".join(traceback.format_exception(e)).rstrip() + ")")
    return out


def layout(value: Any, leaves: list[np.ndarray]) -> Any:
    """The layout of ``value`` (its leaves appended to ``leaves``), or None when
    it is not arrays that columns rebuild exactly.

    Example:
        >>> layout((np.zeros(2), np.int64(1)), []) is None  # a scalar leaf
        True
    """
    kind = type(value)
    if kind is np.ndarray:
        if value.ndim == 0 or value.dtype.hasobject:
            return None
        leaves.append(value)
        return (value.dtype, value.shape)
    if kind is dict:
        keys = list(value)
        if not all(type(k) is str for k in keys) or keys != sorted(keys):
            return None
        parts = [layout(value[k], leaves) for k in keys]
        return None if None in parts else ("dict", tuple(keys), tuple(parts))
    if kind is tuple or (isinstance(value, tuple) and hasattr(kind, "_fields")):
        parts = [layout(v, leaves) for v in value]
        return None if None in parts else (kind, tuple(parts))
    return None


def skeleton(value: Any) -> Any:
    """``value``'s structure with None leaves (a column block's template).

    Example:
        >>> skeleton({"a": (np.zeros(1), np.zeros(2))})
        {'a': (None, None)}
    """
    if type(value) is dict:
        return {k: skeleton(v) for k, v in value.items()}
    if isinstance(value, tuple):
        parts = [skeleton(v) for v in value]
        return type(value)(*parts) if hasattr(type(value), "_fields") else tuple(parts)
    return None


def _columns(ring: Any, k: int, results: list[Any]) -> tuple[Any, ...] | None:
    """Writes ``results`` as columns into the worker's slot for message ``k``
    when they share one layout (and fit); the message naming them, else None."""
    rows: list[list[np.ndarray]] = []
    key = None
    for r in results:
        leaves: list[np.ndarray] = []
        this = layout(r, leaves)
        if this is None or (key is not None and this != key):
            return None
        key = this
        rows.append(leaves)
    if not rows:
        return None
    half = ring.slots // 2
    at = (half + k % half) * ring.slot_bytes
    end, meta = at + ring.slot_bytes, []
    for j, first in enumerate(rows[0]):
        size = len(rows) * first.nbytes
        if at + size > end:
            return None
        column = np.ndarray((len(rows),) + first.shape, first.dtype, buffer=ring.view, offset=at)
        for i, leaves in enumerate(rows):
            column[i] = leaves[j]
        meta.append((first.dtype, first.shape, at))
        at += -(-size // _ALIGN) * _ALIGN
    return ("columns", key, skeleton(results[0]), meta)


def read_columns(ring: Any, meta: list[tuple[Any, ...]], count: int) -> list[np.ndarray]:
    """Views of the columns of a columns message in ``ring`` (valid until the
    slot is written again: copy them).

    Example:
        >>> from minibatcher.process_channel import Ring
        >>> ring = Ring.create(slots=2, slot_bytes=1 << 16)
        >>> message = _columns(ring, 0, [np.full(3, i) for i in range(2)])
        >>> read_columns(ring, message[3], 2)[0].tolist()
        [[0, 0, 0], [1, 1, 1]]
        >>> ring.close()
    """
    return [np.ndarray((count,) + shape, dtype, buffer=ring.view, offset=offset)
            for dtype, shape, offset in meta]


def rows(template: Any, columns: list[np.ndarray]) -> list[Any]:
    """The elements of columns (each a view of its column's row).

    Example:
        >>> [r.tolist() for r in rows(None, [np.arange(4).reshape(2, 2)])]
        [[0, 1], [2, 3]]
    """
    if template is None:
        return list(columns[0])
    return [pack_like(template, list(parts)) for parts in zip(*columns)]


def _sendable(result: Any) -> Any:
    """``result`` if it pickles, else a :class:`Failure` saying why."""
    try:
        pickle.dumps(result, protocol=5, buffer_callback=lambda b: None)
        return result
    except Exception as e:  # noqa: BLE001 - reported at the element
        failed = type(result) is Failure
        what = "the map function's error" if failed else "the map function's result"
        text = f"{what} does not pickle ({type(e).__name__}: {e}), so it cannot leave the worker"
        if failed:
            text += f": {type(result.error).__name__}: {result.error}"
        return Failure(RuntimeError(text))
