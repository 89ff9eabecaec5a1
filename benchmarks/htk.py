"""HTK features + MLF labels: frames/s of our reader vs NumPy and per-utterance
reading, MLF parse MB/s, and peak memory bounded by the randomization window.

Generates (in a temporary folder under --data-dir, removed at the end) a
big-endian HTK archive of 40-dim FBANK frames (>= 2 GB by default), its SCP
(utterances of 200-800 frames) and an MLF of state alignments (~8-frame
runs). Contenders, each in a fresh subprocess, alternating over --rounds:

* ours, sequence mode: whole utterances in SCP order, 11-frame context (5+5);
* ours, frame mode: frames shuffled by the block randomizer inside a window of
  --window chunks (CNTK's frame mode), 256-frame minibatches, 11-frame context;
* numpy: ``numpy.fromfile`` per utterance + NumPy context expansion (clamped
  indices); frame mode also shuffles each chunk's frames, as a user would;
* per-utterance: open/seek/read per utterance, as kaldiio/lhotse-style
  loaders do, then the same expansion;
* kaldiio (when importable; else "not installed"): the same frames converted
  to a Kaldi ark + scp at generation time (kaldiio does not read HTK), read
  one utterance at a time with ``kaldiio.load_scp``, then the same expansion;
* ours with MLF labels, in sequence and in frame mode;
* MLF parse: ``HTKMLFDeserializer`` construction (native parse + checks).

Peak RSS check (frame mode): resident data is the randomization window's
chunks plus the chunks parsed ahead, so the check is
``peak RSS - RSS after imports <= index + 1.5 x (window + ahead) x chunk bytes``
where ``index`` is the measured growth of building the reader and planning its
sweep (frame mode: per-frame tables), ``ahead`` the chunks parsed ahead
(``prefetch_chunks``, default one per parsing thread) and ``chunk bytes`` the
largest chunk's decoded size (features, plus labels when read).

    python benchmarks/htk.py           # >= 2 GB archive (needs ~2.2 GB free)
    python benchmarks/htk.py --quick   # ~40 MB, seconds
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import _common as C
import _planning

DIM, LEFT, RIGHT = 40, 5, 5
FRAME_TARGET, MLF_TARGET = 3.0, 200.0
RSS_FACTOR = 1.5
HAVE_KALDIIO = importlib.util.find_spec("kaldiio") is not None


# -- data -------------------------------------------------------------------------------------

def generate(folder: Path, size_mb: float, seed: int) -> dict[str, Any]:
    """The archive, SCP, MLF and state list; returns their paths and counts."""
    rng = np.random.default_rng(seed)
    frames = int(size_mb * C.MB) // (4 * DIM)
    lengths = rng.integers(200, 801, size=frames // 200 + 2)
    lengths = lengths[:np.searchsorted(np.cumsum(lengths), frames, side="right")]
    frames = int(lengths.sum())
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    archive = folder / "train.htk"
    with open(archive, "wb") as f:
        f.write(np.array([(frames, 100000, 4 * DIM, 7)], dtype=[("n", ">i4"), ("p", ">i4"),
                                                               ("s", ">u2"), ("k", ">u2")]).tobytes())
        for lo in range(0, frames, 1 << 18):
            n = min(1 << 18, frames - lo)
            f.write(rng.standard_normal((n, DIM), dtype=np.float32).astype(">f4").tobytes())
    (folder / "train.scp").write_text("".join(
        f"u{i}.fbank=train.htk[{s},{s + n - 1}]\n" for i, (s, n) in
        enumerate(zip(starts.tolist(), lengths.tolist()))))
    states = [f"s{k}" for k in range(120)]
    (folder / "states.list").write_text("\n".join(states) + "\n")
    with open(folder / "train.mlf", "w") as f:
        f.write("#!MLF!#\n")
        for i, n in enumerate(lengths.tolist()):
            cuts = np.unique(np.concatenate([[0, n], rng.integers(1, n, n // 8)]))
            f.write(f'"u{i}.lab"\n' + "".join(
                f"{a * 100000} {b * 100000} s{(i + a) % 120} -1.5\n"
                for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist())) + ".\n")
    if HAVE_KALDIIO:
        write_kaldi(folder, starts, lengths)
    return {"folder": str(folder), "frames": frames, "utterances": len(lengths),
            "archive_bytes": archive.stat().st_size, "lengths": lengths.tolist(),
            "mlf_bytes": (folder / "train.mlf").stat().st_size}


def write_kaldi(folder: Path, starts: np.ndarray, lengths: np.ndarray) -> None:
    """The same utterances as a Kaldi ark + scp (``train.ark``, ``kaldi.scp``), for kaldiio."""
    import kaldiio

    frames = np.memmap(folder / "train.htk", ">f4", "r", offset=12).reshape(-1, DIM)
    spec = f"ark,scp:{folder / 'train.ark'},{folder / 'kaldi.scp'}"
    with kaldiio.WriteHelper(spec) as writer:
        for i, (s, n) in enumerate(zip(starts.tolist(), lengths.tolist())):
            writer(f"u{i}", np.asarray(frames[s:s + n], dtype=np.float32))


def utterances(folder: str) -> tuple[np.ndarray, np.ndarray]:
    """First frame and length of every SCP line (for the baselines)."""
    starts, lengths = [], []
    for line in Path(folder, "train.scp").read_text().splitlines():
        s, e = line[line.rindex("[") + 1:-1].split(",")
        starts.append(int(s))
        lengths.append(int(e) - int(s) + 1)
    return np.array(starts), np.array(lengths)


def expand(x: np.ndarray) -> np.ndarray:
    """NumPy context expansion of one utterance (edge frames repeated)."""
    n = len(x)
    idx = np.clip(np.arange(n)[:, None] + np.arange(-LEFT, RIGHT + 1)[None, :], 0, n - 1)
    return x[idx].reshape(n, DIM * (LEFT + 1 + RIGHT))


# -- contenders (fresh subprocess each) ----------------------------------------------------------

def our_source(spec: dict[str, Any]) -> Any:
    """Our reader (features only, or features + labels) over the generated files."""
    from minibatcher import HTKFeatureDeserializer, HTKMLFDeserializer, MinibatchSource, StreamDef

    folder, frame_mode = Path(spec["folder"]), spec["mode"] == "frame"
    parts = [HTKFeatureDeserializer({"x": StreamDef(scp=str(folder / "train.scp"), shape=DIM,
                                                    context=(LEFT, RIGHT))}, base_dir=folder)]
    if spec.get("labels"):
        parts.append(HTKMLFDeserializer(str(folder / "states.list"), {"y": StreamDef(
            mlf=str(folder / "train.mlf"), shape=120)}))
    order = (dict(randomization_window_in_chunks=spec["window"]) if frame_mode
             else dict(randomize=False))
    return MinibatchSource(parts, frame_mode=frame_mode, max_sweeps=1, **order)


def prepare_ours(spec: dict[str, Any]) -> Callable[[], dict]:
    """Our reader, end to end (index, plan, read, context expansion); imports are not timed
    (as the peers' numpy and kaldiio imports)."""
    import minibatcher  # noqa: F401

    def work() -> dict:
        started = time.perf_counter()
        source = our_source(spec)
        frames, size = 0, 256 if spec["mode"] == "frame" else 4096
        while mb := source.next_minibatch(size):
            frames += mb["x"].num_samples
        return {"seconds": time.perf_counter() - started, "frames": frames,
                "ahead": source._ahead}  # chunks parsed ahead (private; for the RSS bound)
    return work


def prepare_probe(spec: dict[str, Any]) -> Callable[[], dict]:
    """The RSS bound's terms: growth of building the reader and planning sweep 0 (no data
    read), and the decoded bytes per frame of a chunk of every deserializer."""
    def work() -> dict:
        before = C._status_kb(("VmRSS",))["VmRSS"]
        source = our_source(spec)
        source._enumerator.plan(0)  # private: the sweep plan, without loading any chunk
        index = C._status_kb(("VmHWM",))["VmHWM"] - before
        parts = getattr(source.deserializer, "inner", source.deserializer)
        parts = getattr(parts, "parts", [parts])
        per_frame = 0.0
        for d in parts:
            chunk = d.load_chunk(0)
            per_frame += chunk.nbytes / int(d.table().chunk_samples()[0])
        return {"index_bytes": index, "bytes_per_frame": per_frame}
    return work


def baseline_reader(spec: dict[str, Any], f: Any) -> Callable[[int, int, int], np.ndarray]:
    """``read(utterance, first frame, frames)`` of a baseline contender (float32 frames)."""
    folder = Path(spec["folder"])
    if spec["contender"] == "kaldiio":  # per-utterance random access through kaldiio's scp
        import kaldiio
        table = kaldiio.load_scp(str(folder / "kaldi.scp"))
        return lambda i, s, n: table[f"u{i}"]
    if spec["contender"] == "per_utterance":  # one open/seek/read per utterance
        def per_utterance(i: int, s: int, n: int) -> np.ndarray:
            with open(folder / "train.htk", "rb") as g:
                g.seek(12 + s * 4 * DIM)
                return np.frombuffer(g.read(n * 4 * DIM), ">f4").astype(np.float32).reshape(n, DIM)
        return per_utterance
    # numpy.fromfile: SCP order is the archive's order, so the file position is always the
    # utterance's first frame
    return lambda i, s, n: np.fromfile(f, ">f4", n * DIM).astype(np.float32).reshape(n, DIM)


def prepare_numpy(spec: dict[str, Any]) -> Callable[[], dict]:
    """Per-utterance reading (numpy.fromfile, open/seek/read, or kaldiio) + NumPy context
    expansion; frame mode also shuffles each ~90,000-frame chunk and cuts minibatches."""
    starts, lengths = utterances(spec["folder"])
    if spec["contender"] == "kaldiio":
        import kaldiio  # noqa: F401  (imports are not timed)

    def work() -> dict:
        started, frames = time.perf_counter(), 0
        rng = np.random.default_rng(0)
        with open(Path(spec["folder"], "train.htk"), "rb") as f:
            f.seek(12)
            read, batch = baseline_reader(spec, f), []
            for i, (s, n) in enumerate(zip(starts.tolist(), lengths.tolist())):
                rows = expand(read(i, s, n))
                if spec["mode"] != "frame":
                    frames += len(rows)
                    continue
                batch.append(rows)
                if sum(len(b) for b in batch) > 90000:  # one chunk: shuffle, cut minibatches
                    frames += _minibatches(np.concatenate(batch), rng)
                    batch = []
            if batch:
                frames += _minibatches(np.concatenate(batch), rng)
        return {"seconds": time.perf_counter() - started, "frames": frames}
    return work


def _minibatches(rows: np.ndarray, rng: np.random.Generator) -> int:
    order = rng.permutation(len(rows))
    for lo in range(0, len(rows), 256):
        np.ascontiguousarray(rows[order[lo:lo + 256]])
    return len(rows)


def prepare_mlf(spec: dict[str, Any]) -> Callable[[], dict]:
    """MLF parse: the deserializer (native parse, checks, table) and the kernel alone."""
    from minibatcher import HTKMLFDeserializer, StreamDef
    from minibatcher.formats.htk.backend import backend

    folder = Path(spec["folder"])
    states = (folder / "states.list").read_text().split()

    def work() -> dict:
        data = np.fromfile(folder / "train.mlf", dtype=np.uint8)
        t0 = time.perf_counter()
        backend("native").parse_mlf(data, states, 120)
        t1 = time.perf_counter()
        HTKMLFDeserializer(str(folder / "states.list"), {"y": StreamDef(
            mlf=str(folder / "train.mlf"), shape=120)})
        return {"kernel_s": t1 - t0, "deserializer_s": time.perf_counter() - t1}
    return work


CONTENDERS = {"ours": prepare_ours, "numpy": prepare_numpy, "per_utterance": prepare_numpy,
              "kaldiio": prepare_numpy, "mlf": prepare_mlf, "probe": prepare_probe,
              "planning": _planning.prepare_planning}


# -- driver -----------------------------------------------------------------------------------

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (--quick: a ~40 MB archive, 2 rounds)."""
    p = C.common_parser(__doc__, 2048, "the HTK archive")
    p.add_argument("--window", type=int, default=4, help="frame mode: randomization window in "
                   "chunks (~14 MB of frames each; default 4)")
    p.add_argument("--keep", action="store_true", help="keep the generated files")
    p.add_argument("--planning", default=None, help="comma-separated utterance counts of the "
                   "frame-mode planning rows (default 1000,10000,100000,1000000,1800000; "
                   "--quick: 1000,10000; 0: none)")
    args = p.parse_args(argv)
    args.size_mb = args.size_mb or (40.0 if args.quick else 2048.0)
    args.rounds = args.rounds or (2 if args.quick else 3)
    return args


def planning_sizes(args: argparse.Namespace) -> tuple[int, ...]:
    """Utterance counts of the planning rows (the last default is the 10,000-hour corpus)."""
    if args.planning is None:
        return (1_000, 10_000) if args.quick else (*_planning.SIZES, _planning.CORPUS_UTTERANCES)
    return tuple(int(n) for n in args.planning.split(",") if int(n) > 0)


def check_space(folder: Path, size_mb: float) -> None:
    """Refuses to start without room for the archive and its MLF (~1.1x), and the Kaldi copy
    when kaldiio is installed (~1x more)."""
    folder.mkdir(parents=True, exist_ok=True)
    free, need = shutil.disk_usage(folder).free, 1.15 + (1.0 if HAVE_KALDIIO else 0.0)
    if free < size_mb * C.MB * need:
        sys.exit(f"htk.py: {folder} has {free / C.MB:.0f} MB free; the {size_mb:g} MB archive, "
                 f"its MLF (and the Kaldi copy for kaldiio) need about {need:.2f}x that. Use "
                 "--data-dir elsewhere or --size-mb.")


def measure(info: dict[str, Any], args: argparse.Namespace) -> dict[str, list[dict]]:
    """Every contender once per round, alternating; the RSS probes once."""
    base = {"folder": info["folder"], "window": args.window}
    peers = ("ours", "numpy", "per_utterance") + (("kaldiio",) if HAVE_KALDIIO else ())
    specs = {f"{c}/{m}": {**base, "contender": c, "mode": m}
             for m in ("sequence", "frame") for c in peers}
    for m in ("sequence", "frame"):
        specs[f"ours+labels/{m}"] = {**base, "contender": "ours", "mode": m, "labels": 1}
    specs["mlf"] = {**base, "contender": "mlf", "mode": "-"}
    C.warm_page_cache(*(p for p in Path(info["folder"]).iterdir() if p.suffix != ".list"))
    results: dict[str, list[dict]] = {name: [] for name in specs}
    for _ in C.rounds_of(args.rounds):
        for name, spec in specs.items():
            results[name].append(C.run_child(__file__, spec))
    for name in ("ours/frame", "ours+labels/frame"):
        results[f"probe {name}"] = [C.run_child(__file__, {**specs[name], "contender": "probe"})]
    return results


def speed_rows(fps: dict[str, float]) -> list[list]:
    """Frames/s of every contender and our speedups, per mode."""
    rows = []
    for mode in ("sequence", "frame"):
        ours = fps[f"ours/{mode}"]
        rows.append([mode, "ours: frames/s (11-frame context)", f"{ours:,.0f}", "", ""])
        rows.append([mode, "ours with MLF labels: frames/s", f"{fps[f'ours+labels/{mode}']:,.0f}",
                     "", ""])
        for peer in ("numpy", "per_utterance", "kaldiio"):
            if f"{peer}/{mode}" not in fps:
                rows.append([mode, f"{peer}: frames/s", "not installed", "", ""])
                continue
            ratio = ours / fps[f"{peer}/{mode}"]
            rows.append([mode, f"{peer}: frames/s", f"{fps[f'{peer}/{mode}']:,.0f}", "", ""])
            rows.append([mode, f"speedup vs {peer}", f"{ratio:.2f}x", f">= {FRAME_TARGET:g}x",
                         C.verdict(ratio, FRAME_TARGET)])
    return rows


def max_chunk_frames(lengths: list[int]) -> int:
    """Frames of the largest chunk (CNTK's rule: a chunk closes past 90,000 frames)."""
    from minibatcher.formats.htk.chunking import chunk_starts_by_frames

    starts = chunk_starts_by_frames(np.asarray(lengths))
    sums = np.add.reduceat(np.asarray(lengths), starts[:-1])
    return int(sums.max())


def rss_rows(info: dict[str, Any], args: argparse.Namespace,
             res: dict[str, list[dict]]) -> list[list]:
    """Peak RSS above the RSS after imports, against the window bound (frame mode)."""
    rows, biggest = [], max_chunk_frames(info["lengths"])
    for name in ("ours/frame", "ours+labels/frame"):
        probe = res[f"probe {name}"][0]
        ahead = max(r["ahead"] for r in res[name])
        resident = (args.window + ahead) * biggest * probe["bytes_per_frame"]
        bound = probe["index_bytes"] + RSS_FACTOR * resident
        used = max(r["peak_rss"] - r["baseline_rss"] for r in res[name])
        rows.append(["frame", f"peak RSS - RSS after imports, {name} (window {args.window} + "
                     f"{ahead} ahead)", C.mib(used), f"<= {C.mib(bound)}",
                     C.verdict(bound, used)])
    return rows


def report(info: dict[str, Any], args: argparse.Namespace, res: dict[str, list[dict]]) -> None:
    """The throughput and memory tables."""
    fps = {n: info["frames"] / C.median([r["seconds"] for r in runs])
           for n, runs in res.items() if "seconds" in runs[0]}
    rows = speed_rows(fps)
    mlf_mb = info["mlf_bytes"] / C.MB
    for key, what in (("deserializer_s", "HTKMLFDeserializer"), ("kernel_s", "parse kernel alone")):
        mbs = mlf_mb / C.median([r[key] for r in res["mlf"]])
        rows.append(["mlf", f"MLF parse MB/s ({what})", f"{mbs:.0f}", f">= {MLF_TARGET:g}",
                     C.verdict(mbs, MLF_TARGET)])
    rows += rss_rows(info, args, res)
    print(f"\nHTK benchmark: {info['archive_bytes'] / C.MB:.0f} MB archive ({info['frames']:,} "
          f"frames x {DIM}, {info['utterances']:,} utterances), MLF {mlf_mb:.0f} MB, "
          f"{args.rounds} alternating rounds (medians), {os.cpu_count()} CPUs, {C.code_version()}")
    C.print_table(["mode", "metric", "value", "target", "status"], rows)
    probe = res["probe ours/frame"][0]
    print(f"RSS bound = index + {RSS_FACTOR:g} x (window + ahead) x largest chunk "
          f"({max_chunk_frames(info['lengths']):,} frames) x decoded bytes per frame "
          f"({probe['bytes_per_frame']:.0f} B; with labels "
          f"{res['probe ours+labels/frame'][0]['bytes_per_frame']:.0f} B); index = RSS growth of "
          f"building the reader and planning its sweep ({C.mib(probe['index_bytes'])}).")
    mem = [[n, C.mib(max(r["peak_rss"] for r in runs)), C.mib(max(r["baseline_rss"] for r in runs))]
           for n, runs in res.items() if not n.startswith("probe")]
    C.print_table(["contender", "peak RSS (VmHWM)", "RSS after imports"], mem,
                  f"Peak memory (frame mode window: {args.window} chunks; the archive is "
                  f"{C.mib(info['archive_bytes'])})")


def main(argv: list[str] | None = None) -> None:
    """Entry point (also the child entry point with --child)."""
    args = parse_args(argv)
    if args.child:
        C.child_main(json.loads(args.child), CONTENDERS)
        return
    check_space(args.data_dir, args.size_mb)
    folder = Path(tempfile.mkdtemp(prefix="htk-bench-", dir=args.data_dir))
    try:
        info = generate(folder, args.size_mb, args.seed)
        load = C.LoadMonitor()
        results = measure(info, args)
        report(info, args, results)
        sizes = planning_sizes(args)
        if sizes:
            _planning.print_planning(__file__, folder, sizes, args.window)
        print(f"\n{load.describe()}")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
