"""Test helpers for HTK/MLF: AN4 data, a generated AN4-sized archive whose
values encode each frame's index, CNTK's randomization from the spec (an
independent mt19937_64), and row checks (labels, context edges)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from minibatcher.formats.htk import write_htk

AN4 = Path(__file__).resolve().parents[2] / "data" / "an4"
DIM, CONTEXT = 33, 5
_MASK = (1 << 64) - 1


class MT64:
    """std::mt19937_64, written from its definition (independent of the engine)."""

    def __init__(self, seed: int) -> None:
        self.mt = [seed & _MASK]
        for i in range(1, 312):
            prev = self.mt[-1]
            self.mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & _MASK)
        self.index = 312

    def _twist(self) -> None:
        mt = self.mt
        for i in range(312):
            x = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
            mt[i] = mt[(i + 156) % 312] ^ (x >> 1) ^ (0xB5026F5AA96619E9 if x & 1 else 0)
        self.index = 0

    def __call__(self) -> int:
        if self.index >= 312:
            self._twist()
        x = self.mt[self.index]
        self.index += 1
        x ^= (x >> 29) & 0x5555555555555555
        x ^= (x << 17) & 0x71D67FFFEDA60000
        x ^= (x << 37) & 0xFFF7EEE000000000
        return x ^ (x >> 43)


def spec_order(chunk_sizes: list[int], seed: int) -> tuple[list[int], list[int]]:
    """§7.2 with a window covering the corpus (randomize=auto): the original
    index of the sequence at every position, and its randomized chunk position."""
    rng = MT64(seed)
    perm = list(range(len(chunk_sizes)))
    for i in range(len(perm)):  # RandomShuffleMT: not Fisher-Yates
        j = rng() % len(perm)
        perm[i], perm[j] = perm[j], perm[i]
    first = np.concatenate([[0], np.cumsum(chunk_sizes)]).tolist()
    seq, pos = [], []
    for k, c in enumerate(perm):
        seq += range(first[c], first[c + 1])
        pos += [k] * chunk_sizes[c]
    rng, n = MT64(seed), len(seq)
    for t in range(n):  # every window is the whole corpus: the first draw always fits
        j = rng() % n
        seq[t], seq[j] = seq[j], seq[t]
        pos[t], pos[j] = pos[j], pos[t]
    return seq, pos


def scp_ranges(scp: Path = AN4 / "glob_0000.scp") -> tuple[list[str], np.ndarray, np.ndarray]:
    """Keys, first and last frame of every SCP line (independent parse)."""
    keys, starts, ends = [], [], []
    for line in scp.read_text().splitlines():
        logical, rest = line.split("=", 1)
        s, e = re.search(r"\[(\d+),(\d+)\]$", rest).groups()
        keys.append(logical.rsplit(".", 1)[0])
        starts.append(int(s))
        ends.append(int(e))
    return keys, np.array(starts), np.array(ends)


def mlf_labels(mlf: Path, states: Path) -> dict[str, np.ndarray]:
    """Class id of every frame of every entry (independent parse of the MLF)."""
    ids = {name: i for i, name in enumerate(s for s in states.read_text().split() if s)}
    out: dict[str, np.ndarray] = {}
    key, labels = None, []
    for line in mlf.read_text().splitlines()[1:]:
        if line.startswith('"'):
            key, labels = line.strip('"').rsplit(".", 1)[0], []
        elif line == ".":
            out[key] = np.array(labels)
        elif line.strip():
            t = line.split()
            a, b = float(t[0]), float(t[1])
            if b - a >= 99999:
                a, b = int(a / 1e5 + 0.5), int(b / 1e5 + 0.5)
            labels += [ids[t[2]]] * (int(b) - int(a))
    return out


def make_an4_archive(folder: Path) -> None:
    """``000000000.chunk``: 252,734 frames of 33 values, column 0 = the frame's
    index in the archive, column k = k (big-endian USER, as AN4)."""
    n = 252734
    frames = np.tile(np.arange(DIM, dtype=np.float32), (n, 1))
    frames[:, 0] = np.arange(n)
    write_htk(folder / "000000000.chunk", frames)


class AN4Truth:
    """Per archive frame: its utterance bounds and its label."""

    def __init__(self) -> None:
        keys, starts, ends = scp_ranges()
        labels = mlf_labels(AN4 / "glob_0000.mlf", AN4 / "state.list")
        self.keys, self.starts, self.ends = keys, starts, ends
        self.utt = np.repeat(np.arange(len(keys)), ends - starts + 1)
        self.label = np.concatenate([labels[k] for k in keys])
        self.lengths = ends - starts + 1

    def check_rows(self, features: np.ndarray, labels) -> np.ndarray:
        """Checks every row (context edges, columns, label) and returns the frame indices."""
        width = 1 + 2 * CONTEXT
        rows = features.reshape(len(features), width, DIM)
        frames = rows[:, CONTEXT, 0].astype(np.int64)
        u = self.utt[frames]
        for b in range(width):
            want = np.clip(frames + b - CONTEXT, self.starts[u], self.ends[u])
            assert np.array_equal(rows[:, b, 0], want), f"context block {b} is wrong"
        assert np.array_equal(rows[:, :, 1:], np.broadcast_to(np.arange(1, DIM), rows[:, :, 1:].shape))
        dense = labels.toarray() if hasattr(labels, "toarray") else labels
        assert np.array_equal(dense.argmax(axis=1), self.label[frames]), "labels are misaligned"
        assert np.array_equal(dense.sum(axis=1), np.ones(len(frames))), "labels are not one-hot"
        return frames
