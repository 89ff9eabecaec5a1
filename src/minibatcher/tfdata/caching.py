"""``cache()``: the elements of the first *complete* iteration, kept for the later ones.

TF's rules, checked against TF 2.21: an iteration that starts while the cache is
incomplete reads the input (and keeps what it reads for itself); the first one
to reach the end (or to read as many elements as the input's known cardinality)
fills the cache, and every later iteration reads the cache
without touching the input (a shuffle below a cache is shuffled once: every
iteration gives the same order). An iteration abandoned before the end leaves
nothing behind (``cache().take(k)`` reads the input every time). ``cache(filename)``
keeps the elements in a file instead (:mod:`.cache_files`).

Checkpoints: a reading iterator's state is its position plus the state the input
had when the cached iteration started (``in0``); restored in a fresh process,
the cache is rebuilt from that, lazily over an input with a view (each element
is read again when first needed), else by reading the input's iteration once
(bounded by the dataset's size). A writing iterator's state is the input's
state, ``in0`` and the count read; its restore re-reads the elements already
read when the input has no view (bounded by that count).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> ds = Dataset.range(6).shuffle(6, seed=1).cache()
    >>> [int(x) for x in ds] == [int(x) for x in ds]
    True
"""

from __future__ import annotations

from typing import Any

from ..errors import CheckpointError
from ..state import Fields
from .core import Iter, View, ViewIter
from .dataset import Dataset
from .transforms import _Unary

_MISSING = object()


class Content:
    """The elements of one complete iteration of the input (``in0``: the input's
    state when it started); with ``view``, elements not kept are read from it.

    Example:
        >>> from minibatcher.tfdata.core import ListView
        >>> c = Content({"pos": 0}, ListView([7, 8])); c.length = 2
        >>> c.get(1), sorted(c.memo)
        (8, [1])
    """

    def __init__(self, in0: Any, view: View | None) -> None:
        self.in0, self.view = in0, view
        self.memo: dict[int, Any] = {}
        self.length = -1  # known when the iteration is complete

    def get(self, index: int) -> Any:
        """Element ``index`` (read from the view and kept when missing)."""
        x = self.memo.get(index, _MISSING)
        if x is _MISSING:
            if self.view is None:
                raise CheckpointError(f"the cache lacks element {index}")
            x = self.memo[index] = self.view[index]
        return x


class _ReadIter(Iter):
    addressable = True

    def __init__(self, content: Content, pos: int) -> None:
        self.content, self.pos = content, pos

    def __next__(self) -> Any:
        if self.pos >= self.content.length:
            raise StopIteration
        self.pos += 1
        return self.content.get(self.pos - 1)

    def skip(self, count: int) -> int:
        done = max(0, min(count, self.content.length - self.pos))
        self.pos += done
        return done

    def state(self) -> dict[str, Any]:
        return {"mode": "read", "pos": self.pos, "in0": self.content.in0}

    @property
    def address(self) -> int:
        return self.pos - 1

    def refetch(self, address: int) -> Any:
        return self.content.get(address)


class _WriteIter(Iter):
    """Reads the input, keeping every element; the first to finish fills the cache."""

    def __init__(self, node: "CacheDataset", source: Iter, content: Content, written: int) -> None:
        self.node, self.source, self.content, self.written = node, source, content, written
        self.expected = node._parent._cardinality()  # known: complete without reaching the end

    def __next__(self) -> Any:
        try:
            x = next(self.source)
        except StopIteration:
            self._complete()
            raise
        self.content.memo[self.written] = x
        self.written += 1
        if self.written == self.expected:
            self._complete()  # TF: all elements of a known cardinality read is complete
        return x

    def _complete(self) -> None:
        if self.content.length < 0:
            self.content.length = self.written
            self.node._complete(self.content)

    def state(self) -> dict[str, Any]:
        return {"mode": "write", "in": self.source.state(), "in0": self.content.in0,
                "written": self.written}


class CacheDataset(_Unary):
    """``cache()`` in memory (see the module docstring); ``cache(filename)`` is
    :class:`~minibatcher.tfdata.cache_files.FileCacheDataset`.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = CacheDataset(Dataset.range(3).map(lambda x: x * 2))
        >>> [int(x) for x in ds], ds.cached
        ([0, 2, 4], 3)
    """

    def __init__(self, parent: Dataset) -> None:
        super().__init__(parent)
        self._content: Content | None = None
        self._pending: Fields | None = None  # a checkpoint's cache, rebuilt when first needed
        self._restored: dict[Any, Any] | None = None  # set by DatasetIterator while it restores

    @property
    def cached(self) -> int | None:
        """The number of cached elements (None until an iteration completed)."""
        content = self._current()
        return None if content is None else content.length

    def _complete(self, content: Content) -> None:
        if self._current() is None:  # the first complete iteration wins (TF)
            self._content = content

    def _current(self) -> Content | None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self._restored_content(pending)
        return self._content

    def _generator_state(self) -> dict[str, Any]:
        """The checkpoint's record of this node: which input iteration is cached
        (its ``in0``), if any (so a restored pipeline reads the same cache)."""
        if self._pending is not None:
            return {"cached": self._pending.raw}
        return {"cached": None if self._content is None else self._content.in0}

    def _restore_generator(self, saved: Fields) -> None:
        """Takes a checkpoint's cache record (the elements are rebuilt when first read)."""
        saved.only("cached")
        cached = saved.opt_nested("cached")
        for path, in0 in (self._restored or {}).get("reads", []):  # a restore's reading cursors
            if cached is None or in0 != cached.raw:
                raise saved.bad("cached", f"{path}={in0!r} (the iteration a reading cursor reads: "
                                "a cache is read once it is complete)")
        if cached is None:
            self._content, self._pending = None, None
        elif self._content is None or self._content.in0 != cached.raw:
            # validated now (a damaged record is refused by set_state, not at a later next)
            if self._parent._make_iter(cached).at_start() is False:
                raise saved.bad("cached", "the input's cursor when the cached iteration began "
                                "(nothing read)")
            self._pending = cached

    def _has_view(self) -> bool:
        return False

    def _spec(self) -> dict[str, Any]:
        return {"op": "cache"}

    def _make_iter(self, state: Fields | None) -> Iter:
        if state is None:
            content = self._current()
            if content is not None:
                return _ReadIter(content, 0)
            return self._writer(None, 0)
        if state.str("mode", ("read", "write")) == "read":
            state.only("mode", "pos", "in0")
            content = self._restored_content(state.child("in0"))
            if self._restored is not None:
                self._restored.setdefault("reads", []).append((state.path_of("in0"), content.in0))
            return _ReadIter(content, state.int("pos", 0, content.length,
                                                within=f"the {content.length} cached elements"))
        state.only("mode", "in", "in0", "written")
        return self._writer(state, state.int("written", 0))

    def _writer(self, state: Fields | None, written: int) -> Iter:
        parent = self._parent
        if parent._has_view():
            pins = None if state is None else state.child("in").only("pos", "pins")
            view = parent._make_view(None if pins is None else pins.opt_nested("pins"))
            pos = 0 if pins is None else pins.int("pos", written, written,
                                                  within="the count of elements cached")
            source: Iter = ViewIter(view, pos)
            in0 = {"pos": 0, "pins": view.pins()}
            return _WriteIter(self, source, Content(in0, view), written)
        if state is None:
            source = parent._make_iter(None)
            return _WriteIter(self, source, Content(source.state(), None), 0)
        return self._replayed_writer(state, written)

    def _replayed_writer(self, state: Fields, written: int) -> Iter:
        """A writer over an input without a view: the elements already read are read again."""
        in0 = state.child("in0")
        content = Content(in0.raw, None)
        source = self._parent._make_iter(in0)
        for i in range(written):
            try:
                content.memo[i] = next(source)
            except StopIteration:
                raise state.bad("written", f"at most {i} (the input ended there)",
                                "the data changed") from None
        if source.state() != state.value("in"):
            raise state.bad("in", "the input's state after the elements cached so far")
        return _WriteIter(self, source, content, written)

    def _restored_content(self, in0: Fields) -> Content:
        """The cache a reading checkpoint refers to: this node's, or rebuilt from ``in0``."""
        if self._content is not None and self._content.in0 == in0.raw:
            self._pending = None
            return self._content
        parent = self._parent
        if parent._has_view():
            in0.only("pos", "pins")
            in0.int("pos", 0, 0)
            view = parent._make_view(in0.opt_nested("pins"))
            content = Content(in0.raw, view)
            content.length = len(view)
        else:
            content = Content(in0.raw, None)
            source = parent._make_iter(in0)
            for i, x in enumerate(source):
                content.memo[i] = x
            content.length = len(content.memo)
        self._content, self._pending = content, None
        return content

    def _cardinality(self) -> int:
        return self._parent._cardinality()
