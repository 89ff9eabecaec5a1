"""The shared resume check for tfdata pipelines: checkpoint before every element,
JSON round-trip the state, restore it into a fresh pipeline, and require the
rest of the stream (and the next iteration) to be identical."""

from __future__ import annotations

import json
from typing import Any, Callable

import numpy as np

from minibatcher.tfdata import RaggedTensor, SparseTensor
from minibatcher.tfdata.structure import flatten


def snapshot(element: Any) -> Any:
    """Everything observable about an element, comparable with ==."""
    out = []
    for leaf in flatten(element):
        if isinstance(leaf, bytes):
            out.append(("bytes", leaf))
        elif isinstance(leaf, RaggedTensor):
            out.append(("ragged", leaf.to_list(), str(leaf.dtype),
                        [s.dtype.str for s in leaf.nested_row_splits]))
        elif isinstance(leaf, SparseTensor):
            out.append(("sparse", snapshot((leaf.indices, leaf.values, leaf.dense_shape))))
        else:
            a = np.asarray(leaf)
            out.append((a.dtype.str, a.shape, a.tolist()))
    return (type(element).__name__, out)


def stream(iterator: Any, limit: int) -> list[Any]:
    out = []
    for x in iterator:
        out.append(snapshot(x))
        if len(out) >= limit:
            break
    return out


def assert_resumes_exactly(make: Callable[[], Any], max_steps: int = 400,
                           next_epoch: bool = True, stride: int = 1) -> int:
    """Returns the number of elements compared; fails naming the step.

    ``make()`` builds the pipeline afresh (a new process would). With
    ``next_epoch`` the iteration after the restored one must also match.
    """
    dataset = make()
    it = iter(dataset)
    states, elements = [], []
    while len(elements) < max_steps:
        states.append(json.loads(json.dumps(it.get_state())))
        try:
            elements.append(snapshot(next(it)))
        except StopIteration:
            break
    assert len(elements) > 2, "the scenario should produce several elements"
    following = stream(iter(dataset), max_steps) if next_epoch else None
    for k in range(0, len(states), stride):
        fresh = make()
        restored = iter(fresh)
        restored.set_state(states[k])
        ended = len(elements) < max_steps  # then read the restored one to its end too (TF's
        # iterators act at the end: a finite repeat makes one more input iterator there)
        rest = stream(restored, len(elements) - k + ended)
        assert rest == elements[k:], f"restored before element {k}: the stream differs"
        if next_epoch and len(elements) < max_steps:
            assert stream(iter(fresh), max_steps) == following, \
                f"restored before element {k}: the next iteration differs"
    return len(elements)
