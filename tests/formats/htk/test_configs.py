"""Config front ends beyond the AN4 replays: composite HTK entries, every key of issue 7."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from minibatcher import MinibatchSource
from minibatcher.errors import ConfigError
from minibatcher.formats.htk.legacy import LegacyHTKSource

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
    assert isinstance(source, LegacyHTKSource)
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
