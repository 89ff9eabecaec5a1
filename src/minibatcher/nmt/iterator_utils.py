"""tensorflow/nmt's ``iterator_utils``: ``get_iterator`` and ``get_infer_iterator``.

Same names and parameters as nmt; they return a :class:`minibatcher.tfdata.Dataset`
whose elements are ``BatchedInput`` tuples of NumPy arrays (``initializer`` is
None). Iterating it again starts the next epoch (reshuffled as nmt's
re-initialized iterator); ``iter(...)`` has ``get_state()``/``set_state()``.

When both datasets are lines with random access (``TextLineDataset``,
``from_tensor_slices`` of strings, or views of them without randomness) the
fast path plans each epoch from token counts and assembles batches natively;
otherwise the step-for-step tfdata port (:mod:`.reference`) runs. Both give
the same batches. Beyond nmt (fast path only): ``batching="tokens"``
(``max_tokens``, fairseq-style), ``batching="sorted_pool"`` (``pool_size``),
and ``num_ranks``/``rank`` that deal batches so every rank gets the same
number (``rank_policy="pad"`` or ``"drop"``; every rank needs the same
``random_seed``, or the same global seed, so that all deal from one plan).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> from .vocab_utils import VocabTable
    >>> t = VocabTable([b"<unk>", b"<s>", b"</s>", b"a", b"b"])
    >>> src = Dataset.from_tensor_slices(["a b", "b", "a a a"])
    >>> tgt = Dataset.from_tensor_slices(["b", "a b", ""])
    >>> it = get_iterator(src, tgt, t, t, batch_size=2, sos="<s>", eos="</s>", random_seed=1,
    ...                   num_buckets=1, output_buffer_size=1)
    >>> [b.source.tolist() for b in it]
    [[[3, 4], [4, 2]]]
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from ..tfdata import Dataset
from . import reference
from .corpus import LineCorpus
from .dataset import BatchedInput, NmtBatchDataset, NmtInferDataset
from .options import NmtOptions
from .vocab_utils import EOS, SOS, VocabTable

__all__ = ["BatchedInput", "get_infer_iterator", "get_iterator"]


def _token(value: Any, default: str) -> bytes:
    value = value or default
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def get_iterator(src_dataset: Dataset, tgt_dataset: Dataset, src_vocab_table: VocabTable,
                 tgt_vocab_table: VocabTable, batch_size: int, sos: Any, eos: Any,
                 random_seed: int | None, num_buckets: int, src_max_len: int | None = None,
                 tgt_max_len: int | None = None, num_parallel_calls: int = 4,
                 output_buffer_size: int | None = None, skip_count: int | None = None,
                 num_shards: int = 1, shard_index: int = 0, reshuffle_each_iteration: bool = True,
                 use_char_encode: bool = False, *, batching: str = "nmt",
                 max_tokens: int | None = None, max_sentences: int | None = None,
                 pool_size: int | None = None, num_ranks: int = 1, rank: int = 0,
                 rank_policy: str = "pad") -> Dataset:
    """The training/evaluation batches of nmt (see the module docstring).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> from .vocab_utils import VocabTable
        >>> t = VocabTable([b"<unk>", b"<s>", b"</s>", b"a"])
        >>> s = Dataset.from_tensor_slices(["a", "a a a", ""])
        >>> it = get_iterator(s, s, t, t, 4, "<s>", "</s>", 1, 1, output_buffer_size=1)
        >>> [b.source_sequence_length.tolist() for b in it]
        [[1, 3]]
    """
    options = NmtOptions(batch_size, num_buckets, src_max_len, tgt_max_len, output_buffer_size,
                         skip_count, num_shards, shard_index, bool(reshuffle_each_iteration),
                         bool(use_char_encode), batching, max_tokens, max_sentences, pool_size,
                         num_ranks, rank, rank_policy)
    sos_b, eos_b = _token(sos, SOS), _token(eos, EOS)
    src_corpus = LineCorpus.from_dataset(src_dataset)
    tgt_corpus = LineCorpus.from_dataset(tgt_dataset)
    if src_corpus is not None and tgt_corpus is not None:
        return NmtBatchDataset(src_dataset, tgt_dataset, (src_corpus, tgt_corpus),
                               (src_vocab_table, tgt_vocab_table), options, sos_b, eos_b,
                               random_seed)
    if batching != "nmt" or num_ranks != 1:
        raise ConfigError(f"batching={batching!r} and num_ranks={num_ranks} need datasets of lines "
                          "with random access (TextLineDataset or from_tensor_slices of strings), "
                          "but got other datasets; use batching='nmt' and num_ranks=1 with them")
    return reference.get_iterator(src_dataset, tgt_dataset, src_vocab_table, tgt_vocab_table,
                                  batch_size, sos_b, eos_b, random_seed, num_buckets, src_max_len,
                                  tgt_max_len, num_parallel_calls, output_buffer_size, skip_count,
                                  num_shards, shard_index, reshuffle_each_iteration,
                                  use_char_encode)


def get_infer_iterator(src_dataset: Dataset, src_vocab_table: VocabTable, batch_size: int,
                       eos: Any, src_max_len: int | None = None,
                       use_char_encode: bool = False) -> Dataset:
    """The inference batches of nmt: file order, no filter, eos padding.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> from .vocab_utils import VocabTable
        >>> t = VocabTable([b"<unk>", b"<s>", b"</s>", b"a"])
        >>> b = next(iter(get_infer_iterator(Dataset.from_tensor_slices(["a a a", "a"]), t, 2,
        ...                                  "</s>", src_max_len=2)))
        >>> b.source.tolist(), b.source_sequence_length.tolist(), b.target_input
        ([[3, 3], [3, 2]], [2, 1], None)
    """
    if int(batch_size) < 1:
        raise ConfigError(f"option batch_size should be at least 1, but got "
                          f"batch_size={batch_size}")
    eos_b = _token(eos, EOS)
    corpus = LineCorpus.from_dataset(src_dataset)
    if corpus is not None:
        return NmtInferDataset(src_dataset, src_vocab_table, batch_size, eos_b, src_max_len,
                               use_char_encode, corpus)
    return reference.get_infer_iterator(src_dataset, src_vocab_table, batch_size, eos_b,
                                        src_max_len, use_char_encode)
