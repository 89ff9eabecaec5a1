"""The package's import graph keeps its layers (docs/design/architecture.md §1).

Every import counts, at module level or inside a function (a function-level
import only defers a cycle to the first call), except those under
``if TYPE_CHECKING:``. An import ``from a.b import c`` is an edge to
``a.b.c`` when that is a module, else to ``a.b``.
"""

from __future__ import annotations

import ast
import pathlib
import pkgutil

import minibatcher

ROOT = pathlib.Path(minibatcher.__file__).parent


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in ROOT.rglob("*.py")}
NATIVE = {f"minibatcher.{m.name}" for m in pkgutil.iter_modules(minibatcher.__path__)
          if f"minibatcher.{m.name}" not in MODULES}  # compiled (_native): they import nothing


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, skipping the bodies of ``if TYPE_CHECKING:``."""
    out: list[ast.Import | ast.ImportFrom] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                stack.extend(child.orelse)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                out.append(child)
            else:
                stack.append(child)
    return out


def _targets(name: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    if node.level:
        package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{node.module}" if node.module else package
    else:
        base = node.module or ""
    known = MODULES.keys() | NATIVE
    return {f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names}


def _graph() -> dict[str, set[str]]:
    graph = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        targets = set().union(*(_targets(name, n) for n in _imports(tree)))
        graph[name] = {t for t in targets if t in MODULES and t != name}
    return graph


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """A path ``start -> ... -> goal`` (breadth first), or None."""
    parents = {start: ""}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for succ in sorted(graph[node]):
                if succ == goal:
                    path = [goal, node]
                    while parents[path[-1]]:
                        path.append(parents[path[-1]])
                    return path[::-1]
                if succ not in parents:
                    parents[succ] = node
                    nxt.append(succ)
        frontier = nxt
    return None


def test_the_graph_sees_function_level_imports():
    graph = _graph()
    assert "minibatcher.config.reader" in graph["minibatcher.engine.source"]  # from_config's
    assert "minibatcher.engine.source" in graph["minibatcher"]


def test_no_cycle_through_the_engine_source():
    source = "minibatcher.engine.source"
    cycle = _reaches(_graph(), source, source)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_formats_import_neither_the_engine_nor_tfdata():
    graph = _graph()
    bad = sorted(f"{name} -> {target}" for name, targets in graph.items()
                 if name.startswith("minibatcher.formats.") for target in targets
                 if target.startswith(("minibatcher.engine", "minibatcher.tfdata")))
    assert bad == []
