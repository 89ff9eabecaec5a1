"""The ported pipelines of docs/tfdata.md's tfdata.io section run as written (only the
renamed imports), over MNIST-like TFRecord files, and both forms give the same batches."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from minibatcher.formats.tfrecord import encode_example
from minibatcher.tfdata import io

DOC = Path(__file__).resolve().parents[3] / "docs" / "tfdata.md"


def _section_blocks() -> list[str]:
    text = DOC.read_text()
    start = text.index("## Parsing `tf.train.Example`s")
    section = text[start:text.index("\n## ", start + 3)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    return [b for b in blocks if "from minibatcher import tfdata" in b]


def _files(folder: Path, shards: int = 3, per_shard: int = 200) -> list[str]:
    rng = np.random.default_rng(0)
    out = []
    for s in range(shards):
        path = folder / f"mnist-{s:05d}.tfrecord"
        with io.TFRecordWriter(str(path)) as w:
            for i in range(per_shard):
                image = rng.integers(0, 256, 784, dtype=np.uint8).tobytes()
                w.write(encode_example({"image": [image], "label": [s * per_shard + i]}))
        out.append(str(path))
    return out


def test_documented_pipelines_run_and_agree(tmp_path: Path) -> None:
    blocks = _section_blocks()
    assert len(blocks) == 2, "the section should show the element-wise and vectorized forms"
    namespace: dict = {"files": _files(tmp_path)}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)  # noqa: S102 - the documented code
    images, labels = namespace["images"], namespace["labels"]
    assert images.shape == (256, 784) and images.dtype == np.uint8
    assert labels.shape == (256,) and labels.dtype == np.int64
    assert np.array_equal(images, namespace["images2"])
    assert np.array_equal(labels, namespace["labels2"])
    every = [b for ds in ("ds", "batched") for b in namespace[ds]]
    first, second = every[:3], every[3:]
    assert [len(b[1]) for b in first] == [256, 256, 88]
    for (a_img, a_lab), (b_img, b_lab) in zip(first, second):
        assert np.array_equal(a_img, b_img) and np.array_equal(a_lab, b_lab)
    assert sorted(np.concatenate([b[1] for b in first]).tolist()) == list(range(600))
