"""Expected outputs of the TFDS differential suite, computed by TensorFlow Datasets 4.9.10.

Random read specs (split strings with absolute, percent and shard slices and unions,
``even_splits``, ``ReadConfig`` options, file shuffling with seeds, ``input_context`` sharding,
``as_supervised``, ``batch_size``) are read by real TFDS from the folders of
``tools/tfds_diff_data.py``; for each spec the file keeps two iterations of the same dataset
object (the example ids in order, and a digest of every value: see ``tests/tfds/diff_canon.py``)
or the error TFDS raised. ``tests/tfds/test_tfds_diff.py`` reads the same specs with
``minibatcher.tfds`` and compares::

    TF_CPP_MIN_LOG_LEVEL=3 python tools/tfds_diff_gen.py tests/data/tfds_diff

File shuffling without a seed is not generated (TF then reads nondeterministically).
``interleave_cycle_length=None`` (AUTOTUNE) depends on the schedulable cores: the file records
this machine's count, and the test reads those specs with ``Options().autotune.cpu_budget`` set
to it (minibatcher's knob for the count).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
import tensorflow_datasets as tfds  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "tfds"))
import diff_canon  # noqa: E402

NUM_SPECS = 320
SEED = 20240613
SORT_FNS = {
    "reverse": lambda fis: list(reversed(fis)),
    "take_desc": lambda fis: sorted(fis, key=lambda f: -f.take),
}
NESTED = ("a/x/c", "b/x/c")  # builder_from_directories over two copies of `uneven`


WEIRD = ["train[:]", "train[10]", "train[1.5:3]", "train[:101%]", "nope", "all[:5]",
         "train[0:0]", "train[5:5]", "train[-0:]", "train[:0%]", "train[2:1]", "train[10%:5%]"]


def _part(rng: random.Random, name: str, n: int, shards: int) -> str:
    kind = rng.choice(["", "abs", "abs", "pct", "pct", "shard", "neg"])
    if kind == "abs":
        a, b = sorted(rng.randint(0, n) for _ in range(2))
        lo, hi = rng.choice(["", a]), b if rng.random() < .8 else ""
        return f"{name}[{lo}:{hi}]" if lo != "" or hi != "" else name
    if kind == "pct":
        a, b = sorted(rng.sample([0, 5, 10, 25, 33, 50, 66, 75, 90, 100], 2))
        return f"{name}[{f'{a}%' if a else ''}:{b}%]"
    if kind == "shard":
        k = rng.randrange(shards)
        return rng.choice([f"{name}[{k}shard]", f"{name}[{k}shard:]", f"{name}[:{k + 1}shard]"])
    if kind == "neg":
        return rng.choice([f"{name}[-{rng.randint(1, n)}:]", f"{name}[:-{rng.randint(1, 50)}%]",
                           f"{name}[{rng.randint(-n, n)}:-1]"])
    return name


def _split(rng: random.Random, info: tfds.core.DatasetInfo) -> Any:
    names = list(info.splits)
    parts = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        name = rng.choice(names)
        s = info.splits[name]
        parts.append(_part(rng, name, s.num_examples, s.num_shards))
    spec = "+".join(parts) if rng.random() < .95 else "all"
    if rng.random() < .04:
        spec = rng.choice(WEIRD)
    if rng.random() < .2:
        n = rng.randint(1, 4)
        return {"even": spec, "n": n, "index": rng.randrange(n), "drop": rng.random() < .4}
    return spec


def _read_config(rng: random.Random, ordered: bool, shuffle: bool) -> dict[str, Any]:
    rc: dict[str, Any] = {"add_tfds_id": rng.random() < .7}
    cycles = [1, 2, 3, 4, 7, 16, None] + ([1] * 8 if ordered else [])
    if rng.random() < (.4 if ordered else .75):
        rc["interleave_cycle_length"] = rng.choice(cycles)
    if rng.random() < .6:
        rc["interleave_block_length"] = rng.choice([None, None, 1, 2, 3, 5, 16, 40])
    if shuffle:
        rc["shuffle_seed"] = rng.choice([0, 1, 7, 42, 123, 2**31 + 5, rng.randrange(2**40)])
        rc["shuffle_reshuffle_each_iteration"] = rng.choice([None, None, True, False])
    if rng.random() < .25:
        n = rng.randint(2, 4)
        rc["input_context"] = [n, rng.randrange(n)]
    if rng.random() < .12:
        rc["sort"] = rng.choice(sorted(SORT_FNS))
    if rng.random() < .08:
        rc["repeat_filenames"] = True
        rc["assert_cardinality"] = rng.random() < .3  # TFDS then raises after the split's size
    if rng.random() < .2:
        rc["try_autocache"] = False
    if ordered and rng.random() < .3:
        rc["enable_ordering_guard"] = False
    return rc


def _fit_context(rng: random.Random, builder: Any, spec: dict[str, Any]) -> None:
    """Mostly as many pipelines as the read has files (TFDS refuses more)."""
    rc = spec["read_config"]
    if "input_context" not in rc or rng.random() < .2:
        return
    try:
        count = len(builder.info.splits[tf_split(spec["split"])].file_instructions)
    except Exception:  # noqa: BLE001 - the read itself will raise
        return
    if count < 2:
        del rc["input_context"]
    elif rc["input_context"][0] > count:
        rc["input_context"] = [count, rng.randrange(count)]


def make_spec(rng: random.Random, builders: dict[str, Any], index: int) -> dict[str, Any]:
    dataset = rng.choice(["diff_gen", "diff_gen", "uneven", "uneven", "ordered"])
    info = builders[dataset].info
    shuffle = rng.random() < (.2 if dataset == "ordered" else .5)
    spec: dict[str, Any] = {"index": index, "dataset": dataset, "split": _split(rng, info),
                            "shuffle_files": shuffle,
                            "read_config": _read_config(rng, dataset == "ordered", shuffle),
                            "as_supervised": rng.random() < .2 and dataset != "ordered"}
    r = rng.random()
    spec["batch_size"] = None if r < .7 else (-1 if r < .76 else rng.randint(1, 7))
    _fit_context(rng, builders[dataset], spec)
    if spec["read_config"].get("repeat_filenames"):
        spec["limit"] = 60
        spec["batch_size"] = None if spec["batch_size"] == -1 else spec["batch_size"]
    return spec


def tf_split(split: Any) -> Any:
    if isinstance(split, dict):
        return tfds.even_splits(split["even"], split["n"], drop_remainder=split["drop"])[
            split["index"]]
    return split


def tf_read_config(rc: dict[str, Any]) -> tfds.ReadConfig:
    kw = {k: v for k, v in rc.items() if k not in ("sort", "input_context")}
    if "input_context" in rc:
        n, i = rc["input_context"]
        kw["input_context"] = tf.distribute.InputContext(num_input_pipelines=n,
                                                         input_pipeline_id=i)
    if "sort" in rc:
        kw["experimental_interleave_sort_fn"] = SORT_FNS[rc["sort"]]
    return tfds.ReadConfig(**kw)


def _epoch(ds: Any, limit: int | None) -> dict[str, Any]:
    """One iteration: ids and digest of what was delivered, and the error that ended it."""
    elements, out = [], {}
    try:
        for element in itertools.islice(tfds.as_numpy(ds), limit):
            elements.append(element)
    except Exception as e:  # noqa: BLE001 - an error while reading is part of the output
        out["error"] = _error(e)
    return {"ids": [diff_canon.key(e) for e in elements], "digest": diff_canon.digest(elements),
            **out}


def _error(e: Exception) -> dict[str, str]:
    message = str(e)
    if "{{function_node" in message:  # TF's op prefix names graph internals
        message = message.split("}}", 1)[-1].strip()
    return {"type": type(e).__name__, "message": message.split("\n")[0][:300]}


def run(builder: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """What TFDS delivers for a spec: two iterations, or the error."""
    try:
        ds = builder.as_dataset(split=tf_split(spec["split"]), shuffle_files=spec["shuffle_files"],
                                read_config=tf_read_config(spec["read_config"]),
                                as_supervised=spec["as_supervised"],
                                batch_size=spec["batch_size"])
        if spec["batch_size"] == -1:
            element = tfds.as_numpy(ds)
            return {"single": diff_canon.key(element), "digest": diff_canon.digest([element])}
    except Exception as e:  # noqa: BLE001 - the error is the expected output
        return {"error": _error(e)}
    return {"epochs": [_epoch(ds, spec.get("limit")) for _ in range(2)]}


def nested_cases(root: Path) -> list[dict[str, Any]]:
    """tfds_ids of builder_from_directories over two copies of `uneven` in nested folders
    (TFDS's `_get_tfds_id_prefixes`)."""
    with tempfile.TemporaryDirectory() as tmp:
        dirs = []
        for sub in NESTED:
            d = Path(tmp, sub, "uneven", "1.0.0")
            shutil.copytree(root / "uneven" / "1.0.0", d)
            dirs.append(str(d))
        builder = tfds.builder_from_directories(dirs)
        cases = []
        for split, cycle in [("train", 16), ("test[2:]", 2), ("train[:30%]+test", 3)]:
            rc = tfds.ReadConfig(add_tfds_id=True, interleave_cycle_length=cycle)
            ds = builder.as_dataset(split=split, read_config=rc)
            cases.append({"split": split, "cycle": cycle,
                          "tfds_ids": [diff_canon.tfds_ids(e) for e in tfds.as_numpy(ds)]})
        return cases


def main(out: str) -> None:
    root = Path(out)
    builders = {name: tfds.builder_from_directory(str(root / name / "1.0.0"))
                for name in ("diff_gen", "uneven", "ordered")}
    rng = random.Random(SEED)
    cases = []
    while len(cases) < NUM_SPECS:
        spec = make_spec(rng, builders, len(cases))
        cases.append({"spec": spec, "expected": run(builders[spec["dataset"]], spec)})
    errors = sum("error" in c["expected"] for c in cases)
    doc = {"tfds": tfds.__version__, "tf": tf.__version__, "seed": SEED, "nested_dirs": NESTED,
           "cores": len(os.sched_getaffinity(0)),
           "cases": cases, "nested": nested_cases(root)}
    (root / "expected.json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"{len(cases)} specs ({errors} raise in TFDS) -> {root / 'expected.json'}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/tfds_diff")
