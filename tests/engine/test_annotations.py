"""Every annotation of the engine resolves (``typing.get_type_hints``): a name used
in an annotation but never imported (``engine/schedule.py``'s ``Any`` sat inside
the module docstring) breaks tools that read them, such as dataclasses and IDEs."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing

import pytest

import minibatcher.engine

MODULES = sorted(m.name for m in pkgutil.iter_modules(minibatcher.engine.__path__,
                                                        "minibatcher.engine."))


def _annotated(module):
    for obj in vars(module).values():
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            yield obj
        elif inspect.isclass(obj):
            yield obj
            yield from (f for f in vars(obj).values() if inspect.isfunction(f))


@pytest.mark.parametrize("name", MODULES)
def test_annotations_resolve(name):
    for obj in _annotated(importlib.import_module(name)):
        typing.get_type_hints(obj)  # raises NameError for a name not imported
