"""Beyond nmt: token budgets, sorted pools, equal batches per rank; and the fast path against
the step-for-step tfdata port on random corpora and parameters."""

from __future__ import annotations

import numpy as np
import pytest

from minibatcher.errors import ConfigError
from minibatcher.nmt import create_vocab_tables, get_iterator, reference
from minibatcher.nmt.options import NmtOptions, epoch_plan
from minibatcher.tfdata import Dataset, TextLineDataset, random_seed_scope

from .corpus import benchmark_lengths, make_corpus, write_lengths


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory):
    return make_corpus(tmp_path_factory.mktemp("corpus"), 3000, seed=11, max_len=40)


def build(files, **kw):
    src, tgt, vocab = (str(p) for p in files)
    table, _ = create_vocab_tables(vocab, vocab, share_vocab=True)
    kw = {"batch_size": 32, "num_buckets": 5, "random_seed": 2, **kw}
    with random_seed_scope(None):
        return get_iterator(TextLineDataset(src), TextLineDataset(tgt), table, table,
                            sos="<s>", eos="</s>", **kw)


def pairs_of(batches) -> list[tuple]:
    """Every pair as (source ids, target ids) without padding."""
    out = []
    for b in batches:
        for s, t, n, m in zip(b.source, b.target_output, b.source_sequence_length,
                              b.target_sequence_length):
            out.append((tuple(s[:n]), tuple(t[:m])))
    return sorted(out)


def efficiency(batches) -> float:
    real = slots = 0
    for b in batches:
        real += int(b.source_sequence_length.sum() + b.target_sequence_length.sum())
        slots += b.source.size + b.target_input.size
    return real / slots


def test_token_budget(files) -> None:
    ds = build(files, batching="tokens", max_tokens=600)
    first, second = list(ds), list(ds)
    for b in first:
        width = max(b.source.shape[1], b.target_input.shape[1])
        assert len(b.source) * width <= 600
    assert pairs_of(first) == pairs_of(second) == pairs_of(build(files))  # same pairs as nmt
    shapes1, shapes2 = [b.source.shape for b in first], [b.source.shape for b in second]
    assert sorted(shapes1) == sorted(shapes2) and shapes1 != shapes2  # batches reshuffled
    assert efficiency(first) > 0.9 > efficiency(build(files))


BENCHMARK = dict(batch_size=128, num_buckets=5, src_max_len=50, tgt_max_len=50,
                 batching="tokens", max_tokens=4096)  # benchmarks/nmt.py's token policy


def plan_efficiency(plan) -> float:
    """Padding efficiency of a plan, from its lengths alone, as the benchmark counts it:
    real tokens (source + target_input) over B x (max source + max target_input)."""
    sl, tin = plan.src_len.astype(np.int64), plan.tgt_len.astype(np.int64) + 1
    starts, sizes = plan.bounds[:-1], np.diff(plan.bounds)
    slots = sizes * (np.maximum.reduceat(sl, starts) + np.maximum.reduceat(tin, starts))
    return float((sl.sum() + tin.sum()) / slots.sum())


def test_plan_efficiency_is_the_efficiency_of_the_batches(tmp_path) -> None:
    # a few thousand benchmark-shaped pairs through the whole pipeline (text files, tables)
    paths = write_lengths(tmp_path, *benchmark_lengths(3000, seed=3))
    table, _ = create_vocab_tables(str(paths[2]), str(paths[2]), share_vocab=True)
    ds = get_iterator(TextLineDataset(str(paths[0])), TextLineDataset(str(paths[1])), table,
                      table, sos="<s>", eos="</s>", random_seed=7, **BENCHMARK)
    batches = list(ds)
    plan = ds._plan(0)
    assert len(plan) == len(batches)
    assert plan_efficiency(plan) == pytest.approx(efficiency(batches), abs=1e-12)
    # a few thousand pairs are too few for batches of one length: ~0.87 here; the 0.99 of
    # the benchmark needs its corpus size (next test)
    assert 0.8 < efficiency(batches) < 0.99


@pytest.mark.parametrize("seed", [0, 1])
def test_token_budget_padding_efficiency_on_the_benchmark_corpus(seed: int) -> None:
    # the claim: padding efficiency >= 0.99 with max_tokens=4096 on the benchmark's
    # 1M generated pairs; plans need only token counts, so the claim is checked at full size
    # (lengths drawn as the benchmark draws them) in a fraction of a second
    src_len, tgt_len = benchmark_lengths(1_000_000, seed)
    plan = epoch_plan(NmtOptions(**BENCHMARK), src_len, tgt_len, 87654321, 7, 0)
    assert plan.stats["pairs"] == 1_000_000 and plan.stats["filtered"] > 0
    assert plan_efficiency(plan) >= 0.99
    nmt = epoch_plan(NmtOptions(128, 5, 50, 50), src_len, tgt_len, 87654321, 7, 0)
    assert plan_efficiency(nmt) < 0.9  # nmt's own buckets, for scale (~0.81)


def test_token_budget_needs_max_tokens(files) -> None:
    with pytest.raises(ConfigError, match="max_tokens should be set"):
        build(files, batching="tokens")
    with pytest.raises(ConfigError, match="batching should be one of"):
        build(files, batching="fair")


def test_token_budget_with_max_sentences_and_an_oversize_pair(files, caplog) -> None:
    ds = build(files, batching="tokens", max_tokens=20, max_sentences=3)
    batches = list(ds)
    assert max(len(b.source) for b in batches) <= 3
    assert "longer than max_tokens=20" in caplog.text  # 40-word pairs form batches of their own


def test_sorted_pool(files) -> None:
    ds = build(files, batching="sorted_pool", pool_size=320)
    batches = list(ds)
    assert pairs_of(batches) == pairs_of(build(files))
    assert all(len(b.source) <= 32 for b in batches)
    assert efficiency(batches) > efficiency(build(files))
    for b in batches:  # each batch is a run of a pool sorted by (source, target) length
        assert np.all(np.diff(b.source_sequence_length) >= 0)

    def spread(bs):
        return np.median([int(np.ptp(b.source_sequence_length)) for b in bs])
    assert spread(batches) < spread(build(files))


@pytest.mark.parametrize("policy", ["pad", "drop"])
def test_every_rank_gets_the_same_number_of_batches(files, policy: str) -> None:
    whole = list(build(files))
    ranks = [list(build(files, num_ranks=3, rank=r, rank_policy=policy)) for r in range(3)]
    counts = {len(r) for r in ranks}
    assert len(counts) == 1
    n = counts.pop()
    assert n == (-(-len(whole) // 3) if policy == "pad" else len(whole) // 3)
    dealt = [ranks[g % 3][g // 3] for g in range(3 * n)]
    for g, b in enumerate(dealt):  # batch g of the global plan goes to rank g % 3
        ref = whole[g % len(whole)]
        assert np.array_equal(b.source, ref.source) and np.array_equal(b.target_input,
                                                                     ref.target_input)


def test_ranks_need_a_shared_seed(files) -> None:
    # without random_seed and without a global seed every rank would draw its own shuffle seeds
    # and deal from a different plan (pairs read twice or never): a clear error instead
    with pytest.raises(ConfigError, match="random_seed should be set when num_ranks > 1"):
        build(files, random_seed=None, num_ranks=2, rank=0)
    build(files, random_seed=None)  # one rank: unseeded is fine (random seeds, as TF)


def test_ranks_with_a_global_seed_deal_one_plan(files) -> None:
    # tf.random.set_seed on every rank (separate processes: a fresh op-seed stream each) gives
    # every rank the same seeds: the ranks' batches together are the whole epoch, once each
    src, tgt, vocab = (str(p) for p in files)
    table, _ = create_vocab_tables(vocab, vocab, share_vocab=True)
    parts = []
    for rank in range(2):
        with random_seed_scope(5):
            ds = get_iterator(TextLineDataset(src), TextLineDataset(tgt), table, table, 32,
                              "<s>", "</s>", None, 5, num_ranks=2, rank=rank,
                              rank_policy="drop")
        parts.append(list(ds))
    with random_seed_scope(5):
        whole = list(get_iterator(TextLineDataset(src), TextLineDataset(tgt), table, table, 32,
                                  "<s>", "</s>", None, 5))
    dealt = [parts[g % 2][g // 2] for g in range(2 * len(parts[0]))]
    assert pairs_of(dealt) == pairs_of(whole[:len(dealt)])


def test_ranks_need_line_datasets(files) -> None:
    table, _ = create_vocab_tables(str(files[2]), str(files[2]), share_vocab=True)
    gen = Dataset.from_generator(lambda: iter([b"w1"]))
    with pytest.raises(ConfigError, match="need datasets of lines"):
        get_iterator(gen, gen, table, table, 4, "<s>", "</s>", 1, 1, num_ranks=2)


@pytest.mark.parametrize("seed", range(6))
def test_fast_path_equals_the_tfdata_port(files, seed: int) -> None:
    rng = np.random.default_rng(seed)
    kw = dict(batch_size=int(rng.integers(1, 40)), num_buckets=int(rng.integers(0, 7)),
              src_max_len=[None, 0, 5, 17, 33][int(rng.integers(5))],
              tgt_max_len=[None, 3, 25][int(rng.integers(3))],
              output_buffer_size=[None, 1, 7, 100][int(rng.integers(4))],
              skip_count=[None, 0, 13][int(rng.integers(3))],
              num_shards=int(rng.integers(1, 4)), random_seed=int(rng.integers(100)),
              reshuffle_each_iteration=bool(rng.integers(2)),
              use_char_encode=bool(rng.random() < 0.3))
    kw["shard_index"] = int(rng.integers(kw["num_shards"]))
    src, tgt, vocab = (str(p) for p in files)
    table, _ = create_vocab_tables(vocab, vocab, share_vocab=True)
    lines = [TextLineDataset(src).take(600), TextLineDataset(tgt).take(590)]
    with random_seed_scope(None):
        fast = get_iterator(*lines, table, table, sos="<s>", eos="</s>", **kw)
        port = reference.get_iterator(*lines, table, table, sos="<s>", eos="</s>", **kw)
    assert type(fast).__name__ == "NmtBatchDataset"
    for _ in range(2):
        a, b = list(fast), list(port)
        assert len(a) == len(b)
        for x, y in zip(a, b):
            for u, v in zip(x[1:], y[1:]):
                assert np.array_equal(u, v) and u.dtype == v.dtype == np.int32
