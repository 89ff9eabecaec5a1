"""``Fields``: a checkpoint state read field by field, every error naming its path.

A state is a JSON-able value (dicts, lists, ints, bools, strings, None).
Readers never index it directly: each field is read through a typed method
that checks the type (a bool is not an int, a float or a string is not a
position), the range and the presence of the field, and a failure is a
:class:`~minibatcher.errors.CheckpointError` naming the field's full path in
the state (``iterator.in.slots[2].pos``). See docs/design/state-format.md.

Example:
    >>> f = Fields({"iterator": {"pos": 3, "pins": None}})
    >>> it = f.child("iterator")
    >>> it.path, it.int("pos", 0, 10), it.opt_nested("pins")
    ('iterator', 3, None)
    >>> it.int("pos", 0, 2)
    Traceback (most recent call last):
    ...
    minibatcher.errors.CheckpointError: checkpoint state field 'iterator.pos' should be an int in [0, 2], but got iterator.pos=3, outside that range; the state is damaged or was edited
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np

from ..errors import CheckpointError

ROOT = "state"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _range_text(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"an int in [{lo}, {hi}]"
    if lo is not None:
        return f"an int >= {lo}"
    return "an int" if hi is None else f"an int <= {hi}"


def damaged(path: str, value: Any, expected: str, note: str = "") -> CheckpointError:
    """The one wording of a bad field (``note``: what is wrong with it, if not obvious).

    Example:
        >>> print(damaged("epoch", "1", "an int"))
        checkpoint state field 'epoch' should be an int, but got epoch='1'; the state is damaged or was edited
    """
    note = f", {note}" if note else ""
    return CheckpointError(f"checkpoint state field {path!r} should be {expected}, but got "
                           f"{path}={_shown(value)}{note}; the state is damaged or was edited")


def int_value(path: str, value: Any, lo: int | None = None, hi: int | None = None,
              within: str | None = None) -> int:
    """The check of :meth:`Fields.int` on a value in hand, named ``path`` (for
    the parts of a list read as a tuple: ``packer.slots[0] cursor``).

    Example:
        >>> int_value("slots[0] cursor", 3, 0, 2)
        Traceback (most recent call last):
        ...
        minibatcher.errors.CheckpointError: checkpoint state field 'slots[0] cursor' should be an int in [0, 2], but got slots[0] cursor=3, outside that range; the state is damaged or was edited
    """
    if not _is_int(value):
        raise damaged(path, value, _range_text(lo, hi))
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise damaged(path, value, _range_text(lo, hi), f"outside {within or 'that range'}")
    return value


class Fields:
    """A state (a dict, or a list) at ``path``; its fields are read by typed methods.

    Keys are field names of a dict or indices of a list. The top-level state
    is called ``state`` in messages, its fields by their own names.

    Example:
        >>> f = Fields({"slots": [None, {"ordinal": 1}], "done": False})
        >>> f.bool("done"), [s and s.int("ordinal") for s in f.opt_items("slots")]
        (False, [None, 1])
        >>> f.opt_items("slots")[1].path
        'slots[1]'
    """

    __slots__ = ("raw", "path")

    def __init__(self, state: Any, path: str = ROOT) -> None:
        if not isinstance(state, Mapping) and not _is_list(state):
            what = "a checkpoint state" if path == ROOT else f"checkpoint state field {path!r}"
            raise CheckpointError(f"{what} should be a dict, but got {type(state).__name__}")
        self.raw = state
        self.path = path

    # -- paths and raw access ---------------------------------------------------------------
    def path_of(self, key: Any) -> str:
        """The full path of field ``key``.

        Example:
            >>> Fields({}, "iterator").path_of("in"), Fields([], "slots").path_of(2)
            ('iterator.in', 'slots[2]')
        """
        return self._join(key)

    def _join(self, key: Any) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        return str(key) if self.path == ROOT else f"{self.path}.{key}"

    def _container(self, key: Any) -> None:
        want_list = isinstance(key, int)
        if want_list != _is_list(self.raw):
            raise damaged(self.path, self.raw, "a list" if want_list else "a dict")

    def has(self, key: Any) -> bool:
        """Whether the field exists.

        Example:
            >>> Fields({"a": None}).has("a"), Fields([1]).has(1)
            (True, False)
        """
        if isinstance(key, int):
            return _is_list(self.raw) and 0 <= key < len(self.raw)
        return isinstance(self.raw, Mapping) and key in self.raw

    def value(self, key: Any) -> Any:
        """The raw JSON value of a field (an error when it is missing).

        Example:
            >>> Fields({}).value("position")
            Traceback (most recent call last):
            ...
            minibatcher.errors.CheckpointError: checkpoint state lacks the field 'position'
        """
        self._container(key)
        if not self.has(key):
            raise CheckpointError(f"checkpoint state lacks the field {self._join(key)!r}")
        return self.raw[key]

    def bad(self, key: Any, expected: str, note: str = "") -> CheckpointError:
        """The error for field ``key`` (``None``: this value itself), expected ``expected``.

        Example:
            >>> print(Fields({"k": 5}, "pins").bad("k", "0 for this dataset"))
            checkpoint state field 'pins.k' should be 0 for this dataset, but got pins.k=5; the state is damaged or was edited
        """
        if key is None:
            return damaged(self.path, self.raw, expected, note)
        value = self.raw[key] if self.has(key) else None
        return damaged(self._join(key), value, expected, note)

    def __len__(self) -> int:
        return len(self.raw)

    # -- scalars ----------------------------------------------------------------------------
    def int(self, key: Any, lo: int | None = None, hi: int | None = None,
            within: str | None = None) -> int:
        """An int field (a bool, float or string is refused) in ``[lo, hi]``;
        ``within`` says what the range is (``"the dataset's 10 elements"``).

        Example:
            >>> Fields({"n": 7}).int("n", 0)
            7
            >>> Fields({"n": True}).int("n")
            Traceback (most recent call last):
            ...
            minibatcher.errors.CheckpointError: checkpoint state field 'n' should be an int, but got n=True; the state is damaged or was edited
        """
        return int_value(self._join(key), self.value(key), lo, hi, within)

    def bool(self, key: Any) -> bool:
        """A bool field (0/1 and strings are refused).

        Example:
            >>> Fields({"done": 1}).bool("done")
            Traceback (most recent call last):
            ...
            minibatcher.errors.CheckpointError: checkpoint state field 'done' should be a bool, but got done=1; the state is damaged or was edited
        """
        value = self.value(key)
        if not isinstance(value, (bool, np.bool_)):
            raise self.bad(key, "a bool")
        return bool(value)

    def str(self, key: Any, choices: Iterable[str] | None = None) -> str:
        """A string field, one of ``choices`` when given.

        Example:
            >>> Fields({"by": "name"}).str("by", ("address", "ordinal"))
            Traceback (most recent call last):
            ...
            minibatcher.errors.CheckpointError: checkpoint state field 'by' should be one of 'address', 'ordinal', but got by='name'; the state is damaged or was edited
        """
        value = self.value(key)
        options = None if choices is None else list(choices)
        if not isinstance(value, str) or (options is not None and value not in options):
            raise self.bad(key, "a string" if options is None else
                           "one of " + ", ".join(repr(c) for c in options))
        return value

    def ints(self, key: Any, lo: int | None = None, hi: int | None = None,
             length: int | None = None) -> list[int]:
        """A list of ints in ``[lo, hi]`` (of ``length`` items when given).

        Example:
            >>> Fields({"refs": [1, 4]}).ints("refs", 0, 9)
            [1, 4]
            >>> Fields({"refs": [1, -4]}).ints("refs", 0, 9)
            Traceback (most recent call last):
            ...
            minibatcher.errors.CheckpointError: checkpoint state field 'refs[1]' should be an int in [0, 9], but got refs[1]=-4, outside that range; the state is damaged or was edited
        """
        items = self.list(key, length)
        return [items.int(i, lo, hi) for i in range(len(items))]

    # -- nested values ----------------------------------------------------------------------
    def child(self, key: Any) -> "Fields":
        """A dict field, as ``Fields``.

        Example:
            >>> Fields({"in": {"pos": 1}}).child("in").int("pos")
            1
        """
        value = self.value(key)
        if not isinstance(value, Mapping):
            raise self.bad(key, "a dict")
        return Fields(value, self._join(key))

    def record(self, key: Any, keys: Iterable[str]) -> "Fields":
        """A dict field with exactly the fields ``keys`` (none missing, none unknown).

        Example:
            >>> Fields({"packer": {"slots": []}}).record("packer", ())
            Traceback (most recent call last):
            ...
            minibatcher.errors.CheckpointError: checkpoint state field 'packer' should be a dict with the fields [], but got packer={'slots': []}; the state is damaged or was edited
        """
        value, names = self.value(key), set(keys)
        if not isinstance(value, Mapping) or set(value) != names:
            raise self.bad(key, f"a dict with the fields {sorted(names)}")
        return Fields(value, self._join(key))

    def opt_child(self, key: Any) -> "Fields | None":
        """A dict field or None.

        Example:
            >>> Fields({"cur": None}).opt_child("cur") is None
            True
        """
        value = self.value(key)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise self.bad(key, "a dict or None")
        return Fields(value, self._join(key))

    def list(self, key: Any, length: int | None = None) -> "Fields":
        """A list field (of ``length`` items when given), as ``Fields`` indexed by int.

        Example:
            >>> Fields({"in": [{}, {}]}).list("in", 3)
            Traceback (most recent call last):
            ...
            minibatcher.errors.CheckpointError: checkpoint state field 'in' should be a list of 3 items, but got in=[{}, {}]; the state is damaged or was edited
        """
        value = self.value(key)
        if not _is_list(value) or (length is not None and len(value) != length):
            raise self.bad(key, "a list" if length is None else f"a list of {length} items")
        return Fields(value, self._join(key))

    def opt_nested(self, key: Any) -> "Fields | None":
        """A dict or list field, or None (a value whose shape a nested reader checks).

        Example:
            >>> Fields({"pins": [None, {"k": 0}]}).opt_nested("pins").path
            'pins'
        """
        value = self.value(key)
        if value is None:
            return None
        if not isinstance(value, Mapping) and not _is_list(value):
            raise self.bad(key, "a dict, a list or None")
        return Fields(value, self._join(key))

    def items(self, key: Any, length: int | None = None) -> "list[Fields]":
        """A list of dicts, each as ``Fields``.

        Example:
            >>> [f.path for f in Fields({"in": [{}, {}]}).items("in", 2)]
            ['in[0]', 'in[1]']
        """
        items = self.list(key, length)
        return [items.child(i) for i in range(len(items))]

    def opt_items(self, key: Any, length: int | None = None) -> "list[Fields | None]":
        """A list of dicts or Nones.

        Example:
            >>> Fields({"slots": [None, 3]}).opt_items("slots")
            Traceback (most recent call last):
            ...
            minibatcher.errors.CheckpointError: checkpoint state field 'slots[1]' should be a dict or None, but got slots[1]=3; the state is damaged or was edited
        """
        items = self.list(key, length)
        return [items.opt_child(i) for i in range(len(items))]

    def only(self, *keys: str) -> "Fields":
        """Refuses a dict with a field not in ``keys`` (a renamed or unknown field);
        returns ``self``.

        Example:
            >>> Fields({"pos": 1, "pinz": None}, "iterator").only("pos", "pins")
            Traceback (most recent call last):
            ...
            minibatcher.errors.CheckpointError: checkpoint state field 'iterator' should have only the fields 'pins', 'pos', but got the unknown field 'iterator.pinz'; the state is damaged or was edited
        """
        if not isinstance(self.raw, Mapping):
            raise damaged(self.path, self.raw, "a dict")
        unknown = sorted(str(k) for k in self.raw if k not in keys)
        if unknown:
            names = ", ".join(repr(self._join(k)) for k in unknown)
            expected = ", ".join(repr(k) for k in sorted(keys))
            raise CheckpointError(
                f"checkpoint state field {self.path!r} should have only the fields {expected}, "
                f"but got the unknown field{'s' if len(unknown) > 1 else ''} {names}; "
                "the state is damaged or was edited")
        return self

    def __iter__(self) -> Iterator[Any]:
        return iter(range(len(self.raw)) if _is_list(self.raw) else list(self.raw))

    def __repr__(self) -> str:
        return f"Fields({_shown(self.raw)}, path={self.path!r})"


def as_fields(state: "Fields | Mapping[str, Any] | Sequence[Any] | None",
              path: str = ROOT) -> "Fields | None":
    """``state`` as ``Fields`` (None stays None; ``Fields`` pass through).

    Example:
        >>> as_fields({"pos": 0}, "iterator").path, as_fields(None)
        ('iterator', None)
    """
    if state is None or isinstance(state, Fields):
        return state
    return Fields(state, path)
