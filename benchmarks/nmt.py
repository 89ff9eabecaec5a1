"""nmt input pipeline: sentence pairs/s and padding efficiency per batching policy,
minibatcher.nmt vs a plain-Python implementation, the step-for-step tfdata port, and
a tf.data port of tensorflow/nmt's get_iterator when TensorFlow is installed.

Generates (once, cached under --data-dir) a seeded parallel corpus of --pairs
sentence pairs (default 1,000,000; skewed lengths, Zipf words, 30k-word vocab).
Every measurement is one epoch in a fresh subprocess (opening the files and
building the vocabulary tables included); contenders alternate over --rounds
(medians). Slow contenders read a prefix of --slow-pairs pairs.

    python benchmarks/nmt.py             # 1M pairs
    python benchmarks/nmt.py --quick     # 50k pairs, seconds
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
POLICIES = {
    "nmt: num_buckets=5, batch 128 (nmt defaults)": dict(NMT),
    "nmt: num_buckets=1, batch 128": dict(NMT, num_buckets=1),
    "tokens: max_tokens=4096 (fairseq-style)": dict(NMT, batching="tokens", max_tokens=4096),
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


def ensure_corpus(data_dir: Path, pairs: int, seed: int) -> tuple[Path, Path, Path]:
    """``(src, tgt, vocab)`` paths, generated once."""
    stem = data_dir / f"nmt_{pairs}_seed{seed}_v{GEN_VERSION}"
    paths = Path(f"{stem}.src"), Path(f"{stem}.tgt"), Path(f"{stem}.vocab")
    if all(p.exists() for p in paths):
        return paths
    data_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(VOCAB_WORDS + 5000)]  # the last 5000 are out of vocabulary
    pieces = [w.encode() for w in words] + [b" ", b"\n"]
    width = max(len(w) for w in pieces)
    table = np.zeros((len(pieces), width), np.uint8)
    keep = np.zeros((len(pieces), width), bool)
    for i, w in enumerate(pieces):
        table[i, :len(w)] = np.frombuffer(w, np.uint8)
        keep[i, :len(w)] = True
    zipf = 1.0 / np.arange(1, len(words) + 1) ** 1.1
    zipf /= zipf.sum()
    started = time.perf_counter()
    with open(f"{paths[0]}.tmp", "wb") as fs, open(f"{paths[1]}.tmp", "wb") as ft:
        for start in range(0, pairs, 100_000):
            n = min(100_000, pairs - start)
            src_len = np.clip(rng.gamma(2.2, 10.0, n).astype(np.int64), 0, 120)
            tgt_len = np.clip((src_len * rng.normal(1.1, 0.12, n)).astype(np.int64)
                              + rng.integers(-2, 3, n), 0, 130)
            for length, f in ((src_len, fs), (tgt_len, ft)):
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


def prepare_ours(spec: dict[str, Any]) -> Callable[[], dict]:
    """minibatcher.nmt.get_iterator over TextLineDatasets (fast path, or the tfdata port)."""
    import minibatcher._native  # noqa: F401

    from minibatcher.nmt import create_vocab_tables, get_iterator, reference
    from minibatcher.tfdata import TextLineDataset

    build = reference.get_iterator if spec.get("port") else get_iterator

    def work() -> dict:
        started, cpu = time.perf_counter(), time.process_time()
        table, _ = create_vocab_tables(spec["vocab"], spec["vocab"], share_vocab=True)
        ds = build(TextLineDataset(spec["src"]), TextLineDataset(spec["tgt"]), table, table,
                   sos="<s>", eos="</s>", **spec["options"])
        out = epoch_stats(iter(ds))
        out["seconds"], out["cpu"] = time.perf_counter() - started, time.process_time() - cpu
        if not spec.get("port"):
            out["restore_ms"] = restore_ms(ds, out["batches"] // 2)
        return out
    return work


def restore_ms(dataset: Any, at: int) -> float:
    """Time to restore a checkpoint taken after ``at`` batches and read one batch."""
    it = iter(dataset)
    for _ in range(at):
        next(it)
    state = json.loads(json.dumps(it.get_state()))
    started = time.perf_counter()
    fresh = iter(dataset)
    fresh.set_state(state)
    next(fresh)
    return (time.perf_counter() - started) * 1000


def prepare_python(spec: dict[str, Any]) -> Callable[[], dict]:
    """A plain-Python implementation of the same pipeline (str.split, dicts, a buffer
    shuffle with random.Random, per-key windows, NumPy padding)."""
    o = spec["options"]

    def batches() -> Iterator[tuple]:
        with open(spec["vocab"], encoding="utf-8") as f:
            vocab = {w: i for i, w in enumerate(f.read().split("\n")) if w}
        with open(spec["src"], encoding="utf-8") as f, open(spec["tgt"], encoding="utf-8") as g:
            pairs = list(zip(f.read().split("\n")[:-1], g.read().split("\n")[:-1]))
        rng, size, width = random.Random(o["random_seed"]), o["batch_size"] * 1000, 10
        buf, groups, eos, sos = [], {}, vocab["</s>"], vocab["<s>"]
        width = (o["src_max_len"] + o["num_buckets"] - 1) // o["num_buckets"]

        def emit(items):
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

        def stream():
            for pair in pairs:
                buf.append(pair)
                if len(buf) >= size:
                    j = rng.randrange(len(buf))
                    buf[j], buf[-1] = buf[-1], buf[j]
                    yield buf.pop()
            rng.shuffle(buf)
            yield from buf
        for src_line, tgt_line in stream():
            s = [vocab.get(w, 0) for w in src_line.split(" ") if w][:o["src_max_len"]]
            t = [vocab.get(w, 0) for w in tgt_line.split(" ") if w]
            if not s or not t:
                continue
            t = t[:o["tgt_max_len"]]
            key = min(o["num_buckets"], max(len(s) // width, (len(t) + 1) // width))
            group = groups.setdefault(key, [])
            group.append((s, t))
            if len(group) == o["batch_size"]:
                yield emit(group)
                del groups[key]
        for key in sorted(groups):
            yield emit(groups[key])

    def work() -> dict:
        started, cpu = time.perf_counter(), time.process_time()
        out = epoch_stats(batches())
        out["seconds"], out["cpu"] = time.perf_counter() - started, time.process_time() - cpu
        return out
    return work


def prepare_tf(spec: dict[str, Any]) -> Callable[[], dict]:
    """tensorflow/nmt's get_iterator re-expressed in TF2 (TextLineDataset, a
    StaticHashTable over the vocabulary file, string_split, group_by_window)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    o = spec["options"]

    def work() -> dict:
        started, cpu = time.perf_counter(), time.process_time()
        init = tf.lookup.TextFileInitializer(spec["vocab"], tf.string,
                                             tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                             tf.lookup.TextFileIndex.LINE_NUMBER)
        table = tf.lookup.StaticHashTable(init, 0)
        eos = tf.cast(table.lookup(tf.constant("</s>")), tf.int32)
        sos = tf.cast(table.lookup(tf.constant("<s>")), tf.int32)
        buf, bs, nb = o["batch_size"] * 1000, o["batch_size"], o["num_buckets"]
        ds = tf.data.Dataset.zip((tf.data.TextLineDataset(spec["src"]),
                                  tf.data.TextLineDataset(spec["tgt"])))
        ds = ds.shuffle(buf, o["random_seed"], True)
        def split(s):  # noqa: ANN001, ANN202
            return tf.compat.v1.string_split([s], sep=" ").values
        ds = ds.map(lambda s, t: (split(s), split(t)), num_parallel_calls=4).prefetch(buf)
        ds = ds.filter(lambda s, t: tf.logical_and(tf.size(s) > 0, tf.size(t) > 0))
        ds = ds.map(lambda s, t: (s[:o["src_max_len"]], t), num_parallel_calls=4).prefetch(buf)
        ds = ds.map(lambda s, t: (s, t[:o["tgt_max_len"]]), num_parallel_calls=4).prefetch(buf)
        ds = ds.map(lambda s, t: (tf.cast(table.lookup(s), tf.int32),
                                  tf.cast(table.lookup(t), tf.int32)),
                    num_parallel_calls=4).prefetch(buf)
        ds = ds.map(lambda s, t: (s, tf.concat(([sos], t), 0), tf.concat((t, [eos]), 0)),
                    num_parallel_calls=4).prefetch(buf)
        ds = ds.map(lambda s, ti, to: (s, ti, to, tf.size(s), tf.size(ti)),
                    num_parallel_calls=4).prefetch(buf)
        width = (o["src_max_len"] + nb - 1) // nb

        def key(s, ti, to, sl, tl):
            return tf.cast(tf.minimum(nb, tf.maximum(sl // width, tl // width)), tf.int64)

        def batching(x):
            return x.padded_batch(bs, padded_shapes=([None], [None], [None], [], []),
                                  padding_values=(eos, eos, eos, 0, 0))
        ds = ds.group_by_window(key_func=key, reduce_func=lambda k, w: batching(w),
                                window_size=bs)
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
    p.add_argument("--slow-pairs", type=int, default=None, help="prefix read by the slow "
                   "contenders (default 100,000; quick 10,000)")
    args = C.finish_common(p.parse_args(argv), 0)
    args.pairs = args.pairs or (50_000 if args.quick else 1_000_000)
    args.slow_pairs = min(args.pairs, args.slow_pairs or (10_000 if args.quick else 100_000))
    return args


def have_tensorflow() -> str | None:
    """TensorFlow's version when importable (in a subprocess: importing it is slow)."""
    import subprocess
    proc = subprocess.run([sys.executable, "-c", "import os; os.environ['TF_CPP_MIN_LOG_LEVEL']"
                           "='3'; import tensorflow as tf; print(tf.__version__)"],
                          capture_output=True, text=True)
    return proc.stdout.strip().splitlines()[-1] if proc.returncode == 0 and proc.stdout else None


def specs_of(args: argparse.Namespace, files: tuple[Path, ...], prefix: tuple[Path, ...],
             tf_version: str | None) -> dict[str, dict]:
    """Every contender's spec (name -> spec)."""
    full = {"src": str(files[0]), "tgt": str(files[1]), "vocab": str(files[2])}
    short = {"src": str(prefix[0]), "tgt": str(prefix[1]), "vocab": str(files[2])}
    specs = {f"minibatcher {name}": {"contender": "ours", **full, "options": o}
             for name, o in POLICIES.items()}
    specs["plain Python (same pipeline, nmt defaults)"] = {"contender": "python", **full,
                                                            "options": NMT}
    specs[f"minibatcher tfdata port, first {args.slow_pairs} pairs"] = {
        "contender": "ours", "port": True, **short, "options": NMT}
    if tf_version:
        specs[f"tf.data {tf_version} port of nmt, first {args.slow_pairs} pairs"] = {
            "contender": "tf", **short, "options": NMT}
    return specs


def report(args: argparse.Namespace, results: dict[str, list[dict]],
           tf_version: str | None) -> None:
    """Prints the table and the targets."""
    rate = {n: C.median([r["pairs"] / r["seconds"] for r in runs]) for n, runs in results.items()}
    cpu = {n: C.median([r["pairs"] / r["cpu"] for r in runs]) for n, runs in results.items()}
    rows = []
    for name, runs in results.items():
        r = runs[0]
        rows.append([name, f"{rate[name]:,.0f}", f"{cpu[name]:,.0f}",
                     f"{r['real'] / max(r['slots'], 1):.3f}",
                     r["batches"], f"{r['pairs'] / max(r['batches'], 1):.1f}",
                     f"{r['largest'] / (r['slots'] / max(r['batches'], 1)):.1f}",
                     f"{r['restore_ms']:.0f} ms" if "restore_ms" in r else "",
                     C.mib(max(x["peak_rss"] for x in runs))])
    print(f"\nnmt input pipeline: {args.pairs:,} generated sentence pairs, one epoch per fresh "
          f"subprocess (files + vocabulary tables included), {args.rounds} alternating rounds "
          f"(medians), {os.cpu_count()} CPUs, {C.code_version()}")
    print("pairs/CPU-s = pairs per second of CPU time of the process (all its threads; less "
          "sensitive to a shared machine)\npadding efficiency = real tokens / padded slots, "
          "slots = B x (max source + max target_input); worst/avg = largest batch's slots over "
          "the average")
    C.print_table(["contender", "pairs/s", "pairs/CPU-s", "padding eff.", "batches", "pairs/batch",
                   "worst/avg", "restore mid-epoch", "peak RSS"], rows)
    ours = rate[f"minibatcher {next(iter(POLICIES))}"]
    tokens = next(r[0] for n, r in results.items() if "tokens" in n)
    python = rate["plain Python (same pipeline, nmt defaults)"]
    checks = [["minibatcher nmt defaults, pairs/s", f"{ours:,.0f}", f">= {TARGET_PAIRS_S:,}",
               C.verdict(ours, TARGET_PAIRS_S)],
              ["token budget padding efficiency", f"{tokens['real'] / tokens['slots']:.4f}",
               f">= {TARGET_EFFICIENCY}", C.verdict(tokens["real"] / tokens["slots"],
                                                    TARGET_EFFICIENCY)
               if args.pairs >= 1_000_000 else "n/a: the target is for >= 1M pairs"],
              ["speedup vs plain Python", f"{ours / python:.1f}x", "(none)", ""]]
    tf_name = next((n for n in results if n.startswith("tf.data")), None)
    if tf_name:
        ratio = ours / rate[tf_name]
        checks.append(["speedup vs tf.data", f"{ratio:.1f}x", f">= {TARGET_TF_RATIO:g}x",
                       C.verdict(ratio, TARGET_TF_RATIO)])
    else:
        checks.append(["speedup vs tf.data", "n/a", f">= {TARGET_TF_RATIO:g}x",
                       "skipped: TensorFlow is not installed"])
    sums = {n: r[0]["checksum"] for n, r in results.items()
            if "port" not in n and "first" not in n}
    checks.append(["same pairs in every full-corpus contender (sum of target ids)",
                   "yes" if len(set(sums.values())) == 1 else f"NO: {sums}", "", ""])
    C.print_table(["check", "value", "target", "status"], checks, "Targets")


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
    specs = specs_of(args, files, prefix, tf_version)
    results: dict[str, list[dict]] = {name: [] for name in specs}
    for _ in C.rounds_of(args.rounds):
        for name, spec in specs.items():
            results[name].append(C.run_child(__file__, spec))
    report(args, results, tf_version)
    if not tf_version:
        print("\nNote: TensorFlow is not installed, so the tf.data column is skipped "
              "(pip install tensorflow-cpu to add it).")
    print(f"\n{load.describe()}")


if __name__ == "__main__":
    sys.exit(main())
