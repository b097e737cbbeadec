"""Import cycles among the engine's modules, counting imports made inside functions (which
hide a cycle from the interpreter but not from a reader): there is none (docs/engine-layout.md,
"Import cycles")."""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"


def _modules() -> dict[str, Path]:
    out = {}
    for path in ENGINE.rglob("*.py"):
        parts = path.relative_to(ENGINE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the engine modules it imports anywhere in its text but in ``if
    TYPE_CHECKING:`` blocks (type hints); a package's import of its own submodules
    (re-exports) and a module's import of its parent package are left out (they are not
    cycles of code)."""

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            for target in targets:
                found = resolve(target)
                if found is None or found == name or not found.startswith("engine"):
                    continue
                if modules[found].name == "__init__.py" and name.startswith(found + "."):
                    continue
                graph[name].add(found)
    return graph


def _cycles(graph: dict[str, set[str]], nodes) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle():
    modules = _modules()
    cycles = sorted(sorted(c) for c in _cycles(_import_graph(modules), modules))
    assert not cycles, f"import cycles among the engine's modules: {cycles}"


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph, "abcd") == [frozenset("abc")]
