"""The real AN4 subset archive (6 utterances, 1,918 frames of 33 values):
values equal to its text dump (6 significant digits, as CNTK prints), context
windows clamped at the utterance edges, labels from the real MLF."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher import HTKFeatureDeserializer, HTKMLFDeserializer, MinibatchSource, StreamDef
from minibatcher.formats.htk.reference import context_expand

from .helpers import AN4, mlf_labels

SUBSET = AN4 / "subset"
BOUNDS = [0, 368, 806, 1224, 1692, 1770, 1918]  # the SCP's ranges


def dump() -> list[list[str]]:
    return [line.split() for line in (SUBSET / "an4_subset.dump.txt").read_text().splitlines()]


def features(impl: str, shape: int = 33, **kw) -> HTKFeatureDeserializer:
    return HTKFeatureDeserializer({"features": StreamDef(scp=str(SUBSET / "an4_subset.scp"),
                                                         shape=shape, **kw)},
                                  base_dir=SUBSET, impl=impl)


def read_all(source: MinibatchSource, size: int = 10**6) -> list:
    out = []
    while mb := source.next_minibatch(size):
        out.append(mb)
    return out


def test_values_equal_the_text_dump(impl):
    f = features(impl)
    assert f.table().lengths.tolist() == np.diff(BOUNDS).tolist()
    values = f.load_chunk(0).streams[0].values
    assert values.shape == (1918, 33) and values.dtype == np.float32
    printed = [["%g" % v for v in row] for row in values.tolist()]
    assert printed == dump()


def test_context_window_of_the_real_archive(impl):
    base = np.array([[float(v) for v in row] for row in dump()], dtype=np.float32)
    source = MinibatchSource(features(impl, shape=363), randomize=False, max_sweeps=1)
    (mb,) = read_all(source)
    got = mb["features"].values
    assert got.shape == (1918, 363)
    assert np.array_equal(got, context_expand(base, BOUNDS, 5, 5).astype(np.float32))
    # the first frame repeats itself on the left; continuity breaks exactly at 367/368 and 805/806
    assert all(np.array_equal(got[0, 33 * b:33 * (b + 1)], base[0]) for b in range(6))
    assert np.array_equal(got[367, 33 * 6:33 * 7], base[367])
    assert np.array_equal(got[368, :33], base[368])


@pytest.mark.parametrize("frame_mode", [False, True])
def test_features_and_labels_together(impl, frame_mode):
    labels = HTKMLFDeserializer(str(AN4 / "state.list"), {"labels": StreamDef(
        mlf=str(SUBSET / "an4_subset.mlf"), shape=132)}, impl=impl)
    source = MinibatchSource([features(impl, shape=33, context=(2, 2)), labels], randomize=False,
                             frame_mode=frame_mode, max_sweeps=1)
    batches = read_all(source, 100 if frame_mode else 10**6)
    got = np.concatenate([mb["labels"].values.toarray().argmax(axis=1) for mb in batches])
    truth = mlf_labels(SUBSET / "an4_subset.mlf", AN4 / "state.list")
    keys = [line.split("=")[0].rsplit(".", 1)[0] for line in
            (SUBSET / "an4_subset.scp").read_text().splitlines()]
    assert got.tolist() == np.concatenate([truth[k] for k in keys]).tolist()
    assert sum(mb["features"].num_samples for mb in batches) == 1918
    assert batches[0]["features"].values.shape[1] == 33 * 5
