"""Fixed pipelines of the differential suite: the reproducers of issue 13 (and later bugs),
in the language of tf_diff_lang.py. tools/tf_diff.py runs them with the random ones."""

from __future__ import annotations

from typing import Any


def _p(src: list[Any], *ops: list[Any], seed: int | None = None) -> dict[str, Any]:
    return {"seed": seed, "src": src, "ops": [list(op) for op in ops]}


def _fn(name: str) -> dict[str, str]:
    return {"fn": name}


def _final(desc: dict[str, Any], *final: Any) -> dict[str, Any]:
    return {**desc, "final": list(final)}


RANGE6 = ["range", [6]]
STRINGS = ["slices", [["a", "bb"]]]
SENTENCES = ["slices", [["a bb", "ccc", "d e f"]]]
DAMAGED = [{"file": "exbad-0.tfrecord"}, {"file": "ex-1.tfrecord"},
           {"file": "exbad-1.tfrecord"}]

FIXED: dict[str, dict[str, Any]] = {
    # 13.1 padded_batch of scalar strings, string padding values
    "padded_batch scalar strings": _p(STRINGS, ["padded_batch", [2], {}]),
    "padded_batch string padding_values": _p(
        SENTENCES, ["map", [_fn("split(s)")], {}],
        ["padded_batch", [2], {"padding_values": "<end>"}]),
    "padded_batch scalar strings padding_values": _p(
        STRINGS, ["padded_batch", [3], {"padding_values": "x"}]),
    # 13.2 the extra input iterator of a finite repeat
    "shuffle.map.repeat(2)": _p(RANGE6, ["shuffle", [6], {"seed": 0}],
                                ["map", [_fn("x+1")], {}], ["repeat", [2], {}]),
    "shuffle.map.repeat(2).repeat(2)": _p(RANGE6, ["shuffle", [6], {"seed": 0}],
                                          ["map", [_fn("x+1")], {}], ["repeat", [2], {}],
                                          ["repeat", [2], {}]),
    "shuffle.map.repeat(1)": _p(RANGE6, ["shuffle", [6], {"seed": 0}],
                                ["map", [_fn("x+1")], {}], ["repeat", [1], {}]),
    "fused shuffle.repeat over a stateful input": _p(
        ["range", [3]], ["shuffle", [7, 42], {}], ["map", [_fn("x+1")], {}],
        ["shuffle", [7, 5], {}], ["repeat", [], {}], ["take", [2], {}]),
    "fused shuffle.repeat(3) over a stateful input": _p(
        ["range", [4]], ["shuffle", [3, 1], {}], ["map", [_fn("x+1")], {}],
        ["shuffle", [9, 5], {}], ["repeat", [3], {}]),
    "fused through no-op steps": _p(
        ["range", [3]], ["shuffle", [7, 42], {}], ["map", [_fn("x+1")], {}],
        ["shuffle", [7, 5], {}], ["take", [-1], {}], ["skip", [0], {}], ["shard", [1, 0], {}],
        ["repeat", [], {}], ["take", [2], {}]),
    "not fused over a prefetch": _p(
        ["range", [3]], ["shuffle", [7, 42], {}], ["map", [_fn("x+1")], {}],
        ["shuffle", [7, 5], {}], ["prefetch", [1], {}], ["repeat", [], {}], ["take", [2], {}]),
    "the extra iterator does not start an inner shuffle": _p(
        RANGE6, ["shuffle", [6, 1], {}], ["map", [_fn("x+1")], {}], ["shuffle", [2, 9], {}],
        ["map", [_fn("x*2")], {}], ["repeat", [2], {}]),
    "short epochs fill the fused buffer three epochs ahead": _p(
        ["range", [2]], ["shuffle", [2, 3], {}], ["shuffle", [9, 4], {}], ["repeat", [], {}],
        ["take", [3], {}]),
    # 13.3 interleave(cycle_length=None): TF's rule over the machine's schedulable cores
    "interleave cycle_length=None": _p(RANGE6, ["interleave", [_fn("D.range(10x,10x+3)")], {}]),
    "interleave cycle_length=None, num_parallel_calls=1": _p(
        RANGE6, ["interleave", [_fn("D.range(10x,10x+3)")], {"num_parallel_calls": 1}]),
    "interleave cycle_length=None, num_parallel_calls=AUTOTUNE": _p(
        RANGE6, ["interleave", [_fn("D.range(10x,10x+3)")], {"num_parallel_calls": -1}]),
    "interleave num_parallel_calls > cycle_length": _p(
        RANGE6, ["interleave", [_fn("D.range(10x,10x+3)")],
                 {"cycle_length": 2, "num_parallel_calls": 3}]),
    # 13.5 an unseeded shuffle inside an interleave function, under a global seed
    "interleave of unseeded shuffles": _p(
        ["range", [3]], ["interleave", [_fn("D.range(10x,10x+5).shuffle(5)")],
                         {"cycle_length": 3}], seed=7),
    "flat_map of unseeded shuffles, seed 0": _p(
        ["range", [3]], ["flat_map", [_fn("D.range(10x,10x+5).shuffle(5)")], {}], seed=0),
    # 13.7 errors in functions: that element fails, the iterator goes on
    "map error": _p(RANGE6, ["map", [_fn("fail(x==3)")], {}]),
    "map error in a batch": _p(RANGE6, ["map", [_fn("fail(x==3)")], {}], ["batch", [2], {}]),
    "map error under a shuffle": _p(RANGE6, ["map", [_fn("fail(x==3)")], {}],
                                    ["shuffle", [3], {"seed": 1}]),
    # 13.8 smaller ones
    "enumerate(2**62)": _p(["range", [4]], ["enumerate", [2**62], {}]),
    "enumerate(2**63-3)": _p(["range", [4]], ["enumerate", [2**63 - 3], {}]),
    "group_by_window over an infinite input": _p(
        ["range", [5]], ["repeat", [], {}],
        ["group_by_window", [], {"key_func": _fn("x%2"), "reduce_func": _fn("w.batch(2)"),
                                 "window_size": 2}], ["take", [6], {}]),
    "bucket_by_sequence_length with repeated boundaries": _p(
        ["range", [8]], ["map", [_fn("range(x%4)")], {}],
        ["bucket_by_sequence_length", [_fn("len32(v)"), [2, 2], [1, 2, 3]], {}]),
    "bucket_by_sequence_length with unsorted boundaries": _p(
        ["range", [8]], ["map", [_fn("range(x%4)")], {}],
        ["bucket_by_sequence_length", [_fn("len32(v)"), [3, 1], [1, 2, 3]], {}]),
    "zip of an infinite and a finite dataset": _p(
        ["zip", [{"tuple": [{"ds": {"src": ["range", [3]], "ops": [["repeat", [], {}]]}},
                            {"ds": {"src": ["range", [4]], "ops": []}}]}]]),
    "padded_shapes of -5": _p(["range", [4]], ["map", [_fn("range(x%4)")], {}],
                              ["padded_batch", [2], {"padded_shapes": [-5]}]),
    # found by the file/consumer cases: get_single_element runs unoptimized (shuffle.repeat
    # unfused), reduce optimized; the options that switch TF's static rewrites
    "get_single_element over shuffle.repeat": _final(_p(
        ["range", [3]], ["shuffle", [3, 7], {}], ["repeat", [2], {}],
        ["shuffle", [100, 0], {}], ["take", [1], {}]), "get_single_element", [], {}),
    "reduce over shuffle.repeat": _final(_p(
        ["range", [3]], ["shuffle", [3, 7], {}], ["repeat", [2], {}],
        ["shuffle", [100, 0], {}]), "reduce", [{"const": 0, "dtype": "int64"},
                                               _fn("(s*3+x)%1009")], {}),
    "repeat(1) without noop_elimination": _p(
        ["range", [4]], ["shuffle", [4, 0], {}], ["map", [_fn("x+1")], {}], ["repeat", [1], {}],
        ["with_optimization", [], {"noop_elimination": False}]),
    "shuffle.repeat without shuffle_and_repeat_fusion": _p(
        ["range", [3]], ["shuffle", [7, 42], {}], ["map", [_fn("x+1")], {}],
        ["shuffle", [7, 5], {}], ["repeat", [], {}], ["take", [2], {}],
        ["with_optimization", [], {"shuffle_and_repeat_fusion": False}]),
    # damaged TFRecord files: their records, then DataLossError, then the next file
    "TFRecordDataset over damaged files": _p(
        ["TFRecordDataset", [DAMAGED], {}], ["map", [_fn("parse1(r)")], {}],
        ["map", [_fn("ex['id']")], {}]),
    "TFRecordDataset over damaged files, num_parallel_reads=2, ignore_errors": _p(
        ["TFRecordDataset", [DAMAGED], {"num_parallel_reads": 2}],
        ["map", [_fn("parse1(r)")], {}], ["ignore_errors", [], {}]),
    "TFRecordDataset over damaged files, repeat(2)": _p(
        ["TFRecordDataset", [DAMAGED], {}], ["repeat", [2], {}], ["map", [_fn("parse1s(r)")], {}]),
    "shuffle.take(-1).repeat without default optimizations": _p(
        ["range", [3]], ["shuffle", [7, 42], {}], ["map", [_fn("x+1")], {}],
        ["shuffle", [7, 5], {}], ["take", [-1], {}], ["repeat", [], {}], ["take", [2], {}],
        ["with_optimization", [], {"apply_default_optimizations": False}]),
}
