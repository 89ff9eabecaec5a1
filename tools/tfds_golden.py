"""Writes TFDS folders with real TFDS 4.9, next to the inputs they hold, for the writer tests.

``minibatcher convert`` writes TFDS folders from CTF, HTK + MLF and text files; the tests
compare its ``dataset_info.json`` and ``features.json`` field by field with what TFDS itself
writes for the same examples, read the TFDS-written folders with minibatcher's
``builder_from_directory``, and check TFDS's shard-count rule, without TensorFlow installed.
Regenerate (needs ``pip install tensorflow-cpu tensorflow-datasets``)::

    python tools/tfds_golden.py tests/data/tfds_golden

For each case (``ctf``, ``htk``, ``tfrecord``, ``text``) the script writes, from one list of
Python examples: the input file(s) in the source format, and ``<case>/<name>/1.0.0/`` prepared by a
``GeneratorBasedBuilder`` (``disable_shuffling=True``, so the shards keep the input's order, and
``num_shards`` forced where given). ``metadata/`` holds shards written with
``tf.io.TFRecordWriter`` plus the ``dataset_info.json`` / ``features.json`` that
``tfds.folder_dataset.write_metadata`` added. ``expected.json`` holds every example as
``builder.as_dataset`` reads it, and ``ShardConfig.calculate_number_shards`` /
``get_shard_boundaries`` for a table of sizes.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tensorflow_datasets as tfds  # noqa: E402
from tensorflow_datasets.core.utils import shard_utils  # noqa: E402

F = tfds.features
STATES = ["sil", "ah", "eh"]


def ctf_case() -> tuple[dict, list[dict], str]:
    """Sequences of a dense stream x (dim 2) and a sparse stream y (dim 5), with ids."""
    rng = np.random.default_rng(7)
    examples, lines = [], []
    for sid, n in zip([3, 7, 8, 20, 21, 40, 41], [2, 1, 3, 1, 2, 4, 1]):
        x = np.round(rng.normal(size=(n, 2)), 3).astype(np.float32)
        ys = [[(int(i), float(v)) for i, v in zip(rng.choice(5, k, replace=False),
                                                   np.round(rng.random(k), 2))]
              for k in rng.integers(0, 3, size=n)]
        for t in range(n):
            sparse = " ".join(f"{i}:{v:g}" for i, v in ys[t])
            lines.append(f"{sid} |x {x[t, 0]:g} {x[t, 1]:g} |y {sparse}".rstrip())
        flat = [p for row in ys for p in row]
        examples.append({"sequence_id": sid, "x": x, "y": {
            "indices": np.array([i for i, _ in flat], np.int64),
            "values": np.array([v for _, v in flat], np.float32),
            "lengths": np.array([len(r) for r in ys], np.int64)}})
    features = {"sequence_id": F.Scalar(np.int64), "x": F.Tensor(shape=(None, 2), dtype=np.float32),
                "y": {"indices": F.Tensor(shape=(None,), dtype=np.int64),
                      "values": F.Tensor(shape=(None,), dtype=np.float32),
                      "lengths": F.Tensor(shape=(None,), dtype=np.int64)}}
    return features, examples, "\n".join(lines) + "\n"


def _htk_bytes(frames: np.ndarray) -> bytes:
    """An HTK USER file, big-endian float32 (HTK's own layout)."""
    n, dim = frames.shape
    return struct.pack(">iihh", n, 100000, 4 * dim, 9) + frames.astype(">f4").tobytes()


def htk_case(out: Path) -> tuple[dict, list[dict]]:
    """Utterances of 3 feature values per frame, with state labels from an MLF."""
    rng = np.random.default_rng(11)
    lengths, names = [3, 5, 2, 4], ["spk1/u1", "spk1/u2", "spk2/u1", "spk2/u3"]
    frames = np.round(rng.normal(size=(sum(lengths), 3)), 3).astype(np.float32)
    (out / "feats.htk").write_bytes(_htk_bytes(frames))
    scp, mlf, examples, start = [], ["#!MLF!#"], [], 0
    for name, n in zip(names, lengths):
        scp.append(f"{name}.mfc=feats.htk[{start},{start + n - 1}]")
        labels = rng.integers(0, len(STATES), size=n)
        mlf.append(f'"{name}.lab"')
        mlf += [f"{t} {t + 1} {STATES[c]}" for t, c in enumerate(labels.tolist())] + ["."]
        examples.append({"name": name, "features": frames[start:start + n], "labels": labels})
        start += n
    (out / "feats.scp").write_text("\n".join(scp) + "\n")
    (out / "labels.mlf").write_text("\n".join(mlf) + "\n")
    (out / "states.list").write_text("\n".join(STATES) + "\n")
    features = {"name": F.Text(), "features": F.Tensor(shape=(None, 3), dtype=np.float32),
                "labels": F.Sequence(F.ClassLabel(names=STATES))}
    return features, examples


def text_case() -> tuple[dict, list[dict], str]:
    lines = ["ein kleiner Satz", "", "zwei Wörter", "drei", "und noch einer hier"] * 3
    return {"text": F.Text()}, [{"text": line} for line in lines], "\n".join(lines) + "\n"


def tfrecord_case(out: Path) -> tuple[dict, list[dict]]:
    """tf.train.Examples written by ``tf.io.TFRecordWriter``: a scalar, a string, a fixed-size
    and a variable-length list, a nested key (``tok/ids``) and a key only some records hold
    (``opt``, an empty list where it is missing: what minibatcher's survey makes of it)."""
    rng = np.random.default_rng(13)
    examples = []
    with tf.io.TFRecordWriter(str(out / "records.tfrecord")) as w:
        for i in range(9):
            ids = rng.integers(0, 50, size=int(rng.integers(0, 5))).astype(np.int64)
            emb = np.round(rng.normal(size=3), 3).astype(np.float32)
            opt = (np.round(rng.random(2), 2) if i % 3 else np.zeros(0)).astype(np.float32)
            name = f"rec-{i}".encode()
            feature = {
                "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[100 + i])),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[name])),
                "emb": tf.train.Feature(float_list=tf.train.FloatList(value=emb.tolist())),
                "tok/ids": tf.train.Feature(int64_list=tf.train.Int64List(value=ids.tolist()))}
            if len(opt):
                feature["opt"] = tf.train.Feature(float_list=tf.train.FloatList(value=opt.tolist()))
            w.write(tf.train.Example(features=tf.train.Features(feature=feature))
                    .SerializeToString())
            examples.append({"id": 100 + i, "name": name, "emb": emb, "opt": opt,
                             "tok": {"ids": ids}})
    features = {"id": F.Tensor(shape=(), dtype=np.int64),
                "name": F.Tensor(shape=(), dtype=tf.string),
                "emb": F.Tensor(shape=(3,), dtype=np.float32),
                "opt": F.Tensor(shape=(None,), dtype=np.float32),
                "tok": {"ids": F.Tensor(shape=(None,), dtype=np.int64)}}
    return features, examples


def prepare(root: Path, name: str, features: dict, examples: list[dict],
            num_shards: int | None) -> Path:
    """The folder a GeneratorBasedBuilder prepares for ``examples`` (in order)."""

    def _info(self: Any) -> tfds.core.DatasetInfo:
        return tfds.core.DatasetInfo(builder=self, features=F.FeaturesDict(features),
                                     disable_shuffling=True)

    def _split_generators(self: Any, dl_manager: Any) -> dict:
        return {"train": self._generate_examples()}

    def _generate_examples(self: Any) -> Any:
        yield from enumerate(examples)

    # TFDS names a builder after its class: "Feats" registers "feats"
    builder_class = type(name.title(), (tfds.core.GeneratorBasedBuilder,), {
        "__module__": "tfds_golden", "VERSION": tfds.core.Version("1.0.0"), "_info": _info,
        "_split_generators": _split_generators, "_generate_examples": _generate_examples})
    config = tfds.download.DownloadConfig(num_shards=num_shards)
    builder_class(data_dir=str(root)).download_and_prepare(download_config=config)
    shutil.rmtree(root / "downloads", ignore_errors=True)  # empty: nothing is downloaded
    return root / name / "1.0.0"


def metadata_case(root: Path, features: dict, examples: list[dict]) -> Path:
    """Shards written by hand (2 of them) and write_metadata's JSON for them."""
    folder = root / "metadata" / "1.0.0"
    folder.mkdir(parents=True)
    spec = F.FeaturesDict(features)
    halves = [examples[:4], examples[4:]]
    for i, part in enumerate(halves):
        path = folder / f"metadata-train.tfrecord-{i:05d}-of-00002"
        with tf.io.TFRecordWriter(str(path)) as w:
            for ex in part:
                w.write(spec.serialize_example(ex))
    tfds.folder_dataset.write_metadata(data_dir=str(folder), features=spec, check_data=True)
    return folder


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in sorted(x.items())}
    if isinstance(x, np.ndarray):
        return [_plain(v) for v in x] if x.dtype == object else x.tolist()
    if isinstance(x, bytes):
        return x.decode("utf-8")
    if isinstance(x, np.generic):
        return x.item()
    return x


def read_back(folder: Path) -> list[Any]:
    builder = tfds.builder_from_directory(str(folder))
    return [_plain(ex) for ex in tfds.as_numpy(builder.as_dataset("train"))]


def shard_table() -> list[dict[str, Any]]:
    mib = 1 << 20
    cases = [(10 * mib, 1000), (64 * mib, 5000), (200 * mib, 10), (200 * mib, 100000),
             (3000 * mib, 200000), (70000 * mib, 10**7), (1500 * mib, 3)]
    return [{"total_size": s, "num_examples": n,
             "num_shards": shard_utils.ShardConfig.calculate_number_shards(s, n),
             "boundaries": list(shard_utils.get_shard_boundaries(n, min(n, 7)))}
            for s, n in cases]


def main(out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    expected: dict[str, Any] = {"tfds_version": tfds.__version__, "shards": shard_table()}
    features, examples, text = ctf_case()
    (out / "ctf.ctf").write_text(text)
    expected["ctf"] = read_back(prepare(out / "ctf", "ctf", features, examples, 3))
    features, examples = htk_case(out)
    expected["htk"] = read_back(prepare(out / "htk", "feats", features, examples, None))
    features, examples = tfrecord_case(out)
    expected["tfrecord"] = read_back(prepare(out / "tfrecord", "records", features, examples,
                                             None))
    features, examples, text = text_case()
    (out / "text.txt").write_text(text)
    expected["text"] = read_back(prepare(out / "text", "text", features, examples, 2))
    expected["metadata"] = read_back(metadata_case(out, features, examples))
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
