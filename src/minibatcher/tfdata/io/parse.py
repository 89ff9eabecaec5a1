"""``tf.io.parse_single_example`` / ``parse_example`` and the columnar form under both.

All three run one native call (GIL released) over every record given and build NumPy
columns from its flat output; TF's defaults, shapes, dtypes and errors
(``tfdata.errors.InvalidArgumentError`` with TF's message, ValueError for a spec TF refuses).

Example:
    >>> from minibatcher.formats.tfrecord import encode_example
    >>> from minibatcher import tfdata
    >>> spec = {"label": FixedLenFeature([], tfdata.int64),
    ...         "tags": VarLenFeature(tfdata.string)}
    >>> rec = encode_example({"label": [7], "tags": [b"a", b"b"]})
    >>> out = parse_single_example(rec, spec)
    >>> out["label"], out["tags"].values.tolist()
    (np.int64(7), [b'a', b'b'])
    >>> parse_example([rec, rec], spec)["label"].tolist()
    [7, 7]
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InvalidArgumentError
from .columns import Column, RecordBlock
from .features import (FixedLenFeature, FixedLenSequenceFeature, RaggedFeature,  # noqa: F401
                       VarLenFeature)
from .messages import Where
from .plan import BlockParseError, as_records, plan_for


def parse_example_columns(buffer: Any, offsets: Any, features: Mapping[str, Any], *,
                          mode: str = "single",
                          example_names: Sequence[str] | None = None) -> dict[str, Column]:
    """The columns of N serialized Examples held back to back in one buffer.

    ``buffer``: 1-D uint8 array (or bytes); ``offsets``: N+1 int64 positions, record i is
    ``buffer[offsets[i]:offsets[i+1]]``; ``features``: the spec ``parse_single_example``
    takes. Each column has ``row(i)`` (= ``parse_single_example(record_i)[key]``) and
    ``batch(lo, hi)`` (= ``parse_example(records[lo:hi])[key]``). A bad record raises
    :class:`BlockParseError` (an ``InvalidArgumentError`` worded as ``parse_single_example``
    when ``mode="single"``, as ``parse_example`` when ``mode="batch"``) whose ``record`` is
    its index and ``partial`` the columns of the records before it.

    Example:
        >>> from minibatcher.formats.tfrecord import encode_example
        >>> recs = [encode_example({"x": [i, i]}) for i in range(3)]
        >>> buf = np.frombuffer(b"".join(recs), np.uint8)
        >>> offs = np.cumsum([0] + [len(r) for r in recs])
        >>> cols = parse_example_columns(buf, offs, {"x": FixedLenFeature([2], "int64")})
        >>> cols["x"].row(2).tolist(), cols["x"].batch(0, 2).tolist()
        ([2, 2], [[0, 0], [1, 1]])
    """
    if mode not in ("single", "batch"):
        raise ValueError(f"mode should be 'single' or 'batch', but got mode={mode!r}")
    block = RecordBlock(buffer, offsets)
    return plan_for(features).run(block, len(block), Where(mode == "single", example_names),
                                  block.record)


def _one(serialized: Any) -> bytes:
    if isinstance(serialized, bytes):
        return serialized
    if isinstance(serialized, str):
        return serialized.encode()
    if isinstance(serialized, (np.bytes_, bytearray, memoryview)):
        return bytes(serialized)
    if isinstance(serialized, np.ndarray) and serialized.ndim == 0:
        return _one(serialized[()])
    if isinstance(serialized, (list, tuple, np.ndarray)):
        raise ValueError("Input serialized must be a scalar")
    raise TypeError(f"serialized should be one serialized tf.train.Example (bytes), but got "
                    f"{type(serialized).__name__}")


def _raise_plain(e: BlockParseError) -> InvalidArgumentError:
    return InvalidArgumentError(e.message)


def parse_single_example(serialized: Any, features: Mapping[str, Any],
                         example_names: Any = None, name: str | None = None) -> dict[str, Any]:
    """``tf.io.parse_single_example``: one serialized Example into a dict of NumPy values
    (FixedLenFeature: an array of ``shape``, a NumPy scalar or ``bytes`` for ``[]``;
    VarLenFeature: a 1-D SparseTensor; FixedLenSequenceFeature: ``[n, *shape]``;
    RaggedFeature: a 1-D array without partitions, else a RaggedTensor).

    Example:
        >>> parse_single_example(b"", {"x": FixedLenFeature([2], "float32", [0.5, 1.5])})
        {'x': array([0.5, 1.5], dtype=float32)}
        >>> parse_single_example(b"", {"x": FixedLenFeature([], "int64")})
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.InvalidArgumentError: Feature: x (data type: int64) is required but could not be found.
    """
    if isinstance(features, Mapping) and not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    plan = plan_for(features)
    if isinstance(serialized, RecordBlock):
        return plan.run(serialized, len(serialized), Where(True, None), serialized.record)
    record = _one(serialized)
    fast = plan.single(record)
    if fast is not None:
        return fast
    try:
        cols = plan.run([record], 1, Where(True, None), lambda i: record)
    except BlockParseError as e:
        raise _raise_plain(e) from None
    return {k: c.row(0) for k, c in cols.items()}


def parse_example(serialized: Any, features: Mapping[str, Any], example_names: Any = None,
                  name: str | None = None) -> dict[str, Any]:
    """``tf.io.parse_example``: a batch (list or 1-D array of serialized Examples) into a
    dict of batched values, vectorized in one native call (FixedLenFeature: ``[B, *shape]``;
    VarLenFeature: a 2-D SparseTensor; FixedLenSequenceFeature: ``[B, longest, *shape]``
    padded with its default; RaggedFeature: a RaggedTensor ``[B, ...]``). A scalar
    ``serialized`` gives ``parse_single_example``'s result, as in TF.

    Example:
        >>> from minibatcher.formats.tfrecord import encode_example
        >>> recs = [encode_example({"v": [1, 2]}), encode_example({"v": [3]})]
        >>> parse_example(recs, {"v": FixedLenFeature([], "int64")})
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.InvalidArgumentError: Name: <unknown>, Key: v, Index: 0.  Number of int64 values != expected.  Values size: 2 but output shape: []
        >>> out = parse_example(recs, {"v": VarLenFeature("int64"), "r": RaggedFeature("int64", "w")})
        >>> out["v"].dense_shape.tolist(), out["r"].to_list()
        ([2, 2], [[], []])
    """
    plan = plan_for(features)
    if isinstance(serialized, RecordBlock):
        return plan.run(serialized, len(serialized), Where(False, example_names),
                        serialized.record)
    if isinstance(serialized, (bytes, str, np.bytes_)) or \
            (isinstance(serialized, np.ndarray) and serialized.ndim == 0):
        return parse_single_example(serialized, features)
    records = as_records(serialized)
    names = None if example_names is None else [str(n) for n in np.asarray(example_names,
                                                                         dtype=object).ravel()]
    if names is not None and len(names) != len(records):
        raise InvalidArgumentError(f"Expected names have the same shape as serialized: "
                                   f"name.shape=[{len(names)}], serialized.shape=[{len(records)}]")
    try:
        cols = plan.run(records, len(records), Where(False, names), records.__getitem__)
    except BlockParseError as e:
        raise _raise_plain(e) from None
    return {k: c.batch() for k, c in cols.items()}


__all__ = ["parse_example", "parse_example_columns", "parse_single_example"]
