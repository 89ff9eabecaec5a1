"""Config front ends beyond the AN4 replays: composite HTK entries, every key of issue 7."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from minibatcher import MinibatchSource
from minibatcher.errors import ConfigError
from minibatcher.engine.legacy import UtterancePacker

from .helpers import AN4

SUBSET = AN4 / "subset"
LABELS = 'labels = [ mlfFile = "an4_subset.mlf"; labelMappingFile = "state.list"; labelDim = 132 ]'


@pytest.fixture
def folder(tmp_path):
    for name in ("an4_subset.htk", "an4_subset.scp", "an4_subset.mlf"):
        shutil.copy(SUBSET / name, tmp_path / name)
    shutil.copy(AN4 / "state.list", tmp_path / "state.list")
    return tmp_path


def legacy(folder, extra: str = "", features: str = 'dim = 363', labels: str = LABELS,
           kind: str = "HTKMLFReader") -> MinibatchSource:
    text = (f'r = [ reader = [ readerType = "{kind}"; {extra}\n'
            f'features = [ scpFile = "an4_subset.scp"; {features} ]\n{labels} ] ]')
    (folder / "c.cntk").write_text(text)
    return MinibatchSource.from_config(folder / "c.cntk", "r")


def read(source, size: int) -> list:
    out = []
    while mb := source.next_minibatch(size):
        out.append(mb)
    return out


def test_composite_entries(folder):
    text = '''reader = { randomize = false; frameMode = true; deserializers = ({
        type = "HTKFeatureDeserializer"; module = "HTKDeserializers"
        input = [ features = [ dim = 33; contextWindow = 2:3; scpFile = "an4_subset.scp" ] ]
    }:{
        type = "HTKMLFDeserializer"; module = "HTKDeserializers"
        input = [ labels = [ mlfFile = "an4_subset.mlf"; labelMappingFile = "state.list";
                             labelDim = 132 ] ]
    }) }'''
    (folder / "c.cntk").write_text(text)
    source = MinibatchSource.from_config(folder / "c.cntk", max_sweeps=1)
    batches = read(source, 500)
    assert source.streams.features.dim == 33 * 6 and source.options.local_timeline
    assert sum(mb["features"].num_samples for mb in batches) == 1918


def test_context_window_forms_and_mlf_lists(folder):
    assert legacy(folder, features='dim = 33; contextWindow = 3').streams.features.dim == 99
    assert legacy(folder, features='dim = 33; contextWindow = 1').streams.features.dim == 33
    (folder / "list.txt").write_text("an4_subset.mlf\n")
    source = legacy(folder, labels='labels = [ mlfFileList = "list.txt"; labelMappingFile = '
                                   '"state.list"; labelDim = 132 ]')
    assert source.sweep_size == 1918
    with pytest.raises(ConfigError, match="contextWindow=4 is not symmetrical"):
        legacy(folder, features='dim = 33; contextWindow = 4')


def test_read_methods_and_randomize(folder):
    assert not legacy(folder, 'readMethod = "none"').options.randomize
    assert not legacy(folder, 'readMethod = "rollingWindow"; randomize = "none"').options.randomize
    assert legacy(folder, 'randomize = 1000').options.randomization_window_in_samples == 1000
    with pytest.raises(ConfigError, match="'randomize' cannot be 'none' when 'readMethod' is "
                                          "'blockRandomize'"):
        legacy(folder, 'randomize = "none"')
    with pytest.raises(ConfigError, match="rollingWindow with randomization is not reproduced"):
        legacy(folder, 'readMethod = "rollingWindow"')
    with pytest.raises(ConfigError, match="frameMode=true and truncated=true"):
        legacy(folder, 'truncated = true; truncationLength = 20')


def test_legacy_utterance_mode_and_full_minibatches(folder):
    source = legacy(folder, 'frameMode = false; nbruttsineachrecurrentiter = 2; readMethod = "none"')
    assert type(source) is MinibatchSource and isinstance(source._packer, UtterancePacker)
    source.start_epoch(0, 1918)
    assert [mb["features"].num_sequences for mb in read(source, 10)] == [2, 2, 2]
    full = legacy(folder, 'miniBatchMode = "full"; readMethod = "none"')
    full.start_epoch(0, 1918)
    sizes = [mb["features"].num_samples for mb in read(full, 500)]
    assert sizes == [500, 500, 500]  # the short last minibatch (418) is dropped, as CNTK
    partial = legacy(folder, 'readMethod = "none"', kind="HTKDeserializers")
    partial.start_epoch(0, 1918)
    assert [mb["features"].num_samples for mb in read(partial, 500)] == [500, 500, 500, 418]


def test_truncated_bptt_and_double(folder):
    source = legacy(folder, 'frameMode = false; truncated = true; truncationLength = 20; '
                            'precision = "double"; readMethod = "none"', kind="HTKDeserializers")
    source.start_epoch(0, 1918)
    mb = source.next_minibatch(40)
    assert mb["features"].values.dtype == np.float64 and mb["features"].num_samples == 40


def test_legacy_truncation_is_the_minibatch_size(folder):
    # cntk-htk-mlf-and-randomizer.md §6: legacy truncated BPTT runs nbruttsineachrecurrentiter
    # parallel utterances of mbSize frames each; the HTKDeserializers wrapper without
    # truncationLength uses truncation = mbSize and mbSize = nbrutts[epoch] x mbSize.
    for kind in ("HTKMLFReader", "HTKDeserializers"):
        source = legacy(folder, 'frameMode = false; truncated = true; readMethod = "none"; '
                                'nbruttsineachrecurrentiter = 2', kind=kind)
        source.start_epoch(0, 1918)
        mb = source.next_minibatch(20)
        layout = mb["features"].layout
        assert (layout.num_rows, layout.width, mb["features"].num_samples) == (2, 20, 40)
        assert mb["labels"].num_samples == 40
        rows = [mb["features"].num_samples for mb in read(source, 20)]
        assert sum(rows) + 40 == 1918 and max(rows) == 40


def test_legacy_nbrutts_per_epoch(folder):
    # One value per epoch; later epochs repeat the last one (CNTK's argvector); N*k repeats.
    source = legacy(folder, 'frameMode = false; truncated = true; readMethod = "none"; '
                            'nbruttsineachrecurrentiter = 1:3*2:2')
    assert source.options.utterances_per_minibatch == [1, 3, 3, 2]
    widths = []
    for epoch in range(5):
        source.start_epoch(epoch, 1918)
        widths.append(source.next_minibatch(10)["features"].layout.num_rows)
    assert widths == [1, 3, 3, 2, 2]
    utterance = legacy(folder, 'frameMode = false; readMethod = "none"; '
                               'nbruttsineachrecurrentiter = 1:2')
    counts = []
    for epoch in range(3):
        utterance.start_epoch(epoch, 1918)
        counts.append(utterance.next_minibatch(10)["features"].num_sequences)
    assert counts == [1, 2, 2]
    with pytest.raises(ConfigError, match="option nbruttsineachrecurrentiter should be positive"):
        legacy(folder, 'frameMode = false; nbruttsineachrecurrentiter = 0')


def test_legacy_truncation_checkpoint_restores(folder):
    extra = 'frameMode = false; truncated = true; nbruttsineachrecurrentiter = 2'
    source = legacy(folder, extra)
    source.start_epoch(0, 1918)
    source.next_minibatch(30)
    state = source.get_checkpoint_state()
    rest = [mb["features"].values.tobytes() for mb in read(source, 30)]
    again = legacy(folder, extra)
    again.restore_from_checkpoint(state)
    assert [mb["features"].values.tobytes() for mb in read(again, 30)] == rest
    other = legacy(folder, 'frameMode = false; truncated = true; nbruttsineachrecurrentiter = 3')
    with pytest.raises(Exception, match="utterances_per_minibatch"):
        other.restore_from_checkpoint(state)
