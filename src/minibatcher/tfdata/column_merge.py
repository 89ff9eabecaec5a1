"""Column blocks merged by column: the rows of several array-column blocks of one
kind and structure gathered into one block (what ``merge_blocks`` does for them
instead of building every element), and the test of whether a block's batch is
also its padded batch (docs/design/tfdata-blocks.md).

Example:
    >>> b = ColumnBlock({"a": 0}, [ArrayColumn(np.arange(3))], keep_order=False)
    >>> mergeable_columns([b, b]), uniform_columns(b)
    (True, True)
"""

from __future__ import annotations

import typing

import numpy as np

from .block import ArrayColumn, Block, ColumnBlock


def mergeable_columns(blocks: list[Block]) -> bool:
    """Whether ``blocks`` are column blocks of one kind and structure whose
    columns are arrays of the same dtypes and row shapes (they merge by column).

    Example:
        >>> from minibatcher.tfdata.block import ListBlock
        >>> b = ColumnBlock(0, [ArrayColumn(np.arange(2))])
        >>> mergeable_columns([b, b.take(np.array([1]))]), mergeable_columns([b, ListBlock([1])])
        (True, False)
    """
    first = blocks[0] if blocks else None
    if not isinstance(first, ColumnBlock) or \
            not all(type(c) is ArrayColumn for c in first.columns):
        return False
    rows = [(c.values.dtype, c.values.shape[1:]) for c in first.columns]
    return all(type(b) is type(first) and b.template is first.template and
               b._pack is first._pack and len(b.columns) == len(rows) and
               all(type(c) is ArrayColumn and (c.values.dtype, c.values.shape[1:]) == r
                   for c, r in zip(b.columns, rows)) for b in blocks[1:])


def merge_columns(parts: list[tuple[np.ndarray, Block]], n: int) -> ColumnBlock:
    """One column block of ``n`` rows from ``parts`` (``(indices, block)`` pairs
    of :func:`mergeable_columns` blocks): row j of a part goes to ``indices[j]``.

    Example:
        >>> b = ColumnBlock(0, [ArrayColumn(np.array([5, 6]))])
        >>> [int(x) for x in merge_columns([(np.array([1, 2]), b), (np.array([0]), b.take(
        ...     np.array([1])))], 3).elements()]
        [6, 5, 6]
    """
    first = typing.cast(ColumnBlock, parts[0][1])
    columns = []
    for j, c in enumerate(first.columns):
        out = np.empty((n,) + c.values.shape[1:], c.values.dtype)
        for index, b in parts:
            out[index] = typing.cast(ColumnBlock, b).columns[j].values
        columns.append(ArrayColumn(out))
    return first.like(columns)


def uniform_columns(block: Block) -> bool:
    """Whether ``block`` holds array columns (every row of a column has one
    shape): then its ``batch`` (packed as ``pack_as`` packs) is also what
    ``padded_batch`` without ``padded_shapes``/``padding_values`` gives.

    Example:
        >>> uniform_columns(ColumnBlock({"a": 0}, [ArrayColumn(np.arange(2))], keep_order=False))
        True
    """
    return isinstance(block, ColumnBlock) and all(type(c) is ArrayColumn for c in block.columns)
