"""A compiled Example spec: the native request (one column per distinct key), the
feature handlers, and the run that turns one native call into columns or TF's error.

Compiling checks the spec as TF does when it builds its parse op (ValueErrors with TF's
words); plans are cached per spec (its keys and feature objects), so parsing one record at
a time does not recompile.

Example:
    >>> from .features import FixedLenFeature, VarLenFeature
    >>> p = plan_for({"a": VarLenFeature("int64"), "b": FixedLenFeature([], "float32")})
    >>> p.names, p.kinds
    (['a', 'b'], [3, 2])
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from ... import _native
from ..errors import InvalidArgumentError
from .columns import Column, RecordBlock
from .diagnose import diagnose
from .features import (FEATURE_TYPES, FixedLenFeature, FixedLenSequenceFeature, RaggedFeature,
                       SparseFeature, UniformRowLength, VarLenFeature)
from .handlers import FAIL, FixedHandler, Problem, SequenceHandler, VarLenHandler
from .messages import Where
from .ragged_parse import RaggedHandler
from .sparse_feature import SparseFeatureHandler
from .raw import KIND_WORD, Raw


class BlockParseError(InvalidArgumentError):
    """TF's parse error for record ``record`` of a block; ``partial`` gives the columns of
    the records before it (for block executors that deliver those first).

    Example:
        >>> e = BlockParseError("bad", 3, lambda: {})
        >>> e.record, e.partial, isinstance(e, InvalidArgumentError)
        (3, {}, True)
    """

    def __init__(self, message: str, record: int, partial: Callable[[], dict[str, Column]]) -> None:
        super().__init__(message)
        self.record = record
        self._partial = partial

    @property
    def partial(self) -> dict[str, Column]:
        """The columns of records ``[0, record)``."""
        return self._partial()


def check_features(features: Any) -> None:
    """TF's checks of the ``features`` argument itself."""
    if not features:
        raise ValueError(f"Argument `features` cannot be None or falsy. Got {features}")
    if not isinstance(features, Mapping):
        raise TypeError(f"features should be a dict mapping keys to FixedLenFeature, "
                        f"VarLenFeature, FixedLenSequenceFeature or RaggedFeature, but got "
                        f"{type(features).__name__}")
    for key, f in features.items():
        if not isinstance(f, FEATURE_TYPES):
            raise ValueError(f"Unsupported {type(f).__name__} {f} for key '{key}'")


def _sparse_keys(features: Mapping[str, Any]) -> list[str]:
    keys: list[str] = []
    for k, f in features.items():
        if isinstance(f, VarLenFeature):
            keys.append(k)
        elif isinstance(f, SparseFeature):
            index = [f.index_key] if isinstance(f.index_key, str) else list(f.index_key)
            keys.extend([*index, f.value_key])
    return list(dict.fromkeys(keys))


def _intersections(features: Mapping[str, Any]) -> None:
    sparse = _sparse_keys(features)
    dense = [k for k, f in features.items()
             if isinstance(f, (FixedLenFeature, FixedLenSequenceFeature))]
    ragged: list[str] = []
    for k, f in features.items():
        if isinstance(f, RaggedFeature):
            for rk in [f.value_key or k] + [p.key for p in f.partitions
                                            if not isinstance(p, UniformRowLength)]:
                if rk not in ragged:
                    ragged.append(rk)
    for (a, ak), (b, bk) in [(("Ragged", ragged), ("sparse", sparse)),
                             (("Dense", dense), ("ragged", ragged)),
                             (("Dense", dense), ("sparse", sparse))]:
        both = set(ak) & set(bk)
        if both:
            raise ValueError(f"{a} and {b} keys must not intersect; {a.lower()}_keys: {ak}, "
                             f"{b}_keys: {bk}, intersection: {both}")


class ExamplePlan:
    """The handlers of one spec and the distinct (key, kind) columns they read."""

    def __init__(self, features: Mapping[str, Any]) -> None:
        check_features(features)
        _intersections(features)
        order = ([k for k, f in features.items() if isinstance(f, (VarLenFeature, SparseFeature))]
                 + [k for k, f in features.items()
                    if isinstance(f, (FixedLenFeature, FixedLenSequenceFeature))]
                 + [k for k, f in features.items() if isinstance(f, RaggedFeature)])
        dense_index = {k: i for i, k in enumerate(sorted(
            k for k, f in features.items() if isinstance(f, (FixedLenFeature,
                                                             FixedLenSequenceFeature))))}
        self.handlers = [self._handler(k, features[k], dense_index.get(k, 0)) for k in order]
        self.names: list[str] = []
        self.kinds: list[int] = []
        self.style: dict[str, str] = {}
        for h in sorted(self.handlers, key=lambda h: list(features).index(h.out_key)):
            for key, kind in h.requests:
                self._request(key, kind, h.style)

    @staticmethod
    def _handler(key: str, f: Any, dense_index: int) -> Any:
        if isinstance(f, FixedLenFeature):
            return FixedHandler(key, f)
        if isinstance(f, VarLenFeature):
            return VarLenHandler(key, f)
        if isinstance(f, FixedLenSequenceFeature):
            return SequenceHandler(key, f, dense_index)
        if isinstance(f, SparseFeature):
            return SparseFeatureHandler(key, f)
        return RaggedHandler(key, f)

    def _request(self, key: str, kind: int, style: str) -> None:
        if key in self.style:
            old = self.kinds[self.names.index(key)]
            if old != kind:
                from .raw import KIND_OF
                names = {v: k for k, v in KIND_OF.items()}
                raise ValueError(f"Conflicting type <dtype: '{names[old]}'> vs "
                                 f"<dtype: '{names[kind]}'> for feature {key}.")
            return
        self.names.append(key)
        self.kinds.append(kind)
        self.style[key] = style

    def decode(self, records: Any) -> dict[str, Any]:
        """One native call over a RecordBlock or a list of bytes."""
        if isinstance(records, RecordBlock):
            data, ends = records.data_and_ends()
            return _native.example_decode(data, ends, self.names, self.kinds, True)
        return _native.example_decode_records(records, self.names, self.kinds, True)

    def single(self, record: bytes) -> dict[str, Any] | None:
        """One record's values by the fast path, or None (an error somewhere: the caller
        takes :meth:`run`, which finds TF's message)."""
        lists = _native.example_decode_one(record, self.names, self.kinds)
        if lists is None:
            return None
        by_key = dict(zip(self.names, lists))
        out = {}
        for h in self.handlers:
            value = h.single(by_key)
            if value is FAIL:
                return None
            out[h.out_key] = value
        return out

    def run(self, records: Any, n: int, where: Where,
            record_bytes: Callable[[int], bytes]) -> dict[str, Column]:
        """Columns of all ``n`` records, or the BlockParseError of the first bad one."""
        result = self.decode(records)
        raws = {k: Raw.from_native(d) for k, d in zip(self.names, result["features"])}
        limit = int(result["records"])
        problems = [p for h in self.handlers if (p := h.problem(raws, limit, where))]
        if result["error"]:
            problems.append(self._native_problem(result, where, record_bytes))
        if not problems:
            return self.columns(raws, n)
        first = min(problems, key=lambda p: (p.record, p.rank, p.key))
        return self._raise(diagnose(self, record_bytes(first.record), first.record, where,
                                    first), raws)

    def columns(self, raws: dict[str, Raw], n: int) -> dict[str, Column]:
        """The handlers' columns over records ``[0, n)``."""
        return {h.out_key: h.column(raws, n) for h in self.handlers}

    def _raise(self, problem: Problem, raws: dict[str, Raw]) -> Any:
        raise BlockParseError(problem.message, problem.record,
                              lambda: self.columns(raws, problem.record))

    def _native_problem(self, result: dict[str, Any], where: Where,
                        record_bytes: Callable[[int], bytes]) -> Problem:
        i = int(result["error_record"])
        if result["error"] == 1:
            return Problem(i, 0, "", where.malformed(record_bytes(i), i))
        key = self.names[int(result["error_feature"])]
        actual = KIND_WORD[int(result["error_kind"])]
        expected = KIND_WORD[self.kinds[self.names.index(key)]]
        say = where.fixed_kind if self.style[key] == "fixed" else where.var_kind
        return Problem(i, 0, key, say(key, actual, expected, i))


_PLANS: dict[tuple, tuple[ExamplePlan, tuple]] = {}


def plan_for(features: Any) -> ExamplePlan:
    """The compiled plan of ``features`` (cached per keys and feature objects)."""
    try:
        cache_key = tuple((k, id(v)) for k, v in features.items())
    except AttributeError:
        return ExamplePlan(features)  # raises TF's error for a non-dict
    hit = _PLANS.get(cache_key)
    if hit is not None:
        return hit[0]
    plan = ExamplePlan(features)
    if len(_PLANS) > 256:
        _PLANS.clear()
    _PLANS[cache_key] = (plan, tuple(features.values()))  # keeps the ids alive
    return plan


def as_records(serialized: Any) -> list[bytes]:
    """A batch of serialized records as a list of bytes (object arrays and lists of str too)."""
    arr = serialized if isinstance(serialized, (list, tuple)) else np.asarray(serialized,
                                                                             dtype=object)
    if isinstance(arr, np.ndarray):
        if arr.ndim != 1:
            raise InvalidArgumentError(f"Expected serialized to be a scalar or vector, got "
                                       f"shape: [{','.join(str(d) for d in arr.shape)}]")
        arr = arr.tolist()
    if set(map(type, arr)) <= {bytes}:  # the common case, without a Python step per record
        return list(arr)
    out = []
    for r in arr:
        if isinstance(r, bytes):
            out.append(r)
        elif isinstance(r, str):
            out.append(r.encode())
        elif isinstance(r, (bytearray, memoryview, np.bytes_)):
            out.append(bytes(r))
        else:
            raise TypeError(f"serialized should hold bytes (serialized tf.train.Example "
                            f"records), but got an element of type {type(r).__name__}")
    return out


__all__ = ["BlockParseError", "ExamplePlan", "as_records", "check_features", "plan_for"]
