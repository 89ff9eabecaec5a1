"""The legacy HTKMLFReader's rules as MinibatchSource options (engine/legacy.py):
their errors, skips that match reads, and fingerprints that keep plain sources' states."""

from __future__ import annotations

import pytest

from minibatcher import CheckpointError, ConfigError, MinibatchSource

from .fake import ArrayDeserializer, sequence_values

LEGACY = {
    "utterances": dict(utterances_per_minibatch=[2, 3]),
    "truncated": dict(utterances_per_minibatch=2, truncated_by_minibatch=True),
    "full frames": dict(frame_mode=True, full_minibatches=True),
}


def make(lengths=2, **options) -> MinibatchSource:
    return MinibatchSource(ArrayDeserializer([3, 4, 3], lengths=lengths), randomize=False,
                           local_timeline=False, cross_sweep_boundaries=False, **options)


@pytest.mark.parametrize("options, message", [
    (dict(truncated_by_minibatch=True, frame_mode=True),
     "option truncated_by_minibatch needs frame_mode=False"),
    (dict(truncated_by_minibatch=True, truncation_length=2),
     "option truncated_by_minibatch needs frame_mode=False and no truncation_length"),
    (dict(utterances_per_minibatch=2, frame_mode=True), r"utterance mode \(nbrutts"),
    (dict(utterances_per_minibatch=[1, -1]), "should be one or more positive integers"),
    (dict(utterances_per_minibatch=[1, True]), "should be one or more positive integers"),
])
def test_refused_combinations(options, message):
    with pytest.raises(ConfigError, match=message):
        make(lengths=1, **options)


def test_fewer_utterances_than_workers_is_explained():
    source = make(utterances_per_minibatch=1, num_workers=2, worker_rank=1)
    with pytest.raises(ConfigError, match="at least the number of workers"):
        source.next_minibatch(4)


@pytest.mark.parametrize("mode", LEGACY, ids=LEGACY.keys())
def test_a_skip_moves_as_a_read_does(mode):
    lengths = 1 if mode == "full frames" else 2
    skipping, reading = make(lengths, **LEGACY[mode]), make(lengths, **LEGACY[mode])
    for epoch in range(2):
        skipping.start_epoch(epoch, 14)
        reading.start_epoch(epoch, 14)
        while skipping.skip_minibatch(4):
            assert reading.next_minibatch(4)
            skipping.restore_from_checkpoint(skipping.get_checkpoint_state())
            assert skipping.get_checkpoint_state() == reading.get_checkpoint_state()
        assert not reading.next_minibatch(4)


def test_full_minibatches_drop_the_short_one_at_a_sweep_end():
    full = make(1, **LEGACY["full frames"])
    full.start_epoch(0, 10)
    assert [sequence_values(mb) for mb in full.minibatches(4)] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_fingerprints_keep_plain_states_and_refuse_crossed_ones():
    plain = make().get_checkpoint_state()
    assert set(plain["options"]) == {"order", "randomization_seed", "frame_mode",
                                     "truncation_length", "num_workers", "worker_rank",
                                     "local_timeline", "cross_sweep_boundaries"}
    legacy = make(**LEGACY["utterances"])
    assert legacy.get_checkpoint_state()["options"]["utterances_per_minibatch"] == [2, 3]
    with pytest.raises(CheckpointError, match="utterances_per_minibatch"):
        make().restore_from_checkpoint(legacy.get_checkpoint_state())
