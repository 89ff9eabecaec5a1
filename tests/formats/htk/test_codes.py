"""Issue 18.6: the HTK core's result codes are named, in C++ and Python alike. Every Python
enum of minibatcher.formats.htk.codes equals its C++ ``enum class`` in cpp/htk/*.h (names and
values), so a code added on one side and not the other fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from minibatcher.formats.htk import codes

CPP = Path(__file__).resolve().parents[3] / "cpp" / "htk"


def cpp_enum(header: str, name: str) -> dict[str, int]:
    """``{PYTHON_NAME: value}`` of ``enum class name`` in ``header`` (kCamelCase -> CAMEL_CASE)."""
    text = (CPP / header).read_text()
    body = re.search(rf"enum class {name}\b[^{{]*\{{(.*?)\}};", text, re.S)
    assert body, f"enum class {name} not found in {header}"
    out = {}
    for member, value in re.findall(r"\bk(\w+)\s*=\s*(\d+)", body.group(1)):
        out[re.sub(r"(?<!^)(?=[A-Z])", "_", member).upper()] = int(value)
    return out


@pytest.mark.parametrize("header, name", [("features.h", "HeaderIssue"),
                                          ("features.h", "ReadFailure"),
                                          ("scp.h", "ScpIssue"), ("mlf.h", "MlfIssue")])
def test_python_codes_equal_the_cpp_enums(header, name):
    python = {m.name: m.value for m in getattr(codes, name)}
    assert python == cpp_enum(header, name)


def test_kind_bits_equal_the_cpp_constants():
    text = (CPP / "features.h").read_text()
    for name, value in (("kCompressed", codes.COMPRESSED), ("kHasCrc", codes.HAS_CRC),
                        ("kHasVq", codes.HAS_VQ), ("kFestream", codes.FESTREAM)):
        found = re.search(rf"\b{name}\s*=\s*(0[0-7]*|\d+)", text)
        assert found and int(found.group(1), 8 if found.group(1).startswith("0") else 10) == value
