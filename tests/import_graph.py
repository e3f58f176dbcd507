"""The import graph of ``rubric_lsp``, read from its source with ``ast`` (nothing is imported).

Every ``import`` statement counts, wherever it stands: at module level, inside a function
(lazy loading, or a cycle hidden from the interpreter) and under ``if TYPE_CHECKING:`` (a
type-only import is still an arrow between two modules; hiding it from the interpreter does not
remove the circle from the design). ``from pkg import name`` is an arrow to ``pkg.name`` when
that is a module of the package, else to ``pkg`` itself. ``importlib.import_module("rubric_lsp.…")``
with a literal name is an import too (the format registry loads the any-file rules that way).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "rubric_lsp"
ROOT = PACKAGE.name


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    in_function: bool


def module_files(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name → file (a package's ``__init__.py`` is the package's name)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return name in modules and modules[name].name == "__init__.py"


def _resolve_relative(module: str, node: ast.ImportFrom, modules: dict[str, Path]) -> str:
    package = module if _is_package(module, modules) else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _nearest_module(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _targets(module: str, node: ast.Import | ast.ImportFrom, modules: dict[str, Path]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] == ROOT and (target := _nearest_module(alias.name, modules)):
                yield target
        return
    base = _resolve_relative(module, node, modules) if node.level else (node.module or "")
    if base.split(".")[0] != ROOT:
        return
    for alias in node.names:
        if f"{base}.{alias.name}" in modules:  # `from . import judge`: the submodule
            yield f"{base}.{alias.name}"
        elif target := _nearest_module(base, modules):
            yield target


def _import_by_name(node: ast.AST) -> ast.Import | None:
    """``importlib.import_module("literal")`` read as ``import literal``."""
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
        return None
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if name != "import_module" or not isinstance(node.args[0].value, str):
        return None
    return ast.Import(names=[ast.alias(name=node.args[0].value)], lineno=node.lineno)


def _imports(tree: ast.AST, by_name: bool = True) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement (and import by a literal name) with whether it stands inside a function."""

    def visit(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, in_function
            elif by_name and (named := _import_by_name(child)) is not None:
                yield named, in_function
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            yield from visit(child, inside)

    yield from visit(tree, False)


def edges(package: Path = PACKAGE) -> list[Edge]:
    modules = module_files(package)
    found = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node, in_function in _imports(tree):
            for target in _targets(module, node, modules):
                if target != module:
                    found.append(Edge(module, target, node.lineno, in_function))
    return found


def in_function_imports(package: Path = PACKAGE, own: bool = True) -> int:
    """``import`` statements inside functions: of the package's own modules, or (``own=False``) of any."""
    modules = module_files(package)
    return sum(
        in_function and (not own or any(True for _ in _targets(module, node, modules)))
        for module, path in modules.items()
        for node, in_function in _imports(ast.parse(path.read_text(encoding="utf-8")), by_name=False)
    )


def graph(found: list[Edge]) -> dict[str, set[str]]:
    arrows: dict[str, set[str]] = {}
    for edge in found:
        arrows.setdefault(edge.source, set()).add(edge.target)
    return arrows


def strongly_connected(arrows: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components with more than one module (iterative: the graph is deep enough to matter)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for start in sorted(arrows):
        if start in index:
            continue
        work = [(start, iter(sorted(arrows.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(arrows.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def shortest_cycle(component: list[str], arrows: dict[str, set[str]]) -> list[str]:
    """A shortest path from the component's first module back to itself (breadth first)."""
    start, members = component[0], set(component)
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(arrows.get(node, set()) & members):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    return component
