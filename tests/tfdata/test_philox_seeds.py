"""Philox4x32-10 known answers, TF's seed derivation and the scope of the global seed."""

from __future__ import annotations

import contextvars
import random
import threading

import numpy as np
import pytest

from minibatcher.tfdata import Dataset, get_seed, global_seed, random_seed_scope, set_random_seed
from minibatcher.tfdata.philox import Draws, iteration_seeds, philox4x32_10, philox_blocks
from minibatcher.tfdata.seeds import shuffle_seeds

# Known-answer vectors of Philox4x32-10 (Random123's kat_vectors; the first is quoted in the spec).
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("counter, key, expected", KAT)
def test_philox_known_answers(counter, key, expected) -> None:
    assert tuple(philox4x32_10(counter, key)) == expected


@pytest.mark.parametrize("counter, key, expected", KAT)
def test_vectorized_blocks_match_the_reference(counter, key, expected) -> None:
    # PhiloxRandom(seed_lo, seed_hi): key = (lo, hi) of seed_lo,
    # counter = (block, 0, lo, hi) of seed_hi
    seed_lo = key[0] | key[1] << 32
    seed_hi = counter[2] | counter[3] << 32
    block = counter[0] | counter[1] << 32
    assert tuple(philox_blocks(seed_lo, seed_hi, block, 1).tolist()) == expected


def test_draws_are_words_of_consecutive_blocks_and_seek_in_o1() -> None:
    words = philox_blocks(2**40 + 5, 7, 0, 3).tolist()
    assert Draws(2**40 + 5, 7).take(12) == words
    assert Draws(2**40 + 5, 7, start=6).take(6) == words[6:]
    far = Draws(1, 2, start=10**12)
    n = 10**12 // 4  # a block number above 2**32: the counter carries into its second word
    block = philox4x32_10((n & 0xFFFFFFFF, n >> 32, 2, 0), (1, 0))
    assert far.next() == block[0]


def test_iteration_seeds_follow_the_random_seed_generator() -> None:
    draws = Draws(87654321, 32).take(6)
    assert [iteration_seeds(87654321, 32, k, True) for k in range(3)] == \
        [(draws[0], draws[1]), (draws[2], draws[3]), (draws[4], draws[5])]
    assert iteration_seeds(87654321, 32, 5, False) == (87654321, 32)


def test_get_seed_rules() -> None:
    with random_seed_scope(None):
        assert get_seed(None) == (None, None)
        assert get_seed(5) == (87654321, 5)
        assert get_seed(2**31 + 3) == (87654321, 4)  # op seeds are taken mod 2**31-1
        assert get_seed(-1) == (87654321, 2**31 - 2)
    with random_seed_scope(2**31 - 1):  # global seed 0 after truncation, op seed 0
        assert get_seed(0) == (0, 2**31 - 1)
    with random_seed_scope(12):
        assert get_seed(34) == (12, 34)


def test_global_seed_only_draws_op_seeds_from_the_eager_stream() -> None:
    stream = random.Random(1234)
    expected = [(1234, stream.randint(0, 2**31 - 1)) for _ in range(3)]
    with random_seed_scope(1234):
        assert [get_seed(None) for _ in range(3)] == expected
        set_random_seed(1234)  # restarts the stream, as tf.random.set_seed does
        assert get_seed(None) == expected[0]


def test_two_shuffles_after_set_seed_use_consecutive_op_seeds() -> None:
    ops = random.Random(7)
    first, second = ops.randint(0, 2**31 - 1), ops.randint(0, 2**31 - 1)
    with random_seed_scope(7):
        a = Dataset.range(10).shuffle(10)
        b = Dataset.range(10).shuffle(10)
    with random_seed_scope(None):
        a2 = Dataset.range(10).shuffle(10, seed=first)
    # the global seed 7 with op seed s gives (7, s); the default global seed gives (87654321, s)
    assert a._spec()["seeds"] == [7, first] and b._spec()["seeds"] == [7, second]
    assert a2._spec()["seeds"] == [87654321, first]


def test_global_seed_is_scoped_per_context_and_thread() -> None:
    seen = {}

    def worker() -> None:
        seen["thread"] = global_seed()

    with random_seed_scope(99):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert global_seed() == 99
    assert seen["thread"] is None  # a new thread starts with no global seed
    contextvars.copy_context().run(set_random_seed, 5)
    assert global_seed() is None  # set in a copied context only


def test_unseeded_shuffles_get_random_seeds() -> None:
    with random_seed_scope(None):
        (a, b, seeded), (c, d, _) = shuffle_seeds(None), shuffle_seeds(None)
    assert not seeded and (a, b) != (c, d)


def test_bad_seed_type_is_a_clear_error() -> None:
    with pytest.raises(TypeError, match="seed should be an integer"):
        set_random_seed("x")  # type: ignore[arg-type]


def test_numpy_integer_seeds_are_accepted() -> None:
    with random_seed_scope(np.int64(3)):
        assert global_seed() == 3
