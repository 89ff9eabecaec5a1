"""CTF parsing throughput: our native parser vs pandas, scikit-learn and our
pure-Python reference, plus index build and index-cache timings.

Generates (once, cached under --data-dir) three seeded ~200 MB CTF files with
plain twins: MNIST-like (dense ints), float-heavy (dense floats with
exponents) and sparse (dim 1,000,000; svmlight twin). Every contender runs in
a fresh subprocess (so peak RSS is its own), alternating over --rounds; the
table shows medians. Units: 1 MB = 10**6 bytes.

    python benchmarks/ctf_parse.py            # full size (~200 MB per kind)
    python benchmarks/ctf_parse.py --quick    # ~20 MB per kind, under a minute
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import _common as C

PEERS = {"mnist": "pandas", "float": "pandas", "sparse": "sklearn"}
TARGETS = {"mnist": 2.0, "float": 1.5, "sparse": 10.0}  # speedup over the peer
INDEX_TARGET_MBS = 1000.0
CACHE_TARGET = 20.0
REFERENCE_MB = 2.0


def stream_defs(kind: str) -> dict[str, Any]:
    """The streams of each data kind (imports minibatcher: children only)."""
    from minibatcher import StreamDef

    if kind == "mnist":
        return {"labels": StreamDef(shape=10), "features": StreamDef(shape=784)}
    if kind == "float":
        return {"x": StreamDef(shape=100)}
    return {"y": StreamDef(shape=10, is_sparse=True),
            "x": StreamDef(shape=1_000_000, is_sparse=True)}


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """``(seconds, result)`` of one call."""
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


# -- contenders: prepare(spec) -> work() (run in a fresh subprocess each) ---------------------


def prepare_ctf(spec: dict[str, Any]) -> Callable[[], dict]:
    """Ours (or the reference with impl="python"): index, then every chunk in a thread pool."""
    import concurrent.futures as cf

    import minibatcher._native  # noqa: F401  (import cost is not parse time)
    from minibatcher import CTFDeserializer

    defs, impl = stream_defs(spec["kind"]), spec.get("impl", "native")

    def work() -> dict:
        index_s, d = timed(lambda: CTFDeserializer(spec["path"], defs, impl=impl,
                                                   chunk_size_in_bytes=spec["chunk_size"]))
        n = d.table().num_chunks
        with cf.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
            parse_s, chunks = timed(lambda: list(pool.map(d.load_chunk, range(n))))
        samples = sum(c.streams[0].num_samples for c in chunks)
        return {"index_s": index_s, "parse_s": parse_s, "chunks": n, "samples": samples,
                "threads": os.cpu_count()}
    return work


def prepare_pandas(spec: dict[str, Any]) -> Callable[[], dict]:
    """pandas' C parser on the space-separated twin."""
    import pandas as pd

    def work() -> dict:
        seconds, df = timed(lambda: pd.read_csv(spec["path"], sep=" ", header=None,
                                                dtype=np.float32, engine="c"))
        return {"seconds": seconds, "samples": len(df), "columns": df.shape[1]}
    return work


def prepare_sklearn(spec: dict[str, Any]) -> Callable[[], dict]:
    """scikit-learn's svmlight loader on the svmlight twin."""
    from sklearn.datasets import load_svmlight_file

    def work() -> dict:
        seconds, (x, _) = timed(lambda: load_svmlight_file(spec["path"], n_features=1_000_000,
                                                           zero_based=True))
        return {"seconds": seconds, "samples": x.shape[0], "nnz": int(x.nnz)}
    return work


def prepare_index(spec: dict[str, Any]) -> Callable[[], dict]:
    """Index build (deserializer and kernel alone) and the index cache."""
    import minibatcher._native  # noqa: F401
    from minibatcher import CTFDeserializer
    from minibatcher.formats.ctf import build_ctf_index
    from minibatcher.formats.ctf.index_cache import cache_candidates, load_index
    from minibatcher.formats.guarded_file import GuardedFile

    path, defs = Path(spec["path"]), stream_defs(spec["kind"])

    def make(cache: bool) -> Any:
        return CTFDeserializer(path, defs, cache_index=cache)

    def work() -> dict:
        out = {"build_s": timed(lambda: make(False))[0], "rebuild_s": timed(lambda: make(False))[0]}
        data = np.fromfile(path, dtype=np.uint8)  # in memory: no page faults while indexing
        out["kernel_s"] = timed(lambda: build_ctf_index(
            str(path), data, skip_sequence_ids=False, main_alias="", impl="native"))[0]
        options = make(False)._index_options()  # exactly what the deserializer passes
        for candidate in cache_candidates(path, options):
            candidate.unlink(missing_ok=True)
        out["cache_first_s"] = timed(lambda: make(True))[0]
        out["cache_second_s"] = timed(lambda: make(True))[0]
        out["load_index_s"], index = timed(lambda: load_index(GuardedFile(path), options))
        out["index_bytes"] = sum(a.nbytes for a in index.arrays().values())
        return out
    return work


CONTENDERS = {"ours": prepare_ctf, "reference": prepare_ctf, "pandas": prepare_pandas,
              "sklearn": prepare_sklearn, "index": prepare_index}


# -- driver -----------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (--quick: ~20 MB files, 4 MB chunks, 2 rounds)."""
    p = C.common_parser(__doc__, 200, "each CTF file")
    p.add_argument("--chunk-mb", type=float, default=None,
                   help="chunk_size_in_bytes in MB (default: the library's 32 MiB; quick: 4)")
    p.add_argument("--reference-mb", type=float, default=None,
                   help=f"prefix size for the slow reference parser (default {REFERENCE_MB:g}; quick 0.5)")
    p.add_argument("--kinds", default="mnist,float,sparse", help="comma-separated subset")
    args = C.finish_common(p.parse_args(argv), 200)
    chunk_mb = args.chunk_mb or (4.0 if args.quick else None)
    args.chunk_size = int(chunk_mb * C.MB) if chunk_mb else 32 << 20
    args.reference_mb = args.reference_mb or (0.5 if args.quick else REFERENCE_MB)
    args.kinds = args.kinds.split(",")
    return args


def make_specs(kind: str, args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Generates (or finds) the files of ``kind`` and describes every contender's run."""
    ctf, plain = C.ensure_data(args.data_dir, kind, args.size_mb, args.seed)
    prefix = C.ensure_prefix(ctf, args.reference_mb)
    base = {"kind": kind, "chunk_size": args.chunk_size}
    return {"ours": {**base, "contender": "ours", "path": str(ctf)},
            PEERS[kind]: {**base, "contender": PEERS[kind], "path": str(plain)},
            "reference": {**base, "contender": "reference", "impl": "python",
                          "path": str(prefix)},
            "index": {**base, "contender": "index", "path": str(ctf)}}


def measure(specs: dict[str, dict[str, dict]], rounds: int) -> dict[str, dict[str, list[dict]]]:
    """Runs every contender of every kind once per round, alternating."""
    C.warm_page_cache(*{Path(s["path"]) for kind in specs.values() for s in kind.values()})
    results = {kind: {name: [] for name in runs} for kind, runs in specs.items()}
    for _ in C.rounds_of(rounds):
        for kind, runs in specs.items():
            for name, spec in runs.items():
                results[kind][name].append(C.run_child(__file__, spec))
    return results


def med(runs: list[dict], key: str | Callable[[dict], float]) -> float:
    """Median over rounds of one field (or of a function of the run)."""
    return C.median([key(r) if callable(key) else r[key] for r in runs])


def parse_rows(kind: str, res: dict[str, list[dict]], specs: dict[str, dict]) -> list[list]:
    """Throughput rows: ours, the peer and the reference."""
    ours, peer_name = res["ours"], PEERS[kind]
    size, plain = (os.path.getsize(specs[n]["path"]) for n in ("ours", peer_name))
    parse_s, e2e_s = med(ours, "parse_s"), med(ours, lambda r: r["index_s"] + r["parse_s"])
    peer_s, target = med(res[peer_name], "seconds"), TARGETS[kind]
    ref, ref_size = res["reference"], os.path.getsize(specs["reference"]["path"])
    ref_mbs = ref_size / C.MB / med(
        ref, lambda r: r["index_s"] + r["parse_s"])
    o = ours[0]
    return [
        [kind, f"ours: parse MB/s ({o['chunks']} chunks, {o['threads']} threads)",
         f"{size / C.MB / parse_s:.0f}", "", ""],
        [kind, "ours: index+parse MB/s", f"{size / C.MB / e2e_s:.0f}", "", ""],
        [kind, f"{peer_name}: MB/s (on its {plain / C.MB:.0f} MB twin)",
         f"{plain / C.MB / peer_s:.0f}", "", ""],
        [kind, f"speedup vs {peer_name}: index+parse", f"{peer_s / e2e_s:.2f}x",
         f">= {target:g}x", C.verdict(peer_s / e2e_s, target)],
        [kind, f"speedup vs {peer_name}: parse only", f"{peer_s / parse_s:.2f}x",
         f">= {target:g}x", C.verdict(peer_s / parse_s, target)],
        [kind, f"reference (impl='python'): index+parse MB/s ({ref_size / C.MB:.1f} MB prefix)",
         f"{ref_mbs:.2f}", "", ""],
        [kind, "speedup vs reference (MB/s ratio)", f"{size / C.MB / e2e_s / ref_mbs:.0f}x", "", ""],
    ]


def index_rows(kind: str, runs: list[dict], size: int) -> list[list]:
    """Index build and index cache rows."""
    build, kernel = med(runs, "build_s"), med(runs, "kernel_s")
    first, second, alone = (med(runs, k) for k in ("cache_first_s", "cache_second_s",
                                                   "load_index_s"))
    mbs, kernel_mbs = size / C.MB / build, size / C.MB / kernel
    ms = lambda s: f"{s * 1e3:.1f} ms"  # noqa: E731
    return [
        [kind, "index build MB/s (CTFDeserializer, cache_index=False)", f"{mbs:.0f}",
         f">= {INDEX_TARGET_MBS:g}", C.verdict(mbs, INDEX_TARGET_MBS)],
        [kind, "  diagnostic: the same, repeated in the same process",
         f"{size / C.MB / med(runs, 'rebuild_s'):.0f}", "", ""],
        [kind, "  diagnostic: build_ctf_index on an in-memory buffer", f"{kernel_mbs:.0f}", "", ""],
        [kind, "index cache: build / 1st with cache (build+save) / 2nd (load)",
         f"{ms(build)} / {ms(first)} / {ms(second)}", "", ""],
        [kind, "cache speedup: build / 2nd construction", f"{build / second:.1f}x",
         f">= {CACHE_TARGET:g}x", C.verdict(build / second, CACHE_TARGET)],
        [kind, f"cache speedup: build / load_index alone ({ms(alone)})", f"{build / alone:.1f}x",
         f">= {CACHE_TARGET:g}x", C.verdict(build / alone, CACHE_TARGET)],
        [kind, "index arrays size", C.mib(runs[0]["index_bytes"]), "", ""],
    ]


def rss_rows(kind: str, res: dict[str, list[dict]]) -> list[list]:
    """Peak memory of every contender (max over rounds; not of the index/cache
    measurement, which holds an extra in-memory copy of the file)."""
    rows = []
    for name, runs in res.items():
        if name == "index":
            continue
        peak = lambda k: max(r[k] for r in runs)  # noqa: E731
        rows.append([kind, name, C.mib(peak("peak_rss")), C.mib(peak("peak_anon")),
                     C.mib(peak("file_growth")), C.mib(peak("baseline_rss"))])
    return rows


def report(args: argparse.Namespace, specs: dict, results: dict) -> None:
    """Prints the throughput, index and memory tables."""
    rows, mem = [], []
    for kind, res in results.items():
        rows += parse_rows(kind, res, specs[kind])
        rows += index_rows(kind, res["index"], os.path.getsize(specs[kind]["ours"]["path"]))
        mem += rss_rows(kind, res)
    print(f"\nCTF parse benchmark: {args.size_mb:g} MB files, {args.rounds} alternating rounds "
          f"(medians), chunk_size_in_bytes={args.chunk_size}, {os.cpu_count()} CPUs, "
          f"{C.code_version()}")
    C.print_table(["kind", "metric", "value", "target", "status"], rows)
    C.print_table(["kind", "contender", "peak RSS (VmHWM)", "peak RssAnon",
                   "RssFile growth", "RSS after imports"], mem,
                  "Peak memory, one fresh subprocess per contender (RssFile growth: file-backed "
                  "pages mapped during the work; minibatcher maps no data file, it reads with "
                  "pread)")


def main(argv: list[str] | None = None) -> None:
    """Entry point (also the child entry point with --child)."""
    args = parse_args(argv)
    if args.child:
        C.child_main(json.loads(args.child), CONTENDERS)
        return
    specs = {kind: make_specs(kind, args) for kind in args.kinds}
    load = C.LoadMonitor()
    results = measure(specs, args.rounds)
    report(args, specs, results)
    print(f"\n{load.describe()}")


if __name__ == "__main__":
    sys.exit(main())
