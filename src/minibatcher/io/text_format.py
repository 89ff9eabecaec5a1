"""``sequence_to_cntk_text_format``: one sequence as CNTK text format (CTF) lines.

Example:
    >>> import numpy as np
    >>> print(sequence_to_cntk_text_format(7, {"x": np.array([[1, 2], [3, 4]]),
    ...                                        "y": [{0: 1.5}]}))
    7	|x 1 2 |y 0:1.5
    7	|x 3 4
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from ..errors import ConfigError

__all__ = ["sequence_to_cntk_text_format"]


def _dense_text(sample: Any) -> str:
    return " ".join(np.asarray(sample).ravel(order="C").astype(str))


def _sparse_text(sample: Mapping[int, Any]) -> str:
    return " ".join(f"{k}:{v}" for k, v in sorted(sample.items()))


def _formatter(alias: str, tensor: Any) -> tuple[Any, Callable[[Any], str]]:
    """The tensor (samples along its first axis) and how one sample is written."""
    if isinstance(tensor, list) and tensor and all(isinstance(s, Mapping) for s in tensor):
        return tensor, _sparse_text
    try:
        array = np.asarray(tensor)
    except ValueError:
        array = None
    if array is None or array.dtype.kind not in "biuf" or array.ndim == 0:
        raise ConfigError(f"alias {alias!r}: expected a tensor (dense: an array or nested lists of "
                          f"numbers, samples along the first axis) or a list of dicts "
                          f"{{index: value}} (sparse), but got {type(tensor).__name__}")
    return array, _dense_text


def sequence_to_cntk_text_format(seq_idx: int, alias_tensor_map: Mapping[str, Any]) -> str:
    """The CTF lines of sequence ``seq_idx`` (as ``cntk.io.sequence_to_cntk_text_format``).

    ``alias_tensor_map`` maps each input name to its samples along the first
    axis: a dense tensor (each sample's values flattened in C order) or a list
    of ``{index: value}`` dicts (sparse). Line ``t`` holds sample ``t`` of
    every input that has one, inputs in sorted order, after ``seq_idx`` and a
    tab; lines are joined by ``\\n`` (no trailing newline; ``''`` when every
    input is empty).

    Example:
        >>> sequence_to_cntk_text_format(0, {"W": np.zeros((0, 3))})
        ''
        >>> sequence_to_cntk_text_format(0, {"A": [object()]})
        Traceback (most recent call last):
        ...
        minibatcher.errors.ConfigError: alias 'A': expected a tensor (dense: an array or nested lists of numbers, samples along the first axis) or a list of dicts {index: value} (sparse), but got list
    """
    inputs = {alias: _formatter(alias, t) for alias, t in sorted(alias_tensor_map.items())}
    length = max((len(t) for t, _ in inputs.values()), default=0)
    lines = []
    for t in range(length):
        parts = [f"{alias} {write(tensor[t])}" for alias, (tensor, write) in inputs.items()
                 if t < len(tensor)]
        lines.append(f"{seq_idx}\t|" + " |".join(parts))
    return "\n".join(lines)
