"""The lines of an nmt input dataset as one buffer with offsets (the fast path).

``TextLineDataset`` files are used in place; any other dataset of strings with
a view and no randomness (``from_tensor_slices`` of lines, a ``take``...) is
read once and joined. Token counts (``' '``-separated, empty tokens skipped,
as ``tf.compat.v1.string_split(sep=' ')``) are computed natively.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> c = LineCorpus.from_dataset(Dataset.from_tensor_slices(["a  b", "", " c\\t"]))
    >>> len(c), c.line(2), c.counts().tolist()
    (3, b' c\\t', [2, 0, 1])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..tfdata import Dataset, TextLineDataset
from ..tfdata.transforms import is_random


@dataclass(eq=False)
class LineCorpus:
    """``data[starts[i]:ends[i]]`` is line ``i`` (bytes, no line break).

    Example:
        >>> c = LineCorpus.of_lines([b"a b", b""])
        >>> len(c), c.line(0), c.counts().tolist()
        (2, b'a b', [2, 0])
    """

    data: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    _counts: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.starts)

    def line(self, index: int) -> bytes:
        """Line ``index`` as bytes (without its line break).

        Example:
            >>> LineCorpus.of_lines([b"a b", b"\\xc3\\xa9"]).line(1).decode()
            'é'
        """
        return self.data[self.starts[index]:self.ends[index]].tobytes()

    def counts(self) -> np.ndarray:
        """Tokens per line (int32), computed once.

        Example:
            >>> LineCorpus.of_lines([b" x  y ", b"z\\xc2\\xa0w"]).counts().tolist()
            [2, 1]
        """
        if self._counts is None:
            from .. import _native
            self._counts = _native.text_count_tokens(self.data, self.starts, self.ends)
        return self._counts

    @classmethod
    def of_lines(cls, lines: list[bytes]) -> "LineCorpus":
        """A corpus of ``lines`` (joined into one buffer).

        Example:
            >>> LineCorpus.of_lines([b"ab", b"c"]).ends.tolist()
            [2, 3]
        """
        lengths = np.fromiter((len(x) for x in lines), dtype=np.int64, count=len(lines))
        ends = np.cumsum(lengths)
        data = np.frombuffer(b"".join(lines), dtype=np.uint8)
        return cls(data, ends - lengths, ends)

    @classmethod
    def from_dataset(cls, dataset: Any) -> "LineCorpus | None":
        """The corpus of a dataset of strings, or None when it has no fixed lines
        (no view, randomness inside, or elements that are not strings).

        Example:
            >>> from minibatcher.tfdata import Dataset
            >>> LineCorpus.from_dataset(Dataset.from_tensor_slices(["a b", "c"])).line(0)
            b'a b'
            >>> LineCorpus.from_dataset(Dataset.range(3)) is None  # not strings
            True
            >>> LineCorpus.from_dataset(Dataset.from_tensor_slices(["a"]).shuffle(2)) is None
            True
        """
        if isinstance(dataset, TextLineDataset) and dataset.sequential:
            return _of_text_files(dataset)
        if not isinstance(dataset, Dataset) or not dataset._has_view() or is_random(dataset):
            return None
        view = dataset._make_view(None)
        lines = view.read(0, len(view))
        if not all(isinstance(x, bytes) for x in lines):
            if all(isinstance(x, str) for x in lines):
                lines = [x.encode("utf-8") for x in lines]
            else:
                return None
        return cls.of_lines(lines)


def _of_text_files(dataset: TextLineDataset) -> LineCorpus:
    sources = dataset.sources
    if len(sources) == 1:
        s = sources[0]
        return LineCorpus(s.data, s.starts, s.ends)
    shifts = np.cumsum([0] + [len(s.data) for s in sources[:-1]])
    data = np.concatenate([s.data for s in sources])
    starts = np.concatenate([s.starts + k for s, k in zip(sources, shifts)])
    ends = np.concatenate([s.ends + k for s, k in zip(sources, shifts)])
    return LineCorpus(data, starts, ends)
