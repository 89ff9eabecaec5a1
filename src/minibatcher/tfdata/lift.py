"""Lifting ``map`` functions to whole blocks: a function that parses or decodes
(``tfdata.io.parse_single_example``, ``parse_example``, ``decode_raw``, ...)
is called once per block with the block's columns instead of once per element
(docs/design/tfdata-blocks.md, "Lifted maps").

TF traces a map function once and runs the graph on every element; we call
the function with a block value, as TF calls it with symbolic tensors:

* the records of a block are a ``tfdata.io.RecordBlock`` (``parse_*`` return
  its columns), an element structure of columns becomes that structure with
  a column at each leaf;
* the result must be a structure of columns of the block's length (each has
  ``len``, ``row(i)``: the element's value, ``batch(lo, hi)``), else the
  function is not liftable.

Only functions that mention a block-aware function by name are tried (a
function that only computes on numbers is never called with a block), and a
function that fails on a block value is marked not liftable and runs per
element from then on (it was called once more than on the element path, as
TF's tracing calls it once). A data error inside a block makes that block run
per element, so the error is raised at its element, worded as there.

Example:
    >>> mentions_block_functions(lambda r: parse_single_example(r, {})), \\
    ...     mentions_block_functions(lambda x: x + 1)
    (True, False)
"""

from __future__ import annotations

import functools
import types
from typing import Any, Callable

import numpy as np

from .block import ArrayColumn, Block, ColumnBlock, RecordsBlock, _has_values, pack_like
from .rows import Rows
from .structure import call, flatten, is_structure

BLOCK_FUNCTIONS = frozenset({"parse_single_example", "parse_example", "decode_raw",
                             "parse_single_sequence_example", "parse_sequence_example"})


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def mentions_block_functions(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` (a function, a ``functools.partial`` of one, or one of the
    block-aware functions itself) names a block-aware function.

    Example:
        >>> import functools
        >>> def parse_example(x, spec): return x
        >>> mentions_block_functions(functools.partial(parse_example, spec={}))
        True
    """
    while isinstance(fn, functools.partial):
        fn = fn.func
    if getattr(fn, "__name__", "") in BLOCK_FUNCTIONS:
        return True
    code = getattr(fn, "__code__", None)
    return code is not None and bool(_names(code) & BLOCK_FUNCTIONS)


def _record_block(block: RecordsBlock) -> Any:
    try:
        from .io import RecordBlock  # tfdata.io's container (see there)
    except ImportError:
        return None
    data, offsets = block.contiguous()
    return RecordBlock(data, offsets)


def _argument(column: Any) -> Any:
    as_rows = getattr(column, "as_rows", None)  # tfdata.io's DenseColumn: strings stay native
    if as_rows is not None:
        return as_rows()
    return Rows(column.values) if _has_values(column) else column


def block_argument(block: Block) -> Any:
    """What a lifted function is called with for ``block`` (None: nothing).

    Example:
        >>> arg = block_argument(ColumnBlock((0, 0), [ArrayColumn(np.arange(2))] * 2))
        >>> type(arg).__name__, type(arg[0]).__name__, arg[0].values.tolist()
        ('tuple', 'Rows', [0, 1])
    """
    if isinstance(block, RecordsBlock):
        return _record_block(block)
    if isinstance(block, ColumnBlock):
        leaves = [_argument(c) for c in block.columns]
        if not is_structure(block.template):
            return leaves[0]
        return pack_like(block.template, leaves)
    return None


def _as_column(value: Any, n: int) -> Any:
    """A function's result leaf as a column of ``n`` rows, or None."""
    if isinstance(value, Rows):
        return ArrayColumn(value.values) if len(value.values) == n else None
    if hasattr(value, "row") and hasattr(value, "batch") and hasattr(value, "__len__") \
            and not isinstance(value, np.ndarray) and len(value) == n:
        return value
    return None


class Lift:
    """The lifting of one map function (see the module docstring): ``apply``
    gives the mapped block, or None when the element path must run.

    Example:
        >>> Lift(lambda x: x * 2).apply(RecordsBlock.from_list([b"a"])) is None
        True
    """

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.liftable: bool | None = None if mentions_block_functions(fn) else False

    def apply(self, block: Block) -> Block | None:
        """``fn`` over ``block`` in one call, or None."""
        if self.liftable is False or not len(block):
            return None
        arg = block_argument(block)
        if arg is None:
            return None
        try:
            out = call(self.fn, arg)
        except Exception as e:  # noqa: BLE001 - a data error, or a function that is not liftable
            if getattr(e, "record", None) is None:
                self.liftable = False
            return None
        leaves = [_as_column(leaf, len(block)) for leaf in flatten(out)]
        if not leaves or any(leaf is None for leaf in leaves):
            self.liftable = False
            return None
        self.liftable = True
        return ColumnBlock(out, leaves) if is_structure(out) else ColumnBlock(0, leaves)
