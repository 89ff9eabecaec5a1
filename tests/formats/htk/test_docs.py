"""Every public method of the HTK deserializers and the legacy reader's packers has a
runnable example (tests/test_doctests.py runs them)."""

from __future__ import annotations

import inspect

import pytest

from minibatcher.formats.htk import HTKFeatureDeserializer, HTKMLFDeserializer
from minibatcher.engine.legacy import FullFramePacker, MinibatchTruncationPacker, UtterancePacker


def public_members(cls: type) -> list[tuple[str, object]]:
    out = []
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, property):
            member = member.fget
        if inspect.isfunction(member):
            out.append((name, member))
    return out


@pytest.mark.parametrize("cls", [HTKFeatureDeserializer, HTKMLFDeserializer, UtterancePacker,
                                 MinibatchTruncationPacker, FullFramePacker])
def test_public_methods_have_examples(cls):
    missing = [name for name, f in public_members(cls) if ">>>" not in (f.__doc__ or "")]
    assert missing == [], f"{cls.__name__}: no docstring example in {missing}"
