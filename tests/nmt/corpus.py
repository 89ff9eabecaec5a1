"""A seeded synthetic parallel corpus for the nmt tests (not shipped data: made on the fly)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

SPECIALS = ["<unk>", "<s>", "</s>"]


def make_corpus(folder: Path, pairs: int, seed: int = 0, max_len: int = 30,
                words: int = 60) -> tuple[Path, Path, Path]:
    """``(src, tgt, vocab)`` files: lengths 0..max_len (some empty or space-only lines,
    OOV words, odd spacing), a shared vocabulary of the first 2/3 of the words."""
    rng = np.random.default_rng(seed)
    names = [f"w{i}" for i in range(words)]

    def line(n: int) -> str:
        toks = rng.choice(names, n).tolist()
        glue = " " if rng.random() < 0.8 else "  "
        text = glue.join(toks)
        return (" " + text) if rng.random() < 0.1 else text

    src_len = rng.integers(0, max_len + 1, pairs)
    tgt_len = np.clip(src_len + rng.integers(-3, 4, pairs), 0, max_len + 3)
    src = [line(int(n)) for n in src_len]
    tgt = [line(int(n)) for n in tgt_len]
    for i in rng.choice(pairs, max(1, pairs // 50), replace=False):
        src[int(i)] = "   "
    folder.mkdir(parents=True, exist_ok=True)
    paths = folder / "train.src", folder / "train.tgt", folder / "vocab"
    paths[0].write_text("\n".join(src) + "\n")
    paths[1].write_text("\n".join(tgt) + "\n")
    paths[2].write_text("\n".join(SPECIALS + names[: 2 * words // 3]) + "\n")
    return paths


def benchmark_lengths(pairs: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Source and target word counts drawn as benchmarks/nmt.py's generator draws them
    (``pair_lengths``: skewed gamma source lengths up to 120 words, targets about 1.1x
    the source; keep the two in step)."""
    rng = np.random.default_rng(seed)
    src_len = np.clip(rng.gamma(2.2, 10.0, pairs).astype(np.int64), 0, 120)
    tgt_len = np.clip((src_len * rng.normal(1.1, 0.12, pairs)).astype(np.int64)
                      + rng.integers(-2, 3, pairs), 0, 130)
    return src_len, tgt_len


def write_lengths(folder: Path, src_len: np.ndarray, tgt_len: np.ndarray,
                  words: int = 100) -> tuple[Path, Path, Path]:
    """``(src, tgt, vocab)`` files whose lines have the given word counts (random words)."""
    rng = np.random.default_rng(len(src_len))
    names = np.array([f"w{i}" for i in range(words)])
    folder.mkdir(parents=True, exist_ok=True)
    paths = folder / "bench.src", folder / "bench.tgt", folder / "bench.vocab"
    for path, lengths in zip(paths, (src_len, tgt_len)):
        path.write_text("".join(" ".join(rng.choice(names, int(n))) + "\n" for n in lengths))
    paths[2].write_text("\n".join(SPECIALS + names.tolist()) + "\n")
    return paths
