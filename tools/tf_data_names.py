"""Writes TensorFlow 2.21's public names of ``tf.data``, ``tf.data.experimental`` and
``tf.data.Dataset`` as JSON, for ``tests/tfdata/test_unsupported_names.py`` (every one of
them exists in ``minibatcher.tfdata`` or raises ``NotSupportedError`` saying so).
Regenerate with::

    /work/tfvenv/bin/python tools/tf_data_names.py tests/data/tf_golden
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402


def public(obj: object) -> list[str]:
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def main(folder: str) -> None:
    names = {"tensorflow": tf.__version__, "tf.data": public(tf.data),
             "tf.data.experimental": public(tf.data.experimental),
             "tf.data.Dataset": public(tf.data.Dataset)}
    out = Path(folder) / "tf_data_names.json"
    out.write_text(json.dumps(names, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1])
