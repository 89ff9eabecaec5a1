"""The static element-spec rule of every node class (see :mod:`.element_spec`).

Each rule takes a node and returns its elements' spec structure, with ``None``
where TF would trace a function (unknown here). A node class can also define
``_element_spec_static(self)``; a class with neither gives None (unknown).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> rule_for(Dataset.range(3).batch(2))(Dataset.range(3).batch(2))
    TensorSpec(shape=(None,), dtype=tf.int64, name=None)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from .dtypes import as_dtype
from .element_spec import common_spec, map_leaves, spec_of, static_spec
from .specs import DatasetSpec, RaggedTensorSpec, SparseTensorSpec, TensorShape, TensorSpec, scalar
from .structure import flatten, pack_as

Rule = Callable[[Any], Any]


def _parent(node: Any) -> Any:
    return static_spec(node._parent)


def _source(node: Any) -> Any:
    from .sources import ElementsSource, RangeSource, SlicesSource
    source = node.source
    if isinstance(source, RangeSource):
        return scalar(source.dtype)
    if isinstance(source, SlicesSource):
        leaves = [TensorSpec(leaf.shape[1:], as_dtype(leaf.dtype)) for leaf in source.leaves]
        return pack_as(source.template, leaves) if source._structured else leaves[0]
    if isinstance(source, ElementsSource) and source.elements:
        return common_spec([spec_of(e, exact=True) for e in source.elements])
    if getattr(source, "element_spec", None) is not None:
        return source.element_spec
    return None


def _generator(node: Any) -> Any:
    signature = getattr(node, "_signature", None)
    if signature is not None:
        return signature
    if node._types is None:
        return None
    return map_leaves(node._types, lambda t: TensorSpec(TensorShape(None), t))


def _batched(spec: Any, size: int | None) -> Any:
    if isinstance(spec, TensorSpec):
        dims = spec.shape.dims
        return TensorSpec(None if dims is None else (size, *dims), spec.dtype)
    if isinstance(spec, RaggedTensorSpec):
        dims = spec.shape.dims or ()
        return RaggedTensorSpec((size, *dims), spec.dtype, spec.ragged_rank + 1,
                                spec.row_splits_dtype)
    if isinstance(spec, SparseTensorSpec):
        dims = spec.shape.dims
        return SparseTensorSpec(None if dims is None else (size, *dims), spec.dtype)
    return None


def _batch(node: Any) -> Any:
    size = node._batch_size if node._drop else None
    return map_leaves(_parent(node), lambda s: _batched(s, size))


def _padded_batch(node: Any) -> Any:
    spec = _batch(node)
    if spec is None or node._shapes is None:
        return spec
    from .structure import flatten_up_to
    try:
        shapes = flatten_up_to(spec, node._shapes, "padded_shapes")
    except (TypeError, ValueError):
        return spec

    def padded(leaf: Any, shape: Any) -> Any:
        if not isinstance(leaf, TensorSpec) or leaf.shape.dims is None:
            return leaf
        dims = TensorShape(getattr(shape, "as_list", lambda: shape)()).dims
        return leaf if dims is None else TensorSpec((leaf.shape.dims[0], *dims), leaf.dtype)

    leaves = [padded(leaf, shape) for leaf, shape in zip(flatten(spec), shapes, strict=True)]
    return pack_as(spec, leaves) if isinstance(spec, (tuple, dict)) else leaves[0]


def unbatched(spec: Any) -> Any:
    """A leaf spec without its leading dimension (None for a scalar or unknown one).

    Example:
        >>> unbatched(TensorSpec([None, 3], "int64"))
        TensorSpec(shape=(3,), dtype=tf.int64, name=None)
    """
    if isinstance(spec, TensorSpec):
        dims = spec.shape.dims
        if dims is None:
            return TensorSpec(TensorShape(None), spec.dtype)
        return TensorSpec(dims[1:], spec.dtype) if dims else None
    if isinstance(spec, RaggedTensorSpec):
        dims = spec.shape.dims or (None, None)
        if spec.ragged_rank <= 1:
            return TensorSpec(dims[1:], spec.dtype)
        return RaggedTensorSpec(dims[1:], spec.dtype, spec.ragged_rank - 1,
                                spec.row_splits_dtype)
    return None


def _window(node: Any) -> Any:
    spec = _parent(node)
    if spec is None:
        return None
    return map_leaves(spec, DatasetSpec)


def _zip(node: Any) -> Any:
    return pack_as(node._template, [static_spec(d) for d in node._datasets])


def _concatenate(node: Any) -> Any:
    return common_spec([static_spec(d) for d in node._pair])


def _directed(node: Any) -> Any:
    return common_spec([static_spec(d) for d in node._datasets])


def _rebatch(node: Any) -> Any:
    """TF's static batch dimension of ``rebatch``: the size when every size is the same
    and no partial batch can form (``drop_remainder``, or input batches of a known
    size it divides)."""
    spec = _parent(node)
    sizes = set(node._sizes)
    size = sizes.pop() if len(sizes) == 1 else None
    if size is not None and not node._drop:
        leading = {s.shape.dims[0] if isinstance(s, TensorSpec) and s.shape.dims else None
                   for s in flatten(spec)} if spec is not None else {None}
        known = leading.pop() if len(leading) == 1 else None
        size = size if known is not None and size and known % size == 0 else None
    return map_leaves(spec, lambda s: _batched(unbatched(s), size)
                      if unbatched(s) is not None else None)


def _own(node: Any) -> Any:
    return node._element_spec_static()


@lru_cache(maxsize=1)
def _rules() -> dict[type, Rule]:
    from . import (
        batching,
        cache_files,
        caching,
        combine,
        files,
        generator_dataset,
        ignoring,
        random_sources,
        sampling,
        selection,
        shuffle,
        sources,
        transforms,
        unbatching,
        windowing,
        with_options,
    )
    from .positional import RepeatDataset, ShardDataset, SkipDataset, TakeDataset
    passing = [transforms.FilterDataset, transforms.PrefetchDataset, shuffle.ShuffleDataset,
               RepeatDataset, SkipDataset, TakeDataset, ShardDataset,
               with_options.OptionsDataset, caching.CacheDataset, cache_files.FileCacheDataset,
               selection.TakeWhileDataset, selection.UniqueDataset,
               ignoring.IgnoreErrorsDataset]
    rules: dict[type, Rule] = {cls: _parent for cls in passing}
    rules.update({
        sources.SourceDataset: _source, generator_dataset.GeneratorDataset: _generator,
        files.FilesDataset: lambda node: scalar("string"),
        batching.BatchDataset: _batch, batching.PaddedBatchDataset: _padded_batch,
        unbatching.UnbatchDataset: lambda node: map_leaves(_parent(node), unbatched),
        unbatching.RebatchDataset: _rebatch, windowing.WindowDataset: _window,
        combine.ZipDataset: _zip, combine.ConcatenateDataset: _concatenate,
        combine.EnumerateDataset: lambda node: (scalar("int64"), _parent(node)),
        random_sources.RandomDataset: lambda node: scalar("int64"),
        random_sources.CounterDataset: lambda node: scalar(node._dtype),
        sampling.SelectorDataset: lambda node: scalar("int64"),
        sampling.DirectedInterleaveDataset: _directed,
    })
    return rules


def rule_for(node: Any) -> Rule | None:
    """The static spec rule of ``node``'s class (or of its nearest registered base).

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> rule_for(Dataset.range(2).map(abs)) is None
        True
    """
    if hasattr(type(node), "_element_spec_static"):
        return _own
    rules = _rules()
    for cls in type(node).__mro__:
        if cls in rules:
            return rules[cls]
    return None


__all__ = ["rule_for", "unbatched"]
