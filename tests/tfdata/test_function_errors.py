"""An error inside a map/filter/interleave function raises for that element and the
iterator goes on with the next one, as TF's iterators do (issue 13.7).

Expected values were printed by TensorFlow 2.21 for the same pipelines (the failing
function there is ``tf.debugging.assert_none_equal(x, 3)``)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from minibatcher.tfdata import Dataset

ERROR = "error"


def fail(x: Any) -> Any:
    if x == 3:
        raise ValueError("x == 3")
    return x


def read(dataset: Dataset, limit: int = 20) -> list[Any]:
    out: list[Any] = []
    it = iter(dataset)
    while len(out) < limit:
        try:
            x = next(it)
        except StopIteration:
            break
        except ValueError:
            out.append(ERROR)
            continue
        out.append(x.tolist() if isinstance(x, np.ndarray) else
                   tuple(int(v) for v in x) if isinstance(x, tuple) else int(x))
    return out


R = Dataset.range
CASES = {
    "map": (lambda: R(6).map(fail), [0, 1, 2, ERROR, 4, 5]),
    "map, batch": (lambda: R(10).map(fail).batch(4), [ERROR, [4, 5, 6, 7], [8, 9]]),
    "filter": (lambda: R(10).filter(lambda x: fail(x) > 0), [1, 2, ERROR, 4, 5, 6, 7, 8, 9]),
    "map, enumerate": (lambda: R(6).map(fail).enumerate(),
                       [(0, 0), (1, 1), (2, 2), ERROR, (4, 4), (5, 5)]),
    "map, interleave": (lambda: R(10).map(fail).interleave(lambda x: R(x), cycle_length=2),
                        [0, 0, 1, ERROR, 0, 1, 0, 2, 1, 3, 2, 3, 0, 4, 1, 2, 0, 3, 1, 4]),
    "interleave of maps": (lambda: R(10).interleave(lambda x: R(x).map(fail), cycle_length=2),
                           [0, 0, 1, 0, 1, 0, 2, 1, 2, 0, ERROR, 1, 0, 2, 1, ERROR, 4, 2,
                            ERROR, 4]),
    "map, group_by_window": (lambda: R(10).map(fail).group_by_window(
        lambda x: x % 2, lambda k, w: w.batch(2), window_size=2),
        [[0, 2], ERROR, [1, 5], [4, 6], [7, 9], [8]]),
    "map, repeat": (lambda: R(5).map(fail).repeat(2), [0, 1, 2, ERROR, 4, 0, 1, 2, ERROR, 4]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_iterator_goes_on_after_an_error(name: str) -> None:
    make, expected = CASES[name]
    assert read(make()) == expected


@pytest.mark.parametrize("name", ["map", "map, batch", "filter", "map, group_by_window",
                                  "map, interleave"])
def test_a_state_taken_after_an_error_restores_the_rest(name: str) -> None:
    make, expected = CASES[name]
    at = expected.index(ERROR)
    for cut in range(at, len(expected)):
        it = iter(make())
        for _ in range(cut + 1):
            try:
                next(it)
            except ValueError:
                pass
        state = json.loads(json.dumps(it.get_state()))
        again = iter(make())
        again.set_state(state)
        tail = expected[cut + 1:]
        assert read_from(again)[:len(tail)] == tail, f"restored after element {cut}"


def read_from(it: Any) -> list[Any]:
    class _Wrap:
        def __iter__(self) -> Any:
            return it
    return read(_Wrap())  # type: ignore[arg-type]
