"""The packages' imports form no circle: module A imports B (at its top or inside a function)
while B imports A. Imports under TYPE_CHECKING, which never run, do not count."""

from __future__ import annotations

import ast

from conftest import ROOT

PACKAGES = ("solver", "slipstream", "shapes", "surrogate", "optimize", "viz")


def _runtime_nodes(tree: ast.AST):
    """Every node of tree outside `if TYPE_CHECKING:` blocks."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            yield from (n for child in node.orelse for n in [child, *_runtime_nodes(child)])
            continue
        yield node
        yield from _runtime_nodes(node)


def _module_imports(path) -> set[str]:
    """The project modules a file imports where it can run: at its top or in a function."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in _runtime_nodes(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        found.update(n for n in names if n.split(".")[0] in PACKAGES)
    return found


def _graph() -> dict[str, set[str]]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    return {name: _module_imports(path) & modules.keys() for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of graph, or None (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_circle_between_the_project_modules():
    graph = _graph()
    assert len(graph) > 80  # every package was read (94 modules in December 2026)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]


def test_imports_in_functions_count_and_type_checking_ones_do_not(tmp_path):
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import solver.units\n"
        "if TYPE_CHECKING:\n"
        "    from solver.run import Runner\n"
        "def f():\n"
        "    from solver.checkpoint import load_checkpoint\n"
    )
    found = _module_imports(source)
    assert "solver.units" in found and "solver.checkpoint" in found
    assert not any(name.startswith("solver.run") for name in found)
