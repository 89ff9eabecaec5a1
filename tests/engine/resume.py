"""The shared resume check: checkpoint after every minibatch, restore each
checkpoint into a fresh source, and require the rest of the stream to be identical."""

from __future__ import annotations

import json
from typing import Callable

import numpy as np

from minibatcher import MinibatchSource


def snapshot(minibatch) -> dict:
    """Everything observable about a minibatch, comparable with ==."""
    out = {}
    for name, data in sorted(minibatch.items()):
        values = data.values
        if data.is_sparse:
            payload = (values.data.tobytes(), values.indices.tobytes(), values.indptr.tobytes())
        else:
            payload = np.ascontiguousarray(values).tobytes()
        seg = None if data.segment_starts is None else data.segment_starts.tolist()
        out[name] = (data.keys.tolist(), data.lengths.tolist(), payload, data.end_of_sweep,
                     data.layout.rows.tolist(), data.layout.starts.tolist(), seg)
    return out


def assert_resumes_exactly(make_source: Callable[[], MinibatchSource],
                           sizes: Callable[[int], int] = lambda step: 3,
                           max_steps: int = 60, start: Callable | None = None) -> int:
    """Returns the number of minibatches compared; fails naming the step on a difference.

    ``start(source)`` (optional) starts the epoch before reading, as a legacy loop does.
    """
    source = make_source()
    if start is not None:
        start(source)
    states, batches = [], []
    for step in range(max_steps):
        states.append(json.loads(json.dumps(source.get_checkpoint_state())))
        minibatch = source.next_minibatch(sizes(step))
        batches.append(snapshot(minibatch))
        if not minibatch:
            break
    assert len(batches) > 2, "the scenario should produce several minibatches"
    for k, state in enumerate(states):
        fresh = make_source()
        fresh.restore_from_checkpoint(state)
        for j in range(k, len(batches)):
            got = snapshot(fresh.next_minibatch(sizes(j)))
            assert got == batches[j], f"restored after minibatch {k}: minibatch {j} differs"
    return len(batches)


class Minibatches:
    """A source's minibatches of ``size`` samples as an iterator with ``get_state()`` /
    ``set_state()`` (the checkpoint calls), for the shared tampering check
    (tests/tfdata/tamper.py): ``lambda: Minibatches(make_source(), 4)`` is a reader."""

    def __init__(self, source: MinibatchSource, size: int) -> None:
        self.source, self.size = source, size

    def __iter__(self) -> "Minibatches":
        return self

    def __next__(self):
        minibatch = self.source.next_minibatch(self.size)
        if not minibatch:
            raise StopIteration
        return minibatch

    def get_state(self) -> dict:
        return self.source.get_checkpoint_state()

    def set_state(self, state: dict) -> None:
        self.source.restore_from_checkpoint(state)


def hashable(minibatch) -> str:
    """:func:`snapshot` as a comparable string."""
    return repr(snapshot(minibatch))
