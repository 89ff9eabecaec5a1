"""Ported tf.data code runs unchanged: every op takes tf.data's documented
arguments, in tf.data's positional order (TF 2.21's ``dataset_ops.py``);
arguments about TF's runtime are accepted and change nothing."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from minibatcher import tfdata
from minibatcher.tfdata import Dataset

# tf.data 2.21: the parameters of each method, in order (after self)
TF = {
    "range": ["args", "output_type", "name"],
    "from_tensor_slices": ["tensors", "name"],
    "from_tensors": ["tensors", "name"],
    "from_generator": ["generator", "output_types", "output_shapes", "args", "output_signature",
                       "name"],
    "zip": ["args", "datasets", "name"],
    "map": ["map_func", "num_parallel_calls", "deterministic", "synchronous",
            "use_unbounded_threadpool", "name"],
    "filter": ["predicate", "name"],
    "shuffle": ["buffer_size", "seed", "reshuffle_each_iteration", "name"],
    "repeat": ["count", "name"],
    "shard": ["num_shards", "index", "name"],
    "skip": ["count", "name"],
    "take": ["count", "name"],
    "enumerate": ["start", "name"],
    "concatenate": ["dataset", "name"],
    "interleave": ["map_func", "cycle_length", "block_length", "num_parallel_calls",
                   "deterministic", "name"],
    "flat_map": ["map_func", "name"],
    "batch": ["batch_size", "drop_remainder", "num_parallel_calls", "deterministic", "name"],
    "padded_batch": ["batch_size", "padded_shapes", "padding_values", "drop_remainder", "name"],
    "group_by_window": ["key_func", "reduce_func", "window_size", "window_size_func", "name"],
    "bucket_by_sequence_length": ["element_length_func", "bucket_boundaries",
                                  "bucket_batch_sizes", "padded_shapes", "padding_values",
                                  "pad_to_bucket_boundary", "no_padding", "drop_remainder",
                                  "name"],
    "prefetch": ["buffer_size", "name"],
    "apply": ["transformation_func"],
    "with_options": ["options", "name"],
    "unbatch": ["name"],
    "rebatch": ["batch_size", "drop_remainder", "name"],
    "window": ["size", "shift", "stride", "drop_remainder", "name"],
    "scan": ["initial_state", "scan_func", "name"],
    "reduce": ["initial_state", "reduce_func", "name"],
    "take_while": ["predicate", "name"],
    "unique": ["name"],
    "get_single_element": ["name"],
    "sample_from_datasets": ["datasets", "weights", "seed", "stop_on_empty_dataset",
                             "rerandomize_each_iteration"],
    "choose_from_datasets": ["datasets", "choice_dataset", "stop_on_empty_dataset"],
    "random": ["seed", "rerandomize_each_iteration", "name"],
    "counter": ["start", "step", "dtype", "name"],
    "list_files": ["file_pattern", "shuffle", "seed", "name"],
    "cache": ["filename", "name"],
    "ignore_errors": ["log_warning", "name"],
    "ragged_batch": ["batch_size", "drop_remainder", "row_splits_dtype", "name"],
    "save": ["path", "compression", "shard_func", "checkpoint_args"],
    "load": ["path", "element_spec", "compression", "reader_func", "wait"],
}
READERS = {"FixedLengthRecordDataset": ["filenames", "record_bytes", "header_bytes",
                                        "footer_bytes", "buffer_size", "compression_type",
                                        "num_parallel_reads", "name"],
           "TFRecordDataset": ["filenames", "compression_type", "buffer_size",
                               "num_parallel_reads", "name"],
           "TextLineDataset": ["filenames", "compression_type", "buffer_size",
                               "num_parallel_reads", "name"]}


def _params(fn, expected: list[str]) -> list[str]:
    """Parameter names in order, without self and our keyword-only extensions
    (such as TFRecordDataset's ``verify_crc``)."""
    return [p.name for p in inspect.signature(fn).parameters.values() if p.name != "self"
            and (p.kind != p.KEYWORD_ONLY or p.name in expected)]


@pytest.mark.parametrize("method", sorted(TF))
def test_dataset_methods_take_tf_datas_arguments(method: str) -> None:
    assert _params(getattr(Dataset, method), TF[method]) == TF[method]


@pytest.mark.parametrize("reader", sorted(READERS))
def test_readers_take_tf_datas_arguments(reader: str) -> None:
    assert _params(getattr(tfdata, reader).__init__, READERS[reader]) == READERS[reader]


def test_zip_takes_datasets_as_a_keyword() -> None:
    a, b = Dataset.range(1, 4), Dataset.range(4, 6)
    expected = [(1, 4), (2, 5)]
    for ds in (Dataset.zip(a, b), Dataset.zip((a, b)), Dataset.zip(datasets=(a, b)),
               Dataset.zip(datasets=(a, b), name="z")):
        assert [tuple(int(v) for v in x) for x in ds] == expected
    nested = Dataset.zip(datasets={"x": a, "y": (b, a)})
    assert [(int(x["x"]), int(x["y"][0])) for x in nested] == [(1, 4), (2, 5)]
    with pytest.raises(TypeError, match="Must pass at least one dataset"):
        Dataset.zip()
    with pytest.raises(TypeError, match="cannot be set"):
        Dataset.zip(a, datasets=(a, b))


def test_map_runtime_arguments_change_nothing() -> None:
    ds = Dataset.range(5).shuffle(5, seed=2)
    plain = [int(x) for x in ds.map(lambda x: x * 2)]
    ds = Dataset.range(5).shuffle(5, seed=2)
    tuned = ds.map(lambda x: x * 2, num_parallel_calls=tfdata.AUTOTUNE, deterministic=False,
                   synchronous=True, use_unbounded_threadpool=True, name="double")
    assert [int(x) for x in tuned] == plain
    positional = Dataset.range(3).map(np.negative, None, None, None, False, "neg")
    assert [int(x) for x in positional] == [0, -1, -2]
