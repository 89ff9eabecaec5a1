"""End-to-end reading: MinibatchSource over CTF against parsing alone, pandas,
scikit-learn and a PyTorch DataLoader; in-memory delivery; planning of
frame-mode data; peak RSS with a bounded randomization window.

Generates (once, cached under --data-dir) a seeded MNIST-like CTF file (~1 GB)
and sparse ones (~20 MB and ~200 MB, dim 1,000,000) with their plain twins (the
generators of ctf_parse.py). Every run is a fresh subprocess; throughput
contenders alternate over --rounds (medians). The targets are ratios measured
side by side in the same run (the machine may be shared). Units: 1 MB = 10**6 bytes.

    python benchmarks/engine.py              # ~1 GB + ~20 MB and ~200 MB sparse
    python benchmarks/engine.py --quick      # ~20 MB each, 4 MiB chunks, about a minute
    python benchmarks/engine.py --corpus-planning 1000,1800000   # frame-mode planning only
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from typing import Any

import _common as C
import _planning
from _engine_contenders import CONTENDERS, MB_SIZE

CONTENDERS = {**CONTENDERS, "corpus_planning": _planning.prepare_planning}

DIM = 784 + 10
TARGETS = {"ratio": 0.8, "sparse": 10.0, "memory": 1_000_000, "pandas": 2.0, "planning": 0.1}
WINDOW_FRACTION = 10
RSS_FACTOR = 1.5
FRAMES, FRAMES_PER_CHUNK = 300_000, 3_000


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (--quick: ~20 MB files, 4 MiB chunks, 2 rounds)."""
    p = C.common_parser(__doc__, 1000, "the MNIST-like CTF file")
    p.add_argument("--sparse-sizes-mb", default=None, metavar="MB,MB,...",
                   help="sizes of the sparse CTF files, one set of rows each (MB; default "
                   "20,200, quick 20)")
    p.add_argument("--chunk-size", type=int, default=None,
                   help="chunk_size_in_bytes (default 32 MiB, quick 4 MiB)")
    p.add_argument("--no-memory-table", action="store_true",
                   help="skip the bounded-window peak RSS runs")
    p.add_argument("--corpus-planning", default="", metavar="N,N,...",
                   help="only the frame-mode planning rows of synthetic SCP corpora of N "
                   "utterances (e.g. 1000,10000,100000,1000000,1800000: 10,000 hours)")
    args = C.finish_common(p.parse_args(argv), 1000)
    args.sparse_sizes_mb = [float(v) for v in (args.sparse_sizes_mb
                                               or ("20" if args.quick else "20,200")).split(",")]
    args.chunk_size = args.chunk_size or ((4 if args.quick else 32) << 20)
    return args


def make_specs(args: argparse.Namespace) -> dict[str, dict]:
    """Every throughput contender's run (files generated on first use)."""
    mnist, mnist_plain = C.ensure_data(args.data_dir, "mnist", args.size_mb, args.seed)
    sparse = {mb: C.ensure_data(args.data_dir, "sparse", mb, args.seed) for mb in args.sparse_sizes_mb}
    C.warm_page_cache(mnist, mnist_plain, *(p for pair in sparse.values() for p in pair))
    m = {"path": str(mnist), "kind": "mnist", "chunk_size": args.chunk_size}
    specs = {"parse": {**m, "contender": "parse"},
             "ours": {**m, "contender": "ours", "options": {}},
             "ours_frames": {**m, "contender": "ours", "options": {"frame_mode": True}},
             "pandas": {"contender": "pandas", "path": str(mnist_plain)},
             "memory": {**m, "contender": "memory"},
             "memory_small": {**m, "contender": "memory",
                              "path": str(C.ensure_prefix(mnist, args.size_mb / 5))},
             "planning": {"contender": "planning", "frames": FRAMES,
                          "per_chunk": FRAMES_PER_CHUNK}}
    for mb, (path, plain) in sparse.items():
        s = {"path": str(path), "kind": "sparse", "chunk_size": args.chunk_size}
        specs[f"sparse_parse@{mb:g}"] = {**s, "contender": "parse"}
        specs[f"sparse_ours@{mb:g}"] = {**s, "contender": "ours", "options": {}}
        specs[f"sklearn@{mb:g}"] = {"contender": "sklearn", "path": str(plain)}
    if importlib.util.find_spec("torch") is not None:
        specs["torch"] = {**m, "contender": "torch"}
    return specs


def measure(specs: dict[str, dict], rounds: int) -> dict[str, list[dict]]:
    """Runs every throughput contender once per round, alternating."""
    results: dict[str, list[dict]] = {name: [] for name in specs}
    for _ in C.rounds_of(rounds):
        for name, spec in specs.items():
            results[name].append(C.run_child(__file__, spec))
    return results


def med(runs: list[dict], key: Any) -> float:
    """Median over rounds of a field, or of a function of the run."""
    return C.median([key(r) if callable(key) else r[key] for r in runs])


def rate(runs: list[dict]) -> float:
    """Median samples/s."""
    return med(runs, lambda r: r["samples"] / r["seconds"])


def row(metric: str, value: str, target: float | None = None, measured: float | None = None,
        shown: str = "") -> list:
    """A table row; with a target, the status (PASS when ``measured >= target``, or when
    ``measured <= target`` for a target shown as ``< ...``)."""
    if target is None:
        return [metric, value, shown, ""]
    upper = shown.startswith("<")
    return [metric, value, shown, C.verdict(-measured, -target) if upper else C.verdict(measured, target)]


def end_to_end_rows(res: dict[str, list[dict]], sizes: dict[str, int]) -> list[list]:
    """End to end vs parse-only and vs pandas (MNIST-like, dense)."""
    mb = sizes["mnist"] / C.MB
    parse_mbs = med(res["parse"], lambda r: mb / r["seconds"])
    ours_mbs = med(res["ours"], lambda r: mb / r["seconds"])
    ratio = med([{"p": p, "o": o} for p, o in zip(res["parse"], res["ours"])],
                lambda r: r["p"]["seconds"] / r["o"]["seconds"])
    pandas = rate(res["ours"]) / rate(res["pandas"])
    return [
        row("parse only: index, then every chunk on a thread per CPU; MB/s (index excluded)",
            f"{parse_mbs:.0f} MB/s"),
        row("  index build (median s)", f"{med(res['parse'], 'index_s'):.2f} s"),
        row("ours end to end: MinibatchSource (index + parse + randomize + gather + sum), MB/s",
            f"{ours_mbs:.0f} MB/s ({rate(res['ours']):,.0f} samples/s)"),
        row("end to end / parse only (MB/s ratio, per round)", f"{ratio:.2f}",
            TARGETS["ratio"], ratio, f">= {TARGETS['ratio']:g}"),
        row("  diagnostic: ours with frame_mode=True, samples/s", f"{rate(res['ours_frames']):,.0f}"),
        row("pandas: read_csv whole file + 256-row slices, samples/s", f"{rate(res['pandas']):,.0f}"),
        row("dense end to end vs pandas", f"{pandas:.2f}x", TARGETS["pandas"], pandas,
            f">= {TARGETS['pandas']:g}x"),
    ]


def memory_delivery_rows(res: dict[str, list[dict]]) -> list[list]:
    """In-memory delivery (second sweep of keep_data_in_memory=True) vs torch."""
    ours = rate(res["memory"])
    rows = [
        row("ours in memory: keep_data_in_memory=True, 2nd sweep, delivery only, samples/s",
            f"{ours:,.0f}", TARGETS["memory"], ours, f">= {TARGETS['memory']:,}"),
        row("  diagnostic: the same from the median minibatch time (robust to preemption)",
            f"{med(res['memory'], lambda r: MB_SIZE / r['median_mb_s']):,.0f}"),
        row(f"  diagnostic: the same on the first fifth of the file "
            f"({res['memory_small'][0]['samples']} samples: less memory to address)",
            f"{rate(res['memory_small']):,.0f} (median minibatch: "
            f"{med(res['memory_small'], lambda r: MB_SIZE / r['median_mb_s']):,.0f})"),
        row("  diagnostic: 3rd sweep, the consumer summing every value, samples/s",
            f"{med(res['memory'], lambda r: r['summed_samples'] / r['summed_s']):,.0f}"),
    ]
    if "torch" in res:
        torch = rate(res["torch"])
        rows += [row("torch DataLoader over in-memory TensorDataset (shuffle), delivery only, "
                     "samples/s", f"{torch:,.0f}"),
                 row("  ratio ours in memory / torch DataLoader", f"{ours / torch:.1f}x")]
    else:
        rows.append(row("torch DataLoader (in-memory TensorDataset)", "n/a: torch not installed"))
    return rows


def sparse_rows(res: dict[str, list[dict]], sizes: dict[str, int], mb: float) -> list[list]:
    """Sparse end to end and parse-only vs scikit-learn, on the ``mb`` MB file."""
    ours, parse, sklearn = (res[f"{n}@{mb:g}"] for n in ("sparse_ours", "sparse_parse", "sklearn"))
    size = sizes[f"sparse@{mb:g}"] / C.MB
    e2e = rate(ours) / rate(sklearn)
    parse_rate = med(parse, lambda r: r["samples"] / (r["seconds"] + r["index_s"]))
    return [
        row(f"sparse {size:.0f} MB: ours end to end, MB/s", f"{med(ours, lambda r: size / r['seconds']):.0f}"
            f" MB/s ({rate(ours):,.0f} samples/s)"),
        row(f"sparse {size:.0f} MB: scikit-learn load_svmlight_file + 256-row slices, samples/s",
            f"{rate(sklearn):,.0f}"),
        row(f"sparse {size:.0f} MB: end to end vs scikit-learn", f"{e2e:.2f}x", TARGETS["sparse"], e2e,
            f">= {TARGETS['sparse']:g}x"),
        row("  diagnostic: parse only (index + parse) vs scikit-learn",
            f"{parse_rate / rate(sklearn):.2f}x"),
        row("  diagnostic: sparse end to end / parse only (MB/s ratio)",
            f"{med(parse, 'seconds') / med(ours, 'seconds'):.2f}"),
    ]


def planning_rows(res: dict[str, list[dict]]) -> list[list]:
    """Frame mode: planning and enumerating FRAMES one-frame sequences."""
    p, ms = res["planning"], lambda key: f"{med(res['planning'], key) * 1000:.1f} ms"
    first = med(p, "first_s")
    return [
        row(f"planning {FRAMES:,} one-frame sequences ({FRAMES // FRAMES_PER_CHUNK} chunks): "
            "block-randomized sweep plan", ms("plan_s")),
        row("  enumerating the whole sweep (256 per minibatch, no data)", ms("enumerate_s")),
        row("  MinibatchSource(frame_mode=True) + first minibatch (plan, schedule, one chunk)",
            ms("first_s"), TARGETS["planning"], first, f"< {TARGETS['planning'] * 1000:g} ms"),
        row("  the whole sweep, samples/s", f"{rate(p):,.0f}"),
    ]


def check_rows(res: dict[str, list[dict]], mb: float) -> list[list]:
    """Samples and checksums agree between contenders (the ``mb`` MB sparse file); peak RSS."""
    def spread(names: list[str]) -> float:
        sums = [res[n][0]["checksum"] for n in names]
        return max(abs(s - sums[0]) for s in sums) / max(abs(sums[0]), 1e-300)
    dense = ["parse", "ours", "ours_frames", "pandas", "memory"]
    sparse = [f"{n}@{mb:g}" for n in ("sparse_parse", "sparse_ours", "sklearn")]
    return [
        row("samples per sweep (parse / ours / pandas / memory / sparse ours / sklearn)", " / ".join(
            str(res[n][0]["samples"]) for n in dense[:2] + dense[3:] + sparse[1:])),
        row("sum of all values: max relative difference (dense / sparse contenders)",
            f"{spread(dense):.1e} / {spread(sparse):.1e}"),
        row(f"peak RSS (VmHWM): ours / parse only / pandas / sparse ours / sklearn ({mb:g} MB)",
            " / ".join(C.mib(max(r["peak_rss"] for r in res[n]))
                       for n in ("ours", "parse", "pandas", *sparse[1:]))),
    ]


# -- peak RSS with a bounded window -----------------------------------------------------------


def memory_configs(path: str, size: int, chunk_size: int) -> tuple[dict[str, dict], dict]:
    """The bounded-window configurations (window = 1/10 of the data) and the probe."""
    small_cs = size // 100
    probe = C.run_child(__file__, {"contender": "probe", "path": path,
                                   "chunk_sizes": [chunk_size, small_cs]})
    window, chunks = probe["samples"] // WINDOW_FRACTION, probe[str(small_cs)]
    in_chunks = max(1, chunks // WINDOW_FRACTION)
    base = {"contender": "ours", "kind": "mnist", "path": path, "track": True}
    configs = {
        f"default window (128 chunks), {chunk_size >> 20} MiB chunks": {
            **base, "chunk_size": chunk_size, "options": {},
            "window_samples": probe["samples"] * min(1.0, 128 / probe[str(chunk_size)])},
        f"window_in_samples={window}, {chunk_size >> 20} MiB chunks": {
            **base, "chunk_size": chunk_size, "window_samples": window,
            "options": {"randomization_window_in_samples": window}},
        f"window_in_samples={window}, ~100 chunks": {
            **base, "chunk_size": small_cs, "window_samples": window,
            "options": {"randomization_window_in_samples": window}},
        f"window_in_chunks={in_chunks} of {chunks} chunks": {
            **base, "chunk_size": small_cs, "window_samples": probe["samples"] * in_chunks // chunks,
            "options": {"randomization_window_in_chunks": in_chunks}},
    }
    return configs, probe


def memory_rows(configs: dict[str, dict], runs: dict[str, dict], baseline: int,
                index_bytes: int) -> list[list]:
    """Peak RSS of every bounded-window configuration against its bound."""
    rows = []
    for name, spec in configs.items():
        r, window = runs[name], spec["window_samples"] * DIM * 4
        bound = RSS_FACTOR * window + index_bytes
        resident = ("n/a" if r.get("resident_chunks") is None else
                    f"{r['resident_chunks']} ({C.mib(r['resident_bytes'])})")
        rows.append([name, r["chunks"], f"{r['samples'] / r['seconds']:,.0f}", C.mib(window),
                     resident, C.mib(r["peak_rss"]), C.mib(r["peak_anon"]),
                     C.mib(r["file_growth"]), C.mib(bound), C.verdict(bound, r["peak_rss"]),
                     C.verdict(bound, r["peak_rss"] - baseline)])
    return rows


def report_memory(configs: dict, runs: dict, probe: dict, baseline: dict) -> None:
    """Prints the bounded-window table."""
    base = baseline["peak_rss"]
    print(f"\nPeak RSS with a randomization window of 1/{WINDOW_FRACTION} of the data (one fresh "
          f"subprocess each).\nbound = {RSS_FACTOR:g} x window samples x {DIM} x 4 B + index "
          f"arrays ({C.mib(probe['index_bytes'])}); baseline = peak RSS of an empty subprocess "
          f"(python + numpy + minibatcher; min of 2) = {C.mib(base)}.\nThe bound has no term for that "
          "baseline, so 'excl. baseline' (peak RSS - baseline <= bound) is the target's reading; "
          "'incl.' compares raw peak RSS.\nRssFile growth = file-backed pages mapped during the "
          "work (the mmap'd CTF file).")
    C.print_table(["configuration", "chunks", "samples/s", "window decoded",
                   "max resident chunks (decoded)", "peak RSS", "peak RssAnon", "RssFile growth",
                   "bound", "incl.", "excl. baseline"],
                  memory_rows(configs, runs, base, probe["index_bytes"]))


def print_corpus_planning(args: argparse.Namespace) -> None:
    """Only the frame-mode planning rows of a synthetic SCP corpus (benchmarks/_planning.py)."""
    import tempfile
    from pathlib import Path

    sizes = tuple(int(n) for n in args.corpus_planning.split(","))
    with tempfile.TemporaryDirectory(prefix="planning-", dir=args.data_dir) as folder:
        _planning.print_planning(__file__, Path(folder), sizes, 4, "corpus_planning")


def main(argv: list[str] | None = None) -> None:
    """Entry point (also the child entry point with --child)."""
    args = parse_args(argv)
    if args.child:
        C.child_main(json.loads(args.child), CONTENDERS)
        return
    if args.corpus_planning:
        print_corpus_planning(args)
        return
    specs = make_specs(args)
    load = C.LoadMonitor()
    first_baseline = C.run_child(__file__, {"contender": "empty"})
    res = measure(specs, args.rounds)
    sizes = {"mnist": os.path.getsize(specs["ours"]["path"]),
             **{f"sparse@{mb:g}": os.path.getsize(specs[f"sparse_ours@{mb:g}"]["path"])
                for mb in args.sparse_sizes_mb}}
    sparse_mb = " and ".join(f"{sizes[f'sparse@{mb:g}'] / C.MB:.0f}" for mb in args.sparse_sizes_mb)
    print(f"\nEngine benchmark: {sizes['mnist'] / C.MB:.0f} MB MNIST-like CTF "
          f"({res['ours'][0]['samples']} samples, {res['ours'][0]['chunks']} chunks) and "
          f"{sparse_mb} MB sparse CTF, chunk_size_in_bytes={args.chunk_size}, "
          f"minibatch {MB_SIZE}, {args.rounds} alternating rounds (medians), {os.cpu_count()} CPUs, "
          f"{C.code_version()}")
    C.print_table(["metric", "value", "target", "status"],
                  end_to_end_rows(res, sizes) + memory_delivery_rows(res)
                  + [r for mb in args.sparse_sizes_mb for r in sparse_rows(res, sizes, mb)]
                  + planning_rows(res) + check_rows(res, args.sparse_sizes_mb[0]))
    if not args.no_memory_table:
        configs, probe = memory_configs(specs["ours"]["path"], sizes["mnist"], args.chunk_size)
        print("# bounded-window runs", file=sys.stderr, flush=True)
        runs = {name: C.run_child(__file__, spec) for name, spec in configs.items()}
        baseline = min((first_baseline, C.run_child(__file__, {"contender": "empty"})),
                       key=lambda r: r["peak_rss"])
        report_memory(configs, runs, probe, baseline)
    print(f"\n{load.describe()}")


if __name__ == "__main__":
    sys.exit(main())
