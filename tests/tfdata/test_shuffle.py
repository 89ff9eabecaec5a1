"""Dataset.shuffle: TF's exact algorithm, seeds per iteration, repeat, goldens from TF."""

from __future__ import annotations

import pytest

from minibatcher.errors import ConfigError
from minibatcher.tfdata import Dataset, random_seed_scope
from minibatcher.tfdata.philox import Draws, iteration_seeds


def tf_shuffle(elements: list, buffer_size: int, seeds: tuple[int, int]) -> list:
    """TF's ShuffleDatasetOp, literally: a ring of buffer_size slots, start/end counters."""
    ring = [None] * buffer_size
    start = end = 0
    rng = Draws(*seeds)
    source = iter(elements)
    done, out = False, []
    while True:
        while not done and end - start < buffer_size:
            try:
                ring[end % buffer_size] = next(source)
                end += 1
            except StopIteration:
                done = True
        if end == start:
            return out
        index = (start + rng.next() % (end - start)) % buffer_size
        out.append(ring[index])
        ring[index], ring[start % buffer_size] = ring[start % buffer_size], ring[index]
        start += 1


def ints(ds) -> list[int]:
    return [int(x) for x in ds]


def test_three_elements_by_hand() -> None:
    # seed 5 only: (87654321, 5); iteration 0 of a RandomSeedGenerator uses its draws 0 and 1
    s1, s2 = Draws(87654321, 5).take(2)
    d0, d1, d2 = Draws(s1, s2).take(3)
    buf = [0, 1, 2]
    out = []
    for d in (d0, d1, d2):  # emit buf[d % n], move the front element into the hole, drop front
        j = d % len(buf)
        out.append(buf[j])
        buf[j] = buf[0]
        buf = buf[1:]
    with random_seed_scope(None):
        assert ints(Dataset.range(3).shuffle(3, seed=5)) == out


@pytest.mark.parametrize("n, buffer_size", [(1, 1), (10, 1), (10, 3), (50, 7), (20, 20),
                                            (20, 1000), (0, 4)])
def test_matches_the_literal_tf_algorithm(n: int, buffer_size: int) -> None:
    with random_seed_scope(None):
        ds = Dataset.range(n).shuffle(buffer_size, seed=11)
    for k in range(3):
        expected = tf_shuffle(list(range(n)), buffer_size, iteration_seeds(87654321, 11, k, True))
        assert ints(ds) == expected, f"iteration {k}"


def test_same_order_without_a_view_as_with_one() -> None:
    with random_seed_scope(None):
        viewed = Dataset.range(40).shuffle(6, seed=3)
        streamed = Dataset.range(80).filter(lambda x: x % 2 == 0).map(lambda x: x // 2) \
            .shuffle(6, seed=3)
    for _ in range(2):
        assert ints(viewed) == ints(streamed)


def test_tfds_guide_file_orders() -> None:
    # tfds.ReadConfig(shuffle_seed=32) over ImageNet's 1024 shards, as printed by TF (spec §3.1)
    with random_seed_scope(None):
        files = Dataset.range(1024).shuffle(1024, seed=32)
    assert ints(files)[:5] == [141, 568, 582, 652, 969]
    assert ints(files)[:3] == [777, 46, 87]  # the second iteration reshuffles


def test_no_reshuffle_repeats_the_first_order() -> None:
    with random_seed_scope(None):
        ds = Dataset.range(30).shuffle(30, seed=1, reshuffle_each_iteration=False)
    first = ints(ds)
    assert ints(ds) == first and ints(ds.repeat(2)) == first + first
    assert first == tf_shuffle(list(range(30)), 30, (87654321, 1))


def test_shuffle_then_repeat_reshuffles_each_epoch() -> None:
    with random_seed_scope(None):
        ds = Dataset.range(8).shuffle(8, seed=4)
        repeated = ds.repeat(3)
    epochs = [tf_shuffle(list(range(8)), 8, iteration_seeds(87654321, 4, k, True))
              for k in range(3)]
    assert ints(repeated) == epochs[0] + epochs[1] + epochs[2]
    # the shuffle node's iteration count is shared: iterating again goes on with iteration 3
    fourth = tf_shuffle(list(range(8)), 8, iteration_seeds(87654321, 4, 3, True))
    assert ints(repeated)[:8] == fourth


def test_repeat_then_shuffle_mixes_epochs() -> None:
    with random_seed_scope(None):
        ds = Dataset.range(4).repeat(3).shuffle(5, seed=2)
    expected = tf_shuffle([0, 1, 2, 3] * 3, 5, iteration_seeds(87654321, 2, 0, True))
    assert ints(ds) == expected


def test_buffer_of_one_keeps_the_order() -> None:
    assert ints(Dataset.range(9).shuffle(1, seed=0)) == list(range(9))


def test_global_and_op_seed() -> None:
    with random_seed_scope(21):
        ds = Dataset.range(12).shuffle(5, seed=3)
    assert ints(ds) == tf_shuffle(list(range(12)), 5, iteration_seeds(21, 3, 0, True))


def test_invalid_buffer_size() -> None:
    with pytest.raises(ConfigError, match="buffer_size should be a positive integer .*but got buffer_size=0"):
        Dataset.range(3).shuffle(0)


def test_unseeded_shuffles_differ_but_restore_their_own_order() -> None:
    with random_seed_scope(None):
        a, b = Dataset.range(200).shuffle(200), Dataset.range(200).shuffle(200)
        c = Dataset.range(200).shuffle(200)
    assert ints(a) != ints(b)
    it = iter(a)
    head = [int(next(it)) for _ in range(5)]
    state = it.get_state()
    rest = ints(it)
    fresh = iter(c)  # another unseeded shuffle adopts the checkpoint's seeds
    fresh.set_state(state)
    assert ints(fresh) == rest and len(head + rest) == 200
