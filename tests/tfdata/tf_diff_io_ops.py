"""The differential suite's file, parsing and consumer cases (see tf_diff_gen.py for the table's
protocol and tf_diff_io_lang.py for the kinds and functions).

Random pipelines over ``TFRecordDataset`` (plain and GZIP files, several files interleaved by
``num_parallel_reads``, or the files of a ``list_files`` dataset), ``FixedLengthRecordDataset``,
``list_files`` followed by a reader in an ``interleave``/``flat_map``, and ``from_generator``
(``output_signature`` or ``output_types``, with ``args``), parsed with
``tfdata.io.parse_single_example`` / ``parse_example`` (a batch of records at once) and
decoded with ``decode_raw``, composed with every op of the other two tables plus
``ragged_batch``, ``bucket_by_sequence_length`` over vectors and parsed examples, and
``save``/``load`` (``save_load``); a third of them end in a consumer (``reduce`` or
``get_single_element``) called twice instead of two iterations. Their cases are drawn after
the others from their own random stream, so the other cases stay as they were.

Not drawn, as TF 2.21 gives no answer there: ``unbatch`` of batches that may hold an empty
vector (TF crashes), ``ignore_errors`` and ``save`` over a bucketing whose final flush may
fail (TF raises forever, so they never return).

Example:
    >>> import random
    >>> desc = pipeline(random.Random(3))
    >>> desc["limit"], {"seed", "src", "ops"} <= set(desc)
    (12, True)
"""

from __future__ import annotations

import random
from typing import Any

from .tf_diff_gen import OPS, VALUE_KINDS, Args, Draw, OpGen, _gives, op_batch, op_bucket
from .tf_diff_gen import op_group_by_window, op_padded_batch
from .tf_diff_io_lang import FIXED, GZIP_FIXED, GZIP_TFRECORDS, TFRECORDS
from .tf_diff_lang import FUNCTIONS
from .tf_diff_new_ops import NEW_OPS, _new_source, op_ignore_errors, op_unbatch

IO_KINDS = ("ex", "exs", "u8", "i16", "fix", "rec", "b:rec", "b:ex", "b:exs")
RAGGED_KINDS = ("int", "i32", "str", "vec", "svec", "pair", "ex", "u8", "i16", "fix")
LIMIT = 12  # elements recorded per epoch (examples are long; the files hold 14 records)


def op_map_io(d: Draw, kind: str) -> Args | None:
    """``map`` with the functions of every kind (parsing, selecting, decoding too)."""
    name = d.fn(kind, VALUE_KINDS + IO_KINDS)
    if name is None or not d.runs_ahead():
        return None
    kwargs: dict[str, Any] = {}
    if d.r.random() < 0.2:
        kwargs["num_parallel_calls"] = d.r.choice([1, 2, -1])
    d.may_fail |= name.startswith("fail")
    return [{"fn": name}], kwargs, _gives(FUNCTIONS[name].gives, kind)


def op_batch_io(d: Draw, kind: str) -> Args | None:
    """``batch``, except of parsed examples (their ``tokens`` differ in length)."""
    return None if kind == "ex" else op_batch(d, kind)


def op_group_by_window_io(d: Draw, kind: str) -> Args | None:
    return None if kind == "ex" else op_group_by_window(d, kind)


def op_padded_batch_io(d: Draw, kind: str) -> Args | None:
    """``padded_batch`` (of examples and decoded bytes: without padding values)."""
    if kind not in ("ex", "u8", "i16"):
        return op_padded_batch(d, kind)
    if d.may_fail:
        return None
    kwargs = {"drop_remainder": True} if d.r.random() < 0.2 else {}
    return [d.r.randint(1, 4)], kwargs, "b:" + kind


def op_ragged_batch(d: Draw, kind: str) -> Args | None:
    if kind not in RAGGED_KINDS or d.may_fail:
        return None
    kwargs: dict[str, Any] = {}
    if d.r.random() < 0.3:
        kwargs["drop_remainder"] = True
    if d.r.random() < 0.3:
        kwargs["row_splits_dtype"] = {"dtype": "int32"}
    return [d.r.randint(1, 4)], kwargs, "b:" + kind


def _unpadded(d: Draw, drawn: Args | None, kind: str) -> Args | None:
    """A bucketing's arguments and output kind: ``nb:K`` for its ``no_padding`` batches
    (TF 2.21 crashes unbatching them when a batch holds an empty vector, so no op that
    takes ``b:`` kinds is drawn after them), which fail when their lengths differ."""
    if drawn is None:
        return None
    args, kwargs, _ = drawn
    d.may_fail |= bool(kwargs.get("no_padding"))
    # a window whose batch fails is never flushed by TF: the error comes back forever
    d.endless |= bool(kwargs.get("no_padding") or kwargs.get("pad_to_bucket_boundary"))
    return args, kwargs, ("nb:" if kwargs.get("no_padding") else "b:") + kind


def op_ignore_errors_io(d: Draw, kind: str) -> Args | None:
    """``ignore_errors``, except over TF's endless errors (TF would loop forever)."""
    return None if d.endless else op_ignore_errors(d, kind)


def op_bucket_io(d: Draw, kind: str) -> Args | None:
    """``bucket_by_sequence_length`` of vectors (tf_diff_gen.py's)."""
    return _unpadded(d, op_bucket(d, kind), "vec")


def op_bucket_ex(d: Draw, kind: str) -> Args | None:
    """``bucket_by_sequence_length`` of parsed examples by their number of tokens."""
    if kind != "ex" or d.may_fail:
        return None
    drawn = _unpadded(d, op_bucket(d, "vec"), "ex")
    if drawn is None:
        return None
    args, kwargs, out = drawn
    return [{"fn": "len32(ex['tokens'])"}] + args[1:], kwargs, out


EMPTY_ROWS = ("b:vec", "b:svec", "b:ex")  # batches that may hold a 0-length vector


def op_unbatch_io(d: Draw, kind: str) -> Args | None:
    """``unbatch``, except of batches that may hold an empty vector (TF 2.21 crashes with
    a segmentation fault unbatching ``range(3).map(lambda x: tf.range(x % 1))
    .padded_batch(2)``, a component of shape (2, 0))."""
    if kind in EMPTY_ROWS:
        return None
    inner = kind[2:] if kind.startswith("b:") else None
    if inner in ("ex", "u8", "i16", "fix", "rec"):
        return [], {}, inner
    return op_unbatch(d, kind)


def op_save_load(d: Draw, kind: str) -> Args | None:
    """``save`` then ``load`` (not over TF's endless errors: TF's save never returns)."""
    if d.infinite or d.endless or kind.startswith("win:"):
        return None
    kwargs: dict[str, Any] = {}
    if d.r.random() < 0.3:
        kwargs["compression"] = "GZIP"
    readers = sorted(n for n, f in FUNCTIONS.items() if f.takes == "reader")
    if kind == "int" and d.r.random() < 0.5:
        kwargs["shard_func"] = {"fn": "x%2"}  # the default reader's cycle is the machine's cores
        kwargs["reader_func"] = {"fn": d.r.choice(readers)}
    elif d.r.random() < 0.3:
        kwargs["reader_func"] = {"fn": d.r.choice(readers)}
    return [], kwargs, kind


IO_OPS: list[OpGen] = [
    OpGen("map", op_map_io, 2.5), OpGen("batch", op_batch_io, 1.0),
    OpGen("group_by_window", op_group_by_window_io, 0.5),
    OpGen("padded_batch", op_padded_batch_io, 0.8), OpGen("ragged_batch", op_ragged_batch, 2.5),
    OpGen("bucket_by_sequence_length", op_bucket_io, 3.0),
    OpGen("bucket_by_sequence_length", op_bucket_ex, 3.0),
    OpGen("unbatch", op_unbatch_io, 1.0), OpGen("save_load", op_save_load, 1.0),
    OpGen("ignore_errors", op_ignore_errors_io, 0.6),
]
REPLACED = {"map", "batch", "group_by_window", "padded_batch", "unbatch", "ignore_errors"}
TABLE = [o for o in OPS + NEW_OPS if o.name not in REPLACED] + IO_OPS


def _files(r: random.Random, table: dict[str, Any]) -> list[dict[str, str]]:
    names = r.sample(sorted(table), r.randint(1, len(table)))
    return [{"file": n} for n in names]


def _parallel(d: Draw) -> dict[str, Any]:
    return {"num_parallel_reads": d.r.choice([1, 2, 3, -1])} if d.r.random() < 0.5 else {}


def _listed(d: Draw, pattern: str) -> list[Any]:
    """``["list_files", [pattern], kwargs]``: seeded unless a global seed is set."""
    kwargs: dict[str, Any] = {}
    shuffle = d.r.choice([None, True, False])
    if shuffle is not None:
        kwargs["shuffle"] = shuffle
    if shuffle is not False and (not d.seeded or d.r.random() < 0.5):
        kwargs["seed"] = d.r.choice([1, 7, 42])
    d.reshuffles |= shuffle is not False
    return ["list_files", [{"file": pattern}], kwargs]


def _tfrecord_source(d: Draw) -> tuple[list[Any], str, list[Any]]:
    pick = d.r.random()
    if pick < 0.15:
        return ["TFRecordDataset", [_files(d.r, GZIP_TFRECORDS)],
                {"compression_type": "GZIP"}], "rec", []
    if pick < 0.35:
        files = {"ds": {"src": _listed(d, "ex-*.tfrecord"), "ops": []}}
        return ["TFRecordDataset", [files], _parallel(d)], "rec", []
    return ["TFRecordDataset", [_files(d.r, TFRECORDS)], _parallel(d)], "rec", []


def _fixed_source(d: Draw) -> tuple[list[Any], str, list[Any]]:
    layout = {"header_bytes": 2, "footer_bytes": 1}
    if d.r.random() < 0.2:
        return ["FixedLengthRecordDataset", [_files(d.r, GZIP_FIXED), 4],
                {**layout, "compression_type": "GZIP"}], "fix", []
    return ["FixedLengthRecordDataset", [_files(d.r, FIXED), 4],
            {**layout, **_parallel(d)}], "fix", []


def _list_files_source(d: Draw) -> tuple[list[Any], str, list[Any]]:
    """``list_files`` and the op that reads (or names) the files it lists."""
    pattern, reader, kind = d.r.choice([("ex-*.tfrecord", "D.TFRecord(p)", "rec"),
                                        ("ex-[1-3].tfrecord", "D.TFRecord(p)", "rec"),
                                        ("fl-?.bin", "D.FixedLength(p)", "fix")])
    src = _listed(d, pattern)
    how = d.r.random()
    if how < 0.2:
        return src, "str", [["map", [{"fn": "basename(p)"}], {}]]
    if how < 0.5:
        return src, kind, [["flat_map", [{"fn": reader}], {}]]
    kwargs = {"cycle_length": d.r.choice([None, 1, 2, 3]), "block_length": d.r.choice([1, 2])}
    return src, kind, [["interleave", [{"fn": reader}], kwargs]]


def _generator_source(d: Draw) -> tuple[list[Any], str, list[Any]]:
    kind, shape = d.r.choice([("int", []), ("vec", [None]), ("pair", None), ("str", [])])
    dtype = "string" if kind == "str" else "int64"
    kwargs: dict[str, Any] = {"args": {"tuple": [d.r.randint(0, 9)]}}
    if kind != "pair" and d.r.random() < 0.3:
        kwargs["output_types"] = {"dtype": dtype}  # the legacy arguments
        kwargs["output_shapes"] = shape
    elif kind == "pair":
        kwargs["output_signature"] = {"tuple": [{"spec": [[], "int64"]}] * 2}
    else:
        kwargs["output_signature"] = {"spec": [shape, dtype]}
    return ["from_generator", [{"fn": "gen:" + kind + "s"}], kwargs], kind, []


def _io_source(d: Draw) -> tuple[list[Any], str, list[Any]]:
    """The source, its element kind and ops that must follow it."""
    pick = d.r.random()
    if pick < 0.35:
        return _tfrecord_source(d)
    if pick < 0.5:
        return _fixed_source(d)
    if pick < 0.65:
        return _list_files_source(d)
    if pick < 0.85:
        return _generator_source(d)
    src, kind = _new_source(d)
    return src, kind, []


REDUCE_STATES = {"s+1": "int64", "s+size(v)": "int64", "s+ex['id']": "int64", "s+a*b": "int64",
                 "s+x(str)": "string"}


def _final(d: Draw, kind: str, ops: list[Any]) -> list[Any]:
    """A consumer: ``reduce`` with a function for ``kind``, or ``get_single_element``."""
    if d.r.random() < 0.35:
        if d.r.random() < 0.6:
            ops.append(["take", [1], {}])
        return ["get_single_element", [], {}]
    takes = {"int": "red:num", "i32": "red:num"}.get(kind, "red:" + kind)
    names = sorted(n for n, f in FUNCTIONS.items() if f.takes == takes)
    name = d.r.choice(names) if names and d.r.random() < 0.8 else "s+1"
    dtype = REDUCE_STATES.get(name, "int32" if kind == "i32" else "int64")
    initial = {"const": "" if dtype == "string" else d.r.choice([0, 1]), "dtype": dtype}
    return ["reduce", [initial, {"fn": name}], {}]


def _draw_ops(d: Draw, kind: str, count: int, ops: list[Any]) -> str:
    for _ in range(count):
        for _attempt in range(10):
            pool = NEW_OPS if kind.startswith("win:") else TABLE
            op = d.r.choices(pool, weights=[o.weight for o in pool])[0]
            saved = dict(vars(d))
            drawn = op.draw(d, kind)
            if drawn is not None:
                args, kwargs, kind = drawn
                ops.append([op.name, args, kwargs])
                d.last = op.name
                break
            vars(d).update(saved)
    return kind


def pipeline(r: random.Random, max_ops: int = 4) -> dict[str, Any]:
    """A random pipeline over a file, generator or other source (see the module docstring)."""
    seed = r.choice([None, None, 0, 5, 123])
    d = Draw(r, seeded=seed is not None)
    src, kind, ops = _io_source(d)
    if kind in ("vec", "rec") and r.random() < 0.3:  # bucket the vectors or examples
        if kind == "rec":
            ops.append(["map", [{"fn": "parse1(r)"}], {}])
            kind = "ex"
        drawn = (op_bucket_ex if kind == "ex" else op_bucket_io)(d, kind)
        if drawn is not None:
            ops.append(["bucket_by_sequence_length", drawn[0], drawn[1]])
            kind = drawn[2]
    pick = r.random()
    if kind == "rec" and pick < 0.5:  # parse first: the examples go through the ops
        if pick < 0.2:  # the vectorized form: batch(n).map(parse_example)
            ops.append(["batch", [r.randint(1, 4)], {}])
            kind = "b:rec"
        name = r.choice([n for n, f in FUNCTIONS.items() if f.takes == kind and
                         f.gives.endswith(("ex", "exs"))] + ["parse1(r)"] * (kind == "rec"))
        ops.append(["map", [{"fn": name}], {}])
        kind = FUNCTIONS[name].gives
    kind = _draw_ops(d, kind, r.randint(0, max_ops), ops)
    if kind.startswith("win:"):
        ops.append(["flat_map", [{"fn": "win.batch(3)"}], {}])
        kind = "b:" + kind[4:]
    if kind in ("rec", "b:rec"):  # records are long: parse them
        parse = {"rec": ["parse1(r)", "parse1s(r)"], "b:rec": ["parse(rs)", "parses(rs)"]}[kind]
        name = r.choice(parse)
        ops.append(["map", [{"fn": name}], {}])
        kind = FUNCTIONS[name].gives
    if d.infinite:
        ops.append(["take", [r.randint(3, 20)], {}])
    desc: dict[str, Any] = {"seed": seed, "src": src, "ops": ops, "limit": LIMIT}
    if r.random() < 0.3 and not kind.startswith("win:"):
        desc["final"] = _final(d, kind, ops)
    return desc
