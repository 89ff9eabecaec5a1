"""A CNTK speech script ported by changing its import: ``cntk.io`` -> ``minibatcher.io``
(CNTK's Examples/Speech/AN4/Python/HTK_LSTM_Truncated_Distributed.py reader)."""

from __future__ import annotations

import numpy as np
import pytest

import minibatcher.io as C
from minibatcher.errors import ConfigError

from .helpers import AN4

SUBSET = AN4 / "subset"


def create_mb_source(features_file, labels_file, label_mapping_file, total_number_of_samples):
    # as in CNTK's example (feature_dim 33, context (2, 2), 132 classes, truncation 250)
    fd = C.HTKFeatureDeserializer(C.StreamDefs(amazing_features=C.StreamDef(
        shape=33, context=(2, 2), scp=features_file)))
    ld = C.HTKMLFDeserializer(label_mapping_file, C.StreamDefs(awesome_labels=C.StreamDef(
        shape=132, mlf=labels_file)))
    return C.MinibatchSource([fd, ld], truncation_length=250, max_samples=total_number_of_samples)


def test_the_cntk_example_runs_unchanged(monkeypatch):
    monkeypatch.chdir(SUBSET)  # CNTK opens the SCP's relative archive paths from its directory
    source = create_mb_source("an4_subset.scp", "an4_subset.mlf", str(AN4 / "state.list"), 3000)
    features, labels = source.streams.amazing_features, source.streams.awesome_labels
    assert (features.shape, labels.shape, labels.is_sparse) == ((165,), (132,), True)
    mb = source.next_minibatch(500, input_map={"f": features, "l": labels})
    assert mb["f"].num_samples == mb["l"].num_samples == 500  # 2 slots x 250
    assert mb["f"].values.shape == (500, 165)
    state = source.get_checkpoint_state()
    rest = [source.next_minibatch(500) for _ in range(3)]
    again = create_mb_source("an4_subset.scp", "an4_subset.mlf", str(AN4 / "state.list"), 3000)
    again.restore_from_checkpoint(state)
    for want in rest:
        got = again.next_minibatch(500)
        assert np.array_equal(got[features].values, want[features].values)


def test_phone_boundaries_positional_as_cntk(tmp_path):
    (tmp_path / "s").write_text("a\nb\n")
    (tmp_path / "m.mlf").write_text('#!MLF!#\n"u.lab"\n0 200000 a\n200000 300000 b\n.\n')
    d = C.HTKMLFDeserializer(str(tmp_path / "s"), C.StreamDefs(y=C.StreamDef(
        shape=2, mlf=str(tmp_path / "m.mlf"))), True)
    assert d.load_chunk(0).streams[0].values.tolist() == [2.0, 1.0, 2.0]


def test_errors_name_the_problem():
    with pytest.raises(ConfigError, match="should set StreamDef"):
        C.HTKFeatureDeserializer(C.StreamDefs(x=C.StreamDef(shape=3)))
