"""``group_by_window`` and ``bucket_by_sequence_length`` (tf.data's kernel rules).

Elements join their key's group in stream order; a group that reaches its
window size is handed to ``reduce_func`` at once, whose dataset is drained
before reading on. At the end of the input the remaining groups are flushed
in ascending key order (TF keeps them in an ordered map).

The state holds the cursor of the input, the held elements of every group
(by address when the input is addressable, else by ordinal: a restore then
reads the input again from the start of the iteration) and the state of the
window being drained.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> ds = Dataset.range(10).group_by_window(lambda x: x % 3, lambda k, w: w.batch(3),
    ...                                        window_size=3)
    >>> [b.tolist() for b in ds]
    [[0, 3, 6], [1, 4, 7], [2, 5, 8], [9]]
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import ConfigError
from ..state import Fields
from .core import INFINITE, UNKNOWN, Iter, fetch_positions
from .restore import InputRefs, check_moved, distinct, start_of
from .dataset import Dataset
from .seeds import capture_function_seed, function_seed_scope
from .sources import ElementsSource, SourceDataset
from .structure import call, flatten, flatten_up_to, is_structure, pack_as


def _key(value: Any) -> int:
    arr = np.asarray(value)
    if arr.shape != () or arr.dtype.kind not in "iu":
        raise TypeError("key_func should return a scalar integer (tf.int64), but returned "
                        f"dtype {arr.dtype} with shape {list(arr.shape)}")
    return int(arr)


class _Held:
    """A group's elements with their references (address or ordinal)."""

    __slots__ = ("elements", "refs")

    def __init__(self) -> None:
        self.elements: list[Any] = []
        self.refs: list[int] = []


class _GroupIter(Iter):
    def __init__(self, node: "GroupByWindowDataset", state: Fields | None) -> None:
        self.node = node
        self.groups: dict[int, _Held] = {}
        self.cur: tuple[int, _Held, Iter] | None = None
        if state is None:
            self.input = node._parent._make_iter(None)
            self.start_state = self.input.state()
            self.consumed, self.done = 0, False
        else:
            self._restore(state)

    def _reduce(self, key: int, held: _Held, state: Fields | None) -> Iter:
        window = SourceDataset(ElementsSource(held.elements))
        with function_seed_scope(self.node._fn_seed):  # TF traces reduce_func once
            out = self.node._reduce(np.int64(key), window)
        if not isinstance(out, Dataset):
            raise TypeError(f"reduce_func should return a Dataset, but returned "
                            f"{type(out).__name__}")
        return out._make_iter(state)

    def __next__(self) -> Any:
        while True:
            if self.cur is not None:
                try:
                    return next(self.cur[2])
                except StopIteration:
                    self.cur = None
            if not self.done:
                try:
                    x = next(self.input)
                except StopIteration:
                    self.done = True
                    continue
                except Exception:
                    self.consumed += 1  # a failing input element still counts (replays skip it)
                    raise
                ref = self.input.address if self.input.addressable else self.consumed
                self.consumed += 1
                key = _key(call(self.node._key_func, x))
                held = self.groups.setdefault(key, _Held())
                held.elements.append(x)
                held.refs.append(ref)
                if len(held.elements) >= self.node._window_of(key):
                    del self.groups[key]
                    self.cur = (key, held, self._reduce(key, held, None))
            elif self.groups:
                key = min(self.groups)
                held = self.groups.pop(key)
                self.cur = (key, held, self._reduce(key, held, None))
            else:
                raise StopIteration

    def at_start(self) -> bool | None:
        return self.consumed == 0 and not self.done

    def state(self) -> dict[str, Any]:
        cur = None
        if self.cur is not None:
            cur = {"key": self.cur[0], "refs": list(self.cur[1].refs), "it": self.cur[2].state()}
        return {"in": self.input.state(), "in0": self.start_state, "consumed": self.consumed,
                "done": self.done, "by": "address" if self.input.addressable else "ordinal",
                "groups": [[k, list(self.groups[k].refs)] for k in sorted(self.groups)],
                "cur": cur}

    def _restore(self, state: Fields) -> None:
        state.only("in", "in0", "consumed", "done", "by", "groups", "cur")
        self.start_state = state.child("in0").raw
        self.input = self.node._parent._make_iter(state.child("in"))
        self.consumed, self.done = state.int("consumed", 0), state.bool("done")
        refs = InputRefs(self.input, self.consumed)
        refs.check_taken(state, "consumed")
        check_moved(state, "consumed", self.consumed > 0, self.input)
        start = start_of(self.node._parent, state)
        by = state.str("by", ("address",) if self.input.addressable else ("ordinal",))
        cur = state.opt_child("cur")
        held = [_Entry(g, 0, g.list(1)) for g in _groups(state)]
        if cur is not None:
            held.append(_Entry(cur.only("key", "refs", "it"), "key", cur.list("refs")))
        self._fetch(held, by, refs, start)
        refs.check_exhausted(state, "done", self.done)
        for entry in held[:len(held) - (cur is not None)]:
            self.groups[entry.key] = entry.held
        if cur is not None:
            entry = held[-1]
            self.cur = (entry.key, entry.held, self._reduce(entry.key, entry.held,
                                                              cur.child("it")))

    def _fetch(self, held: list["_Entry"], by: str, refs: InputRefs, start: Iter) -> None:
        """Checks every reference (by address or ordinal), fetches the elements
        and checks that each has its group's key and each group its window size."""
        for entry in held:
            entry.held.refs = [refs.address(entry.refs, j) if by == "address" else
                               entry.refs.int(j, 0, self.consumed - 1,
                                              f"the {self.consumed} elements read")
                               for j in range(len(entry.refs))]
        where = [(e.refs, j) for e in held for j in range(len(e.refs))]
        distinct([r for e in held for r in e.held.refs], where, "element reference")
        if not held:
            return
        if by == "address":
            for entry in held:
                entry.held.elements = [refs.fetch(entry.refs, j) for j in range(len(entry.refs))]
        else:
            wanted = sorted({r for e in held for r in e.held.refs})
            got = fetch_positions(start, wanted, "checkpoint state field "
                                  f"{held[0].fields.path!r} (references)")
            for entry in held:
                entry.held.elements = [got[r] for r in entry.held.refs]
        for entry in held:
            self._check_entry(entry, is_cur=entry.where_key == "key")

    def _check_entry(self, entry: "_Entry", is_cur: bool) -> None:
        """Each element has the group's key; a held group is below its window
        size, the window being drained is full (or the input's last one)."""
        for j, element in enumerate(entry.held.elements):
            if _key(call(self.node._key_func, element)) != entry.key:
                raise entry.refs.bad(j, f"a reference to an element of group {entry.key}")
        try:
            window = self.node._window_of(entry.key)
        except (IndexError, KeyError, ValueError, TypeError):
            raise entry.fields.bad(entry.where_key, "the key of one of the groups") from None
        n = len(entry.held.refs)
        if not 1 <= n <= window - (not is_cur) or (is_cur and not self.done and n != window):
            expected = f"{window} references" if is_cur and not self.done else \
                f"1 to {window - (not is_cur)} references (window size {window})"
            raise entry.fields.bad("refs" if is_cur else 1, expected)


class _Entry:
    """A held group (``[key, refs]``) or the window being drained (``{"key", "refs", "it"}``)."""

    def __init__(self, fields: Fields, where_key: Any, refs: Fields) -> None:
        self.fields, self.where_key, self.refs = fields, where_key, refs
        self.key = fields.int(where_key)
        self.held = _Held()


def _groups(state: Fields) -> list[Fields]:
    """The held groups ``[[key, [ref, ...]], ...]``, keys ascending (as written)."""
    items = state.list("groups")
    groups = [items.list(i, 2) for i in range(len(items))]
    keys = [g.int(0) for g in groups]
    for g, a, b in zip(groups[1:], keys, keys[1:]):
        if b <= a:
            raise g.bad(0, f"a key above {a} (the groups are in ascending key order)")
    return groups


class GroupByWindowDataset(Dataset):
    """``group_by_window(key_func, reduce_func, window_size | window_size_func)``.

    Example:
        >>> ds = GroupByWindowDataset(Dataset.range(5), lambda x: x % 2, lambda k, w: w.batch(5),
        ...                           2, None)
        >>> [b.tolist() for b in ds]
        [[0, 2], [1, 3], [4]]
    """

    def __init__(self, parent: Dataset, key_func: Callable[..., Any],
                 reduce_func: Callable[[Any, Dataset], Dataset], window_size: int | None,
                 window_size_func: Callable[[Any], Any] | None) -> None:
        if (window_size is None) == (window_size_func is None):
            raise ConfigError("group_by_window needs exactly one of window_size and "
                              f"window_size_func, but got window_size={window_size!r}, "
                              f"window_size_func={window_size_func!r}")
        self._parent, self._key_func, self._reduce = parent, key_func, reduce_func
        self._window_size, self._window_size_func = window_size, window_size_func
        self._fn_seed = capture_function_seed()

    def _window_of(self, key: int) -> int:
        """The window size of ``key`` (checked when a window opens, as TF does)."""
        if self._window_size is not None:
            size = int(self._window_size)
            what = f"window_size should be at least 1, but got window_size={size}"
        else:
            size = int(self._window_size_func(np.int64(key)))  # type: ignore[misc]
            what = f"window_size_func should return at least 1, but returned {size} for key {key}"
        if size < 1:
            raise ConfigError(what)
        return size

    def _inputs(self) -> tuple[Dataset, ...]:
        return (self._parent,)

    def _spec(self) -> dict[str, Any]:
        return {"op": "group_by_window", "window_size": self._window_size,
                "key_func": getattr(self._key_func, "__qualname__", "?"),
                "reduce_func": getattr(self._reduce, "__qualname__", "?")}

    def _make_iter(self, state: Fields | None) -> Iter:
        return _GroupIter(self, state)

    def _cardinality(self) -> int:
        return INFINITE if self._parent._cardinality() == INFINITE else UNKNOWN


def bucket_by_sequence_length(dataset: Dataset, length_func: Callable[..., Any],
                              boundaries: list[int], batch_sizes: list[int], padded_shapes: Any,
                              padding_values: Any, pad_to_bucket_boundary: bool,
                              no_padding: bool, drop_remainder: bool) -> Dataset:
    """``Dataset.bucket_by_sequence_length`` (see there): bucket ``i`` holds
    lengths in ``[boundaries[i-1], boundaries[i])``; group_by_window with the
    bucket's batch size as window, then (padded) batches.

    Example:
        >>> ds = Dataset.from_tensor_slices([1, 2, 1]).map(lambda n: np.ones(n, np.int8))
        >>> [b.shape for b in bucket_by_sequence_length(ds, len, [3, 5], [2, 2, 2], None, None,
        ...                                             True, False, False)]
        [(2, 2), (1, 2)]
    """
    boundaries, batch_sizes = _checked_buckets(boundaries, batch_sizes)

    def bucket(*args: Any) -> int:  # the closures' names are part of checkpoint plans
        return bucket_of(boundaries, int(length_func(*args)))

    def batching(bucket_id: Any, window: Dataset) -> Dataset:
        return _batch_window(window, int(bucket_id), boundaries, batch_sizes[int(bucket_id)],
                             padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
                             drop_remainder)

    return GroupByWindowDataset(dataset, bucket, batching, None,
                                lambda bucket_id: batch_sizes[int(bucket_id)])


def bucket_of(boundaries: list[int], length: int) -> int:
    """TF's bucket of ``length``: the first ``i`` with ``lo[i] <= length < hi[i]``
    where ``lo = [-inf] + boundaries`` and ``hi = boundaries + [inf]`` (boundaries
    need not increase: repeated ones give empty buckets, unsorted ones TF's
    first match).

    Example:
        >>> bucket_of([2, 5], 1), bucket_of([2, 5], 2), bucket_of([2, 5], 9), bucket_of([3, 1], 2)
        (0, 1, 2, 0)
    """
    lows, highs = [None, *boundaries], [*boundaries, None]
    for i, (lo, hi) in enumerate(zip(lows, highs)):
        if (lo is None or lo <= length) and (hi is None or length < hi):
            return i
    raise ValueError(f"length {length} falls in no bucket of bucket_boundaries={boundaries}")


def _checked_buckets(boundaries: list[int], batch_sizes: list[int]
                     ) -> tuple[list[int], list[int]]:
    """The boundaries and batch sizes as ints; ValueError when their counts do not
    fit (TF's construction check; a batch size below 1 fails at its first window)."""
    boundaries, batch_sizes = [int(b) for b in boundaries], [int(b) for b in batch_sizes]
    if len(batch_sizes) != len(boundaries) + 1:
        raise ConfigError("len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1, but got "
                          f"{len(batch_sizes)} batch sizes for {len(boundaries)} boundaries")
    return boundaries, batch_sizes


def _batch_window(window: Dataset, bucket_id: int, boundaries: list[int], size: int,
                  padded_shapes: Any, padding_values: Any, pad_to_bucket_boundary: bool,
                  no_padding: bool, drop_remainder: bool) -> Dataset:
    """One bucket's window as batches: plain, padded to the batch's maximum (or
    ``padded_shapes``), or padded to the bucket's boundary - 1."""
    if no_padding:
        return window.batch(size, drop_remainder=drop_remainder)
    shapes = padded_shapes
    if pad_to_bucket_boundary:
        if bucket_id >= len(boundaries):
            raise ValueError("When pad_to_bucket_boundary=True, elements must have length < "
                             f"max(bucket_boundaries) = {max(boundaries)}")
        template = window.source.elements[0]  # type: ignore[attr-defined]
        shapes = _boundary_shapes(template, padded_shapes, boundaries[bucket_id] - 1)
    return window.padded_batch(size, shapes, padding_values, drop_remainder=drop_remainder)


def _boundary_shapes(template: Any, padded_shapes: Any, filler: int) -> Any:
    """padded_shapes whose unknown dimensions are ``filler`` (every dimension of
    every non-scalar leaf is unknown when ``padded_shapes`` is None: NumPy
    values carry no static shapes)."""
    leaves = flatten(template)
    given = [None] * len(leaves) if padded_shapes is None else \
        flatten_up_to(template, padded_shapes, "padded_shapes")
    shapes = []
    for leaf, shape in zip(leaves, given):
        dims = [None] * np.ndim(leaf) if shape is None else list(shape)
        shapes.append([filler if d is None or int(d) < 0 else int(d) for d in dims])
    return pack_as(template, shapes) if is_structure(template) else shapes[0]
