"""The differential suite's expected outputs: random tf.data pipelines run by TensorFlow itself.

Run with TensorFlow 2.21 (tests never import it; they read what this writes)::

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfvenv/bin/python tools/tf_diff.py [--count 300] [--seed 2024]

It draws ``--count`` random pipelines (``tests/tfdata/tf_diff_gen.py``) plus the fixed cases
of ``FIXED`` (issue reproducers), ``--new-ops-count`` over the ops of issue 13.10
(``tests/tfdata/tf_diff_new_ops.py``) and ``--io-count`` over files, parsing, generators,
``ragged_batch``, ``save``/``load`` and the consumers ``reduce``/``get_single_element``
(``tests/tfdata/tf_diff_io_ops.py``), builds each in TensorFlow from its JSON description
(``tests/tfdata/tf_diff_lang.py``), iterates the same dataset twice (two epochs, up to
``LIMIT`` elements each, or the description's ``limit``; an error is recorded and reading goes
on; a description with a ``final`` consumer calls it twice instead) and writes
``tests/data/tf_golden/tf_diff.json``. The data files the file cases read are written first
by TF's own writers into ``tests/data/tf_golden/tf_diff_files/`` (a few hundred bytes,
committed; ``tests/tfdata/tf_diff_io_lang.py`` says what they hold).
``tests/tfdata/test_tf_diff.py`` builds the same descriptions with ``minibatcher.tfdata``
and compares element for element (values, dtypes, errors), and runs a sample through the
every-step resume check. The file records this machine's schedulable cores (``cores``), which
TF's ``interleave(cycle_length=None)`` rule depends on; the test gives ours the same count
(``Options().autotune.cpu_budget``).

Adding an op (other helpers: ``unbatch``, ``window``, ``scan``, ...):

1. In ``tests/tfdata/tf_diff_gen.py`` write ``op_NAME(d, kind) -> (args, kwargs, out_kind)``
   (or ``None`` when the op does not apply to elements of ``kind``), using ``d.r`` for
   randomness and ``d.fn(kind, gives)`` to pick a function, and add
   ``OpGen("NAME", op_NAME, weight)`` to ``OPS``. The op is called as
   ``ds.NAME(*args, **kwargs)`` on both sides, so it needs TF's method name and arguments
   (or an entry of ``SPECIAL_OPS`` in ``tests/tfdata/tf_diff_lang.py``, as ``save_load``).
2. If it takes functions not yet in ``FUNCTIONS`` (``tests/tfdata/tf_diff_lang.py``; those of
   the file cases in ``tests/tfdata/tf_diff_io_lang.py``), add them there: one entry with the
   kinds it takes and gives, written once with Python operators, or with a TF body and a NumPy
   body (``_split``).
3. A static source (``Dataset.counter``, ...) is a new branch of ``_source`` in the generator
   (``["counter", [args]]`` calls ``Dataset.counter(*args)``; a third item holds keyword
   arguments; the readers are ``tf.data``'s module attributes).
   The ops of issue 13.10 live in ``tests/tfdata/tf_diff_new_ops.py`` and the file cases in
   ``tests/tfdata/tf_diff_io_ops.py``; each table's cases are drawn after the others from their
   own random stream, so that growing a table leaves the other random cases as they were.
4. Regenerate with this tool and commit the JSON; run ``pytest tests/tfdata/test_tf_diff.py``.
   Keep the file small (``--count`` a few hundred; it is a few hundred KB).
"""

from __future__ import annotations

import argparse
import gzip as gzip_module
import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import tensorflow as tf  # noqa: E402

from tests.tfdata import (  # noqa: E402
    tf_diff_gen,
    tf_diff_io_lang,
    tf_diff_io_ops,
    tf_diff_lang,
    tf_diff_new_ops,
)
from tests.tfdata.tf_diff_cases import FIXED  # noqa: E402

OUT = REPO / "tests" / "data" / "tf_golden" / "tf_diff.json"
DATA = REPO / "tests" / "data" / "tf_golden" / "tf_diff_files"
TMP = Path(tempfile.mkdtemp(prefix="tf_diff_"))


def write_data_files(folder: Path) -> None:
    """The data files of tf_diff_io_lang.py, written by TensorFlow's own writers."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in list(folder.iterdir()):
        name.unlink()

    def feature(value: Any) -> Any:
        if isinstance(value, bytes):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))
        if value and isinstance(value[0], float):
            return tf.train.Feature(float_list=tf.train.FloatList(value=value))
        return tf.train.Feature(int64_list=tf.train.Int64List(value=value))

    for table, options in ((tf_diff_io_lang.TFRECORDS, None),
                           (tf_diff_io_lang.GZIP_TFRECORDS, "GZIP")):
        for name, ids in table.items():
            with tf.io.TFRecordWriter(str(folder / name), options) as w:
                for k in ids:
                    features = {key: feature(v) for key, v in tf_diff_io_lang.example(k).items()}
                    w.write(tf.train.Example(features=tf.train.Features(
                        feature=features)).SerializeToString(deterministic=True))
    for name, (ids, damage) in tf_diff_io_lang.DAMAGED_TFRECORDS.items():
        with tf.io.TFRecordWriter(str(folder / name)) as w:
            for k in ids:
                features = {key: feature(v) for key, v in tf_diff_io_lang.example(k).items()}
                w.write(tf.train.Example(features=tf.train.Features(
                    feature=features)).SerializeToString(deterministic=True))
        data = (folder / name).read_bytes()
        (folder / name).write_bytes(data + damage if isinstance(damage, bytes) else data[:damage])
    for table, gzip in ((tf_diff_io_lang.FIXED, False), (tf_diff_io_lang.GZIP_FIXED, True)):
        for index, (name, count) in enumerate(table.items()):
            body = b"".join(tf_diff_io_lang.fixed_record(index, i) for i in range(count))
            data = tf_diff_io_lang.HEADER + body + tf_diff_io_lang.FOOTER
            (folder / name).write_bytes(gzip_module.compress(data, mtime=0) if gzip else data)


def _numpy(element: Any) -> Any:
    composite = (tf.RaggedTensor, tf.SparseTensor)
    return tf.nest.map_structure(lambda t: t if isinstance(t, composite) else t.numpy(), element)


def _tmp() -> str:
    return tempfile.mkdtemp(dir=TMP)


def run_case(desc: dict[str, Any]) -> dict[str, Any]:
    """TensorFlow's answer for one description (build error, or two epochs / two calls of
    its consumer)."""
    tf.random.set_seed(desc["seed"])
    backend = tf_diff_lang.Backend(Dataset=tf.data.Dataset, tf=tf, data=str(DATA), tmp=_tmp)
    try:
        dataset = tf_diff_lang.build(desc, backend)
        final = tf_diff_lang.final_of(desc, backend)
    except Exception as e:  # noqa: BLE001 - the expected answer
        return {"desc": desc, "build_error": type(e).__name__}
    limit = desc.get("limit", tf_diff_lang.LIMIT)
    return {"desc": desc, **tf_diff_lang.run(dataset, 2, _numpy, limit, final)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--new-ops-count", type=int, default=120,
                        help="pipelines using the ops of issue 13.10, drawn after the others")
    parser.add_argument("--io-count", type=int, default=160,
                        help="pipelines over files, parsing, generators and consumers, drawn "
                             "after the others")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    tf.autograph.set_verbosity(0)
    r = random.Random(args.seed)
    descs = [dict(d, name=name) for name, d in FIXED.items()]
    descs += [tf_diff_gen.pipeline(r) for _ in range(args.count)]
    r_new = random.Random(args.seed + 1)  # its own stream: the cases above stay as they were
    descs += [tf_diff_new_ops.pipeline(r_new) for _ in range(args.new_ops_count)]
    r_io = random.Random(args.seed + 2)
    descs += [tf_diff_io_ops.pipeline(r_io) for _ in range(args.io_count)]
    write_data_files(DATA)
    cases = []
    for i, desc in enumerate(descs):
        cases.append(run_case(desc))
        if i % 50 == 0:
            print(f"{i}/{len(descs)}", file=sys.stderr)
    data = {"tensorflow": tf.__version__, "generator_seed": args.seed, "limit": tf_diff_lang.LIMIT,
            "cores": len(os.sched_getaffinity(0)), "cases": cases}
    args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    shutil.rmtree(TMP, ignore_errors=True)
    print(f"wrote {len(cases)} cases to {args.out} ({args.out.stat().st_size} bytes) with "
          f"TensorFlow {tf.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
