"""Two rules of the docstrings of the package (the examples run in test_doctests.py):
an example shows behaviour, not only that a name exists (``MinibatchSource.minibatches.__name__``
passes whatever the method does), and a cited document exists in the repository (the
docstrings cited spec files that were never in it)."""

from __future__ import annotations

import ast
import doctest
import pathlib
import re

import minibatcher

PACKAGE = pathlib.Path(minibatcher.__file__).parent
# The documents live in the checkout, next to tests/; the package may be installed elsewhere
# (CI installs it into a virtual environment's site-packages, not in editable mode).
REPO = pathlib.Path(__file__).resolve().parent.parent
SOURCES = sorted(PACKAGE.rglob("*.py"))
NAME_ONLY = re.compile(r"^[\w.\[\]()]+\.(__name__|__mro__\[\d+\]\.__name__)$")


def _docstrings(path: pathlib.Path):
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text:
                yield getattr(node, "name", "<module>"), text


def test_examples_show_behaviour():
    parser = doctest.DocTestParser()
    vacuous = []
    for path in SOURCES:
        for name, text in _docstrings(path):
            sources = [e.source.strip() for e in parser.get_examples(text)]
            if sources and all(NAME_ONLY.match(s) for s in sources):
                vacuous.append(f"{path.relative_to(PACKAGE.parent)}: {name}: {sources}")
    assert vacuous == []


def test_cited_documents_exist():
    missing = []
    for path in SOURCES:
        for cited in set(re.findall(r"[\w./-]+\.md\b", path.read_text())):
            candidates = [REPO / cited, REPO / "docs" / cited, REPO / "docs" / "design" / cited]
            if not any(c.is_file() for c in candidates):
                missing.append(f"{path.relative_to(PACKAGE.parent)}: {cited}")
    assert missing == []
