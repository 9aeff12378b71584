"""No import circles in nimmt/: the modules' imports make a graph without a cycle, every import
counted (at the top, inside a function, under ``if TYPE_CHECKING``), so any module can be read,
tested and replaced after the ones it imports.

The graph is made from the syntax trees alone (nothing is imported): an edge goes from a module to
each module of nimmt it names, ``from package import name`` going to ``package.name`` when that is a
module and to the package otherwise. A package's ``__init__`` is a module like the others; importing
``a.b`` is not counted as importing ``a`` (Python runs ``a/__init__.py`` first, but a package that
re-exports its own modules would then be a circle by construction).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import nimmt
from tests.core.test_layers import parse  # a parse made again on CPython 3.11's spurious SystemError

ROOT = Path(nimmt.__file__).parent

def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module of the package at ``root`` -> the modules of that package it imports."""
    paths = {module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names if alias.name in paths)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    above = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*above, *([node.module] if node.module else [])])
                for alias in node.names:
                    if f"{base}.{alias.name}" in paths:
                        found.add(f"{base}.{alias.name}")
                    elif base in paths:
                        found.add(base)
        found.discard(name)
        graph[name] = found
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for other in edges:
                if other not in index:
                    index[other] = low[other] = len(index)
                    stack.append(other)
                    on_stack.add(other)
                    work.append((other, iter(sorted(graph[other]))))
                    break
                if other in on_stack:
                    low[node] = min(low[node], index[other])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return found


def one_cycle(graph: dict[str, set[str]], component: frozenset[str]) -> list[str]:
    """One cycle through the component, to show: a -> b -> ... -> a."""
    start = min(component)
    path = [start]
    seen = {start}
    while True:
        step = min(m for m in graph[path[-1]] if m in component)
        if step in seen:
            return [*path[path.index(step):], step]
        path.append(step)
        seen.add(step)


def test_nimmt_has_no_import_circle() -> None:
    graph = import_graph(ROOT)
    found = circles(graph)
    assert not found, "import circles in nimmt/:\n" + "\n".join(
        f"{sorted(component)}\n  e.g. {' -> '.join(one_cycle(graph, component))}" for component in found)


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .a import thing\n", encoding="utf-8")
    (package / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\n",
                                  encoding="utf-8")
    (package / "b.py").write_text("def later():\n    from . import a\n", encoding="utf-8")
    (package / "sub" / "__init__.py").write_text("", encoding="utf-8")
    (package / "sub" / "c.py").write_text("from .. import b\nimport pkg.sub\nfrom pkg.sub import d\n", encoding="utf-8")
    (package / "sub" / "d.py").write_text("from ..sub.c import x\n", encoding="utf-8")
    graph = import_graph(package)
    assert graph == {
        "pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.sub": set(),
        "pkg.sub.c": {"pkg.b", "pkg.sub", "pkg.sub.d"}, "pkg.sub.d": {"pkg.sub.c"},
    }
    assert sorted(map(sorted, circles(graph))) == [["pkg.a", "pkg.b"], ["pkg.sub.c", "pkg.sub.d"]]
    assert one_cycle(graph, frozenset({"pkg.a", "pkg.b"})) == ["pkg.a", "pkg.b", "pkg.a"]
