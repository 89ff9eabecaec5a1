"""A checkpoint after every minibatch restores exactly: frame, sequence and
truncated-BPTT modes, 1 and 3 workers, randomized and in order (the shared
every-step helper, tests/engine/resume.py)."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher import HTKFeatureDeserializer, HTKMLFDeserializer, MinibatchSource, StreamDef
from minibatcher.errors import CheckpointError
from minibatcher.formats.htk import write_htk

from ...engine.resume import assert_resumes_exactly


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """40 utterances of 5..40 frames in two archives; labels cycle through 3 classes."""
    d = tmp_path_factory.mktemp("resume")
    rng = np.random.default_rng(7)
    lengths = rng.integers(5, 41, size=40)
    scp, mlf, start = [], ["#!MLF!#"], {"a.htk": 0, "b.htk": 0}
    for i, n in enumerate(lengths.tolist()):
        archive = "a.htk" if i % 3 else "b.htk"
        scp.append(f"u{i}.mfc={archive}[{start[archive]},{start[archive] + n - 1}]")
        start[archive] += n
        mlf += [f'"u{i}.lab"'] + [f"{t} {t + 1} s{(i + t) % 3}" for t in range(n)] + ["."]
    for archive, n in start.items():
        frames = np.arange(n * 3, dtype=np.float32).reshape(n, 3) + (1000 if archive == "b.htk" else 0)
        write_htk(d / archive, frames)
    (d / "l.scp").write_text("\n".join(scp) + "\n")
    (d / "l.mlf").write_text("\n".join(mlf) + "\n")
    (d / "s.list").write_text("s0\ns1\ns2\n")
    return d


def make(corpus, **options):
    def build() -> MinibatchSource:
        f = HTKFeatureDeserializer({"x": StreamDef(scp=str(corpus / "l.scp"), shape=3,
                                                   context=(1, 1))},
                                   base_dir=corpus, chunk_frames=100, trace_level=0)
        y = HTKMLFDeserializer(str(corpus / "s.list"),
                               {"y": StreamDef(mlf=str(corpus / "l.mlf"), shape=3)}, chunk_frames=150)
        return MinibatchSource([f, y], max_sweeps=2, **options)
    return build


def sizes(step: int) -> int:
    return [37, 61, 23, 90, 45][step % 5]


@pytest.mark.parametrize("workers, rank", [(1, 0), (3, 0), (3, 2)])
@pytest.mark.parametrize("order", [dict(randomization_window_in_chunks=3),
                                   dict(randomization_window_in_samples=400, randomization_seed=5),
                                   dict(randomize=False)])
def test_frame_mode(corpus, workers, rank, order):
    assert assert_resumes_exactly(make(corpus, frame_mode=True, num_workers=workers,
                                       worker_rank=rank, **order), sizes, max_steps=30) > 5


@pytest.mark.parametrize("workers, rank", [(1, 0), (3, 1)])
@pytest.mark.parametrize("order", [dict(randomization_window_in_chunks=3), dict(randomize=False)])
def test_sequence_mode(corpus, workers, rank, order):
    assert assert_resumes_exactly(make(corpus, num_workers=workers, worker_rank=rank, **order),
                                  sizes, max_steps=30) > 5


@pytest.mark.parametrize("workers, rank", [(1, 0), (3, 0), (3, 2)])
def test_truncated_bptt(corpus, workers, rank):
    make_source = make(corpus, truncation_length=8, num_workers=workers, worker_rank=rank,
                       randomization_window_in_chunks=3)
    assert assert_resumes_exactly(make_source, lambda step: 48, max_steps=30) > 5


def test_legacy_utterance_mode_resumes(corpus, tmp_path):
    def build():
        f = HTKFeatureDeserializer({"x": StreamDef(scp=str(corpus / "l.scp"), shape=3)},
                                   base_dir=corpus, chunk_frames=100)
        return MinibatchSource(f, utterances_per_minibatch=2, randomization_window_in_chunks=3,
                               max_sweeps=2, local_timeline=False, cross_sweep_boundaries=False)
    assert assert_resumes_exactly(build, sizes, max_steps=30) > 5


def test_a_state_of_other_data_is_refused(corpus):
    state = make(corpus, frame_mode=True)().get_checkpoint_state()
    with pytest.raises(CheckpointError):
        make(corpus, frame_mode=False)().restore_from_checkpoint(state)


@pytest.mark.parametrize("files", ["archives", "one file per utterance"])
def test_a_same_size_edit_of_an_archive_is_refused_on_restore(tmp_path, files):
    """An archive's checkpoint identity was its size only (the sum over the
    archives): features written again with other values, the same frame
    counts and so the same sizes, restored a checkpoint taken on the old
    ones (issue 18.2: size and a digest of the first and last 64 KiB)."""
    n = 3 if files == "archives" else 1
    names = [f"u{i}.htk" for i in range(4)] if n == 1 else ["a.htk"]
    scp = [f"u{i}.mfc={names[0]}[{i * 3},{i * 3 + 2}]" if n == 3 else f"u{i}.mfc={names[i]}"
           for i in range(4)]
    (tmp_path / "l.scp").write_text("\n".join(scp) + "\n")

    def write(offset: float) -> None:
        for name in names:
            rows = 12 if n == 3 else 3
            write_htk(tmp_path / name, np.arange(rows * 2, dtype=np.float32).reshape(rows, 2) + offset)

    def build() -> MinibatchSource:
        f = HTKFeatureDeserializer({"x": StreamDef(scp=str(tmp_path / "l.scp"), shape=2)},
                                   base_dir=tmp_path, trace_level=0)
        return MinibatchSource(f, max_sweeps=1, randomize=False)

    write(0.0)
    src = build()
    src.next_minibatch(2)
    state = src.get_checkpoint_state()
    build().restore_from_checkpoint(state)  # the same bytes: accepted
    write(0.5)  # the same frame counts and sizes, other values
    with pytest.raises(CheckpointError, match=r"deserializer 0 \(.*\) holds other data"):
        build().restore_from_checkpoint(state)


def test_another_label_mapping_is_refused_on_restore(corpus, tmp_path):
    """The label mapping file decides every label's index, but a checkpoint
    kept only whether there was one: the same MLF with the names reordered
    restored a checkpoint taken with the old indices."""
    import shutil

    for name in ("a.htk", "b.htk", "l.scp", "l.mlf", "s.list"):
        shutil.copy(corpus / name, tmp_path / name)
    build = make(tmp_path, frame_mode=True)
    src = build()
    src.next_minibatch(10)
    state = src.get_checkpoint_state()
    build().restore_from_checkpoint(state)  # the same files: accepted
    (tmp_path / "s.list").write_text("s2\ns1\ns0\n")  # the same size, other indices
    with pytest.raises(CheckpointError, match=r"holds other data"):
        build().restore_from_checkpoint(state)
