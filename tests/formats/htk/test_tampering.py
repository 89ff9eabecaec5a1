"""Tampered checkpoint states of HTK feature + MLF sources (issue 15, 'Done when' 2):
frame mode, sequence mode and truncated BPTT; a CheckpointError naming the field, or
the exact rest of the stream (the shared check, tests/tfdata/tamper.py)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ...engine.resume import Minibatches, hashable
from ...engine.test_restore_validation import ENGINE_POSITIONS
from ...tfdata.tamper import check_tampered, record
from .test_resume import corpus, make  # noqa: F401  (corpus: the fixture)

MODES = {
    "frames": dict(frame_mode=True, randomization_window_in_chunks=3, num_workers=2,
                   worker_rank=1),
    "sequences": dict(randomization_window_in_samples=400, randomization_seed=5),
    "sequences in order, 3 workers": dict(randomize=False, num_workers=3, worker_rank=2),
    "bptt": dict(truncation_length=7, randomization_window_in_chunks=3),
}
SIZE = {"frames": 61, "bptt": 21}
LIMIT = 400  # more than any mode's stream: the whole stream is recorded
# which utterance of the right length waits in a BPTT slot is not checked (see
# tests/engine/test_restore_validation.py)
WEAK = {"bptt": frozenset({"slots"})}


@pytest.fixture(scope="module")
def readers(corpus):  # noqa: F811
    out = {}
    for mode, options in MODES.items():
        build = make(corpus, **options)

        def reader(build=build, size=SIZE.get(mode, 90)):
            return Minibatches(build(), size)
        out[mode] = (reader, record(reader, LIMIT, hashable))
    return out


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(mode=st.sampled_from(sorted(MODES)), data=st.data())
def test_a_tampered_state_is_refused_or_reads_on_exactly(readers, mode, data) -> None:
    reader, (states, minibatches) = readers[mode]
    assert 5 < len(minibatches) < LIMIT
    check_tampered(reader, states, minibatches, data, WEAK.get(mode, frozenset()),
                   key=hashable, roots=tuple(states[0]), positions=ENGINE_POSITIONS)
