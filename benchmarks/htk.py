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
  loaders do (neither reads HTK archives), then the same expansion;
* MLF parse: ``HTKMLFDeserializer`` construction (native parse + checks).

    python benchmarks/htk.py           # >= 2 GB archive (needs ~2.2 GB free)
    python benchmarks/htk.py --quick   # ~40 MB, seconds
"""

from __future__ import annotations

import argparse
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

DIM, LEFT, RIGHT = 40, 5, 5
FRAME_TARGET, MLF_TARGET = 3.0, 200.0


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
    return {"folder": str(folder), "frames": frames, "utterances": len(lengths),
            "archive_bytes": archive.stat().st_size,
            "mlf_bytes": (folder / "train.mlf").stat().st_size}


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

def prepare_ours(spec: dict[str, Any]) -> Callable[[], dict]:
    """Our reader (features only, or features + labels)."""
    from minibatcher import HTKFeatureDeserializer, HTKMLFDeserializer, MinibatchSource, StreamDef

    folder, frame_mode = Path(spec["folder"]), spec["mode"] == "frame"

    def work() -> dict:
        started = time.perf_counter()
        parts = [HTKFeatureDeserializer({"x": StreamDef(scp=str(folder / "train.scp"), shape=DIM,
                                                        context=(LEFT, RIGHT))}, base_dir=folder)]
        if spec.get("labels"):
            parts.append(HTKMLFDeserializer(str(folder / "states.list"), {"y": StreamDef(
                mlf=str(folder / "train.mlf"), shape=120)}))
        order = (dict(randomization_window_in_chunks=spec["window"]) if frame_mode
                 else dict(randomize=False))
        source = MinibatchSource(parts, frame_mode=frame_mode, max_sweeps=1, **order)
        frames, size = 0, 256 if frame_mode else 4096
        while mb := source.next_minibatch(size):
            frames += mb["x"].num_samples
        return {"seconds": time.perf_counter() - started, "frames": frames}
    return work


def prepare_numpy(spec: dict[str, Any]) -> Callable[[], dict]:
    """numpy.fromfile per utterance + context expansion (frame mode: per-chunk shuffle)."""
    starts, lengths = utterances(spec["folder"])
    path, per_utt = str(Path(spec["folder"], "train.htk")), spec["contender"] == "per_utterance"

    def read(s: int, n: int, f: Any) -> np.ndarray:
        if per_utt:  # one open/seek/read per utterance
            with open(path, "rb") as g:
                g.seek(12 + s * 4 * DIM)
                return np.frombuffer(g.read(n * 4 * DIM), ">f4").astype(np.float32).reshape(n, DIM)
        return np.fromfile(f, ">f4", n * DIM).astype(np.float32).reshape(n, DIM)  # SCP order is
        # the archive's order, so the file position is always the utterance's first frame

    def work() -> dict:
        started, frames = time.perf_counter(), 0
        rng = np.random.default_rng(0)
        with open(path, "rb") as f:
            f.seek(12)
            batch: list[np.ndarray] = []
            for s, n in zip(starts.tolist(), lengths.tolist()):
                rows = expand(read(s, n, f))
                if spec["mode"] == "frame":
                    batch.append(rows)
                    if sum(len(b) for b in batch) > 90000:  # one chunk: shuffle, cut minibatches
                        frames += _minibatches(np.concatenate(batch), rng)
                        batch = []
                else:
                    frames += len(rows)
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
              "mlf": prepare_mlf}


# -- driver -----------------------------------------------------------------------------------

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (--quick: a ~40 MB archive, 2 rounds)."""
    p = C.common_parser(__doc__, 2048, "the HTK archive")
    p.add_argument("--window", type=int, default=4, help="frame mode: randomization window in "
                   "chunks (~14 MB of frames each; default 4)")
    p.add_argument("--keep", action="store_true", help="keep the generated files")
    args = p.parse_args(argv)
    args.size_mb = args.size_mb or (40.0 if args.quick else 2048.0)
    args.rounds = args.rounds or (2 if args.quick else 3)
    return args


def check_space(folder: Path, size_mb: float) -> None:
    """Refuses to start without room for the archive and its MLF (~1.1x)."""
    folder.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(folder).free
    if free < size_mb * C.MB * 1.15:
        sys.exit(f"htk.py: {folder} has {free / C.MB:.0f} MB free; the {size_mb:g} MB archive "
                 "and its MLF need about 15% more. Use --data-dir elsewhere or --size-mb.")


def measure(info: dict[str, Any], args: argparse.Namespace) -> dict[str, list[dict]]:
    """Every contender once per round, alternating."""
    base = {"folder": info["folder"], "window": args.window}
    specs = {f"{c}/{m}": {**base, "contender": c, "mode": m}
             for m in ("sequence", "frame") for c in ("ours", "numpy", "per_utterance")}
    specs["ours+labels/sequence"] = {**base, "contender": "ours", "mode": "sequence", "labels": 1}
    specs["mlf"] = {**base, "contender": "mlf", "mode": "-"}
    C.warm_page_cache(Path(info["folder"], "train.htk"), Path(info["folder"], "train.mlf"))
    results: dict[str, list[dict]] = {name: [] for name in specs}
    for _ in C.rounds_of(args.rounds):
        for name, spec in specs.items():
            results[name].append(C.run_child(__file__, spec))
    return results


def report(info: dict[str, Any], args: argparse.Namespace, res: dict[str, list[dict]]) -> None:
    """The throughput and memory tables."""
    fps = {n: info["frames"] / C.median([r["seconds"] for r in runs])
           for n, runs in res.items() if n != "mlf"}
    rows = []
    for mode in ("sequence", "frame"):
        ours = fps[f"ours/{mode}"]
        rows.append([mode, "ours: frames/s (11-frame context)", f"{ours:,.0f}", "", ""])
        for peer in ("numpy", "per_utterance"):
            ratio = ours / fps[f"{peer}/{mode}"]
            rows.append([mode, f"{peer}: frames/s", f"{fps[f'{peer}/{mode}']:,.0f}", "", ""])
            rows.append([mode, f"speedup vs {peer}", f"{ratio:.2f}x", f">= {FRAME_TARGET:g}x",
                         C.verdict(ratio, FRAME_TARGET)])
    rows.append(["sequence", "ours with MLF labels: frames/s", f"{fps['ours+labels/sequence']:,.0f}",
                 "", ""])
    mlf_mb = info["mlf_bytes"] / C.MB
    for key, what in (("deserializer_s", "HTKMLFDeserializer"), ("kernel_s", "parse kernel alone")):
        mbs = mlf_mb / C.median([r[key] for r in res["mlf"]])
        rows.append(["mlf", f"MLF parse MB/s ({what})", f"{mbs:.0f}", f">= {MLF_TARGET:g}",
                     C.verdict(mbs, MLF_TARGET)])
    print(f"\nHTK benchmark: {info['archive_bytes'] / C.MB:.0f} MB archive ({info['frames']:,} "
          f"frames x {DIM}, {info['utterances']:,} utterances), MLF {mlf_mb:.0f} MB, "
          f"{args.rounds} alternating rounds (medians), {os.cpu_count()} CPUs, {C.code_version()}")
    C.print_table(["mode", "metric", "value", "target", "status"], rows)
    chunk = 90000 * 4 * DIM
    mem = [[n, C.mib(max(r["peak_rss"] for r in runs)), C.mib(max(r["baseline_rss"] for r in runs))]
           for n, runs in res.items()]
    C.print_table(["contender", "peak RSS (VmHWM)", "RSS after imports"], mem,
                  f"Peak memory (frame mode window: {args.window} chunks of ~{C.mib(chunk)}; the "
                  f"archive is {C.mib(info['archive_bytes'])})")


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
        print(f"\n{load.describe()}")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
