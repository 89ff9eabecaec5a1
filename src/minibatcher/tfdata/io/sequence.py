"""``tf.io.parse_single_sequence_example`` / ``parse_sequence_example``: SequenceExamples
(context features + feature lists) in one native call, with TF's outputs and checks.

Context features are FixedLenFeature, VarLenFeature or RaggedFeature (parsed as in an
Example); feature lists are FixedLenSequenceFeature (``[steps, *shape]``, padded to the
longest record in a batch, whose ``lengths`` the batched form returns), VarLenFeature
(a SparseTensor ``[steps, values]``) or RaggedFeature (a RaggedTensor over the steps).

Example:
    >>> from minibatcher.tfdata import io
    >>> rec = bytes.fromhex("0a0c0a0a0a016312051a030a0107"                 # context c: [7]
    ...                     "12160a140a0173120f0a051a030a01010a061a040a020203")  # s: [[1], [2, 3]]
    >>> ctx, lists = parse_single_sequence_example(
    ...     rec, {"c": io.FixedLenFeature([], "int64")}, {"s": io.RaggedFeature("int64")})
    >>> ctx["c"], lists["s"].to_list()
    (np.int64(7), [[1], [2, 3]])
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from .columns import RecordBlock
from .parse import _one
from .plan import as_records
from .sequence_plan import SequencePlan

_PLANS: dict[tuple, tuple[SequencePlan, tuple]] = {}


def _plan(context: Mapping[str, Any] | None, lists: Mapping[str, Any] | None,
          single: bool) -> SequencePlan:
    key = (single,) + tuple((k, id(v)) for part in (context or {}, lists or {})
                            for k, v in part.items()) + (len(context or {}),)
    hit = _PLANS.get(key)
    if hit is not None:
        return hit[0]
    plan = SequencePlan(context, lists, single)
    if len(_PLANS) > 256:
        _PLANS.clear()
    _PLANS[key] = (plan, tuple((context or {}).values()) + tuple((lists or {}).values()))
    return plan


def parse_single_sequence_example(serialized: Any, context_features: Mapping[str, Any] | None = None,
                                  sequence_features: Mapping[str, Any] | None = None,
                                  example_name: Any = None,
                                  name: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """One serialized SequenceExample: ``(context, feature_lists)`` dicts.

    Example:
        >>> from minibatcher.tfdata import io
        >>> parse_single_sequence_example(b"", None, {"s": io.FixedLenSequenceFeature([2], "int64")})
        Traceback (most recent call last):
        ...
        minibatcher.tfdata.errors.InvalidArgumentError: Name: <unknown>, Feature list 's' is required ...
    """
    plan = _plan(context_features, sequence_features, True)
    names = None if example_name is None else [str(example_name)]
    if isinstance(serialized, RecordBlock):
        return plan.run(serialized, len(serialized), names)
    ctx, lists = plan.run([_one(serialized)], 1, names)
    return {k: c.row(0) for k, c in ctx.items()}, {k: c.row(0) for k, c in lists.items()}


def parse_sequence_example(serialized: Any, context_features: Mapping[str, Any] | None = None,
                           sequence_features: Mapping[str, Any] | None = None,
                           example_names: Any = None, name: str | None = None
                           ) -> tuple[dict[str, Any], dict[str, Any], dict[str, np.ndarray]]:
    """A batch of SequenceExamples: ``(context, feature_lists, lengths)``; ``lengths`` holds
    the step count of every record for each FixedLenSequenceFeature.

    Example:
        >>> from minibatcher.tfdata import io
        >>> _, lists, lengths = parse_sequence_example(
        ...     [b"", b""], None, {"s": io.FixedLenSequenceFeature([2], "int64", allow_missing=True)})
        >>> lists["s"].shape, lengths["s"].tolist()
        ((2, 0, 2), [0, 0])
    """
    plan = _plan(context_features, sequence_features, False)
    names = None if example_names is None else [str(n) for n in np.asarray(
        example_names, dtype=object).ravel()]
    records = as_records(serialized)
    ctx, lists = plan.run(records, len(records), names)
    lengths = {h.out_key: np.diff(lists[h.out_key].row_splits) for h in plan.lists if h.dense}
    return ({k: c.batch() for k, c in ctx.items()}, {k: c.batch() for k, c in lists.items()},
            lengths)


__all__ = ["parse_sequence_example", "parse_single_sequence_example"]
