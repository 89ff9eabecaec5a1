"""Philox4x32-10 as TensorFlow uses it, and tf.data's per-iteration shuffle seeds.

``PhiloxRandom(seed_lo, seed_hi)`` has the key ``(lo32(seed_lo), hi32(seed_lo))``
and the starting counter ``(0, 0, lo32(seed_hi), hi32(seed_hi))``; each call
gives the 4 words of one block and adds 1 to the 128-bit counter. A
``SingleSampleAdapter`` hands the words out one at a time, so draw ``n`` is
word ``n % 4`` of block ``n // 4``: any draw is reachable in O(1), which is
what makes a shuffle position a pure function of ``(seeds, draw count)``.

Example:
    >>> [f"{w:08x}" for w in philox4x32_10((0, 0, 0, 0), (0, 0))]
    ['6627e8d5', 'e169c58d', 'bc57ac4c', '9b00dbd8']
    >>> Draws(1, 2).take(3) == Draws(1, 2, start=0).take(3)
    True
"""

from __future__ import annotations

import numpy as np

M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
_MASK32 = 0xFFFFFFFF
_BLOCK = 1024  # counters generated per numpy call (4096 draws)


def philox4x32_10(counter: tuple[int, int, int, int], key: tuple[int, int]) -> list[int]:
    """One Philox4x32-10 block (4 uint32 words) in plain Python (the reference).

    Example:
        >>> [f"{w:08x}" for w in philox4x32_10((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2)]
        ['408f276d', '41c83b0e', 'a20bc7c6', '6d5451fd']
    """
    c0, c1, c2, c3 = (int(c) & _MASK32 for c in counter)
    k0, k1 = (int(k) & _MASK32 for k in key)
    for rnd in range(10):
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0, p1 & _MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & _MASK32)
        if rnd < 9:
            k0, k1 = (k0 + W0) & _MASK32, (k1 + W1) & _MASK32
    return [c0, c1, c2, c3]


def philox_blocks(seed_lo: int, seed_hi: int, first: int, count: int) -> np.ndarray:
    """Blocks ``first .. first+count-1`` of ``PhiloxRandom(seed_lo, seed_hi)``,
    flattened: ``count * 4`` uint32 words, vectorized with NumPy.

    Example:
        >>> philox_blocks(0, 0, 0, 1).tolist() == philox4x32_10((0, 0, 0, 0), (0, 0))
        True
    """
    seed_lo &= (1 << 64) - 1
    seed_hi &= (1 << 64) - 1
    n = np.arange(first, first + count, dtype=np.uint64)
    c0 = n & np.uint64(_MASK32)
    c1 = n >> np.uint64(32)
    c2 = np.full(count, seed_hi & _MASK32, dtype=np.uint64)
    c3 = np.full(count, seed_hi >> 32, dtype=np.uint64)
    k0, k1 = seed_lo & _MASK32, seed_lo >> 32
    mask, shift = np.uint64(_MASK32), np.uint64(32)
    for rnd in range(10):
        p0 = np.uint64(M0) * c0
        p1 = np.uint64(M1) * c2
        c0, c1, c2, c3 = ((p1 >> shift) ^ c1 ^ np.uint64(k0), p1 & mask,
                          (p0 >> shift) ^ c3 ^ np.uint64(k1), p0 & mask)
        if rnd < 9:
            k0, k1 = (k0 + W0) & _MASK32, (k1 + W1) & _MASK32
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32).reshape(-1)


class Draws:
    """The single-sample uint32 stream of ``PhiloxRandom(seed, seed2)``,
    starting at draw ``start`` (TF's ``generator_.Skip(num_random_samples)``).

    Example:
        >>> d = Draws(0, 0)
        >>> [f"{d.next():08x}" for _ in range(2)], d.position
        (['6627e8d5', 'e169c58d'], 2)
    """

    __slots__ = ("seed", "seed2", "position", "_words", "_base")

    def __init__(self, seed: int, seed2: int, start: int = 0) -> None:
        self.seed, self.seed2 = int(seed), int(seed2)
        self.position = int(start)
        self._words: list[int] = []
        self._base = -1

    def next(self) -> int:
        """The next draw."""
        i = self.position - self._base
        if self._base < 0 or i >= len(self._words):
            self._refill()
            i = self.position - self._base
        self.position += 1
        return self._words[i]

    def take(self, count: int) -> list[int]:
        """The next ``count`` draws."""
        return [self.next() for _ in range(count)]

    def _refill(self) -> None:
        block = self.position // 4
        self._words = philox_blocks(self.seed, self.seed2, block, _BLOCK).tolist()
        self._base = block * 4


def iteration_seeds(seed: int, seed2: int, iteration: int, reshuffle: bool) -> tuple[int, int]:
    """The seeds of a shuffle's ``iteration``-th iterator (0-based).

    ``reshuffle=False`` (TF's FixedSeedGenerator): always ``(seed, seed2)``.
    ``reshuffle=True`` (RandomSeedGenerator): draws ``2k`` and ``2k+1`` of
    ``PhiloxRandom(seed, seed2)``.

    Example:
        >>> iteration_seeds(5, 6, 3, reshuffle=False)
        (5, 6)
        >>> iteration_seeds(0, 0, 0, reshuffle=True) == (0x6627e8d5, 0xe169c58d)
        True
    """
    if not reshuffle:
        return int(seed), int(seed2)
    words = Draws(seed, seed2, start=2 * iteration)
    return words.next(), words.next()
