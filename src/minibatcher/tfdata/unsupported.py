"""What of tf.data's API minibatcher does not provide, and the error that says so.

Ported code that calls a ``tf.data.Dataset`` method we lack gets a
:class:`~minibatcher.errors.NotSupportedError` naming it, why, and what to use
instead, never an ``AttributeError`` that looks like a typo
(:meth:`Dataset.__getattr__ <minibatcher.tfdata.Dataset.__getattr__>`). Names
that are not tf.data's raise the usual ``AttributeError``.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> Dataset.range(3).rejection_resample(lambda x: x, [0.5, 0.5])
    Traceback (most recent call last):
    ...
    minibatcher.errors.NotSupportedError: Dataset.rejection_resample (tf.data's ...) is not ...
"""

from __future__ import annotations

from typing import Any

from ..errors import NotSupportedError

# tf.data.Dataset (TF 2.21) and tf.compat.v1.data.Dataset methods we do not provide, and why
MISSING: dict[str, str] = {
    "fingerprint": "it is a hash of TensorFlow's graph of the dataset; a checkpoint's plan "
                   "(DatasetIterator.get_state()['plan']) identifies a pipeline here",
    "rejection_resample": "resampling to a target distribution is not implemented; use "
                          "sample_from_datasets over per-class datasets",
    "snapshot": "use save() and Dataset.load() (docs/tfdata.md describes the format)",
    "sparse_batch": "batching into SparseTensors is not implemented; use ragged_batch or "
                    "padded_batch",
    "filter_with_legacy_function": "it is a TF1 API; use filter()",
    "map_with_legacy_function": "it is a TF1 API; use map()",
    "from_sparse_tensor_slices": "it is a TF1 API; build the rows with from_tensor_slices",
    "make_initializable_iterator": "it is a TF1 API; use iter(dataset), which starts a new "
                                   "iteration each time",
    "make_one_shot_iterator": "it is a TF1 API; use iter(dataset)",
    "output_classes": "it is a TF1 API; use element_spec",
    "output_shapes": "it is a TF1 API; use element_spec",
    "output_types": "it is a TF1 API; use element_spec",
}


def provided(cls: type) -> list[str]:
    """The public tf.data names a class provides (for error messages).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> "window" in provided(Dataset), "fingerprint" in provided(Dataset)
        (True, False)
    """
    return sorted(n for n in dir(cls) if not n.startswith("_"))


def missing_attribute(obj: Any, name: str) -> Exception:
    """The error for ``obj.name`` that normal lookup did not find.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> type(missing_attribute(Dataset.range(1), "snapshot")).__name__
        'NotSupportedError'
        >>> missing_attribute(Dataset.range(1), "no_such_thing")
        AttributeError("'SourceDataset' object has no attribute 'no_such_thing'")
    """
    if name in MISSING:
        return NotSupportedError(
            f"Dataset.{name} (tf.data's {name}) is not supported by minibatcher.tfdata: "
            f"{MISSING[name]}. Dataset has: {', '.join(provided(type(obj)))}")
    return AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
