"""nmt input pipeline: sentence pairs/s and padding efficiency per batching policy,
minibatcher.nmt vs a plain-Python implementation, the step-for-step tfdata port, and
a tf.data port of tensorflow/nmt's get_iterator when TensorFlow is installed.

Generates (once, cached under --data-dir) a seeded parallel corpus of --pairs
sentence pairs (default 1,000,000; skewed lengths, Zipf words, 30k-word vocab).
Every measurement is one epoch in a fresh subprocess (opening the files and
building the vocabulary tables included); contenders alternate over --rounds
(medians). The slow contenders (tf.data, the tfdata port) read a prefix of
--slow-pairs pairs (default 256,000: twice nmt's 128,000-pair shuffle buffer, so
the shuffle streams as on the full corpus); every minibatcher policy reads that
prefix too, and the ratios to tf.data are taken on it (the same workload).
"Resume" is a user resuming a job: new vocabulary tables, datasets and iterator,
``set_state`` with a mid-epoch checkpoint, and the first batch.

    python benchmarks/nmt.py             # 1M pairs
    python benchmarks/nmt.py --quick     # 50k pairs, seconds (the prefix fits in the buffer)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import _common as C
import numpy as np

GEN_VERSION = 1
VOCAB_WORDS = 30000
TARGET_PAIRS_S = 50_000
TARGET_TF_RATIO = 10.0
TARGET_EFFICIENCY = 0.99
NMT = dict(batch_size=128, num_buckets=5, src_max_len=50, tgt_max_len=50, random_seed=7)
SHUFFLE_BUFFER = NMT["batch_size"] * 1000  # nmt's output_buffer_size default
DEFAULT_POLICY = "nmt: num_buckets=5, batch 128 (nmt defaults)"
TOKEN_POLICY = "tokens: max_tokens=4096 (fairseq-style)"
PYTHON = "plain Python (same pipeline, nmt defaults)"
POLICIES = {
    DEFAULT_POLICY: dict(NMT),
    "nmt: num_buckets=1, batch 128": dict(NMT, num_buckets=1),
    TOKEN_POLICY: dict(NMT, batching="tokens", max_tokens=4096),
    "sorted_pool: pool 12800, batch 128": dict(NMT, batching="sorted_pool", pool_size=12800),
}

# -- data -------------------------------------------------------------------------------------


def _render(ids: np.ndarray, lengths: np.ndarray, table: np.ndarray, keep: np.ndarray) -> bytes:
    """Lines of words ``table[ids]`` (``ids`` flat, ``lengths`` words per line) joined
    by spaces; rows ``-2``/``-1`` of ``table`` are the space and the newline."""
    items = np.where(lengths > 0, 2 * lengths, 1)
    first = np.concatenate([[0], np.cumsum(items)[:-1]])
    out = np.full(int(items.sum()), len(table) - 2)  # spaces
    line_of = np.repeat(np.arange(len(lengths)), lengths)
    within = np.arange(len(ids)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    out[first[line_of] + 2 * within] = ids
    out[first + items - 1] = len(table) - 1  # the newline ends every line
    return table[out][keep[out]].tobytes()


def pair_lengths(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Words per source and target line: skewed (gamma) source lengths up to 120,
    targets about 1.1x the source (tests/nmt/corpus.py draws them the same way)."""
    src_len = np.clip(rng.gamma(2.2, 10.0, n).astype(np.int64), 0, 120)
    tgt_len = np.clip((src_len * rng.normal(1.1, 0.12, n)).astype(np.int64)
                      + rng.integers(-2, 3, n), 0, 130)
    return src_len, tgt_len


def word_table(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The byte table and keep-mask of ``words`` + space + newline (see ``_render``)."""
    pieces = [w.encode() for w in words] + [b" ", b"\n"]
    width = max(len(w) for w in pieces)
    table = np.zeros((len(pieces), width), np.uint8)
    keep = np.zeros((len(pieces), width), bool)
    for i, w in enumerate(pieces):
        table[i, :len(w)] = np.frombuffer(w, np.uint8)
        keep[i, :len(w)] = True
    return table, keep


def ensure_corpus(data_dir: Path, pairs: int, seed: int) -> tuple[Path, Path, Path]:
    """``(src, tgt, vocab)`` paths, generated once."""
    stem = data_dir / f"nmt_{pairs}_seed{seed}_v{GEN_VERSION}"
    paths = Path(f"{stem}.src"), Path(f"{stem}.tgt"), Path(f"{stem}.vocab")
    if all(p.exists() for p in paths):
        return paths
    data_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(VOCAB_WORDS + 5000)]  # the last 5000 are out of vocabulary
    table, keep = word_table(words)
    zipf = 1.0 / np.arange(1, len(words) + 1) ** 1.1
    zipf /= zipf.sum()
    started = time.perf_counter()
    with open(f"{paths[0]}.tmp", "wb") as fs, open(f"{paths[1]}.tmp", "wb") as ft:
        for start in range(0, pairs, 100_000):
            lengths = pair_lengths(rng, min(100_000, pairs - start))
            for length, f in zip(lengths, (fs, ft)):
                ids = rng.choice(len(words), int(length.sum()), p=zipf)
                f.write(_render(ids, length, table, keep))
    paths[2].write_text("\n".join(["<unk>", "<s>", "</s>"] + words[:VOCAB_WORDS]) + "\n")
    for p in paths[:2]:
        os.replace(f"{p}.tmp", p)
    print(f"# generated {pairs} pairs in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return paths


def ensure_prefix(path: Path, pairs: int) -> Path:
    """The first ``pairs`` lines of ``path`` (cached)."""
    out = path.with_name(f"{path.name}.first{pairs}")
    if not out.exists():
        with open(path, "rb") as f, open(f"{out}.tmp", "wb") as g:
            for _, line in zip(range(pairs), f):
                g.write(line)
        os.replace(f"{out}.tmp", out)
    return out


# -- measurements -----------------------------------------------------------------------------


EOS_ID = 2  # the generated vocabulary starts with <unk> <s> </s>


def epoch_stats(batches: Iterator[Any]) -> dict[str, Any]:
    """Pairs, batches, padding efficiency and a checksum of the real target ids of one
    epoch (cheap: a few reductions per batch, as a training loop's consumer would do)."""
    pairs = n_batches = real = slots = checksum = largest = 0
    for b in batches:
        src, tin, tout, sl, tl = (np.asarray(x) for x in b[-5:])
        n_batches += 1
        pairs += len(sl)
        real_tgt = int(tl.sum())
        real += int(sl.sum()) + real_tgt
        slots += src.size + tin.size
        largest = max(largest, src.size + tin.size)
        checksum += int(tout.sum(dtype=np.int64)) - EOS_ID * (tout.size - real_tgt)  # no padding
    return {"pairs": pairs, "batches": n_batches, "real": real, "slots": slots,
            "checksum": checksum, "largest": largest}


def pipeline(spec: dict[str, Any]) -> Any:
    """A new nmt pipeline: vocabulary tables, TextLineDatasets and the iterator
    dataset (minibatcher's fast path, or the step-for-step tfdata port)."""
    from minibatcher.nmt import create_vocab_tables, get_iterator, reference
    from minibatcher.tfdata import TextLineDataset

    build = reference.get_iterator if spec.get("port") else get_iterator
    table, _ = create_vocab_tables(spec["vocab"], spec["vocab"], share_vocab=True)
    return build(TextLineDataset(spec["src"]), TextLineDataset(spec["tgt"]), table, table,
                 sos="<s>", eos="</s>", **spec["options"])


def prepare_ours(spec: dict[str, Any]) -> Callable[[], dict]:
    """minibatcher.nmt.get_iterator over TextLineDatasets (fast path, or the tfdata port)."""
    import minibatcher._native  # noqa: F401
    import minibatcher.nmt  # noqa: F401

    def work() -> dict:
        started, cpu = time.perf_counter(), time.process_time()
        ds = pipeline(spec)
        out = epoch_stats(iter(ds))
        out["seconds"], out["cpu"] = time.perf_counter() - started, time.process_time() - cpu
        if not spec.get("port"):
            out["resume_ms"], out["resume_exact"] = resume_ms(spec, ds, out["batches"] // 2)
        return out
    return work


def resume_ms(spec: dict[str, Any], dataset: Any, at: int) -> tuple[float, bool]:
    """A user resuming a job: a checkpoint taken after ``at`` batches of the next
    epoch, then (timed) new tables, datasets and iterator, ``set_state`` and the
    first batch. Returns the milliseconds and whether that batch is the one the
    checkpointed iterator reads next."""
    it = iter(dataset)
    for _ in range(at):
        next(it)
    state = json.loads(json.dumps(it.get_state()))
    started = time.perf_counter()
    fresh = iter(pipeline(spec))
    fresh.set_state(state)
    got = next(fresh)
    elapsed = (time.perf_counter() - started) * 1000
    want = next(it)
    return elapsed, all(np.array_equal(a, b) for a, b in zip(got[1:], want[1:]))


def _py_read(spec: dict[str, Any]) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """The vocabulary (word -> line number) and the raw line pairs (zip)."""
    with open(spec["vocab"], encoding="utf-8") as f:
        vocab = {w: i for i, w in enumerate(f.read().split("\n")) if w}
    with open(spec["src"], encoding="utf-8") as f, open(spec["tgt"], encoding="utf-8") as g:
        pairs = list(zip(f.read().split("\n")[:-1], g.read().split("\n")[:-1]))
    return vocab, pairs


def _py_shuffle(pairs: list[tuple[str, str]], rng: random.Random,
                size: int) -> Iterator[tuple[str, str]]:
    """A buffer shuffle of ``size`` elements (as tf.data's, with another generator)."""
    buf: list[tuple[str, str]] = []
    for pair in pairs:
        buf.append(pair)
        if len(buf) >= size:
            j = rng.randrange(len(buf))
            buf[j], buf[-1] = buf[-1], buf[j]
            yield buf.pop()
    rng.shuffle(buf)
    yield from buf


def _py_emit(items: list[tuple[list[int], list[int]]], sos: int, eos: int) -> tuple:
    """One padded batch (eos padding) of (source ids, target ids) pairs."""
    s_len = [len(s) for s, _ in items]
    t_len = [len(t) + 1 for _, t in items]
    src = np.full((len(items), max(s_len)), eos, np.int32)
    tin = np.full((len(items), max(t_len)), eos, np.int32)
    tout = np.full((len(items), max(t_len)), eos, np.int32)
    for i, (s, t) in enumerate(items):
        src[i, :len(s)] = s
        tin[i, :len(t) + 1] = [sos] + t
        tout[i, :len(t) + 1] = t + [eos]
    return src, tin, tout, np.array(s_len, np.int32), np.array(t_len, np.int32)


def _py_batches(spec: dict[str, Any]) -> Iterator[tuple]:
    """The pipeline in plain Python: str.split, dict lookups, per-key windows."""
    o = spec["options"]
    vocab, pairs = _py_read(spec)
    eos, sos, nb, bs = vocab["</s>"], vocab["<s>"], o["num_buckets"], o["batch_size"]
    width = (o["src_max_len"] + nb - 1) // nb
    groups: dict[int, list] = {}
    for src_line, tgt_line in _py_shuffle(pairs, random.Random(o["random_seed"]), bs * 1000):
        s = [vocab.get(w, 0) for w in src_line.split(" ") if w][:o["src_max_len"]]
        t = [vocab.get(w, 0) for w in tgt_line.split(" ") if w]
        if not s or not t:
            continue
        t = t[:o["tgt_max_len"]]
        key = min(nb, max(len(s) // width, (len(t) + 1) // width))
        group = groups.setdefault(key, [])
        group.append((s, t))
        if len(group) == bs:
            yield _py_emit(group, sos, eos)
            del groups[key]
    for key in sorted(groups):
        yield _py_emit(groups[key], sos, eos)


def prepare_python(spec: dict[str, Any]) -> Callable[[], dict]:
    """A plain-Python implementation of the same pipeline (str.split, dicts, a buffer
    shuffle with random.Random, per-key windows, NumPy padding)."""

    def work() -> dict:
        started, cpu = time.perf_counter(), time.process_time()
        out = epoch_stats(_py_batches(spec))
        out["seconds"], out["cpu"] = time.perf_counter() - started, time.process_time() - cpu
        return out
    return work


def _tf_pairs(tf: Any, spec: dict[str, Any], table: Any, sos: Any, eos: Any) -> Any:
    """nmt's get_iterator up to the lengths (iterator_utils.py, TF2 spelling):
    zip, shard, shuffle, split on ' ', filter, truncate, lookup, sos/eos, sizes."""
    o, n = spec["options"], 4  # num_parallel_calls
    buf = o.get("output_buffer_size") or o["batch_size"] * 1000
    ds = tf.data.Dataset.zip((tf.data.TextLineDataset(spec["src"]),
                              tf.data.TextLineDataset(spec["tgt"]))).shard(1, 0)
    ds = ds.shuffle(buf, o["random_seed"], True)

    def split(line: Any) -> Any:
        return tf.compat.v1.string_split([line], sep=" ").values
    ds = ds.map(lambda s, t: (split(s), split(t)), num_parallel_calls=n).prefetch(buf)
    ds = ds.filter(lambda s, t: tf.logical_and(tf.size(s) > 0, tf.size(t) > 0))
    if o.get("src_max_len"):
        ds = ds.map(lambda s, t: (s[:o["src_max_len"]], t), num_parallel_calls=n).prefetch(buf)
    if o.get("tgt_max_len"):
        ds = ds.map(lambda s, t: (s, t[:o["tgt_max_len"]]), num_parallel_calls=n).prefetch(buf)
    ds = ds.map(lambda s, t: (tf.cast(table.lookup(s), tf.int32),
                              tf.cast(table.lookup(t), tf.int32)),
                num_parallel_calls=n).prefetch(buf)
    ds = ds.map(lambda s, t: (s, tf.concat(([sos], t), 0), tf.concat((t, [eos]), 0)),
                num_parallel_calls=n).prefetch(buf)
    return ds.map(lambda s, ti, to: (s, ti, to, tf.size(s), tf.size(ti)),
                  num_parallel_calls=n).prefetch(buf)


def _tf_batches(tf: Any, ds: Any, o: dict[str, Any], eos: Any) -> Any:
    """nmt's batching: group_by_window over num_buckets + 1 keys (or one padded_batch)."""
    bs, nb = o["batch_size"], o["num_buckets"]

    def batching(x: Any) -> Any:
        return x.padded_batch(bs, padded_shapes=([None], [None], [None], [], []),
                              padding_values=(eos, eos, eos, 0, 0))
    if nb <= 1:
        return batching(ds)
    width = (o["src_max_len"] + nb - 1) // nb if o.get("src_max_len") else 10

    def key(s: Any, ti: Any, to: Any, sl: Any, tl: Any) -> Any:
        return tf.cast(tf.minimum(nb, tf.maximum(sl // width, tl // width)), tf.int64)
    return ds.group_by_window(key_func=key, reduce_func=lambda k, w: batching(w),
                              window_size=bs)


def prepare_tf(spec: dict[str, Any]) -> Callable[[], dict]:
    """tensorflow/nmt's get_iterator re-expressed in TF2 (TextLineDataset, a
    StaticHashTable over the vocabulary file, string_split, group_by_window)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    def work() -> dict:
        started, cpu = time.perf_counter(), time.process_time()
        init = tf.lookup.TextFileInitializer(spec["vocab"], tf.string,
                                             tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                             tf.lookup.TextFileIndex.LINE_NUMBER)
        table = tf.lookup.StaticHashTable(init, 0)
        eos = tf.cast(table.lookup(tf.constant("</s>")), tf.int32)
        sos = tf.cast(table.lookup(tf.constant("<s>")), tf.int32)
        ds = _tf_batches(tf, _tf_pairs(tf, spec, table, sos, eos), spec["options"], eos)
        out = epoch_stats(tuple(x.numpy() for x in b) for b in ds)
        out["seconds"], out["cpu"] = time.perf_counter() - started, time.process_time() - cpu
        return out
    return work


def prepare_empty(spec: dict[str, Any]) -> Callable[[], dict]:
    """Baseline interpreter (numpy + minibatcher imported)."""
    import minibatcher.nmt  # noqa: F401
    return lambda: {}


CONTENDERS = {"ours": prepare_ours, "python": prepare_python, "tf": prepare_tf,
              "empty": prepare_empty}


# -- driver -----------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = C.common_parser(__doc__, 0, "the corpus")
    p.add_argument("--pairs", type=int, default=None, help="sentence pairs (default 1,000,000; "
                   "quick 50,000)")
    p.add_argument("--slow-pairs", type=int, default=None, help="prefix read by every contender "
                   "of the tf.data comparison (default 256,000, twice the shuffle buffer; quick "
                   "10,000)")
    args = C.finish_common(p.parse_args(argv), 0)
    args.pairs = args.pairs or (50_000 if args.quick else 1_000_000)
    args.slow_pairs = min(args.pairs,
                          args.slow_pairs or (10_000 if args.quick else 2 * SHUFFLE_BUFFER))
    return args


def have_tensorflow() -> str | None:
    """TensorFlow's version when importable (in a subprocess: importing it is slow)."""
    import subprocess
    proc = subprocess.run([sys.executable, "-c", "import os; os.environ['TF_CPP_MIN_LOG_LEVEL']"
                           "='3'; import tensorflow as tf; print(tf.__version__)"],
                          capture_output=True, text=True)
    return proc.stdout.strip().splitlines()[-1] if proc.returncode == 0 and proc.stdout else None


Key = tuple[str, str]  # (workload "full" or "prefix", contender label)


def specs_of(files: tuple[Path, ...], prefix: tuple[Path, ...],
             tf_version: str | None) -> dict[Key, dict]:
    """Every contender's spec: each policy of ours and plain Python on the full corpus;
    each policy of ours, the tfdata port and tf.data on the prefix (the same workload)."""
    full = {"src": str(files[0]), "tgt": str(files[1]), "vocab": str(files[2])}
    short = {"src": str(prefix[0]), "tgt": str(prefix[1]), "vocab": str(files[2])}
    specs: dict[Key, dict] = {}
    for workload, paths in (("full", full), ("prefix", short)):
        for name, o in POLICIES.items():
            specs[workload, f"minibatcher {name}"] = {"contender": "ours", **paths, "options": o}
    specs["full", PYTHON] = {"contender": "python", **full, "options": NMT}
    specs["prefix", "minibatcher tfdata port (nmt defaults)"] = {
        "contender": "ours", "port": True, **short, "options": NMT}
    if tf_version:
        specs["prefix", f"tf.data {tf_version} port of nmt (nmt defaults)"] = {
            "contender": "tf", **short, "options": NMT}
    return specs


def _rates(results: dict[Key, list[dict]]) -> tuple[dict[Key, float], dict[Key, float]]:
    """Median pairs per wall-clock second and per CPU second of each contender."""
    rate = {k: C.median([r["pairs"] / r["seconds"] for r in runs]) for k, runs in results.items()}
    cpu = {k: C.median([r["pairs"] / r["cpu"] for r in runs]) for k, runs in results.items()}
    return rate, cpu


def _shape_cells(r: dict[str, Any]) -> list[Any]:
    """Padding efficiency, batches, pairs per batch and worst/average batch slots."""
    batches = max(r["batches"], 1)
    return [f"{r['real'] / max(r['slots'], 1):.3f}", r["batches"], f"{r['pairs'] / batches:.1f}",
            f"{r['largest'] / max(r['slots'] / batches, 1):.1f}"]


def print_full_table(results: dict[Key, list[dict]], rate: dict[Key, float],
                     cpu: dict[Key, float]) -> None:
    """The full-corpus table: every policy of ours and the plain-Python pipeline."""
    rows = []
    for key, runs in results.items():
        if key[0] != "full":
            continue
        resume = C.median([r["resume_ms"] for r in runs]) if "resume_ms" in runs[0] else None
        rows.append([key[1], f"{rate[key]:,.0f}", f"{cpu[key]:,.0f}", *_shape_cells(runs[0]),
                     "" if resume is None else f"{resume:,.0f} ms",
                     C.mib(max(x["peak_rss"] for x in runs))])
    C.print_table(["contender", "pairs/s", "pairs/CPU-s", "padding eff.", "batches",
                   "pairs/batch", "worst/avg", "resume (fresh pipeline)", "peak RSS"], rows)


def print_prefix_table(args: argparse.Namespace, results: dict[Key, list[dict]],
                       rate: dict[Key, float], cpu: dict[Key, float], tf_key: Key | None) -> None:
    """The same-workload table: every contender on the prefix, with ratios to tf.data."""
    inside = args.slow_pairs <= SHUFFLE_BUFFER
    where = "WITHIN" if inside else "larger than"
    rows = []
    for key, runs in results.items():
        if key[0] != "prefix":
            continue
        ratios = [f"{rate[key] / rate[tf_key]:.1f}x", f"{cpu[key] / cpu[tf_key]:.1f}x"] \
            if tf_key else ["not measured"] * 2
        rows.append([key[1], f"{rate[key]:,.0f}", f"{cpu[key]:,.0f}", *ratios,
                     *_shape_cells(runs[0])[:2], C.mib(max(x["peak_rss"] for x in runs))])
    C.print_table(["contender", "pairs/s", "pairs/CPU-s", "vs tf.data (pairs/s)",
                   "vs tf.data (CPU)", "padding eff.", "batches", "peak RSS"], rows,
                  f"Same workload as tf.data: the first {args.slow_pairs:,} pairs ({where} the "
                  f"{SHUFFLE_BUFFER:,}-pair shuffle buffer)")


def target_rows(args: argparse.Namespace, results: dict[Key, list[dict]],
                rate: dict[Key, float], tf_key: Key | None) -> list[list[Any]]:
    """The targets of issue 9 (nmt defaults: >= 50k pairs/s and >= 10x tf.data; token
    budget: padding efficiency >= 0.99) and informational ratios."""
    ours = rate["full", f"minibatcher {DEFAULT_POLICY}"]
    tokens = results["full", f"minibatcher {TOKEN_POLICY}"][0]
    efficiency = tokens["real"] / max(tokens["slots"], 1)
    rows = [["target: nmt defaults, pairs/s (full corpus)", f"{ours:,.0f}",
             f">= {TARGET_PAIRS_S:,}", C.verdict(ours, TARGET_PAIRS_S)]]
    if tf_key:
        ratio = rate["prefix", f"minibatcher {DEFAULT_POLICY}"] / rate[tf_key]
        note = " (prefix within the shuffle buffer)" if args.slow_pairs <= SHUFFLE_BUFFER else ""
        rows.append([f"target: nmt defaults vs tf.data (first {args.slow_pairs:,} pairs)",
                     f"{ratio:.1f}x", f">= {TARGET_TF_RATIO:g}x",
                     C.verdict(ratio, TARGET_TF_RATIO) + note])
    else:
        rows.append(["target: nmt defaults vs tf.data", "not measured", f">= {TARGET_TF_RATIO:g}x",
                     "not measured: TensorFlow is not installed"])
    rows.append(["target: token budget padding efficiency", f"{efficiency:.4f}",
                 f">= {TARGET_EFFICIENCY}", C.verdict(efficiency, TARGET_EFFICIENCY)
                 if args.pairs >= 1_000_000 else "n/a: the target is for the 1M-pair corpus"])
    rows.append(["nmt defaults vs plain Python (full corpus)",
                 f"{ours / rate['full', PYTHON]:.1f}x", "(none)", ""])
    return rows


def check_rows(results: dict[Key, list[dict]]) -> list[list[Any]]:
    """Consistency checks: exact resume, and the same pairs in every contender of a workload."""
    exact = [r.get("resume_exact") for runs in results.values() for r in runs]
    rows = [["resume on a fresh pipeline reads the checkpointed next batch",
             "yes" if all(e for e in exact if e is not None) else "NO", "", ""]]
    for workload in ("full", "prefix"):
        sums = {k[1]: runs[0]["checksum"] for k, runs in results.items() if k[0] == workload}
        rows.append([f"same pairs in every {workload} contender (sum of target ids)",
                     "yes" if len(set(sums.values())) == 1 else f"NO: {sums}", "", ""])
    return rows


def report(args: argparse.Namespace, results: dict[Key, list[dict]]) -> None:
    """Prints both tables, the targets and the checks."""
    rate, cpu = _rates(results)
    tf_key = next((k for k in results if k[1].startswith("tf.data")), None)
    print(f"\nnmt input pipeline: {args.pairs:,} generated sentence pairs, one epoch per fresh "
          f"subprocess (files + vocabulary tables included), {args.rounds} alternating rounds "
          f"(medians), {os.cpu_count()} CPUs, {C.code_version()}")
    print("pairs/CPU-s = pairs per second of CPU time of the process (all its threads; less "
          "sensitive to a shared machine)\npadding efficiency = real tokens / padded slots, "
          "slots = B x (max source + max target_input); worst/avg = largest batch's slots over "
          "the average\nresume = new tables, datasets and iterator, set_state (mid-epoch "
          "checkpoint) and the first batch, as a resumed job does")
    print_full_table(results, rate, cpu)
    print_prefix_table(args, results, rate, cpu, tf_key)
    C.print_table(["check", "value", "target", "status"],
                  target_rows(args, results, rate, tf_key) + check_rows(results), "Targets")


def main(argv: list[str] | None = None) -> None:
    """Entry point (also the child entry point with --child)."""
    args = parse_args(argv)
    if args.child:
        C.child_main(json.loads(args.child), CONTENDERS)
        return
    files = ensure_corpus(args.data_dir, args.pairs, args.seed)
    prefix = (ensure_prefix(files[0], args.slow_pairs), ensure_prefix(files[1], args.slow_pairs))
    C.warm_page_cache(*files, *prefix)
    tf_version = have_tensorflow()
    load = C.LoadMonitor()
    specs = specs_of(files, prefix, tf_version)
    results: dict[Key, list[dict]] = {key: [] for key in specs}
    for _ in C.rounds_of(args.rounds):
        for key, spec in specs.items():
            results[key].append(C.run_child(__file__, spec))
    report(args, results)
    if not tf_version:
        print("\nNote: TensorFlow is not installed, so the tf.data contender is not measured "
              "(pip install tensorflow-cpu to add it).")
    print(f"\n{load.describe()}")


if __name__ == "__main__":
    sys.exit(main())
