"""The native decoder's flat output for one (key, list kind): per-record counts and the
values of all records back to back, with NumPy helpers the feature handlers share.

Example:
    >>> raw = Raw(np.array([2, -1, 1]), np.array([1, 2, 3]))
    >>> raw.lengths.tolist(), raw.splits.tolist(), raw.present.tolist()
    ([2, 0, 1], [0, 2, 2, 3], [True, False, True])
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from ... import _native
from .columns import object_array

BYTES, FLOAT, INT64 = 1, 2, 3
KIND_OF = {"string": BYTES, "float32": FLOAT, "int64": INT64}
KIND_WORD = {BYTES: "string", FLOAT: "float", INT64: "int64"}


class Raw:
    """One native column: ``counts[i]`` values in record i (-1: absent; per step for
    SequenceExample feature lists, whose ``steps[i]`` is the record's step count, -1: absent),
    ``values`` back to back; strings as ``values`` bytes + ``byte_ends``."""

    def __init__(self, counts: np.ndarray, values: np.ndarray, byte_ends: np.ndarray | None = None,
                 steps: np.ndarray | None = None) -> None:
        self.counts, self.values, self.byte_ends, self.steps = counts, values, byte_ends, steps

    @classmethod
    def from_native(cls, d: dict[str, Any]) -> "Raw":
        """From one entry of the native result's ``features`` list."""
        return cls(d["counts"], d["values"], d.get("byte_ends"), d.get("steps"))

    @cached_property
    def lengths(self) -> np.ndarray:
        """Values per record (per step), 0 when absent."""
        return np.maximum(self.counts, 0)

    @cached_property
    def splits(self) -> np.ndarray:
        """Offsets of each record's (step's) values: ``[0, ..., total]``."""
        out = np.zeros(len(self.counts) + 1, np.int64)
        np.cumsum(self.lengths, out=out[1:])
        return out

    @cached_property
    def present(self) -> np.ndarray:
        """Whether each record (step) has the feature."""
        return self.counts >= 0

    def typed_values(self) -> np.ndarray:
        """All values: int64, float32, or an object array of bytes."""
        if self.byte_ends is None:
            return self.values
        return object_array(_native.split_bytes(self.values, self.byte_ends, 0,
                                                len(self.byte_ends)))

    def step_splits(self) -> np.ndarray:
        """Offsets of each record's steps in the per-step arrays (feature lists)."""
        out = np.zeros(len(self.steps) + 1, np.int64)
        np.cumsum(np.maximum(self.steps, 0), out=out[1:])
        return out


__all__ = ["BYTES", "FLOAT", "INT64", "KIND_OF", "KIND_WORD", "Raw"]
