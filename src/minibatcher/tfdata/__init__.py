"""``minibatcher.tfdata``: tf.data's pipeline API and exact semantics, without TensorFlow.

Port code by changing its import: ``from minibatcher import tfdata as tf_data``
and use ``tf_data.Dataset`` where the code used ``tf.data.Dataset``. Elements
are NumPy values; iterating a dataset again starts its next epoch (seeded
shuffles reshuffle exactly as tf.data does); every iterator checkpoints with
``get_state()``/``set_state()``. See docs/tfdata.md.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> ds = Dataset.range(6).shuffle(6, seed=3).batch(4)
    >>> it = iter(ds); _ = next(it); state = it.get_state()
    >>> it2 = iter(ds); it2.set_state(state)
    >>> [b.tolist() for b in it2] == [b.tolist() for b in it]
    True
"""

from . import errors, experimental, io
from .core import INFINITE as INFINITE_CARDINALITY
from .core import UNKNOWN as UNKNOWN_CARDINALITY
from .dataset import AUTOTUNE, Dataset
from .dtypes import DType, as_dtype, bool_, complex64, complex128, double, float16, float32
from .dtypes import float64, half, int8, int16, int32, int64, string, uint8, uint16, uint32
from .dtypes import uint64
from .fixed_length import FixedLengthRecordDataset
from .ragged_tensor import RaggedTensor
from .iterator import DatasetIterator
from .options import (AutoShardPolicy, AutotuneAlgorithm, AutotuneOptions, DistributeOptions,
                      ExternalStatePolicy, OptimizationOptions, Options, ServiceOptions,
                      ThreadingOptions)
from .seeds import get_seed, global_seed, random_seed_scope, set_random_seed
from .sources import ConcatSource, RecordSource, SourceDataset
from ..adapters.records import DeserializerRecords, from_deserializer
from .sparse_tensor import SparseTensor
from .specs import DatasetSpec, RaggedTensorSpec, SparseTensorSpec, TensorShape, TensorSpec
from .text import TextLineDataset, TextLineSource
from .tfrecord import TFRecordDataset

bool = bool_  # noqa: A001  (tf.bool; the builtin is not used in this module)
Iterator = DatasetIterator  # tf.data.Iterator: the class of every iterator of a dataset


def __getattr__(name: str) -> object:
    """``tfdata.bfloat16`` (made on first use: it needs the optional ml_dtypes
    package); tf.data's other names (TF 2.21): ``NotSupportedError`` saying so
    (names that are not TF's: ``AttributeError``).

    Example:
        >>> import minibatcher.tfdata as tfdata
        >>> tfdata.IteratorSpec  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        minibatcher.errors.NotSupportedError: tf.data.IteratorSpec is not supported by ...
    """
    if name == "bfloat16":
        from . import dtypes
        return dtypes.bfloat16
    from .unsupported import MISSING_IN_MODULE, missing_module_name

    raise missing_module_name("tf.data", __name__, name, MISSING_IN_MODULE, sorted(__all__))


__all__ = [
    "AUTOTUNE",
    "AutoShardPolicy",
    "AutotuneAlgorithm",
    "AutotuneOptions",
    "ConcatSource",
    "DatasetSpec",
    "DeserializerRecords",
    "Dataset",
    "DatasetIterator",
    "DistributeOptions",
    "ExternalStatePolicy",
    "FixedLengthRecordDataset",
    "INFINITE_CARDINALITY",
    "Iterator",
    "OptimizationOptions",
    "Options",
    "RaggedTensorSpec",
    "RecordSource",
    "ServiceOptions",
    "SourceDataset",
    "SparseTensorSpec",
    "TFRecordDataset",
    "TextLineDataset",
    "TensorShape",
    "TensorSpec",
    "TextLineSource",
    "ThreadingOptions",
    "UNKNOWN_CARDINALITY",
    "from_deserializer",
    "get_seed",
    "global_seed",
    "random_seed_scope",
    "set_random_seed",
]

__all__ += [  # TF's dtype names, composite values, tf.io and tf.errors
    "DType",
    "RaggedTensor",
    "SparseTensor",
    "as_dtype",
    "bool",
    "complex64",
    "complex128",
    "double",
    "errors",
    "experimental",
    "float16",
    "float32",
    "float64",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "io",
    "string",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]
