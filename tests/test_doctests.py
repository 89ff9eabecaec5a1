"""Every docstring example in the package runs (the config package has its own runner)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import minibatcher

MODULES = sorted(m.name for m in pkgutil.walk_packages(minibatcher.__path__, "minibatcher.")
                 if m.name in ("minibatcher.config.reader", "minibatcher.config.paths") or not m.name.startswith(
                     ("minibatcher.config", "minibatcher._native", "minibatcher.cli.__main__")))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"
