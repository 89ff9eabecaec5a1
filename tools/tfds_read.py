"""Reads TFDS folders with real TensorFlow Datasets and prints every example as JSON lines.

Used to check that folders written by ``minibatcher convert ... --to tfds`` open in TFDS 4.9 and
read in the order minibatcher reads them (needs ``pip install tensorflow-cpu
tensorflow-datasets``)::

    python tools/tfds_read.py FOLDER [SPLIT]   # one line per example, in TFDS's order
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow_datasets as tfds  # noqa: E402


def plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: plain(v) for k, v in sorted(x.items())}
    if isinstance(x, np.ndarray):
        return [plain(v) for v in x] if x.dtype == object else x.tolist()
    if isinstance(x, bytes):
        return x.decode("utf-8", errors="replace")
    return x.item() if isinstance(x, np.generic) else x


if __name__ == "__main__":
    builder = tfds.builder_from_directory(sys.argv[1])
    split = sys.argv[2] if len(sys.argv) > 2 else "train"
    for example in tfds.as_numpy(builder.as_dataset(split)):
        print(json.dumps(plain(example)))
