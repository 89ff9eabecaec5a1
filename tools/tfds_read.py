"""Reads TFDS folders with real TensorFlow Datasets and prints every example as JSON.

Used to check that folders written by ``minibatcher convert ... --to tfds`` open in TFDS 4.9 and
read in the order minibatcher reads them (needs ``pip install tensorflow-cpu
tensorflow-datasets``)::

    python tools/tfds_read.py FOLDER [FOLDER ...] [--split SPLIT]   # a line per example
    python tools/tfds_read.py FOLDER [FOLDER ...] --per-folder      # a JSON list per folder

``tests/convert/test_tfds_golden.py`` runs it (``--per-folder``, one TensorFlow start for every
folder) with the Python that ``MINIBATCHER_TF_PYTHON`` names; the tests never import TensorFlow.
"""

from __future__ import annotations

import argparse
import json
import os
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


def examples(folder: str, split: str) -> list[Any]:
    """Every example of ``split`` as ``builder_from_directory(folder).as_dataset`` reads it."""
    builder = tfds.builder_from_directory(folder)
    return [plain(example) for example in tfds.as_numpy(builder.as_dataset(split))]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", metavar="FOLDER", nargs="+")
    parser.add_argument("--split", default="train")
    parser.add_argument("--per-folder", action="store_true",
                        help="one JSON list of examples per folder")
    args = parser.parse_args()
    for folder in args.folders:
        read = examples(folder, args.split)
        if args.per_folder:
            print(json.dumps(read))
        else:
            for example in read:
                print(json.dumps(example))
