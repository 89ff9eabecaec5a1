"""One malformed location costs exactly one error, for the life of the reader (DECISIONS.md 18).

The issue's reproducer: a bad value makes its row lose its only sample and its
sequence fall one sample short. CNTK charges all three, and again whenever the
chunk is parsed again; here it is one error, whatever re-parses the chunk.
"""

from __future__ import annotations

import pytest

from minibatcher import CTFDeserializer, ErrorBudgetExceeded, MinibatchSource, StreamDef

REPRODUCER = "0 |a 1\n0 |a oops\n0 |a 2\n1 |a 3\n"
LONGER = REPRODUCER + "".join(f"{k} |a {k}\n" for k in range(2, 40))


def source(path, impl, max_errors=1, **options) -> MinibatchSource:
    keep = options.pop("keep_data_in_memory", False)
    d = CTFDeserializer(path, {"a": StreamDef()}, max_errors=max_errors, impl=impl, trace_level=0,
                        chunk_size_in_bytes=options.pop("chunk", 32 << 20),
                        keep_data_in_memory=keep)
    return MinibatchSource(d, **options)


def read_all(src: MinibatchSource, size: int = 2) -> list[float]:
    return [v for mb in src.minibatches(size) for v in mb["a"].values.ravel().tolist()]


def test_the_issue_s_reproducer_needs_max_errors_1_for_3_sweeps(write, impl):
    path = write(REPRODUCER)
    with pytest.raises(ErrorBudgetExceeded, match="malformed number in input 'a'"):
        read_all(source(path, impl, max_errors=0, randomize=False, max_sweeps=3))
    src = source(path, impl, randomize=False, max_sweeps=3)
    assert read_all(src) == [1.0, 2.0, 3.0] * 3
    assert src.deserializer.stats.errors == 1


PATHS = {
    "file order, one chunk per sequence": dict(randomize=False, chunk=16),
    "randomized window of 2 chunks": dict(randomization_window_in_chunks=2, chunk=16),
    "window in samples, 4 threads": dict(randomization_window_in_samples=5, chunk=16,
                                         num_threads=4, prefetch_chunks=3),
    "kept in memory": dict(randomization_window_in_chunks=2, chunk=16, keep_data_in_memory=True),
    "worker 0 of 2": dict(randomization_window_in_chunks=2, chunk=16, num_workers=2, worker_rank=0),
    "worker 1 of 2": dict(randomization_window_in_chunks=2, chunk=16, num_workers=2, worker_rank=1),
}


@pytest.mark.parametrize("options", PATHS.values(), ids=PATHS.keys())
def test_every_reload_path_charges_the_location_once(write, impl, options):
    path = write(LONGER)
    src = source(path, impl, max_sweeps=5, **options)
    values = read_all(src, 3)
    assert values and src.deserializer.stats.errors <= 1
    if options.get("num_workers", 1) == 1:  # this reader saw the bad chunk: exactly one error
        assert sorted(values) == sorted([float(v) for v in [1, 2, 3] + list(range(2, 40))] * 5)
        assert src.deserializer.stats.errors == 1


@pytest.mark.parametrize("randomize", [False, True])
def test_restoring_into_the_same_reader_does_not_charge_again(write, impl, randomize):
    path = write(LONGER)
    src = source(path, impl, max_sweeps=4, randomize=randomize, chunk=16,
                 randomization_window_in_chunks=2)
    states = []
    while True:
        states.append(src.get_checkpoint_state())
        if not src.next_minibatch(4):
            break
    for state in states[::3]:  # every restore re-reads the chunks at that point
        src.restore_from_checkpoint(state)
        src.next_minibatch(4)
        src.next_minibatch(4)
    assert src.deserializer.stats.errors == 1
