"""Every public function, class, method and property of minibatcher.nmt has a docstring with an
example (tests/test_doctests.py runs them)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any, Iterator

import minibatcher.nmt as nmt


def public_objects() -> Iterator[tuple[str, Any]]:
    for info in pkgutil.iter_modules(nmt.__path__, "minibatcher.nmt."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj):
                yield f"{module.__name__}.{name}", obj
            if inspect.isclass(obj):
                for attr, value in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    if isinstance(value, property):
                        yield f"{module.__name__}.{name}.{attr}", value.fget
                    elif isinstance(value, (classmethod, staticmethod)):
                        yield f"{module.__name__}.{name}.{attr}", value.__func__
                    elif inspect.isfunction(value):
                        yield f"{module.__name__}.{name}.{attr}", value


def test_every_public_name_has_an_example() -> None:
    names = dict(public_objects())
    assert "minibatcher.nmt.vocab_utils.VocabTable.lookup" in names  # the walk finds methods
    missing = sorted(n for n, obj in names.items() if ">>>" not in (obj.__doc__ or ""))
    assert missing == []
