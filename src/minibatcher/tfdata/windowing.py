"""``window(size, shift, stride, drop_remainder)``: tf.data's windows of elements.

Window ``k`` holds input positions ``k*shift + j*stride`` for ``j < size`` (those
that exist); without ``drop_remainder`` there is a window for every
``k*shift`` before the end of the input (the last ones short), with it only
full windows. Each window is a dataset (for structured elements, the same
structure of datasets, one per component), usually flattened back with
``flat_map(lambda w: w.batch(size))``.

Over an input with a view the windows are a view (window ``k`` reads its
positions directly); otherwise the iterator keeps TF's buffer of the last
``(size-1)*stride + 1`` elements, and its state refers to them by address (or
by position, re-read from the start of the iteration when the input has no
addresses), as ``group_by_window`` does.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> ds = Dataset.range(7).window(3, 2, drop_remainder=True).flat_map(lambda w: w.batch(3))
    >>> [b.tolist() for b in ds]
    [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
"""

from __future__ import annotations

from typing import Any

from ..errors import CheckpointError
from ..state import Fields
from .core import Iter, View
from .dataset import Dataset
from .errors import InvalidArgumentError
from .sources import ElementsSource, SourceDataset
from .structure import flatten, is_structure, pack_as
from .transforms import _Unary


def window_count(n: int, size: int, shift: int, stride: int, drop: bool) -> int:
    """The number of windows over ``n`` elements.

    Example:
        >>> window_count(10, 3, 1, 3, False), window_count(10, 3, 2, 2, True)
        (10, 3)
    """
    if not drop:
        return -(-n // shift)
    span = (size - 1) * stride + 1
    return 0 if n < span else (n - span) // shift + 1


class _Failed:
    """An input element whose production raised (TF keeps the error in the window
    buffer: it is raised only if a window includes that element)."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


def window_value(elements: list[Any]) -> Any:
    """A window: a dataset of ``elements``, or a structure of datasets (one per component).

    Example:
        >>> w = window_value([(1, b"a"), (2, b"b")])
        >>> [list(d) for d in w]
        [[1, 2], [b'a', b'b']]
    """
    for e in elements:
        if isinstance(e, _Failed):
            raise e.error
    first = elements[0]
    if not is_structure(first):
        return SourceDataset(ElementsSource(elements))
    columns = zip(*(flatten(e) for e in elements), strict=True)
    return pack_as(first, [SourceDataset(ElementsSource(list(c))) for c in columns])


def _attempt(fetch: Any, ref: int) -> Any:
    try:
        return fetch(ref)
    except StopIteration:
        raise CheckpointError("window: the input ended before an element the checkpoint "
                              "holds; the data changed") from None
    except Exception as e:  # noqa: BLE001 - a failed element stays a failure
        return _Failed(e)


class _WindowView(View):
    def __init__(self, parent: View, node: "WindowDataset") -> None:
        self.parent, self.node = parent, node
        self.n = len(parent)
        self._length = window_count(self.n, node._size, node._shift, node._stride, node._drop)

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: int) -> Any:
        node = self.node
        start = index * node._shift
        stop = min(self.n, start + (node._size - 1) * node._stride + 1)
        if node._stride == 1:
            return window_value(self.parent.read(start, stop))
        return window_value([self.parent[p] for p in range(start, stop, node._stride)])

    def pins(self) -> Any:
        return self.parent.pins()


class _WindowIter(Iter):
    """TF's buffered window iterator (input without a view)."""

    def __init__(self, node: "WindowDataset", parent: Iter, start_state: Any) -> None:
        self.node, self.parent, self.start_state = node, parent, start_state
        self.span = (node._size - 1) * node._stride + 1
        self.buf: list[Any] = []
        self.refs: list[int] = []
        self.read = 0
        self.done = False

    def _fill(self) -> None:
        while not self.done and len(self.buf) < self.span:
            try:
                x = next(self.parent)
            except StopIteration:
                self.done = True
                break
            except Exception as e:  # noqa: BLE001 - kept for the window that includes it
                x = _Failed(e)
            self.refs.append(self.parent.address if self.parent.addressable else self.read)
            self.buf.append(x)
            self.read += 1

    def __next__(self) -> Any:
        node = self.node
        self._fill()
        if not self.buf or (node._drop and len(self.buf) < self.span):
            raise StopIteration
        members = self.buf[::node._stride][:node._size]
        if node._shift <= len(self.buf):
            del self.buf[:node._shift], self.refs[:node._shift]
        else:
            gap = node._shift - len(self.buf)
            self.buf, self.refs = [], []
            skipped = self.parent.skip(gap)
            self.read += skipped
            self.done = self.done or skipped < gap
        return window_value(members)

    def state(self) -> dict[str, Any]:
        by = "address" if self.parent.addressable else "position"
        return {"in": self.parent.state(), "in0": self.start_state, "read": self.read,
                "done": self.done, "by": by, "held": len(self.buf),
                "refs": list(self.refs) if by == "address" else []}

    def restore(self, state: Fields) -> None:
        """The buffer (the last ``held`` elements read) re-derived from ``state``."""
        self.read, self.done = state.int("read", 0), state.bool("done")
        held = state.int("held", 0, min(self.span - 1, self.read),
                         within="the elements a window buffer can hold here")
        if state.str("by", ("address", "position")) == "address":
            if not self.parent.addressable:
                raise state.bad("by", "'position' (this pipeline's input has no addresses)")
            self.refs = state.ints("refs", 0, length=held)
            self.buf = [_attempt(self.parent.refetch, a) for a in self.refs]
            return
        state.ints("refs", length=0)
        self.refs = list(range(self.read - held, self.read))
        replay = self.node._parent._make_iter(state.child("in0"))
        if replay.skip(self.read - held) != self.read - held:
            raise state.bad("read", "a position inside the input", "the data changed")
        self.buf = [_attempt(lambda _: next(replay), p) for p in self.refs]


class WindowDataset(_Unary):
    """``window(size, shift, stride, drop_remainder)``.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = WindowDataset(Dataset.range(10), 3, 1, 3, False)
        >>> [[int(x) for x in w] for w in ds][:5]
        [[0, 3, 6], [1, 4, 7], [2, 5, 8], [3, 6, 9], [4, 7]]
    """

    def __init__(self, parent: Dataset, size: int, shift: int | None, stride: int,
                 drop_remainder: bool) -> None:
        super().__init__(parent)
        shift = size if shift is None else shift
        for what, value in (("size", size), ("shift", shift), ("stride", stride)):
            if int(value) <= 0:
                raise InvalidArgumentError(f"Window {what} must be greater than zero, but got "
                                           f"{what}={value}.")
        self._size, self._shift, self._stride = int(size), int(shift), int(stride)
        self._drop = bool(drop_remainder)

    def _spec(self) -> dict[str, Any]:
        return {"op": "window", "size": self._size, "shift": self._shift, "stride": self._stride,
                "drop_remainder": self._drop}

    def _make_view(self, pins: Fields | None) -> View:
        return _WindowView(self._parent._make_view(pins), self)

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._has_view():
            return super()._make_iter(state)
        if state is None:
            parent = self._parent._make_iter(None)
            return _WindowIter(self, parent, parent.state())
        state.only("in", "in0", "read", "done", "by", "held", "refs")
        it = _WindowIter(self, self._parent._make_iter(state.child("in")), state.child("in0").raw)
        it.restore(state)
        return it

    def _cardinality(self) -> int:
        n = self._parent._cardinality()
        if n < 0:
            return n
        return window_count(n, self._size, self._shift, self._stride, self._drop)
