"""TFDS examples decoded a block at a time into columns (docs/tfrecord-tfds.md,
"Block decoding").

The records of a block are decoded by one native ``tf.train.Example`` call;
then each feature becomes one column without a Python object per element
where its values allow: fixed-shape Tensors and ClassLabels are one array,
strings and Text one object array of ``bytes``, Images one ``[n, h, w, c]``
array decoded on the read's workers (:mod:`~minibatcher.tfds.image_decode`).
When every feature is such a column the block is an :class:`ExampleBlock`
(``batch``/``padded_batch`` slice its columns); otherwise (sequences,
optional values, images of several sizes ...) each feature's values are
decoded per record as the element path decodes them, and the block holds
the feature dicts. Either way the elements are the element path's: the
same values, dicts in ``features.json`` order, ``tfds_id`` last.

Example:
    >>> from minibatcher.formats.tfrecord import encode_example
    >>> from minibatcher.tfdata.block import RecordsBlock
    >>> from minibatcher.tfds.features import parse_features
    >>> from minibatcher.tfds.reader import ExampleDecoding
    >>> from minibatcher.tfds.testing import DEFAULT_FEATURES
    >>> d = ExampleDecoding(parse_features(DEFAULT_FEATURES))
    >>> records = RecordsBlock.from_list([encode_example({"id": [i], "label": [i % 2]})
    ...                                   for i in range(3)])
    >>> b = decode_block(d, records, str, [b"a__0", b"a__1", b"a__2"])
    >>> type(b).__name__, b.elements()[2]["tfds_id"], b.batch(0, 2)["label"].tolist()
    ('ExampleBlock', b'a__2', [0, 1])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from .. import _native
from ..tfdata.block import ArrayColumn, Block, ColumnBlock, ListBlock, RecordsBlock
from ..tfdata.structure import pack_as
from .features import Leaf
from .image_decode import decode_images

if TYPE_CHECKING:
    from .reader import ExampleDecoding


class ExampleBlock(ColumnBlock):
    """Decoded examples in columns: elements are dicts in the features' order
    (as the element path builds them); batches pack as ``Dataset.batch``
    packs dicts (keys sorted), so ``padded_batch`` of them is a slice.

    Example:
        >>> b = ExampleBlock({"b": 0, "a": 0}, [ArrayColumn(np.array([1])),
        ...                                     ArrayColumn(np.array([2]))])
        >>> b.elements(), list(b.batch(0, 1))
        ([{'b': np.int64(2), 'a': np.int64(1)}], ['a', 'b'])
    """

    __slots__ = ()

    def __init__(self, template: Any, columns: list[Any]) -> None:
        super().__init__(template, columns, keep_order=False)

    def elements(self) -> list[Any]:
        template = self.template
        rows = [c.rows() for c in self.columns]
        if any(isinstance(v, dict) for v in template.values()):
            return [_nest_like(template, list(parts)) for parts in zip(*rows)]
        keys = sorted(template)  # columns are in this (flatten) order
        where = {k: i for i, k in enumerate(keys)}
        ordered = [rows[where[k]] for k in template]
        names = list(template)
        return [dict(zip(names, parts)) for parts in zip(*ordered)]


def _nest_like(template: dict, leaves: list[Any]) -> dict:
    """``leaves`` (flatten order: keys sorted) in ``template``'s nested dicts,
    keys in the template's order."""
    packed = pack_as(template, leaves)

    def reorder(t: Any, v: Any) -> Any:
        return {k: reorder(t[k], v[k]) for k in t} if isinstance(t, dict) else v
    return reorder(template, packed)


def decode_block(decoding: "ExampleDecoding | None", records: RecordsBlock,
                 where: Callable[[int], str], ids: Sequence[bytes] | None) -> Block:
    """The examples of ``records`` decoded per ``decoding`` (None: the records
    themselves), with ``tfds_id`` s ``ids`` (None: none); ``where(i)`` names
    record i in errors. Raises on the first bad record (the element path then
    finds it)."""
    n = len(records)
    if not n:
        return ListBlock([])
    id_column = None if ids is None else _objects(list(ids))
    if decoding is None:
        if id_column is None:
            return records
        return ExampleBlock({"record": 0, "tfds_id": 0},
                            [ArrayColumn(_objects(records.elements())), ArrayColumn(id_column)])
    data, offsets = records.contiguous()
    cols = decoding.decoder.decode(_Flat(data, offsets[1:]), where)
    values = {leaf.path: _column(decoding, leaf, cols, n, where) for leaf in decoding.leaves}
    if id_column is not None:
        values[("tfds_id",)] = id_column
    if decoding.template(False) is not None and \
            all(isinstance(v, np.ndarray) for v in values.values()):
        template = decoding.template(ids is not None)
        return ExampleBlock(template, [ArrayColumn(values[p]) for p in flat_paths(template)])
    return ListBlock(_per_element(decoding, values, n, ids is not None))


class _Flat:
    """Records back to back (``data``, ``ends``), as ``ExampleDecoder`` takes them."""

    __slots__ = ("data", "ends")

    def __init__(self, data: np.ndarray, ends: np.ndarray) -> None:
        self.data, self.ends = data, ends


def _objects(items: list[Any]) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _per_element(decoding: "ExampleDecoding", values: dict, n: int, with_ids: bool) -> list:
    out = []
    for i in range(n):
        ex = decoding.nest({path: v[i] for path, v in values.items()})
        if with_ids:
            i_d = values[("tfds_id",)][i]
            ex = dict(ex, tfds_id=i_d) if isinstance(ex, dict) else {"record": ex, "tfds_id": i_d}
        out.append(ex)
    return out


def _column(decoding: "ExampleDecoding", leaf: Leaf, cols: dict, n: int,
            where: Callable[[int], str]) -> np.ndarray | list[Any]:
    """One feature's values of every record: an array ``[n, ...]`` when they
    have one shape, else a list (decoded per record, as the element path does)."""
    skip = leaf.key in decoding.skip
    if not leaf.sequence_rank and n:
        col = cols[leaf.key]
        if leaf.connector == "Image" and not skip and np.all(col.counts == 1):
            return decode_images(leaf, col.values, col.byte_ends, decoding.workers)
        if _bytes_scalars(leaf, skip) and np.all(col.counts == 1):
            return _objects(_native.split_bytes(col.values, col.byte_ends, 0, n))
        whole = decoding.whole(leaf, cols, n)
        if whole is not None:
            return whole
    return [decoding.leaf_value(leaf, cols, i, where(i)) for i in range(n)]


def _bytes_scalars(leaf: Leaf, skip: bool) -> bool:
    """A leaf whose value is one ``bytes`` per record: Text, a string Tensor of
    shape (), an encoded image kept by SkipDecoding."""
    if leaf.connector == "Image":
        return skip
    if leaf.connector == "Text":
        return True
    return leaf.connector == "Tensor" and leaf.dtype == object and leaf.encoding == "none" \
        and leaf.shape == ()


def flat_paths(template: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The leaves' paths of a nested dict in ``flatten`` order (keys sorted at
    every level): the order of an :class:`ExampleBlock`'s columns.

    Example:
        >>> flat_paths({"b": 0, "a": {"y": 0, "x": 0}})
        [('a', 'x'), ('a', 'y'), ('b',)]
    """
    if not isinstance(template, dict):
        return [prefix]
    return [p for k in sorted(template) for p in flat_paths(template[k], prefix + (k,))]
