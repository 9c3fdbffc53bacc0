"""The import drawing: which module imports which, and the rules the layering keeps.

Reads every module under ``framework/`` and ``plugins/`` with :mod:`ast` (no
imports are executed) and counts every import statement, wherever it is: at
module level, inside ``if TYPE_CHECKING:``, and inside functions. A lazy import
is still a dependency; counting it keeps the drawing honest.

Rules checked (exit status 1 when one breaks):

- ``framework/`` has no arrow into ``plugins/`` (the kernel knows contracts, never providers);
- no module outside ``memorist.http`` imports ``memorist.http`` (the kernel, the worker and the
  CLI run without the web layer); only the HTTP doors (:data:`HTTP_DOORS`) may, and plugins
  reach it through ``memorist.plugin_api.http``;
- no import cycle among the project's modules.

Run: ``python benchmarks/imports.py`` (add ``--edges`` to print every arrow).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "framework", ROOT / "plugins")
HTTP = "memorist.http"
#: Doors that serve HTTP themselves, so they may import the web layer: the gunicorn runner,
#: the WSGI entry, the plugin API's web helpers (``memorist.plugin_api.http`` re-exports what
#: route-adding plugins need; the rest of the plugin API stays out of the web layer), and the
#: test kit's in-process server (``memorist.testing.*`` builds apps for tests).
HTTP_DOORS = frozenset({"memorist.serve.gunicorn_app", "memorist.wsgi", "memorist.plugin_api.http"})
HTTP_DOOR_PACKAGES = ("memorist.testing",)


@dataclass
class Graph:
    """Modules (dotted names) and the project modules each one imports."""

    root: Path = ROOT
    files: dict[str, Path] = field(default_factory=dict)
    edges: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def is_package(self, name: str) -> bool:
        return self.files[name].name == "__init__.py"


def module_name(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def scan(sources: Iterable[Path] = SOURCES, root: Path = ROOT) -> Graph:
    graph = Graph(root=root)
    for base in sources:
        for path in sorted(base.rglob("*.py")):
            graph.files[module_name(path, base)] = path
    for name, path in graph.files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            for target in _targets(graph, name, node):
                if target != name:
                    graph.edges[name].add(target)
    return graph


def _resolve(graph: Graph, name: str) -> str | None:
    """The nearest project module for a dotted name (``a.b.c`` -> ``a.b`` when only that exists)."""
    while name:
        if name in graph.files:
            return name
        name = name.rpartition(".")[0]
    return None


def _targets(graph: Graph, importer: str, node: ast.AST) -> list[str]:
    found: list[str] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if (target := _resolve(graph, alias.name)) is not None:
                found.append(target)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            package = importer if graph.is_package(importer) else importer.rpartition(".")[0]
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{node.module}" if node.module else package
        else:
            base = node.module or ""
        for alias in node.names:
            # ``from pkg import sub`` imports the submodule ``pkg.sub``; ``from mod import name`` imports ``mod``.
            target = _resolve(graph, f"{base}.{alias.name}") if f"{base}.{alias.name}" in graph.files else None
            target = target or _resolve(graph, base)
            if target is not None:
                found.append(target)
    return found


def cycles(graph: Graph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph.files):
        if root in index:
            continue
        work: list[tuple[str, Iterable[str]]] = [(root, iter(sorted(graph.edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    item = stack.pop()
                    on_stack.discard(item)
                    component.append(item)
                    if item == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def _in_framework(graph: Graph, name: str) -> bool:
    return graph.files[name].is_relative_to(graph.root / "framework")


def violations(graph: Graph) -> list[str]:
    """Every broken rule, one line each (empty when the drawing is clean)."""
    problems: list[str] = []
    for source in sorted(graph.edges):
        for target in sorted(graph.edges[source]):
            if _in_framework(graph, source) and not _in_framework(graph, target):
                problems.append(f"framework -> plugins: {source} imports {target}")
            inside_http = (
                source == HTTP
                or source.startswith(HTTP + ".")
                or source in HTTP_DOORS
                or any(source == p or source.startswith(p + ".") for p in HTTP_DOOR_PACKAGES)
            )
            if not inside_http and (target == HTTP or target.startswith(HTTP + ".")):
                problems.append(f"kernel -> http: {source} imports {target}")
    for component in cycles(graph):
        problems.append(f"import cycle: {' <-> '.join(component)}")
    return problems


def summary(graph: Graph) -> list[str]:
    """Arrows between top-level areas (``memorist.engine``, ``memorist.http``, each plugin, ...)."""

    def area(name: str) -> str:
        parts = name.split(".")
        if parts[0] != "memorist" or len(parts) == 1:
            return parts[0]
        sub = f"memorist.{parts[1]}"
        return sub if sub in graph.files and graph.is_package(sub) else "memorist (kernel modules)"

    arrows: dict[tuple[str, str], int] = defaultdict(int)
    for source, targets in graph.edges.items():
        for target in targets:
            if area(source) != area(target):
                arrows[area(source), area(target)] += 1
    return [f"{a:32} -> {b:32} {n:3d} imports" for (a, b), n in sorted(arrows.items())]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", action="store_true", help="print every module-to-module arrow")
    args = parser.parse_args(argv)
    graph = scan()
    print(f"{len(graph.files)} modules, {sum(len(t) for t in graph.edges.values())} imports between them\n")
    for line in summary(graph):
        print(line)
    if args.edges:
        print()
        for source in sorted(graph.edges):
            for target in sorted(graph.edges[source]):
                print(f"{source} -> {target}")
    problems = violations(graph)
    print()
    for line in problems:
        print(line)
    print("imports: ok" if not problems else f"imports: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
