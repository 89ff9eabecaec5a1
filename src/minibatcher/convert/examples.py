"""``ExampleSource``: any input as TFDS-style examples, the one form every writer takes.

An example is a nested dict of values matching ``features`` (a
:class:`~minibatcher.tfds.connectors.FeaturesDict`); writers turn it into
``tf.train.Example`` s (TFRecord files, TFDS folders) or Arrow rows (Parquet).
The layouts, one example per sequence / utterance / record / line:

* CTF: ``sequence_id`` (int64); a dense stream ``x`` of dimension d is
  ``Tensor((None, d), float32)``; a sparse stream ``y`` is a dict of
  ``indices`` (int64), ``values`` (float32) and ``lengths`` (int64, the non-zeros
  of each sample), flattened by TFDS to ``y/indices`` ... as ``convert`` always wrote;
* HTK + MLF: ``name`` (Text, the utterance), ``features`` (``Tensor((None, dim),
  float32)``), ``labels`` (``Sequence(ClassLabel)``, one class per frame);
* TFRecord: the records' own Example keys (``a/b`` nests), with shapes found by
  a pass over every record;
* text: ``text`` (Text, one line, TextLineDataset's rules);
* TFDS: the folder's own features and examples.

Example:
    >>> from minibatcher.tfds.connectors import FeaturesDict, Scalar
    >>> src = ExampleSource("toy", FeaturesDict({"id": Scalar("int64")}),
    ...                     lambda: iter([{"id": 1}, {"id": 2}]), 2)
    >>> [src.features.encode(ex)["id"].tolist() for ex in src]
    [[1], [2]]
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Iterator

from ..errors import ConfigError
from ..tfds.connectors import FeaturesDict


@dataclasses.dataclass(frozen=True)
class ExampleSource:
    """``name`` (a dataset name), ``features``, ``examples()`` (a fresh
    iterator of example dicts in the input's order) and ``count`` (None when
    unknown before reading), plus ``what`` the input is, for messages.

    Example:
        >>> ExampleSource("x", FeaturesDict({}), lambda: iter([]), 0).what
        'examples'
    """

    name: str
    features: FeaturesDict
    examples: Callable[[], Iterator[dict[str, Any]]]
    count: int | None = None
    what: str = "examples"

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return self.examples()


def dataset_name(text: str) -> str:
    """A TFDS dataset name (snake_case, starting with a letter) from a file name.

    Example:
        >>> dataset_name("Train-28x28_cntk_text.txt"), dataset_name("2019.scp")
        ('train_28x28_cntk_text', 'd_2019')
    """
    stem = text.rsplit("/", 1)[-1].split(".", 1)[0]
    name = re.sub(r"[^a-z0-9]+", "_", stem.lower()).strip("_") or "dataset"
    return name if name[0].isalpha() else f"d_{name}"


def check_name(name: str) -> str:
    """Validates a dataset name as TFDS does (snake_case identifiers).

    Example:
        >>> check_name("My Data")
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: name should be a snake_case identifier (letters, digits, '_', starting with a letter), but got name='My Data'
    """
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name or ""):
        raise ConfigError("name should be a snake_case identifier (letters, digits, '_', starting "
                          f"with a letter), but got name={name!r}")
    return name


__all__ = ["ExampleSource", "check_name", "dataset_name"]
