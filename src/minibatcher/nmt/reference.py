"""tensorflow/nmt's ``iterator_utils`` ported step for step onto ``minibatcher.tfdata``.

This is the general path (any datasets of strings, e.g. with their own maps or
shuffles) and the oracle the fast path is tested against: zip, shard, skip,
shuffle, split on ``' '``, filter, truncate, lookup, sos/eos, lengths, then
``group_by_window`` + ``padded_batch`` exactly as nmt writes them. Elements
are ``BatchedInput`` tuples.

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> from .vocab_utils import VocabTable
    >>> t = VocabTable([b"<unk>", b"<s>", b"</s>", b"a"])
    >>> src = Dataset.from_tensor_slices(["a a", "a"]); tgt = Dataset.from_tensor_slices(["a", "x"])
    >>> b = next(iter(get_iterator(src, tgt, t, t, 2, "<s>", "</s>", 1, 1, output_buffer_size=1)))
    >>> b.source.tolist(), b.target_input.tolist(), b.target_output.tolist()
    ([[3, 3], [3, 2]], [[1, 3], [1, 0]], [[3, 2], [0, 2]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tfdata import Dataset
from .dataset import BatchedInput
from .vocab_utils import DEFAULT_CHAR_MAXLEN, EOS, EOS_CHAR_ID, SOS, VocabTable


def string_split(line: bytes) -> np.ndarray:
    """``tf.compat.v1.string_split([line], sep=' ').values``: split on ``' '`` only,
    empty tokens skipped.

    Example:
        >>> string_split(b"  a\\tb  c ").tolist()
        [b'a\\tb', b'c']
    """
    tokens = [t for t in line.split(b" ") if t]
    arr = np.empty(len(tokens), dtype=object)
    arr[:] = tokens
    return arr


def tokens_to_bytes(tokens: np.ndarray) -> np.ndarray:
    """nmt's ``vocab_utils.tokens_to_bytes`` flattened: 50 ids per word,
    ``[258, bytes[:48]..., 259, 260...] + 1``.

    Example:
        >>> tokens_to_bytes(np.array([b"a"], dtype=object))[:4].tolist()
        [259, 98, 260, 261]
    """
    out = np.full((len(tokens), DEFAULT_CHAR_MAXLEN), 260 + 1, dtype=np.int32)
    for i, word in enumerate(tokens):
        body = np.frombuffer(bytes(word)[:DEFAULT_CHAR_MAXLEN - 2], dtype=np.uint8)
        out[i, 0] = 258 + 1
        out[i, 1:1 + len(body)] = body.astype(np.int32) + 1
        out[i, 1 + len(body)] = 259 + 1
    return out.reshape(-1)


def _ids(table: VocabTable, tokens: np.ndarray) -> np.ndarray:
    return table.lookup(tokens).astype(np.int32) if len(tokens) else np.zeros(0, np.int32)


def get_iterator(src_dataset: Dataset, tgt_dataset: Dataset, src_vocab_table: VocabTable,
                 tgt_vocab_table: VocabTable, batch_size: int, sos: Any, eos: Any,
                 random_seed: int | None, num_buckets: int, src_max_len: int | None = None,
                 tgt_max_len: int | None = None, num_parallel_calls: int = 4,
                 output_buffer_size: int | None = None, skip_count: int | None = None,
                 num_shards: int = 1, shard_index: int = 0, reshuffle_each_iteration: bool = True,
                 use_char_encode: bool = False) -> Dataset:
    """nmt's ``get_iterator`` as a tfdata pipeline (see the module docstring).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> from .vocab_utils import VocabTable
        >>> t = VocabTable([b"<unk>", b"<s>", b"</s>", b"a"])
        >>> s = Dataset.from_tensor_slices(["a", "a a"])
        >>> [b.target_input.tolist() for b in get_iterator(s, s, t, t, 2, "<s>", "</s>", 1, 1)][0]
        [[1, 3, 2], [1, 3, 3]]
    """
    if not output_buffer_size:
        output_buffer_size = batch_size * 1000
    sos, eos = sos or SOS, eos or EOS  # falsy: the defaults (nmt's hparams, spec §1)
    if use_char_encode:
        src_eos_id = np.int32(EOS_CHAR_ID)
    else:
        src_eos_id = np.int32(src_vocab_table.lookup(eos))
    tgt_sos_id = np.int32(tgt_vocab_table.lookup(sos))
    tgt_eos_id = np.int32(tgt_vocab_table.lookup(eos))

    ds = Dataset.zip((src_dataset, tgt_dataset)).shard(num_shards, shard_index)
    if skip_count is not None:
        ds = ds.skip(skip_count)
    ds = ds.shuffle(output_buffer_size, random_seed, reshuffle_each_iteration)
    ds = ds.map(lambda src, tgt: (string_split(src), string_split(tgt)))
    ds = ds.filter(lambda src, tgt: len(src) > 0 and len(tgt) > 0)
    if src_max_len:
        ds = ds.map(lambda src, tgt: (src[:src_max_len], tgt))
    if tgt_max_len:
        ds = ds.map(lambda src, tgt: (src, tgt[:tgt_max_len]))
    if use_char_encode:
        ds = ds.map(lambda src, tgt: (tokens_to_bytes(src), _ids(tgt_vocab_table, tgt)))
    else:
        ds = ds.map(lambda src, tgt: (_ids(src_vocab_table, src), _ids(tgt_vocab_table, tgt)))
    ds = ds.map(lambda src, tgt: (src, np.concatenate(([tgt_sos_id], tgt)).astype(np.int32),
                                  np.concatenate((tgt, [tgt_eos_id])).astype(np.int32)))
    if use_char_encode:
        ds = ds.map(lambda src, ti, to: (src, ti, to, np.int32(len(src) // DEFAULT_CHAR_MAXLEN),
                                         np.int32(len(ti))))
    else:
        ds = ds.map(lambda src, ti, to: (src, ti, to, np.int32(len(src)), np.int32(len(ti))))

    def batching_func(x: Dataset) -> Dataset:
        return x.padded_batch(batch_size, padded_shapes=([None], [None], [None], [], []),
                              padding_values=(src_eos_id, tgt_eos_id, tgt_eos_id, np.int32(0),
                                              np.int32(0)))

    if num_buckets > 1:
        def key_func(unused_1: Any, unused_2: Any, unused_3: Any, src_len: Any,
                     tgt_len: Any) -> Any:
            bucket_width = (src_max_len + num_buckets - 1) // num_buckets if src_max_len else 10
            bucket_id = max(int(src_len) // bucket_width, int(tgt_len) // bucket_width)
            return np.int64(min(num_buckets, bucket_id))

        batched = ds.group_by_window(key_func, lambda unused_key, w: batching_func(w),
                                     window_size=batch_size)
    else:
        batched = batching_func(ds)
    return batched.map(lambda *parts: BatchedInput(None, *parts))


def get_infer_iterator(src_dataset: Dataset, src_vocab_table: VocabTable, batch_size: int,
                       eos: Any, src_max_len: int | None = None,
                       use_char_encode: bool = False) -> Dataset:
    """nmt's ``get_infer_iterator`` as a tfdata pipeline.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> t = VocabTable([b"<unk>", b"<s>", b"</s>", b"a"])
        >>> b = next(iter(get_infer_iterator(Dataset.from_tensor_slices(["", ""]), t, 2, "</s>")))
        >>> b.source.shape, b.source_sequence_length.tolist()
        ((2, 0), [0, 0])
    """
    eos = eos or EOS  # falsy: the default (nmt's hparams, spec §1)
    src_eos_id = np.int32(EOS_CHAR_ID if use_char_encode else src_vocab_table.lookup(eos))
    ds = src_dataset.map(string_split)
    if src_max_len:
        ds = ds.map(lambda src: src[:src_max_len])
    if use_char_encode:
        ds = ds.map(lambda src: (tokens_to_bytes(src), np.int32(len(src))))
    else:
        ds = ds.map(lambda src: (_ids(src_vocab_table, src), np.int32(len(src))))
    ds = ds.padded_batch(batch_size, padded_shapes=([None], []),
                         padding_values=(src_eos_id, np.int32(0)))
    return ds.map(lambda src, n: BatchedInput(None, src, None, None, n, None))
