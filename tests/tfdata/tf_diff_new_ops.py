"""The differential suite's ops of issue 13.10 (see tf_diff_gen.py for the table's protocol).

``unbatch``, ``rebatch``, ``window`` (with a ``flat_map`` over the windows), ``scan``,
``take_while``, ``unique``, ``cache``, ``ignore_errors``, and the sources ``Dataset.random``,
``Dataset.counter``, ``sample_from_datasets`` and ``choose_from_datasets``. Their cases are
drawn after the base cases with their own random stream (:func:`pipeline`), so the base
cases and their indices do not change when this table grows.

Example:
    >>> import random
    >>> desc = pipeline(random.Random(1))
    >>> sorted(desc)
    ['ops', 'seed', 'src']
"""

from __future__ import annotations

import random
from typing import Any

from .tf_diff_gen import OPS, Args, Draw, OpGen
from .tf_diff_gen import _source as base_source
from .tf_diff_lang import FUNCTIONS

SCALARS = ("int", "i32", "str")


def _inner(kind: str) -> str | None:
    return kind[2:] if kind.startswith("b:") else None


def op_unbatch(d: Draw, kind: str) -> Args | None:
    inner = _inner(kind)
    if inner in SCALARS + ("vec", "pair"):
        return [], {}, inner
    if kind in ("vec", "svec"):
        return [], {}, "int" if kind == "vec" else "str"
    return None


def op_rebatch(d: Draw, kind: str) -> Args | None:
    if _inner(kind) not in SCALARS + ("pair",) or d.may_fail:
        return None
    size: Any = d.r.choice([1, 2, 3, [1, 2], [0, 2], [3, 1, 2]])
    kwargs = {"drop_remainder": True} if d.r.random() < 0.3 else {}
    return [size], kwargs, kind


def op_window(d: Draw, kind: str) -> Args | None:
    if kind not in SCALARS:
        return None
    size = d.r.randint(1, 4)
    kwargs: dict[str, Any] = {}
    if d.r.random() < 0.6:
        kwargs["shift"] = d.r.randint(1, 5)
    if d.r.random() < 0.4:
        kwargs["stride"] = d.r.randint(1, 3)
    if d.r.random() < 0.4:
        kwargs["drop_remainder"] = True
    return [size], kwargs, "win:" + kind


def op_flat_map_windows(d: Draw, kind: str) -> Args | None:
    if not kind.startswith("win:"):
        return None
    name = d.r.choice(sorted(n for n, f in FUNCTIONS.items() if f.takes == "win"))
    out = FUNCTIONS[name].gives
    return [{"fn": name}], {}, ("b:" if out == "b:" else "") + kind[4:]


def op_scan(d: Draw, kind: str) -> Args | None:
    if kind not in ("int", "i32"):
        return None
    name = d.r.choice(sorted(n for n, f in FUNCTIONS.items() if f.takes == "scan"))
    initial = {"const": d.r.choice([0, 1, 5]), "dtype": "int64" if kind == "int" else "int32"}
    return [initial, {"fn": name}], {}, kind


def op_take_while(d: Draw, kind: str) -> Args | None:
    name = d.fn(kind, "bool")
    return None if name is None else ([{"fn": name}], {}, kind)


def op_unique(d: Draw, kind: str) -> Args | None:
    return ([], {}, kind) if kind in SCALARS and not d.infinite else None


def op_cache(d: Draw, kind: str) -> Args | None:
    return None if kind.startswith("win:") else ([], {}, kind)


def op_ignore_errors(d: Draw, kind: str) -> Args | None:
    return None if kind.startswith("win:") else ([], {}, kind)


NEW_OPS: list[OpGen] = [
    OpGen("unbatch", op_unbatch, 1.2), OpGen("rebatch", op_rebatch, 1.0),
    OpGen("window", op_window, 1.2), OpGen("flat_map", op_flat_map_windows, 3.0),
    OpGen("scan", op_scan, 1.0), OpGen("take_while", op_take_while, 0.8),
    OpGen("unique", op_unique, 0.8), OpGen("cache", op_cache, 0.8),
    OpGen("ignore_errors", op_ignore_errors, 0.6),
]


def _small(r: random.Random) -> dict[str, Any]:
    return {"src": ["range", [r.randint(0, 3), r.randint(3, 9)]], "ops": []}


def _new_source(d: Draw) -> tuple[list[Any], str]:
    r = d.r
    pick = r.random()
    if pick < 0.15:
        d.infinite = True
        return ["random", [r.choice([1, 42, 2**33])]], "int"
    if pick < 0.25:
        d.infinite = True
        return ["counter", [r.randint(-3, 3), r.choice([1, 2, -1])]], "int"
    if pick < 0.4:
        weights = r.choice([None, [0.5, 0.5], [0.9, 0.1], [0.2, 0.0, 0.8]])
        count = 2 if weights is None or len(weights) == 2 else 3
        return ["sample_from_datasets", [[{"ds": _small(r)} for _ in range(count)], weights,
                                         r.choice([3, 7]), r.random() < 0.3]], "int"
    if pick < 0.5:
        choice = {"src": ["slices", [{"const": [r.randint(0, 1) for _ in range(8)],
                                      "dtype": "int64"}]], "ops": []}
        return ["choose_from_datasets", [[{"ds": _small(r)}, {"ds": _small(r)}],
                                         {"ds": choice}, r.random() < 0.5]], "int"
    return base_source(d)


def pipeline(r: random.Random, max_ops: int = 5) -> dict[str, Any]:
    """A random pipeline over the base ops and these (it always uses one of these)."""
    seed = r.choice([None, None, 0, 5, 123])
    d = Draw(r, seeded=seed is not None)
    src, kind = _new_source(d)
    ops: list[list[Any]] = []
    table = OPS + NEW_OPS
    for step in range(r.randint(1, max_ops)):
        for _attempt in range(10):
            pool = NEW_OPS if step == 0 or kind.startswith("win:") else table
            op = r.choices(pool, weights=[o.weight for o in pool])[0]
            saved = dict(vars(d))
            drawn = op.draw(d, kind)
            if drawn is not None:
                args, kwargs, kind = drawn
                ops.append([op.name, args, kwargs])
                d.last = op.name
                break
            vars(d).update(saved)
    if kind.startswith("win:"):
        ops.append(["flat_map", [{"fn": "win.batch(3)"}], {}])
    if d.infinite:
        ops.append(["take", [d.r.randint(3, 20)], {}])
    return {"seed": seed, "src": src, "ops": ops}
