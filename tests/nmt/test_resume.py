"""Exact resume of the nmt iterators at every batch boundary (inside bucket windows and the
shuffle buffer), JSON round trip, fresh pipeline, and the next epoch; on both paths."""

from __future__ import annotations

import pytest

from minibatcher.errors import CheckpointError
from minibatcher.nmt import create_vocab_tables, get_infer_iterator, get_iterator, reference
from minibatcher.tfdata import TextLineDataset, random_seed_scope

from ..tfdata.resume import assert_resumes_exactly
from .corpus import make_corpus


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory):
    return make_corpus(tmp_path_factory.mktemp("corpus"), 240, seed=3)


def maker(files, path: str, **kw):
    src, tgt, vocab = (str(p) for p in files)
    kw = {"batch_size": 8, "num_buckets": 5, "src_max_len": 20, "tgt_max_len": 22,
          "output_buffer_size": 40, "random_seed": 5, **kw}
    build = get_iterator if path == "fast" else reference.get_iterator

    def make():
        table, _ = create_vocab_tables(vocab, vocab, share_vocab=True)
        with random_seed_scope(None):
            return build(TextLineDataset(src), TextLineDataset(tgt), table, table, sos="<s>",
                         eos="</s>", **kw)
    return make


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_every_batch_boundary(files, path: str) -> None:
    assert assert_resumes_exactly(maker(files, path), stride=1 if path == "fast" else 3) > 20


@pytest.mark.parametrize("kw", [dict(num_buckets=1, skip_count=7, num_shards=2, shard_index=1),
                                dict(use_char_encode=True, reshuffle_each_iteration=False),
                                dict(batching="tokens", max_tokens=120),
                                dict(batching="sorted_pool", pool_size=50),
                                dict(num_ranks=3, rank=2)], ids=str)
def test_variants(files, kw) -> None:
    assert assert_resumes_exactly(maker(files, "fast", **kw)) > 5


def test_infer(files) -> None:
    src, _, vocab = (str(p) for p in files)

    def make():
        table, _ = create_vocab_tables(vocab, vocab, share_vocab=True)
        return get_infer_iterator(TextLineDataset(src), table, 16, "</s>", src_max_len=9)
    assert assert_resumes_exactly(make) > 10


def test_state_is_tiny_and_checked(files) -> None:
    make = maker(files, "fast")
    it = iter(make())
    next(it)
    state = it.get_state()
    assert state["iterator"] == {"k": 0, "batch": 1}
    other = maker(files, "fast", batch_size=9)()
    with pytest.raises(CheckpointError, match="batch_size"):
        iter(other).set_state(state)
    bad = dict(state, iterator={"k": 0, "batch": 10**6})
    with pytest.raises(CheckpointError, match="outside the iteration"):
        iter(make()).set_state(bad)
