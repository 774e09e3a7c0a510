"""The project's own import graph, read from the source with ``ast`` (nothing is imported).

Every ``import`` and ``from ... import`` of ``sfltheory/`` and ``verify/`` counts -- at module level, inside a
function, under ``if TYPE_CHECKING:`` -- with relative imports resolved against the importing module. An edge
goes to the most specific module the statement names: ``import a.b.c`` -> ``a.b.c``; ``from a.b import c`` ->
``a.b.c`` when ``c`` is a module, else ``a.b`` (a package, i.e. its ``__init__``). The rules (issue 22):

* the theory half never imports the torch half (``verify`` composes the two: ``verify.app``,
  ``verify.pipeline.main``);
* no cycle among ``sfltheory``'s modules, and ``sfltheory`` imports its own modules at module level only (a
  function-level import is allowed only to keep torch out of a command that does not need it, which the theory
  half never imports);
* no module longer than 600 lines.

``verify`` has no cycle and no module over 600 lines either.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sfltheory", "verify")
MAX_LINES = 600


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` at ``line``; ``local``: inside a function; ``typing``: under TYPE_CHECKING."""

    source: str
    target: str
    line: int
    local: bool
    typing: bool


@cache
def modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of both packages (a package is its ``__init__.py``)."""
    out: dict[str, Path] = {}
    for pkg in PACKAGES:
        for f in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(f.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = f
    return out


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


def _resolve(name: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from`` import reads from (``from ..x import y`` in ``a.b.c`` -> ``a.x``)."""
    if not node.level:
        return node.module or ""
    base = name.split(".") if is_package else name.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _target(dotted: str) -> str | None:
    """The most specific project module ``dotted`` names (None for a module outside both packages)."""
    parts = dotted.split(".")
    while parts and ".".join(parts) not in modules():
        parts.pop()
    return ".".join(parts) or None


def _imports(tree: ast.AST, local: bool = False, typing: bool = False) -> Iterator[tuple[ast.AST, bool, bool]]:
    """Every import statement under ``tree``, with whether it is inside a function and under TYPE_CHECKING."""
    for child in ast.iter_child_nodes(tree):
        in_function = local or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        in_typing = typing or (isinstance(child, ast.If) and _is_type_checking(child))
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, in_function, in_typing
        yield from _imports(child, in_function, in_typing)


@cache
def edges() -> tuple[Edge, ...]:
    """Every import of a project module by a project module (self-imports left out)."""
    out: list[Edge] = []
    for name, path in modules().items():
        is_package = path.name == "__init__.py"
        for node, local, typing in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                named = [a.name for a in node.names]
            else:
                assert isinstance(node, ast.ImportFrom)
                source = _resolve(name, is_package, node)
                # `from a.b import c`: the module a.b.c when there is one, else a name of the package a.b
                named = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules() else source for a in node.names]
            for dotted in named:
                target = _target(dotted)
                if target is not None and target != name:
                    out.append(Edge(name, target, node.lineno, local, typing))
    return tuple(dict.fromkeys(out))


def in_package(module: str, pkg: str) -> bool:
    return module == pkg or module.startswith(pkg + ".")


def cycles(pkg: str) -> list[list[str]]:
    """The strongly connected components of more than one module among ``pkg``'s modules (Tarjan), sorted."""
    graph: dict[str, set[str]] = {m: set() for m in modules() if in_package(m, pkg)}
    for e in edges():
        if e.source in graph and e.target in graph:
            graph[e.source].add(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def _explain(pkg: str, components: list[list[str]]) -> str:
    """Each cycle with the imports that close it (module:line -> module)."""
    lines = []
    for comp in components:
        members = set(comp)
        inner = [e for e in edges() if e.source in members and e.target in members]
        lines.append(" <-> ".join(comp))
        lines += [f"    {e.source}:{e.line} -> {e.target}{' (in a function)' if e.local else ''}" for e in inner]
    return f"import cycles in {pkg}/:\n" + "\n".join(lines)


def long_modules(pkg: str) -> list[str]:
    out = []
    for name, path in modules().items():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if in_package(name, pkg) and n > MAX_LINES:
            out.append(f"{path.relative_to(ROOT)}: {n} lines")
    return out


# --- the reader itself ----------------------------------------------------------------------------------------
def test_the_reader_resolves_relative_and_package_imports() -> None:
    got = {(e.source, e.target) for e in edges()}
    assert ("sfltheory.registry", "sfltheory.userresults") in got  # from .userresults import ...
    assert ("sfltheory.audit.rates", "sfltheory.lexicon") in got  # from .. import lexicon: a module
    assert ("sfltheory.plan.records", "sfltheory.report") in got  # from ..report import ...
    assert ("sfltheory.commands.planning", "sfltheory.plan") in got  # from ..plan import plan: the package
    assert ("verify.app", "sfltheory.cli") in got  # from sfltheory import cli: a module
    assert ("verify.app", "verify.models") in got  # inside a function
    assert not [e for e in edges() if e.source == e.target]


# --- the theory half ------------------------------------------------------------------------------------------
def test_sfltheory_never_imports_verify() -> None:
    bad = [e for e in edges() if in_package(e.source, "sfltheory") and in_package(e.target, "verify")]
    assert not bad, "\n".join(f"{e.source}:{e.line} imports {e.target}" for e in bad)


def test_sfltheory_has_no_import_cycle() -> None:
    found = cycles("sfltheory")
    assert not found, _explain("sfltheory", found)


def test_sfltheory_imports_its_own_modules_at_module_level() -> None:
    # no import inside a function to dodge a cycle: the graph says the order, and the theory half has no torch
    # to keep out of a command
    local = [e for e in edges() if in_package(e.source, "sfltheory") and e.local]
    assert not local, "\n".join(f"{e.source}:{e.line} imports {e.target} inside a function" for e in local)


def test_sfltheory_modules_are_at_most_600_lines() -> None:
    long = long_modules("sfltheory")
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_theory_commands_start_without_torch() -> None:
    # the console script (verify.app) adds the torch half's commands and models without importing torch
    code = "import sys; from verify.app import main; main(['list']); print('torch' in sys.modules, file=sys.stderr)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert p.stderr.strip().splitlines()[-1] == "False"


# --- the torch half ------------------------------------------------------------------------------------------------
def test_verify_has_no_import_cycle() -> None:
    found = cycles("verify")
    assert not found, _explain("verify", found)


def test_verify_modules_are_at_most_600_lines() -> None:
    long = long_modules("verify")
    assert not long, f"modules over {MAX_LINES} lines: {long}"
