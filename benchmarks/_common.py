"""Shared helpers of the benchmark scripts: seeded data generation (cached on
disk), fresh-subprocess measurements with peak RSS, and table printing.

Units: 1 MB = 10**6 bytes, 1 GB = 10**9 bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

GEN_VERSION = 1
MB = 10**6
BLOCK_ROWS = 2048
RESULT_MARK = "@@RESULT@@ "
HERE = Path(__file__).resolve().parent

# -- command line ------------------------------------------------------------------------------


def common_parser(doc: str, default_mb: float, what: str) -> argparse.ArgumentParser:
    """The options both scripts share (size, data folder, --quick, rounds, seed)."""
    p = argparse.ArgumentParser(description=" ".join(doc.split("\n\n")[0].split()))
    p.add_argument("--size-mb", type=float, default=None,
                   help=f"size of {what} (MB; default {default_mb:g}, quick 20)")
    p.add_argument("--data-dir", type=Path, default=HERE / "data",
                   help="where generated files are cached (default: benchmarks/data)")
    p.add_argument("--quick", action="store_true", help="~20 MB of data; well under a minute")
    p.add_argument("--rounds", type=int, default=None, help="alternating rounds (default 3; quick 2)")
    p.add_argument("--seed", type=int, default=0, help="data generation seed")
    p.add_argument("--child", help=argparse.SUPPRESS)
    return p


def finish_common(args: Any, default_mb: float) -> Any:
    """Fills the --quick dependent defaults."""
    args.size_mb = args.size_mb or (20.0 if args.quick else default_mb)
    args.rounds = args.rounds or (2 if args.quick else 3)
    return args


# -- text rendering --------------------------------------------------------------------------


def _token_table(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-width byte table and keep-mask of ``texts`` (one row per token)."""
    width = max(len(t) for t in texts)
    table = np.zeros((len(texts), width), dtype=np.uint8)
    keep = np.zeros((len(texts), width), dtype=bool)
    for i, t in enumerate(texts):
        table[i, :len(t)] = np.frombuffer(t.encode(), dtype=np.uint8)
        keep[i, :len(t)] = True
    return table, keep


INT_TOKENS = _token_table([f"{v} " for v in range(256)])
DIGITS = np.frombuffer(b"0123456789", dtype=np.uint8)


def const(text: str, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """A piece that repeats ``text`` on every row."""
    b = np.broadcast_to(np.frombuffer(text.encode(), dtype=np.uint8), (rows, len(text)))
    return b, np.ones(b.shape, dtype=bool)


def int_tokens(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A piece with ``values`` (ints 0..255, shape (rows, k)) as ``"v "`` tokens."""
    table, keep = INT_TOKENS  # 4 bytes per token: gather them as one uint32 each
    rows = values.shape[0]
    words = table.view(np.uint32)[values]
    masks = keep.view(np.uint32)[values]
    return words.view(np.uint8).reshape(rows, -1), masks.view(bool).reshape(rows, -1)


def digits(values: np.ndarray, width: int) -> np.ndarray:
    """ASCII digits of non-negative ints, zero-padded to ``width``: shape (..., width)."""
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    return DIGITS[(values[..., None] // powers) % 10]


def render(pieces: list[tuple[np.ndarray, np.ndarray]]) -> bytes:
    """Joins the kept bytes of every piece row by row; each row's last byte
    (a trailing space by convention) becomes the newline."""
    data = np.concatenate([p[0] for p in pieces], axis=1)
    keep = np.concatenate([p[1] for p in pieces], axis=1)
    out = data[keep]
    ends = np.cumsum(keep.sum(axis=1)) - 1
    out[ends] = ord("\n")
    return out.tobytes()


# -- the three data kinds -------------------------------------------------------------------


def mnist_block(rng: np.random.Generator, rows: int) -> tuple[bytes, bytes]:
    """MNIST-like rows: one-hot labels (10) and 784 ints 0..255, ~80% zeros."""
    labels = np.zeros((rows, 10), dtype=np.int64)
    labels[np.arange(rows), rng.integers(0, 10, rows)] = 1
    features = rng.integers(1, 256, (rows, 784))
    features[rng.random((rows, 784)) < 0.8] = 0
    ctf = render([const("|labels ", rows), int_tokens(labels),
                  const("|features ", rows), int_tokens(features)])
    plain = render([int_tokens(labels), int_tokens(features)])
    return ctf, plain


def float_tokens(rng: np.random.Generator, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A piece of ``[-]d.dddddddde[+-]dd`` tokens (9 significant digits)."""
    mantissa = rng.integers(100_000_000, 1_000_000_000, shape)
    exponent = rng.integers(-15, 16, shape)
    m = digits(mantissa, 9)
    parts = [np.where(rng.random(shape) < 0.5, ord("-"), 0)[..., None], m[..., :1],
             np.full(shape + (1,), ord(".")), m[..., 1:], np.full(shape + (1,), ord("e")),
             np.where(exponent < 0, ord("-"), ord("+"))[..., None], digits(np.abs(exponent), 2),
             np.full(shape + (1,), ord(" "))]
    token = np.concatenate(parts, axis=-1).astype(np.uint8)
    keep = np.ones(token.shape, dtype=bool)
    keep[..., 0] = token[..., 0] != 0
    return token.reshape(shape[0], -1), keep.reshape(shape[0], -1)


def float_block(rng: np.random.Generator, rows: int) -> tuple[bytes, bytes]:
    """Float-heavy rows: ``|x`` with 100 dense values with exponents."""
    tokens = float_tokens(rng, (rows, 100))
    return render([const("|x ", rows), tokens]), render([tokens])


def sparse_entries(rng: np.random.Generator, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """A piece of ~40 sorted unique ``idx:0.ddd`` entries (idx < 10**6) per row."""
    width = 50
    counts = rng.integers(30, width + 1, rows)
    idx = np.sort(rng.integers(0, 1_000_000 - width, (rows, width)), axis=1) + np.arange(width)
    vals = rng.integers(1, 1000, (rows, width))
    idx_digits = digits(idx, 6)
    keep_idx = np.cumsum(idx_digits != ord("0"), axis=-1) > 0
    keep_idx[..., -1] = True
    tail = np.concatenate([np.full((rows, width, 3), [ord(":"), ord("0"), ord(".")]),
                           digits(vals, 3), np.full((rows, width, 1), ord(" "))], axis=-1)
    token = np.concatenate([idx_digits, tail], axis=-1).astype(np.uint8)
    keep = np.concatenate([keep_idx, np.ones(tail.shape, dtype=bool)], axis=-1)
    keep &= (np.arange(width) < counts[:, None])[..., None]
    return token.reshape(rows, -1), keep.reshape(rows, -1)


def sparse_block(rng: np.random.Generator, rows: int) -> tuple[bytes, bytes]:
    """Sparse rows: ``|y k:1`` and ``|x`` with ~40 of 1,000,000; twin in svmlight (0-based)."""
    label = rng.integers(0, 10, rows)
    entries = sparse_entries(rng, rows)
    label_digit = (digits(label, 1).astype(np.uint8), np.ones((rows, 1), dtype=bool))
    ctf = render([const("|y ", rows), label_digit, const(":1 |x ", rows), entries])
    plain = render([int_tokens(label[:, None]), entries])
    return ctf, plain


KINDS: dict[str, dict[str, Any]] = {
    "mnist": {"block": mnist_block, "plain_ext": "txt", "seed": 1},
    "float": {"block": float_block, "plain_ext": "txt", "seed": 2},
    "sparse": {"block": sparse_block, "plain_ext": "svm", "seed": 3},
}


def data_paths(data_dir: Path, kind: str, size_mb: float, seed: int) -> tuple[Path, Path]:
    """The CTF file and its plain twin for these parameters."""
    stem = f"{kind}_{size_mb:g}mb_seed{seed}_v{GEN_VERSION}"
    return data_dir / f"{stem}.ctf", data_dir / f"{stem}.{KINDS[kind]['plain_ext']}"


def ensure_data(data_dir: Path, kind: str, size_mb: float, seed: int = 0) -> tuple[Path, Path]:
    """Generates (once; cached on disk) a ~``size_mb`` CTF file of ``kind`` and its twin."""
    ctf, plain = data_paths(data_dir, kind, size_mb, seed)
    if ctf.exists() and plain.exists():
        return ctf, plain
    data_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng([seed, KINDS[kind]["seed"]])
    block, target, written = KINDS[kind]["block"], size_mb * MB, 0
    started = time.perf_counter()
    with open(f"{ctf}.tmp", "wb") as fc, open(f"{plain}.tmp", "wb") as fp:
        while written < target:
            a, b = block(rng, BLOCK_ROWS)
            fc.write(a)
            fp.write(b)
            written += len(a)
    os.replace(f"{plain}.tmp", plain)
    os.replace(f"{ctf}.tmp", ctf)
    print(f"# generated {ctf.name} ({written / MB:.0f} MB) and its twin in "
          f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    return ctf, plain


def ensure_prefix(path: Path, size_mb: float) -> Path:
    """A copy of the first ~``size_mb`` of ``path``, cut after a newline."""
    out = path.with_name(f"{path.stem}.prefix{size_mb:g}mb{path.suffix}")
    if not out.exists():
        with open(path, "rb") as f:
            head = f.read(int(size_mb * MB))
        with open(f"{out}.tmp", "wb") as f:
            f.write(head[:head.rindex(b"\n") + 1])
        os.replace(f"{out}.tmp", out)
    return out


def warm_page_cache(*paths: Path) -> None:
    """Reads the files once so every contender finds them in the page cache."""
    buffer = bytearray(1 << 20)  # small: children inherit nothing, but keep the parent lean
    for path in paths:
        with open(path, "rb", buffering=0) as f:
            while f.readinto(buffer):
                pass


# -- fresh-subprocess measurements ------------------------------------------------------------


def _status_kb(fields: tuple[str, ...]) -> dict[str, int]:
    """Selected ``/proc/self/status`` fields in bytes."""
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            name, _, rest = line.partition(":")
            if name in fields:
                out[name] = int(rest.split()[0]) * 1024
    return out


class RssSampler:
    """Samples VmRSS, RssAnon and RssFile every ``interval`` s on a thread and
    keeps the peaks (VmHWM has the exact peak of VmRSS only)."""

    FIELDS = ("VmRSS", "RssAnon", "RssFile")

    def __init__(self, interval: float = 0.005) -> None:
        self.interval, self.peak = interval, dict.fromkeys(self.FIELDS, 0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def sample(self) -> None:
        """Takes one sample."""
        for name, value in _status_kb(self.FIELDS).items():
            self.peak[name] = max(self.peak[name], value)

    def __enter__(self) -> "RssSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()


def child_main(spec: dict[str, Any], contenders: dict[str, Callable[[dict], Callable[[], dict]]]) -> None:
    """Runs one contender in this (fresh) process and prints its result as JSON.

    A contender is ``prepare(spec) -> work``: ``prepare`` imports and sets up
    (not measured), ``work()`` does the measured work and returns its timings.
    """
    work = contenders[spec["contender"]](spec)
    before = _status_kb(RssSampler.FIELDS)
    with RssSampler() as sampler:
        result = work()
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec from the (v)forking
    # parent, so it can report the parent's peak instead of this process's.
    result.update(baseline_rss=before["VmRSS"], peak_rss=_status_kb(("VmHWM",))["VmHWM"],
                  peak_anon=sampler.peak["RssAnon"],
        peak_file=sampler.peak["RssFile"], file_growth=sampler.peak["RssFile"] - before["RssFile"])
    print(RESULT_MARK + json.dumps(result), flush=True)


def run_child(script: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Runs ``script --child SPEC`` in a fresh interpreter; returns its result."""
    proc = subprocess.run([sys.executable, script, "--child", json.dumps(spec)],
                          capture_output=True, text=True)
    results = [line for line in proc.stdout.splitlines() if line.startswith(RESULT_MARK)]
    if proc.returncode != 0 or not results:
        raise RuntimeError(f"child {spec} failed (rc={proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(results[-1][len(RESULT_MARK):])


# -- statistics and tables -------------------------------------------------------------------


def median(values: list[float]) -> float:
    """The median (of timings over rounds)."""
    return float(statistics.median(values))


def minutes(seconds: float) -> str:
    """``12 s`` or ``4.2 min``.

    Example: minutes(252.0) == "4.2 min"
    """
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def verdict(value: float, target: float) -> str:
    """PASS when ``value`` reaches a lower-bound ``target``."""
    return "PASS" if value >= target else "MISS"


def print_table(headers: list[str], rows: list[list[Any]], title: str = "") -> None:
    """Prints a plain left-aligned text table."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    line = "  ".join("-" * w for w in widths)
    if title:
        print(f"\n{title}")
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    print(line)
    for row in cells:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


def mib(n: float) -> str:
    """Bytes as MiB with one decimal."""
    return f"{n / 2**20:.1f} MiB"


def rounds_of(count: int) -> Iterator[int]:
    """Round numbers, with a progress note on stderr."""
    for r in range(count):
        print(f"# round {r + 1}/{count}", file=sys.stderr, flush=True)
        yield r


class LoadMonitor:
    """Measures the CPU used by *other* processes during a run (this machine is
    shared): busy time from /proc/stat minus this process, its waited-for
    children and its live descendants (worker processes that persist, such as
    a process pool's or a ``forkserver``'s children, are never waited for here,
    so ``RUSAGE_CHILDREN`` misses them)."""

    def __init__(self) -> None:
        self._start = self._snapshot()

    @staticmethod
    def _snapshot() -> tuple[float, float, float, dict[int, float]]:
        """(time, CPU-busy seconds of the machine, CPU seconds of us and our
        waited-for children, CPU seconds of each live descendant)."""
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
        busy = (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
            resource.RUSAGE_CHILDREN)
        ours = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
        return time.monotonic(), busy, ours, _descendants_cpu(os.getpid())

    def others_cores(self) -> float:
        """Average number of cores busy with other processes since creation."""
        t1, busy1, ours1, live1 = self._snapshot()
        t0, busy0, ours0, live0 = self._start
        live = sum(cpu - live0.get(pid, 0.0) for pid, cpu in live1.items())
        return max(0.0, (busy1 - busy0) - (ours1 - ours0) - live) / max(t1 - t0, 1e-9)

    def describe(self) -> str:
        """A one-line note for the report header."""
        others = self.others_cores()
        note = "" if others < 0.1 else "  WARNING: the machine was shared; timings are noisy"
        return (f"CPU used by other processes during the run: {others:.2f} of {os.cpu_count()} "
                f"cores{note}")


def _descendants_cpu(pid: int) -> dict[int, float]:
    """CPU seconds of each live descendant of ``pid`` (from /proc; empty elsewhere)."""
    out: dict[int, float] = {}
    stack = [pid]
    while stack:
        parent = stack.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as f:
                    kids = [int(k) for k in f.read().split()]
            except OSError:
                continue
            for kid in kids:
                try:
                    with open(f"/proc/{kid}/stat") as f:
                        stat = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                out[kid] = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
                stack.append(kid)
    return out


def peer_module(module: str) -> Any:
    """A module of an installed peer package (this folder, whose script names
    such as ``tfrecord.py`` shadow the PyPI packages, is left out of the
    search path), or None when it is not installed."""
    import importlib

    saved = sys.path[:]
    sys.path = [p for p in sys.path if os.path.abspath(p or ".") != str(HERE)]
    try:
        sys.modules.pop(module.split(".")[0], None)
        return importlib.import_module(module)
    except ImportError:
        return None
    finally:
        sys.path = saved


def code_version() -> str:
    """``minibatcher <git describe --dirty>`` of the checkout being measured."""
    try:
        out = subprocess.run(["git", "-C", str(HERE.parent), "describe", "--always", "--dirty"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    return f"minibatcher {out or 'unknown version'}"
