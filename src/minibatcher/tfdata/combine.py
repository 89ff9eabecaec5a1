"""Combinations: ``Dataset.zip``, ``enumerate``, ``concatenate``.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> [(int(i), x) for i, x in Dataset.from_tensor_slices(["a", "b"]).enumerate()]
    [(0, b'a'), (1, b'b')]
"""

from __future__ import annotations

from typing import Any

from ..state import Fields
from .arguments import tf_int
from .core import INFINITE, UNKNOWN, Iter, View, all_at_start
from .dataset import Dataset
from .structure import flatten, pack_as
from .transforms import _Unary

INT64_MAX = 2**63 - 1


def _pin_parts(pins: Fields | None, n: int) -> list[Fields | None]:
    """The pins of ``n`` inputs (a list of ``n``, or None when none has any)."""
    if pins is None:
        return [None] * n
    if len(pins) != n or not isinstance(pins.raw, (list, tuple)):
        raise pins.bad(None, f"None or a list of {n} input pins")
    return [pins.opt_nested(i) for i in range(n)]


class _ZipView(View):
    def __init__(self, template: Any, views: list[View]) -> None:
        self.template, self.views = template, views
        self._length = min((len(v) for v in views), default=0)

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: int) -> Any:
        return pack_as(self.template, [v[index] for v in self.views])

    def read(self, start: int, stop: int) -> list[Any]:
        columns = [v.read(start, stop) for v in self.views]
        return [pack_as(self.template, list(parts)) for parts in zip(*columns)]

    def pins(self) -> Any:
        pins = [v.pins() for v in self.views]
        return None if all(p is None for p in pins) else pins


class _ZipIter(Iter):
    def __init__(self, template: Any, parents: list[Iter]) -> None:
        self.template, self.parents = template, parents

    def __next__(self) -> Any:
        return pack_as(self.template, [next(p) for p in self.parents])

    def skip(self, count: int) -> int:
        return min((p.skip(count) for p in self.parents), default=0)

    def state(self) -> dict[str, Any]:
        return {"in": [p.state() for p in self.parents]}

    def at_start(self) -> bool | None:
        return all_at_start(*self.parents)


class ZipDataset(Dataset):
    """``Dataset.zip``: a (nested) tuple or dict of datasets.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> next(iter(ZipDataset({"a": Dataset.range(2), "b": Dataset.range(3, 5)})))
        {'a': np.int64(0), 'b': np.int64(3)}
    """

    def __init__(self, structure: Any) -> None:
        self._template = structure
        self._datasets = flatten(structure)
        for d in self._datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"zip takes datasets (in a tuple or dict), but got "
                                f"{type(d).__name__}")

    def _inputs(self) -> tuple[Dataset, ...]:
        return tuple(self._datasets)

    def _spec(self) -> dict[str, Any]:
        return {"op": "zip", "n": len(self._datasets)}

    def _has_view(self) -> bool:
        return all(d._has_view() for d in self._datasets)

    def _make_view(self, pins: Fields | None) -> View:
        parts = _pin_parts(pins, len(self._datasets))
        return _ZipView(self._template, [d._make_view(p) for d, p in zip(self._datasets, parts)])

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._has_view():
            return super()._make_iter(state)
        n = len(self._datasets)
        states = [None] * n if state is None else state.only("in").items("in", n)
        return _ZipIter(self._template, [d._make_iter(s) for d, s in zip(self._datasets, states)])

    def _cardinality(self) -> int:
        ns = [d._cardinality() for d in self._datasets]
        if UNKNOWN in ns:
            return UNKNOWN
        finite = [n for n in ns if n != INFINITE]
        return min(finite) if finite else INFINITE


class EnumerateDataset(_Unary):
    """``enumerate(start)``: ``(int64 index, element)``; as in TF, the index counts up
    to ``2**63 - 2`` (the input is zipped with ``range(start, 2**63 - 1)``).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> next(iter(EnumerateDataset(Dataset.range(5, 7), 1)))
        (np.int64(1), np.int64(5))
    """

    def __init__(self, parent: Dataset, start: int) -> None:
        super().__init__(parent)
        self._start = tf_int("start", start)

    def _spec(self) -> dict[str, Any]:
        return {"op": "enumerate", "start": self._start}

    def _stop(self) -> int:
        """The counter's end: ``2**63 - 1``, or less where a range that long has no
        Python length (a negative start; no input is that long)."""
        return min(INT64_MAX, self._start + INT64_MAX)

    def _make_view(self, pins: Fields | None) -> View:
        from .sources import RangeSource, SourceView
        count = RangeSource(self._start, self._stop(), 1)
        _, inner = _pin_parts(pins, 2)  # the pins of a zip of (counter, input)
        return _ZipView((0, 0), [SourceView(count), self._parent._make_view(inner)])

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._has_view():
            return super()._make_iter(state)
        from .sources import range_dataset
        zipped = ZipDataset((range_dataset(self._start, self._stop()), self._parent))
        return zipped._make_iter(state)

    def _cardinality(self) -> int:
        return self._parent._cardinality()


class _ConcatView(View):
    def __init__(self, first: View, second: View) -> None:
        self.first, self.second, self.n = first, second, len(first)

    def __len__(self) -> int:
        return self.n + len(self.second)

    def __getitem__(self, index: int) -> Any:
        return self.first[index] if index < self.n else self.second[index - self.n]

    def pins(self) -> Any:
        pins = [self.first.pins(), self.second.pins()]
        return None if pins == [None, None] else pins


class _ConcatIter(Iter):
    def __init__(self, datasets: tuple[Dataset, Dataset], which: int,
                 inner: Fields | None) -> None:
        self.datasets, self.which = datasets, which
        self.cur: Iter | None = datasets[which]._make_iter(inner) if which < 2 else None

    def __next__(self) -> Any:
        while self.cur is not None:
            try:
                return next(self.cur)
            except StopIteration:
                self.which += 1
                self.cur = self.datasets[1]._make_iter(None) if self.which == 1 else None
        raise StopIteration

    def state(self) -> dict[str, Any]:
        return {"which": self.which, "in": None if self.cur is None else self.cur.state()}

    def at_start(self) -> bool | None:
        return False if self.which else all_at_start(self.cur)


class ConcatenateDataset(Dataset):
    """``concatenate``.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> [int(x) for x in ConcatenateDataset(Dataset.range(1), Dataset.range(2))]
        [0, 0, 1]
    """

    def __init__(self, first: Dataset, second: Dataset) -> None:
        if not isinstance(second, Dataset):
            raise TypeError(f"concatenate takes a Dataset, but got {type(second).__name__}")
        self._pair = (first, second)

    def _inputs(self) -> tuple[Dataset, ...]:
        return self._pair

    def _iterate_unread(self) -> None:
        self._pair[0]._iterate_unread()  # TF makes the second's iterator when the first ends

    def _spec(self) -> dict[str, Any]:
        return {"op": "concatenate"}

    def _has_view(self) -> bool:
        return all(d._has_view() for d in self._pair)

    def _make_view(self, pins: Fields | None) -> View:
        first, second = _pin_parts(pins, 2)
        return _ConcatView(self._pair[0]._make_view(first), self._pair[1]._make_view(second))

    def _make_iter(self, state: Fields | None) -> Iter:
        if self._has_view():
            return super()._make_iter(state)
        if state is None:
            return _ConcatIter(self._pair, 0, None)
        state.only("which", "in")
        which = state.int("which", 0, 2)
        inner = state.opt_child("in")
        if (inner is None) != (which == 2):
            raise state.bad("in", "None once both inputs ended (which=2), else a cursor")
        return _ConcatIter(self._pair, which, inner)

    def _cardinality(self) -> int:
        a, b = (d._cardinality() for d in self._pair)
        if INFINITE in (a, b):
            return INFINITE
        return UNKNOWN if UNKNOWN in (a, b) else a + b
