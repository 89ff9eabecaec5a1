"""``Dataset.with_options``: an identity node that carries options (TF's
``_OptionsDataset``).

Its elements, views and states are its input's; its options are merged over
its input's (:func:`~minibatcher.tfdata.options.dataset_options`). The plan
records ``deterministic`` (the one option that can change an order, with
parallel ops), so a checkpoint taken with another setting is refused.

Example:
    >>> from minibatcher.tfdata import Dataset, Options
    >>> o = Options(); o.experimental_optimization.map_fusion = True
    >>> ds = Dataset.range(3).with_options(o)
    >>> [int(x) for x in ds], ds.options().experimental_optimization.map_fusion
    ([0, 1, 2], True)
"""

from __future__ import annotations

from typing import Any

from ..state import Fields
from .core import Iter, View
from .dataset import Dataset
from .options import Options, merge_options
from .transforms import _Unary


class OptionsDataset(_Unary):
    """``with_options(options)``: the input, with ``options`` merged over its own.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> o = Options(); o.deterministic = False
        >>> OptionsDataset(Dataset.range(2), o).options().deterministic
        False
    """

    def __init__(self, parent: Dataset, options: Options) -> None:
        super().__init__(parent)
        if not isinstance(options, Options):
            raise TypeError(f"options should be a tfdata.Options, but got "
                            f"{type(options).__name__}; build one with tfdata.Options()")
        self._own_options = merge_options(options)  # a copy: later edits of `options` do nothing

    def _spec(self) -> dict[str, Any]:
        return {"op": "with_options", "deterministic": self._own_options.deterministic}

    def _make_view(self, pins: Fields | None) -> View:
        return self._parent._make_view(pins)

    def _make_iter(self, state: Fields | None) -> Iter:
        return self._parent._make_iter(state)

    def _cardinality(self) -> int:
        return self._parent._cardinality()
