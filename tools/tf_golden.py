"""Writes golden outputs of TensorFlow's own tf.data / nmt pipeline / TFRecord writer.

The files under ``tests/data/tf_golden/`` are what TensorFlow itself produced for small inputs;
the tests compare minibatcher's ``tfdata``, ``nmt`` and TFRecord readers against them, so the
claim "the same order as tf.data" is checked against the original on every run without
TensorFlow being installed. Regenerate (needs ``pip install tensorflow-cpu``)::

    python tools/tf_golden.py tests/data/tf_golden

The nmt pipeline below is a TF2 re-expression of tensorflow/nmt's ``iterator_utils`` written from
the specification (``tf.compat.v1.string_split`` with ``' '``, a ``StaticHashTable`` over whole
lines, ``group_by_window``), which the specification reports batch-for-batch identical to the
original TF1 code.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    if isinstance(x, tf.Tensor):
        x = x.numpy()
    if isinstance(x, np.ndarray):
        return x.tolist() if x.dtype.kind != "S" else [v.decode() for v in x.ravel()]
    if isinstance(x, bytes):
        return x.decode()
    if isinstance(x, np.generic):
        return x.item()
    return x


def _epochs(ds: tf.data.Dataset, n: int = 3) -> list[list[Any]]:
    """Iterates the same dataset object n times (tf.data reshuffles per iteration)."""
    return [[_plain(e) for e in ds] for _ in range(n)]


def shuffle_cases() -> list[dict[str, Any]]:
    """Dataset.range(n).shuffle(buffer, seed, reshuffle) over 3 iterations."""
    cases = []
    for n, buf, seed, reshuffle in [(10, 10, 0, True), (10, 3, 1, True), (25, 7, 42, True),
                                    (25, 7, 42, False), (100, 1, 5, True), (100, 16, 2**40 + 5, True),
                                    (50, 1000, 123456789, True), (17, 4, 7, None)]:
        ds = tf.data.Dataset.range(n).shuffle(buf, seed=seed, reshuffle_each_iteration=reshuffle)
        cases.append({"n": n, "buffer_size": buf, "seed": seed, "reshuffle_each_iteration": reshuffle,
                      "epochs": _epochs(ds)})
    return cases


def global_seed_cases() -> list[dict[str, Any]]:
    """tf.random.set_seed(G) with an explicit op seed (the op-counter case is not reproducible)."""
    cases = []
    for g, op in [(0, 3), (7, 3), (2**33 + 1, 11)]:
        tf.random.set_seed(g)
        ds = tf.data.Dataset.range(20).shuffle(6, seed=op)
        cases.append({"global_seed": g, "seed": op, "n": 20, "buffer_size": 6, "epochs": _epochs(ds)})
    tf.random.set_seed(None)
    return cases


def repeat_cases() -> list[dict[str, Any]]:
    """shuffle().repeat(3) (fresh seeds per repetition) vs repeat(3).shuffle() (one buffer)."""
    a = tf.data.Dataset.range(8).shuffle(5, seed=9).repeat(3)
    b = tf.data.Dataset.range(8).repeat(3).shuffle(5, seed=9)
    c = tf.data.Dataset.range(8).shuffle(5, seed=9, reshuffle_each_iteration=False).repeat(3)
    return [{"pipeline": "range(8).shuffle(5, seed=9).repeat(3)", "epochs": _epochs(a, 2)},
            {"pipeline": "range(8).repeat(3).shuffle(5, seed=9)", "epochs": _epochs(b, 2)},
            {"pipeline": "range(8).shuffle(5, seed=9, reshuffle_each_iteration=False).repeat(3)",
             "epochs": _epochs(c, 2)}]


def interleave_cases() -> list[dict[str, Any]]:
    """interleave over shards of given lengths (elements encoded as shard*1000 + index)."""
    cases = []
    for lengths, cycle, block in [([5, 0, 3, 9, 1, 4, 7, 2], 3, 2), ([4, 4, 4], 2, 1),
                                  ([0, 0, 5], 4, 3), ([3, 1, 4, 1, 5, 9, 2, 6], 16, 16),
                                  ([6, 2, 6], 1, 4)]:
        lens = tf.constant(lengths, tf.int64)
        ds = tf.data.Dataset.range(len(lengths)).interleave(
            lambda s: tf.data.Dataset.range(tf.gather(lens, s)).map(lambda i: s * 1000 + i),
            cycle_length=cycle, block_length=block)
        cases.append({"lengths": lengths, "cycle_length": cycle, "block_length": block,
                      "order": [_plain(e) for e in ds]})
    return cases


def op_cases() -> dict[str, Any]:
    """shard/skip/take/batch/padded_batch/group_by_window/bucket_by_sequence_length/zip."""
    r = tf.data.Dataset.range
    out: dict[str, Any] = {
        "shard(3,1)": [_plain(e) for e in r(10).shard(3, 1)],
        "skip(-1)": [_plain(e) for e in r(5).skip(-1)],
        "take(-1)": [_plain(e) for e in r(5).take(-1)],
        "batch(4)": [_plain(e) for e in r(10).batch(4)],
        "batch(4,drop_remainder)": [_plain(e) for e in r(10).batch(4, drop_remainder=True)],
        "zip(range(5),range(3))": [_plain(e) for e in tf.data.Dataset.zip((r(5), r(3)))],
    }
    ragged = tf.data.Dataset.range(1, 8).map(lambda n: tf.range(n) + 10 * n)
    out["padded_batch(3)"] = [_plain(e) for e in ragged.padded_batch(3)]
    out["padded_batch(3,[9],-1)"] = [_plain(e) for e in ragged.padded_batch(3, [9], tf.constant(-1, tf.int64))]
    keyed = r(20).map(lambda x: (x % 3, x))
    gbw = keyed.group_by_window(key_func=lambda k, x: tf.cast((x * 7) % 4, tf.int64),
                                reduce_func=lambda k, w: w.batch(3), window_size=3)
    out["group_by_window"] = [_plain(e) for e in gbw]
    lens = [3, 1, 7, 2, 9, 4, 4, 12, 5, 1, 8, 6, 3, 10]
    seqs = tf.data.Dataset.from_tensor_slices(tf.constant(lens)).map(
        lambda n: tf.range(n, dtype=tf.int32) + 1)
    for pad in (False, True):
        if pad:  # TF asserts every length < max(boundaries) when padding to the boundary
            seqs = seqs.filter(lambda s: tf.shape(s)[0] < 11)
        b = seqs.bucket_by_sequence_length(lambda s: tf.shape(s)[0], [3, 6, 11], [2, 2, 3, 2],
                                           pad_to_bucket_boundary=pad)
        out[f"bucket_by_sequence_length(pad_to_bucket_boundary={pad})"] = [_plain(e) for e in b]
    return out


def nmt_iterator(src: list[str], tgt: list[str], src_vocab: list[str], tgt_vocab: list[str],
                 **kw: Any) -> tf.data.Dataset:
    """A TF2 re-expression of nmt's get_iterator (see the module docstring)."""
    def table(words: list[str]) -> tf.lookup.StaticHashTable:
        keys = tf.constant(words)
        return tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(keys, tf.range(len(words), dtype=tf.int64)), 0)
    st, tt = table(src_vocab), table(tgt_vocab)
    sos, eos = kw.get("sos", "<s>"), kw.get("eos", "</s>")
    src_eos = tf.cast(st.lookup(tf.constant(eos)), tf.int32)
    tgt_sos = tf.cast(tt.lookup(tf.constant(sos)), tf.int32)
    tgt_eos = tf.cast(tt.lookup(tf.constant(eos)), tf.int32)
    bs, nb = kw["batch_size"], kw["num_buckets"]
    smax, tmax = kw.get("src_max_len"), kw.get("tgt_max_len")
    buf = kw.get("output_buffer_size") or bs * 1000
    ds = tf.data.Dataset.zip((tf.data.Dataset.from_tensor_slices(tf.constant(src, tf.string)),
                              tf.data.Dataset.from_tensor_slices(tf.constant(tgt, tf.string))))
    ds = ds.shard(kw.get("num_shards", 1), kw.get("shard_index", 0))
    if kw.get("skip_count") is not None:
        ds = ds.skip(kw["skip_count"])
    ds = ds.shuffle(buf, kw["random_seed"], kw.get("reshuffle_each_iteration", True))
    split = lambda s: tf.compat.v1.string_split([s], sep=" ").values  # noqa: E731
    ds = ds.map(lambda s, t: (split(s), split(t)))
    ds = ds.filter(lambda s, t: tf.logical_and(tf.size(s) > 0, tf.size(t) > 0))
    if smax:
        ds = ds.map(lambda s, t: (s[:smax], t))
    if tmax:
        ds = ds.map(lambda s, t: (s, t[:tmax]))
    ds = ds.map(lambda s, t: (tf.cast(st.lookup(s), tf.int32), tf.cast(tt.lookup(t), tf.int32)))
    ds = ds.map(lambda s, t: (s, tf.concat(([tgt_sos], t), 0), tf.concat((t, [tgt_eos]), 0)))
    ds = ds.map(lambda s, ti, to: (s, ti, to, tf.size(s), tf.size(ti)))

    def batching(x: tf.data.Dataset) -> tf.data.Dataset:
        return x.padded_batch(bs, padded_shapes=([None], [None], [None], [], []),
                              padding_values=(src_eos, tgt_eos, tgt_eos, 0, 0))
    if nb > 1:
        width = (smax + nb - 1) // nb if smax else 10

        def key(s, ti, to, sl, tl):  # noqa: ANN001
            b = tf.maximum(sl // width, tl // width)
            return tf.cast(tf.minimum(nb, b), tf.int64)
        return ds.group_by_window(key_func=key, reduce_func=lambda k, w: batching(w), window_size=bs)
    return batching(ds)


def nmt_cases() -> list[dict[str, Any]]:
    """Batches of the nmt pipeline on a small random corpus, 2 iterations each."""
    rng = np.random.default_rng(1234)
    words = [f"w{i}" for i in range(40)]
    vocab = ["<unk>", "<s>", "</s>"] + words[:30]

    def line(lo: int, hi: int) -> str:
        n = int(rng.integers(lo, hi))
        return " ".join(rng.choice(words, n)) if n else ""
    src = [line(0, 25) for _ in range(120)]
    tgt = [line(0, 25) for _ in range(120)]
    src[5], tgt[7], src[11] = "  ", "", "  w1   w2  "
    tgt = tgt[:113]
    cases = []
    for kw in [dict(batch_size=8, num_buckets=5, random_seed=3, src_max_len=20, tgt_max_len=18),
               dict(batch_size=8, num_buckets=1, random_seed=3),
               dict(batch_size=5, num_buckets=3, random_seed=11, src_max_len=None,
                    output_buffer_size=50, num_shards=2, shard_index=1, skip_count=7),
               dict(batch_size=16, num_buckets=4, random_seed=0, src_max_len=23, tgt_max_len=None,
                    reshuffle_each_iteration=False)]:
        ds = nmt_iterator(src, tgt, vocab, vocab, **kw)
        cases.append({"params": kw, "epochs": _epochs(ds, 2)})
    return [{"src": src, "tgt": tgt, "vocab": vocab, "cases": cases}]


def tfrecord_files(out: Path) -> dict[str, Any]:
    """TFRecord files written by TensorFlow (plain, GZIP, ZLIB) and tf.train.Examples."""
    out.mkdir(parents=True, exist_ok=True)
    records = [b"", b"a", b"hello world", bytes(range(256)) * 3]
    meta: dict[str, Any] = {"records": [r.hex() for r in records]}
    for comp in ("", "GZIP", "ZLIB"):
        name = f"records{('.' + comp.lower()) if comp else ''}.tfrecord"
        with tf.io.TFRecordWriter(str(out / name), options=comp or None) as w:
            for r in records:
                w.write(r)
        meta[name] = comp
    ex = [tf.train.Example(features=tf.train.Features(feature={
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i, -i, 2**40])),
        "score": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5 * i, -1.25])),
        "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[f"ex{i}".encode(), b"\x00\xff"])),
        "empty": tf.train.Feature(float_list=tf.train.FloatList(value=[])),
    })) for i in range(3)]
    with tf.io.TFRecordWriter(str(out / "examples.tfrecord")) as w:
        for e in ex:
            w.write(e.SerializeToString())
    meta["examples"] = [{"label": [i, -i, 2**40], "score": [0.5 * i, -1.25],
                         "name": [f"ex{i}".encode().hex(), "00ff"], "empty": []} for i in range(3)]
    return meta


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else "tests/data/tf_golden")
    out.mkdir(parents=True, exist_ok=True)
    producers: dict[str, Callable[[], Any]] = {
        "shuffle": shuffle_cases, "global_seed": global_seed_cases, "repeat": repeat_cases,
        "interleave": interleave_cases, "ops": op_cases, "nmt": nmt_cases}
    for name, fn in producers.items():
        data = {"tensorflow": tf.__version__, "cases": fn()}
        (out / f"{name}.json").write_text(json.dumps(data, separators=(",", ":")) + "\n")
    meta = tfrecord_files(out / "tfrecord")
    (out / "tfrecord" / "expected.json").write_text(
        json.dumps({"tensorflow": tf.__version__, **meta}, indent=1) + "\n")
    print(f"wrote goldens to {out} with TensorFlow {tf.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
