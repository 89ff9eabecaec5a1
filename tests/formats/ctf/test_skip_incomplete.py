"""``skip_incomplete_sequences``: a sequence that lost a stream is skipped and counted (DECISIONS.md 18).

CNTK fails on a sequence in which some stream has no sample, whatever
``maxErrors`` is; in a line-per-sequence file one bad value is enough. That
stays the default; the option skips the sequence instead (it keeps its place
in the order, so orders and checkpoints are unchanged), counts it in
``stats.skipped_sequences`` and logs it.
"""

from __future__ import annotations

import logging

import pytest

from minibatcher import (ConfigError, CTFDeserializer, ErrorBudgetExceeded, FormatError,
                         MinibatchSource, StreamDef)

from ...engine.resume import assert_resumes_exactly

AB = {"a": StreamDef(), "b": StreamDef()}
ONE_BAD_VALUE = "|a 1 |b 1\n|a x |b 2\n|a 3 |b 3\n"  # line mode: line 2 loses stream a


def ctf(path, impl="native", streams=None, **kw) -> CTFDeserializer:
    kw.setdefault("trace_level", 0)
    return CTFDeserializer(path, streams or AB, impl=impl, **kw)


def keys_read(source: MinibatchSource, size: int = 2) -> list[int]:
    return [k for mb in source.minibatches(size) for k in mb["a"].keys.tolist()]


def test_by_default_a_sequence_that_lost_a_stream_is_fatal_as_in_cntk(write, impl):
    d = ctf(write(ONE_BAD_VALUE), impl, max_errors=100)
    with pytest.raises(FormatError, match=r"(?s)input 'a' has no sample in sequence \(key 1\) "
                                          r"\(its samples were rejected.*skip_incomplete_sequences=True"):
        d.load_chunk(0)


def test_the_option_skips_it_counts_it_once_and_logs_it(write, impl, caplog):
    with caplog.at_level(logging.WARNING, logger="minibatcher"):
        d = ctf(write(ONE_BAD_VALUE), impl, max_errors=1, skip_incomplete_sequences=True,
                trace_level=1)
        source = MinibatchSource(d, randomize=False, max_sweeps=3)
        assert keys_read(source) == [0, 2] * 3
    assert d.stats.skipped_sequences == 1 and d.stats.errors == 1  # the bad value only
    skipped = [r.getMessage() for r in caplog.records if "the sequence is skipped" in r.getMessage()]
    assert len(skipped) == 1 and ":2:1 (byte offset 10): input 'a' has no sample" in skipped[0]


def test_values_of_the_other_sequences_are_untouched(write, impl):
    d = ctf(write(ONE_BAD_VALUE), impl, max_errors=1, skip_incomplete_sequences=True)
    mb = MinibatchSource(d, randomize=False, max_sweeps=1).next_minibatch(10)
    assert mb["a"].values.ravel().tolist() == [1.0, 3.0]
    assert mb["b"].values.ravel().tolist() == [1.0, 3.0]
    assert mb["a"].num_sequences == 2


def test_a_stream_missing_without_a_bad_value_costs_one_error(write, impl):
    path = write("0 |a 1 |b 1\n1 |b 2\n2 |a 3 |b 3\n")  # sequence 1 never names a
    with pytest.raises(ErrorBudgetExceeded, match="input 'a' has no sample in sequence \\(key 1\\)"):
        ctf(path, impl, skip_incomplete_sequences=True).load_chunk(0)
    d = ctf(path, impl, max_errors=1, skip_incomplete_sequences=True)
    assert d.load_chunk(0).skipped == (1,)
    assert d.stats.errors == 1 and d.stats.skipped_sequences == 1


def test_every_reload_counts_the_sequence_once(write, impl):
    text = "".join(f"|a {i} |b {i}\n" if i % 7 else f"|a {i} |b ?\n" for i in range(60))
    d = ctf(write(text), impl, max_errors=9, skip_incomplete_sequences=True, chunk_size_in_bytes=40)
    source = MinibatchSource(d, randomization_window_in_chunks=2, max_sweeps=4)
    keys = keys_read(source, 5)
    assert sorted(keys) == sorted([k for k in range(60) if k % 7] * 4)
    assert d.stats.skipped_sequences == 9 and d.stats.errors == 9


def test_a_minibatch_of_skipped_sequences_only_is_not_delivered_empty(write, impl):
    text = "|a 1 |b 1\n|a x |b 2\n|a y |b 3\n|a 4 |b 4\n"
    d = ctf(write(text), impl, max_errors=2, skip_incomplete_sequences=True)
    source = MinibatchSource(d, randomize=False, max_sweeps=1)
    sizes = [mb["a"].num_sequences for mb in source.minibatches(1)]
    assert sizes == [1, 1]  # keys 0 and 3; the requests for 1 and 2 read on


@pytest.mark.parametrize("options", [dict(randomize=False), dict(randomization_window_in_chunks=3),
                                     dict(frame_mode=True), dict(truncation_length=2),
                                     dict(num_workers=2, worker_rank=1)],
                         ids=["file order", "randomized", "frames", "bptt", "worker"])
def test_checkpoints_resume_exactly_around_skipped_sequences(write, options):
    rows = 1 if options.get("frame_mode") else 2
    bad_a, bad_b = {5, 17}, {23}

    def row(i: int) -> str:
        return f"{i} |a {'?' if i in bad_a else i} |b {'z' if i in bad_b else i}\n"

    path = write("".join(row(i) * rows for i in range(26)))

    def make() -> MinibatchSource:
        d = ctf(path, max_errors=6, skip_incomplete_sequences=True, chunk_size_in_bytes=64)
        return MinibatchSource(d, max_sweeps=2, **options)

    varying = not options.get("truncation_length")  # BPTT keeps its slot count
    assert assert_resumes_exactly(make, sizes=lambda step: 4 + varying * (step % 3)) > 5
    source = make()
    seen = {k for mb in source.minibatches(4) for k in mb["a"].keys.tolist()}
    assert seen and not seen & (bad_a | bad_b)  # lost a stream: never delivered
    skipped = source.deserializer.stats.skipped_sequences
    if options.get("num_workers", 1) == 1:
        assert skipped == 3
    else:  # a worker parses only its own chunks
        assert 0 < skipped < 3


def test_composite_skips_the_joined_sequence_when_a_part_skips_it(write, impl):
    a = write("0 |a 1\n1 |a x\n2 |a 3\n3 |a 4\n", "a.ctf")
    b = write("0 |b 10\n1 |b 20\n2 |b 30\n3 |b ?\n", "b.ctf")
    da = ctf(a, impl, {"a": StreamDef()}, max_errors=1, skip_incomplete_sequences=True)
    db = ctf(b, impl, {"b": StreamDef()}, max_errors=1, skip_incomplete_sequences=True)
    mb = MinibatchSource([da, db], randomize=False, max_sweeps=1).next_minibatch(10)
    assert mb["a"].keys.tolist() == [0, 2] and mb["b"].values.ravel().tolist() == [10.0, 30.0]


def test_config_key(write):
    data = write(ONE_BAD_VALUE, "d.ctf")
    config = ('reader = [ readerType = "CNTKTextFormatReader"; file = "d.ctf"; randomize = false; '
              'maxErrors = 1; skipIncompleteSequences = true; '
              'input = [ a = [ dim = 1; format = "dense" ]; b = [ dim = 1; format = "dense" ] ] ]')
    source = MinibatchSource.from_config(config, base_dir=data.parent, max_sweeps=1)
    assert keys_read(source) == [0, 2]


def test_the_option_is_part_of_the_fingerprint_only_when_set(write):
    path = write(ONE_BAD_VALUE)
    assert "skip_incomplete_sequences" not in ctf(path).fingerprint()
    assert ctf(path, skip_incomplete_sequences=True).fingerprint()["skip_incomplete_sequences"]
    with pytest.raises(ConfigError, match="skip_incomplete_sequences should be True or False"):
        ctf(path, skip_incomplete_sequences="yes")
