"""Frame-mode planning at corpus scale (issue 17): the rows htk.py and engine.py print.

A synthetic SCP of N utterances (1,000 to 3,000 frames, 2,000 on average: a
10,000-hour corpus is ~1.8 M utterances, 3.6 B frames at 100 frames/s) whose
lines are ranges into one small archive (65,536 frames x 40), read by
``MinibatchSource(frame_mode=True)`` with the block randomizer (window in
chunks). Each size runs in a fresh subprocess; the row is construction (SCP
parse, index, chunking) + the sweep's plan + the first 256-frame minibatch
(11-frame context): seconds, peak RSS above the RSS after imports, and the
plan's memory per frame (``FramePlan.nbytes`` plus the frame table's arrays:
per chunk and per utterance, nothing per frame). Then a restore at 90% of the
sweep (a checkpoint taken there, restored, one minibatch read): the windowed
randomizer replays its draws from the sweep's start, so this is measured up to
RESTORE_MAX_FRAMES and estimated beyond from the largest measured ns/frame.

    import _planning  # in a benchmark script whose children know the contender
    _planning.print_planning(__file__, folder, sizes=(1_000, 1_000_000), window=4)
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import _common as C

DIM, LEFT, RIGHT = 40, 5, 5
ARCHIVE_FRAMES = 1 << 16
CORPUS_UTTERANCES = 1_800_000          # 10,000 hours at 2,000 frames (20 s) per utterance
SIZES = (1_000, 10_000, 100_000, 1_000_000)
SECONDS_TARGET, RSS_TARGET = 60.0, 2 * 1024**3
RESTORE_AT, RESTORE_MAX_FRAMES = 0.9, 300_000_000


def write_corpus(folder: Path, utterances: int, seed: int = 0) -> Path:
    """``small.htk`` (once) and ``corpus-N.scp``: N ranges into it; returns the SCP."""
    archive = folder / "small.htk"
    if not archive.exists():
        rng = np.random.default_rng(seed)
        header = np.array([(ARCHIVE_FRAMES, 100000, 4 * DIM, 7)],
                          dtype=[("n", ">i4"), ("p", ">i4"), ("s", ">u2"), ("k", ">u2")])
        body = rng.standard_normal((ARCHIVE_FRAMES, DIM), dtype=np.float32).astype(">f4")
        archive.write_bytes(header.tobytes() + body.tobytes())
    scp = folder / f"corpus-{utterances}.scp"
    if not scp.exists():
        rng = np.random.default_rng(seed + utterances)
        lengths = rng.integers(1000, 3001, utterances)
        starts = rng.integers(0, ARCHIVE_FRAMES - lengths + 1)
        with open(scp, "w") as f:
            for lo in range(0, utterances, 100_000):
                f.write("".join(f"u{i}=small.htk[{s},{s + n - 1}]\n" for i, s, n in zip(
                    range(lo, lo + 100_000), starts[lo:lo + 100_000].tolist(),
                    lengths[lo:lo + 100_000].tolist())))
    return scp


def prepare_planning(spec: dict[str, Any]) -> Callable[[], dict]:
    """Child contender: construction + plan + first minibatch of a frame-mode source."""
    from minibatcher import HTKFeatureDeserializer, MinibatchSource, StreamDef

    scp = Path(spec["scp"])

    def work() -> dict:
        t0 = time.perf_counter()
        features = HTKFeatureDeserializer({"x": StreamDef(scp=str(scp), shape=DIM,
                                                          context=(LEFT, RIGHT))}, base_dir=scp.parent)
        source = MinibatchSource(features, frame_mode=True, max_sweeps=1,
                                 randomization_window_in_chunks=spec["window"])
        t1 = time.perf_counter()
        plan = source._enumerator.plan(0)  # private: the sweep's (windowed) plan
        t2 = time.perf_counter()
        mb = source.next_minibatch(256)
        t3 = time.perf_counter()
        view = source.deserializer  # FrameView: per-utterance first frames, per-chunk starts
        table_bytes = view._first_frame.nbytes + view.table().chunk_starts.nbytes
        return {"construct_s": t1 - t0, "plan_s": t2 - t1, "first_s": t3 - t2,
                "seconds": t3 - t0, "frames": plan.num_samples, "plan_bytes": plan.nbytes,
                "table_bytes": table_bytes, "chunks": view.table().num_chunks,
                "first_frames": mb["x"].num_samples, **restore(source, plan.num_samples)}
    return work


def restore(source: Any, frames: int) -> dict:
    """Seconds to restore a checkpoint at RESTORE_AT of the sweep and read one minibatch (the
    randomizer, still near the sweep's start, steps up to there: what a fresh process does)."""
    position = int(frames * RESTORE_AT)
    if position > RESTORE_MAX_FRAMES:
        return {"restore_s": None, "restore_frames": position}
    state = source.get_checkpoint_state()
    state = {**state, "enumerator": {**state["enumerator"], "position": position}}
    started = time.perf_counter()
    source.restore_from_checkpoint(state)
    source.next_minibatch(256)
    return {"restore_s": time.perf_counter() - started, "restore_frames": position}


def planning_rows(script: str, folder: Path, sizes: tuple[int, ...], window: int,
                  contender: str = "planning") -> list[list]:
    """One row per size: the run of ``script --child`` with ``contender`` (prepare_planning)."""
    rows, ns_per_frame = [], None
    for n in sizes:
        scp = write_corpus(folder, n)
        r = C.run_child(script, {"contender": contender, "scp": str(scp), "window": window})
        rss = r["peak_rss"] - r["baseline_rss"]
        if r["restore_s"] is not None:
            ns_per_frame = max(ns_per_frame or 0.0, r["restore_s"] / r["restore_frames"] * 1e9)
            restore = f"{r['restore_s']:.1f} s ({r['restore_s'] / r['restore_frames'] * 1e9:.0f} ns/frame)"
        else:
            restore = ("not run: ~" + C.minutes(r["restore_frames"] * ns_per_frame * 1e-9)
                       if ns_per_frame else "not run") + " estimated"
        per_frame = (r["plan_bytes"] + r["table_bytes"]) / r["frames"]
        corpus = n >= CORPUS_UTTERANCES
        rows.append([
            f"{n:,} utt ({r['frames'] / 360_000:,.0f} h, {r['frames'] / 1e6:,.0f} M frames, "
            f"{r['chunks']:,} chunks)",
            f"{r['construct_s']:.1f} + {r['plan_s']:.1f} + {r['first_s']:.1f} = "
            f"{r['seconds']:.1f} s", C.mib(rss), f"{per_frame:.4f} B", restore,
            f"<= {SECONDS_TARGET:g} s, <= {C.mib(RSS_TARGET)}" if corpus else "",
            (C.verdict(SECONDS_TARGET, r["seconds"]) + ", " + C.verdict(RSS_TARGET, rss))
            if corpus else ""])
    return rows


PLANNING_HEADERS = ["frame-mode corpus (SCP ranges into a 10 MB archive)",
                    "construct + plan + first minibatch", "peak RSS - RSS after imports",
                    "plan memory per frame", f"restore at {RESTORE_AT:.0%} of the sweep",
                    "target", "status"]


def print_planning(script: str, folder: Path, sizes: tuple[int, ...], window: int,
                   contender: str = "planning") -> None:
    """Prints the planning table (sizes in utterances; window in chunks)."""
    rows = planning_rows(script, folder, sizes, window, contender)
    C.print_table(PLANNING_HEADERS, rows,
                  f"Frame-mode planning (block randomizer, window {window} chunks; plan memory = "
                  "windowed plan + frame table arrays, per frame of the sweep)")
