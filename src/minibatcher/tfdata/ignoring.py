"""``ignore_errors(log_warning=False)``: elements whose production raised are left out.

An error inside an input function (``map``, ``filter``, ...) raises for that
element only, and the input goes on with the next one (as TF's iterators do);
``ignore_errors`` catches those errors and reads on, as TF's
``IgnoreErrorsDataset`` does for every error but the end of the input. Nothing
is dropped silently: the iterator counts what it left out (``ignored`` in its
state), ``log_warning=True`` logs each error as TF does, and otherwise one
line at the end of the iteration reports the count (logger
``minibatcher.tfdata``, INFO).

Example:
    >>> from minibatcher.tfdata import Dataset
    >>> ds = Dataset.from_tensor_slices([1.0, 2.0, 0.0, 4.0]).map(lambda x: 1 / x if x else 1 // 0)
    >>> [float(x) for x in ds.ignore_errors()]
    [1.0, 0.5, 0.25]
"""

from __future__ import annotations

import logging
from typing import Any

from ..state import Fields
from .core import UNKNOWN, Iter
from .dataset import Dataset
from .transforms import _PassIter, _Unary

_log = logging.getLogger("minibatcher.tfdata")


class _IgnoreIter(_PassIter):
    def __init__(self, parent: Iter, log_warning: bool, ignored: int) -> None:
        super().__init__(parent)
        self.log_warning, self.ignored = log_warning, ignored

    def __next__(self) -> Any:
        while True:
            try:
                return next(self.parent)
            except StopIteration:
                if self.ignored and not self.log_warning:
                    _log.info("ignore_errors: %d elements whose production raised were left "
                              "out of this iteration", self.ignored)
                raise
            except Exception as e:  # noqa: BLE001 - TF ignores every error but the end
                self.ignored += 1
                if self.log_warning:
                    _log.warning("Ignoring error: %s: %s", type(e).__name__, e)

    def state(self) -> dict[str, Any]:
        return {"in": self.parent.state(), "ignored": self.ignored}


class IgnoreErrorsDataset(_Unary):
    """``ignore_errors(log_warning)``.

    Example:
        >>> from minibatcher.tfdata import Dataset
        >>> ds = IgnoreErrorsDataset(Dataset.range(4).map(lambda x: 10 // (int(x) - 2)), False)
        >>> [int(x) for x in ds]
        [-5, -10, 10]
    """

    def __init__(self, parent: Dataset, log_warning: bool) -> None:
        super().__init__(parent)
        self._log_warning = bool(log_warning)

    def _has_view(self) -> bool:
        return False

    def _spec(self) -> dict[str, Any]:
        return {"op": "ignore_errors"}

    def _make_iter(self, state: Fields | None) -> Iter:
        if state is None:
            return _IgnoreIter(self._parent._make_iter(None), self._log_warning, 0)
        state.only("in", "ignored")
        return _IgnoreIter(self._parent._make_iter(state.child("in")), self._log_warning,
                           state.int("ignored", 0))

    def _cardinality(self) -> int:
        return UNKNOWN  # TF: unknown, whatever the input's
