"""What of tf.data's API minibatcher does not provide, and the error that says so.

Ported code that calls a ``tf.data.Dataset`` method we lack, or uses a name of
``tf.data`` / ``tf.data.experimental`` (TF 2.21) that ``minibatcher.tfdata`` /
``minibatcher.tfdata.experimental`` lack, gets a
:class:`~minibatcher.errors.NotSupportedError` naming it, why, and what to use
instead, never an ``AttributeError`` that looks like a typo
(:meth:`Dataset.__getattr__ <minibatcher.tfdata.Dataset.__getattr__>` and the
modules' ``__getattr__``). Names that are not tf.data's raise the usual
``AttributeError``.

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


_CSV = "CSV files are not parsed here; read lines with TextLineDataset and split them in map"
_TABLES = ("lookup tables built from datasets are TensorFlow tables; use "
           "minibatcher.nmt.vocab_utils.index_table_from_file or a dict looked up in map")
_OPTIONAL = "tf.experimental.Optional is a TensorFlow value; catch StopIteration from next(it)"
_DEVICES = ("devices are TensorFlow's; use the PyTorch or JAX adapters (minibatcher.torch, "
            "minibatcher.jax) and prefetch()")
_SERVICE = "the tf.data service is TensorFlow's distributed runtime"
_VARIANTS = "variant tensors are TensorFlow graph values"

# tf.data's module names (TF 2.21) that minibatcher.tfdata does not provide, and why
MISSING_IN_MODULE: dict[str, str] = {
    "IteratorSpec": "it is the TypeSpec of an iterator in tf.function signatures; there are no "
                    "TensorFlow functions here (tfdata.Iterator is the iterators' class)",
    "NumpyIterator": "as_numpy_iterator() returns a tfdata.Iterator (a DatasetIterator): the "
                     "elements are NumPy values already",
}

# tf.data.experimental's names (TF 2.21) that minibatcher.tfdata.experimental does not provide
MISSING_IN_EXPERIMENTAL: dict[str, str] = {
    "CsvDataset": _CSV,
    "make_csv_dataset": _CSV,
    "DatasetInitializer": _TABLES,
    "index_table_from_dataset": _TABLES,
    "table_from_dataset": _TABLES,
    "Optional": _OPTIONAL,
    "get_next_as_optional": _OPTIONAL,
    "Reducer": "reducing by key is not implemented; use group_by_window, or reduce() per key",
    "group_by_reducer": "reducing by key is not implemented; use group_by_window, or reduce() "
                        "per key",
    "SHARD_HINT": "it is for tf.distribute's auto-sharding; use Dataset.shard",
    "SqlDataset": "SQL sources are not provided; use Dataset.from_generator over a cursor",
    "TFRecordWriter": "use tfdata.io.TFRecordWriter (tf.io's name)",
    "assert_cardinality": "a general cardinality assertion is not implemented (TFDS reads "
                          "assert theirs: tfds.ReadConfig(assert_cardinality=True))",
    "copy_to_device": _DEVICES,
    "prefetch_to_device": _DEVICES,
    "dense_to_sparse_batch": "batching into SparseTensors is not implemented; use "
                             "dense_to_ragged_batch or padded_batch",
    "distributed_save": _SERVICE,
    "service": _SERVICE,
    "enable_debug_mode": "functions here are plain Python already; to run map functions one at "
                         "a time, leave out num_parallel_calls",
    "from_variant": _VARIANTS,
    "to_variant": _VARIANTS,
    "get_model_proto": "it is TensorFlow's autotuning model of a pipeline",
    "make_batched_features_dataset": "use TFRecordDataset(files).batch(n).map(lambda r: "
                                     "tfdata.io.parse_example(r, features))",
    "parse_example_dataset": "use .map(lambda r: tfdata.io.parse_example(r, features)) on "
                             "batches of records",
    "make_saveable_from_iterator": "it saves iterators in TensorFlow checkpoints; use "
                                   "DatasetIterator.get_state() / set_state()",
    "pad_to_cardinality": "padding a dataset to a cardinality is not implemented",
    "rejection_resample": MISSING["rejection_resample"],
    "snapshot": MISSING["snapshot"],
}


def missing_module_name(module: str, ours: str, name: str, missing: dict[str, str],
                        has: list[str]) -> Exception:
    """The error for ``ours.name`` that the module does not define: a
    ``NotSupportedError`` for a name of TensorFlow's ``module`` listed in
    ``missing``, else an ``AttributeError``.

    Example:
        >>> missing_module_name("tf.data", "minibatcher.tfdata", "NumpyIterator",
        ...                     MISSING_IN_MODULE, ["Dataset"])  # doctest: +ELLIPSIS
        NotSupportedError('tf.data.NumpyIterator is not supported by minibatcher.tfdata: ...')
        >>> missing_module_name("tf.data", "minibatcher.tfdata", "nope", {}, [])
        AttributeError("module 'minibatcher.tfdata' has no attribute 'nope'")
    """
    if name in missing:
        return NotSupportedError(f"{module}.{name} is not supported by {ours}: {missing[name]}. "
                                 f"{ours} has: {', '.join(has)}")
    return AttributeError(f"module '{ours}' has no attribute '{name}'")


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
