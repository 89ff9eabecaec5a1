"""TF's ``stateless_multinomial`` draw of one sample, bit for bit: Philox key and counter
from TF's ``GenerateKey`` (Philox of the seed pair under a fixed key), one
``SimplePhilox.RandDouble``, and the upper bound of that fraction of the unnormalized
cumulative ``exp(logit - max)``. ``sample_from_datasets`` draws its selector with it.

Example:
    >>> cdf = multinomial_cdf(np.log(np.array([1.0, 1.0, 2.0])))
    >>> select(cdf, np.array([1, 2, 3]), np.array([4, 5, 6])).tolist()
    [1, 2, 2]
"""

from __future__ import annotations

import bisect
import struct

import numpy as np

from .philox import philox4x32_10

__all__ = ["multinomial_cdf", "select", "select_one", "stateless_uniform_doubles"]

_M32 = np.uint64(0xFFFFFFFF)
_ROUND_M = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
_ROUND_W = (0x9E3779B9, 0xBB67AE85)
_KEY = (np.uint64(0x3EC8F720), np.uint64(0x02461E29))


def _philox(c: list[np.ndarray], k: list[np.ndarray]) -> list[np.ndarray]:
    """Philox4x32-10 on lanes of uint64-held words (one key per lane)."""
    c0, c1, c2, c3 = c
    k0, k1 = k
    shift = np.uint64(32)
    for rnd in range(10):
        p0, p1 = _ROUND_M[0] * c0, _ROUND_M[1] * c2
        c0, c1, c2, c3 = (p1 >> shift) ^ c1 ^ k0, p1 & _M32, (p0 >> shift) ^ c3 ^ k1, p0 & _M32
        if rnd < 9:
            k0 = (k0 + np.uint64(_ROUND_W[0])) & _M32
            k1 = (k1 + np.uint64(_ROUND_W[1])) & _M32
    return [c0, c1, c2, c3]


def stateless_uniform_doubles(seed0: np.ndarray, seed1: np.ndarray) -> np.ndarray:
    """The first ``SimplePhilox.RandDouble()`` of TF's stateless generator for
    each seed pair (``GenerateKey``: Philox of the seeds under a fixed key gives
    the key and counter).

    Example:
        >>> stateless_uniform_doubles(np.array([0]), np.array([0]))[0] < 1.0
        np.True_
    """
    s0, s1 = seed0.astype(np.uint64), seed1.astype(np.uint64)
    n = len(s0)
    key = [np.full(n, _KEY[0]), np.full(n, _KEY[1])]
    mix = _philox([s0 & _M32, s0 >> np.uint64(32), s1 & _M32, s1 >> np.uint64(32)], key)
    zero = np.zeros(n, np.uint64)
    words = _philox([zero, zero, mix[2], mix[3]], [mix[0], mix[1]])
    mantissa = ((words[0] & np.uint64(0xFFFFF)) << np.uint64(32)) | words[1]
    bits = mantissa | (np.uint64(1023) << np.uint64(52))
    return bits.view(np.float64) - 1.0


def multinomial_cdf(logits: np.ndarray) -> np.ndarray:
    """TF's unnormalized cumulative distribution of one row of logits (doubles;
    non-finite logits add nothing).

    Example:
        >>> multinomial_cdf(np.array([0.0, np.log(3.0), -np.inf, 0.0])).round(9).tolist()
        [0.333333333, 1.333333333, 1.333333333, 1.666666667]
    """
    finite = np.isfinite(logits)
    top = float(logits[finite].max()) if finite.any() else float(np.finfo(logits.dtype).min)
    weights = np.exp(logits.astype(np.float64) - top)
    return np.cumsum(np.where(finite, weights, 0.0))


def select(cdf: np.ndarray, seed0: np.ndarray, seed1: np.ndarray) -> np.ndarray:
    """``stateless_multinomial(logits, 1, seed=[seed0, seed1])`` for each seed pair.

    Example:
        >>> select(np.array([1.0, 2.0]), np.array([5, 6]), np.array([7, 8])).dtype
        dtype('int64')
    """
    found = stateless_uniform_doubles(seed0, seed1) * cdf[-1]
    return np.searchsorted(cdf, found, side="right").astype(np.int64)


def select_one(cdf: np.ndarray, seed0: int, seed1: int) -> int:
    """:func:`select` for one seed pair, in plain Python (cheaper than NumPy for one).

    Example:
        >>> cdf = np.array([1.0, 2.0, 3.0])
        >>> select_one(cdf, 5, 6) == int(select(cdf, np.array([5]), np.array([6]))[0])
        True
    """
    m = 0xFFFFFFFF
    mix = philox4x32_10((seed0 & m, seed0 >> 32 & m, seed1 & m, seed1 >> 32 & m),
                        (0x3EC8F720, 0x02461E29))
    w0, w1 = philox4x32_10((0, 0, mix[2], mix[3]), (mix[0], mix[1]))[:2]
    bits = (1023 << 52) | ((w0 & 0xFFFFF) << 32) | w1
    uniform = struct.unpack("<d", bits.to_bytes(8, "little"))[0] - 1.0
    return bisect.bisect_right(cdf.tolist(), uniform * float(cdf[-1]))
