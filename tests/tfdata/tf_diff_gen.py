"""Random pipelines for the differential suite (see tf_diff_lang.py for the language).

:data:`OPS` is the op table: each entry draws the arguments of one op for an input of a
given element kind and says the output kind (or declines the kind). Adding an op is one
function and one table entry (see tools/tf_diff.py's docstring).

The generator only draws pipelines whose TF answer is deterministic: an unseeded shuffle
only under a global seed, no ``deterministic=False``, and nothing that could loop forever
after an infinite ``repeat`` (a ``filter``, ``skip(-1)``, or datasets that may be empty in a
``flat_map``). ``cycle_length=None`` depends on the machine's cores: the file records TF's
count and the test gives ours the same.
Two documented differences are avoided too (docs/tfdata.md, "Where we differ"): stopping
early (``take``, an infinite ``repeat``) above an op TF runs ahead in background threads
(``map``, ``prefetch``, parallel ``interleave``/``batch``) above a repeated reshuffling
shuffle, and ops whose recovery after an element's error TF does differently
(``skip``, ``shard``, ``shuffle``, batching) after an op that may raise.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

from .tf_diff_lang import FUNCTIONS

Args = tuple[list[Any], dict[str, Any], str]


@dataclass
class Draw:
    """The generator's state while it draws one pipeline."""

    r: random.Random
    seeded: bool                 # a global seed is set (unseeded shuffles are deterministic)
    infinite: bool = False       # the pipeline so far may be infinite
    depth: int = 0
    last: str = ""               # the previous op
    reshuffles: bool = False     # a reshuffling shuffle lies below
    repeated: bool = False       # ... and a repeat above it (its epochs draw seeds)
    readahead: bool = False      # ... and an op TF runs ahead asynchronously above that
    may_fail: bool = False       # some element may raise (TF's recovery differs per op)
    endless: bool = False        # ... and TF may then raise forever (a failed window)
    used: list[str] = field(default_factory=list)

    def runs_ahead(self) -> bool:
        """Draws an op TF runs ahead (False: not here, the pipeline may stop early)."""
        if self.repeated and self.infinite:
            return False
        self.readahead |= self.repeated
        return True

    def fn(self, takes: str, gives: str | tuple[str, ...]) -> str | None:
        """A function name taking ``takes`` (kind-wise) and giving one of ``gives``."""
        gives = (gives,) if isinstance(gives, str) else gives
        names = [n for n, f in FUNCTIONS.items() if _takes(f.takes, takes) and
                 _gives(f.gives, takes) in gives and self.allowed(n)]
        return self.r.choice(names) if names else None

    def allowed(self, name: str) -> bool:
        if "shuffle(" in name and "seed" not in name and not self.seeded:
            return False
        if self.infinite and name in ("D.range(x%4)", "D.from_tensors(x).repeat(x%3)"):
            return False
        return True


def _takes(fn_kind: str, kind: str) -> bool:
    if fn_kind == "num":
        return kind in ("int", "i32")
    if fn_kind == "e:":
        return kind.startswith("e:")
    return fn_kind == kind


def _gives(fn_kind: str, kind: str) -> str:
    return kind if fn_kind == "=" else fn_kind


VALUE_KINDS = ("int", "i32", "str", "vec", "svec", "pair")


def op_map(d: Draw, kind: str) -> Args | None:
    name = d.fn(kind, VALUE_KINDS)
    if name is None or not d.runs_ahead():
        return None
    kwargs: dict[str, Any] = {}
    if d.r.random() < 0.2:
        kwargs["num_parallel_calls"] = d.r.choice([1, 2, -1])
    d.may_fail |= name.startswith("fail")
    return [{"fn": name}], kwargs, _gives(FUNCTIONS[name].gives, kind)


def op_filter(d: Draw, kind: str) -> Args | None:
    name = None if d.infinite else d.fn(kind, "bool")
    return None if name is None else ([{"fn": name}], {}, kind)


def op_shuffle(d: Draw, kind: str) -> Args | None:
    kwargs: dict[str, Any] = {}
    if not d.seeded or d.r.random() < 0.6:
        kwargs["seed"] = d.r.choice([0, 1, 7, 42, 2**31 + 5, 2**40 + 3])
    reshuffle = d.r.choice([None, None, True, False])
    if reshuffle is not None:
        kwargs["reshuffle_each_iteration"] = reshuffle
    if d.may_fail:
        return None
    d.reshuffles |= reshuffle is not False
    return [d.r.choice([1, 2, 3, 5, 8, 16, 100])], kwargs, kind


def op_repeat(d: Draw, kind: str) -> Args | None:
    count = d.r.choice([None, -1, 0, 1, 2, 2, 3])
    if count == 0 and d.last == "shuffle":
        count = 2  # TF's fused shuffle-and-repeat refuses count 0 (see docs/tfdata.md)
    if (count is None or count < 0) and d.readahead:
        count = 3
    if count is None or count < 0:
        d.infinite = True
    d.repeated |= d.reshuffles and count not in (0, 1)
    return ([] if count is None else [count]), {}, kind


def op_take(d: Draw, kind: str) -> Args | None:
    count = -1 if d.readahead else d.r.choice([-1, 0, 1, 2, 3, 5, 8, 13])
    if count >= 0:
        d.infinite = False
    return [count], {}, kind


def op_skip(d: Draw, kind: str) -> Args | None:
    count = d.r.choice([0, 1, 2, 3, 5] + ([] if d.infinite else [-1]))
    return None if d.may_fail else ([count], {}, kind)


def op_shard(d: Draw, kind: str) -> Args | None:
    n = d.r.randint(1, 4)
    return None if d.may_fail else ([n, d.r.randrange(n)], {}, kind)


def op_batch(d: Draw, kind: str) -> Args | None:
    if d.may_fail or (kind in ("vec", "svec") or kind.startswith("b:")) and d.r.random() < 0.7:
        return None
    d.may_fail |= kind in ("vec", "svec") or kind.startswith("b:")
    kwargs: dict[str, Any] = {}
    if d.r.random() < 0.3:
        kwargs["drop_remainder"] = True
    if d.r.random() < 0.15 and d.runs_ahead():
        kwargs["num_parallel_calls"] = d.r.choice([1, -1])
    return [d.r.randint(1, 5)], kwargs, "b:" + kind


PAD_VALUES = {"int": {"const": -1, "dtype": "int64"}, "vec": {"const": -1, "dtype": "int64"},
              "str": "<end>", "svec": "pad", "i32": {"const": 9, "dtype": "int32"}}


def op_padded_batch(d: Draw, kind: str) -> Args | None:
    if kind not in PAD_VALUES and kind != "pair" or d.may_fail:
        return None
    kwargs: dict[str, Any] = {}
    if kind in ("vec", "svec") and d.r.random() < 0.4:
        kwargs["padded_shapes"] = [d.r.choice([None, 3, 5])]
        d.may_fail |= kwargs["padded_shapes"] != [None]
    if d.r.random() < 0.5:
        kwargs["padding_values"] = {"tuple": [PAD_VALUES["int"]] * 2} if kind == "pair" \
            else PAD_VALUES[kind]
    if d.r.random() < 0.2:
        kwargs["drop_remainder"] = True
    return [d.r.randint(1, 4)], kwargs, "b:" + kind


def op_enumerate(d: Draw, kind: str) -> Args | None:
    if kind.startswith("e:"):
        return None
    start = d.r.choice([None, 0, 3, -2, 2**62, 2**63 - 3])
    return ([] if start is None else [start]), {}, "e:" + kind


def op_concatenate(d: Draw, kind: str) -> Args | None:
    if kind != "int" or d.infinite:
        return None
    other = {"src": ["range", [d.r.randint(0, 4), d.r.randint(4, 9)]], "ops": []}
    return [{"ds": other}], {}, kind


def _interleave_fn(d: Draw, kind: str) -> str | None:
    return d.fn(kind, "ds:int") if d.depth == 0 else None


def op_interleave(d: Draw, kind: str) -> Args | None:
    name = _interleave_fn(d, kind)
    if name is None:
        return None
    kwargs: dict[str, Any] = {"cycle_length": d.r.choice([None, 1, 2, 3, 4])}
    block = d.r.choice([None, 1, 2, 3])
    if block is not None:
        kwargs["block_length"] = block
    if d.r.random() < 0.3 and d.runs_ahead():
        kwargs["num_parallel_calls"] = d.r.choice([1, 2, -1])
    return [{"fn": name}], kwargs, "int"


def op_flat_map(d: Draw, kind: str) -> Args | None:
    name = _interleave_fn(d, kind)
    return None if name is None else ([{"fn": name}], {}, "int")


def op_group_by_window(d: Draw, kind: str) -> Args | None:
    key = d.fn(kind, "key")
    reduces = [n for n, f in FUNCTIONS.items() if f.takes == "window" and d.allowed(n)]
    if key is None:
        return None
    reduce = d.r.choice(reduces)
    kwargs: dict[str, Any] = {"key_func": {"fn": key}, "reduce_func": {"fn": reduce}}
    if d.r.random() < 0.3:
        kwargs["window_size_func"] = {"fn": "k%2+2"}
    else:
        kwargs["window_size"] = d.r.randint(1, 4)
    out = FUNCTIONS[reduce].gives
    return [], kwargs, ("b:" + kind if out == "b:" else kind)


def op_bucket(d: Draw, kind: str) -> Args | None:
    if kind != "vec" or d.may_fail:
        return None
    bounds = sorted(d.r.sample([1, 2, 3, 4], d.r.randint(1, 2)))
    kwargs: dict[str, Any] = {}
    for name in ("pad_to_bucket_boundary", "no_padding", "drop_remainder"):
        if d.r.random() < 0.25:
            kwargs[name] = True
    sizes = [d.r.randint(1, 3) for _ in range(len(bounds) + 1)]
    d.may_fail |= "pad_to_bucket_boundary" in kwargs
    return [{"fn": "len32(v)"}, bounds, sizes], kwargs, "b:vec"


def op_prefetch(d: Draw, kind: str) -> Args | None:
    return ([d.r.choice([1, 2, -1])], {}, kind) if d.runs_ahead() else None


@dataclass(frozen=True)
class OpGen:
    """One op of the table: its method name, argument drawer and weight."""

    name: str
    draw: Callable[[Draw, str], Args | None]
    weight: float = 1.0


OPS: list[OpGen] = [
    OpGen("map", op_map, 2), OpGen("filter", op_filter), OpGen("shuffle", op_shuffle, 2.5),
    OpGen("repeat", op_repeat, 1.5), OpGen("take", op_take), OpGen("skip", op_skip),
    OpGen("shard", op_shard, 0.7), OpGen("batch", op_batch), OpGen("padded_batch", op_padded_batch),
    OpGen("enumerate", op_enumerate, 0.5), OpGen("concatenate", op_concatenate, 0.5),
    OpGen("interleave", op_interleave, 1.2), OpGen("flat_map", op_flat_map, 0.6),
    OpGen("group_by_window", op_group_by_window, 0.8),
    OpGen("bucket_by_sequence_length", op_bucket, 0.8), OpGen("prefetch", op_prefetch, 0.3),
]


def _source(d: Draw) -> tuple[list[Any], str]:
    r = d.r
    pick = r.random()
    if pick < 0.45:
        return ["range", [r.randint(0, 12)]], "int"
    if pick < 0.55:
        return ["range", [r.randint(-3, 5), r.randint(5, 20), r.choice([1, 2, 3])]], "int"
    if pick < 0.7:
        words = ["a", "bb", "c dd", "", "eee f g", "h"]
        return ["slices", [r.sample(words, r.randint(2, 6))]], "str"
    if pick < 0.8:
        return ["slices", [[r.randint(-5, 9) for _ in range(r.randint(1, 8))]]], "i32"
    if pick < 0.85:
        values = [r.randint(-5, 9) for _ in range(r.randint(1, 8))]
        return ["slices", [{"tuple": [{"const": values, "dtype": "int64"},
                                      {"const": [v % 3 for v in values], "dtype": "int64"}]}]
                ], "pair"
    if pick < 0.9:
        n = r.randint(2, 9)
        parts = [{"ds": {"src": ["range", [n]], "ops": []}},
                 {"ds": {"src": ["range", [n + 1]], "ops": [["map", [{"fn": "x%5"}], {}]]}}]
        return ["zip", [{"tuple": parts}]], "pair"
    return ["range", [1, r.randint(3, 9)]], "int"


def pipeline(r: random.Random, max_ops: int = 5) -> dict[str, Any]:
    """A random pipeline description (with its global seed)."""
    seed = r.choice([None, None, 0, 5, 123])
    d = Draw(r, seeded=seed is not None)
    src, kind = _source(d)
    ops: list[list[Any]] = []
    for _ in range(r.randint(1, max_ops)):
        for _attempt in range(10):
            op = r.choices(OPS, weights=[o.weight for o in OPS])[0]
            saved = dict(vars(d))
            drawn = op.draw(d, kind)
            if drawn is not None:
                args, kwargs, kind = drawn
                ops.append([op.name, args, kwargs])
                d.last = op.name
                break
            vars(d).update(saved)
    if d.infinite:  # (never with d.readahead: runs_ahead refused those ops)
        ops.append(["take", [d.r.randint(3, 20)], {}])
    return {"seed": seed, "src": src, "ops": ops}
