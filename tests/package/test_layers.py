"""The layers import downwards only, nothing imports in a circle, and the elections need
the standard library alone.

``ringleader`` (the command, running a cluster, the service API, traces, reports) →
``ringleader.topologies`` → ``ringleader.actors`` → ``ringleader.transport``: every import
statement of every module (also inside functions and under ``TYPE_CHECKING``) is read to
check it never names a higher package, and the module graph they make has no circle.
Each lower package is imported in a fresh interpreter with the higher ones blocked, and
must load none of them.  Then the election classes, the simulator and the safety checker
are imported and run with ``zmq``, ``pykka`` and ``cloudpickle`` blocked.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.paths import ROOT

PACKAGE = ROOT / "ringleader"
#: The layers, from the top down, by package; the top one is everything else.
LOWER = ["ringleader.topologies", "ringleader.actors", "ringleader.transport"]
#: Inside the top layer, from the top down: each may import only those after it.
TOP = [
    "ringleader.cli",
    "ringleader.lab",
    "ringleader.cluster",
    "ringleader.service",
    "ringleader.traces",
    "ringleader.reports",
    "ringleader.errors",
]
#: The front door: it runs first whenever any sub-package is imported, and loads only
#: itself and the helper that imports its names when first asked.
FRONT_DOOR = {"ringleader", "ringleader._lazy"}


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT / "tests",  # not the repository's root: only the installed names
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    """Every module of the package, by its import name (through the layers' links)."""
    found = {}
    for folder, _, files in os.walk(PACKAGE, followlinks=True):
        for file in files:
            if file.endswith(".py"):
                path = Path(folder) / file
                found[_module_name(path)] = path
    return dict(sorted(found.items()))


def _imports(name: str, path: Path) -> list[tuple[int, str]]:
    """Every module name an import statement in ``path`` names, resolved to an absolute
    name, with its line: ``from . import x`` names ``package.x``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _layer(name: str) -> int:
    """0 for the top layer, then one per lower package; -1 outside ringleader."""
    if name != "ringleader" and not name.startswith("ringleader."):
        return -1
    for rank, package in enumerate(LOWER, 1):
        if name == package or name.startswith(package + "."):
            return rank
    return 0


def _part(name: str) -> int | None:
    for rank, package in enumerate(TOP):
        if name == package or name.startswith(package + "."):
            return rank
    return None


def test_no_module_imports_a_higher_layer_anywhere() -> None:
    modules = _modules()
    wrong = []
    for name, path in modules.items():
        mine = _layer(name)
        for line, target in _imports(name, path):
            theirs = _layer(target)
            if 0 <= theirs < mine:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: imports {target}")
            part, their_part = _part(name), _part(target)
            if part is not None and their_part is not None and their_part < part:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: imports {target}")
    assert wrong == []


def test_only_one_import_name_is_used() -> None:
    """Nothing imports the layers by their folders' names (``actors``, ``transport``,
    ``topologies``): the installed package has one name, ``ringleader``."""
    wrong = []
    paths = [
        path
        for folder in ("tests", "benchmarks", "examples", "docs")
        for path in sorted((ROOT / folder).rglob("*.py"))
    ]
    for path in [*_modules().values(), *paths]:
        for line, target in _imports(_module_name(path), path):
            if target.split(".")[0] in ("actors", "transport", "topologies"):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: imports {target}")
    assert wrong == []


def test_no_import_circle_anywhere() -> None:
    """The graph of which module imports which (every statement, type-only ones too) has
    no circle: not between packages, not between two modules of one.  A name imported
    from a package counts as an import of the module that defines it."""
    modules = _modules()
    exports = {name: _reexports(name, path) for name, path in modules.items()}

    def home(target: str) -> str | None:
        """The module ``target`` (a module, or a name in one) comes from."""
        for _ in range(10):  # re-exports of re-exports
            if target in modules:
                return target
            package, _, attribute = target.rpartition(".")
            source = exports.get(package, {}).get(attribute)
            if source is None:
                return package if package in modules else None  # an attribute of a module
            target = source
        return None

    graph = {
        name: {
            t for _, imported in _imports(name, path) if (t := home(imported)) not in (None, name)
        }
        for name, path in modules.items()
    }
    assert _cycles(graph) == []


def _reexports(name: str, path: Path) -> dict[str, str]:
    """For a package: each name its ``__init__`` imports from one of its own modules (at
    the top, or for a package that imports its names when asked, under ``TYPE_CHECKING``)."""
    if path.name != "__init__.py":
        return {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {}
    statements = [*tree.body]
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            statements += node.body
    for node in statements:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{name}.{node.module}.{alias.name}"
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.mark.parametrize("package", LOWER)
def test_each_layer_imports_with_the_higher_ones_blocked(package: str) -> None:
    higher = [*TOP, *LOWER[: LOWER.index(package)]]
    result = _run(
        f"""
        import importlib, pkgutil, sys
        for name in {higher!r}:
            sys.modules[name] = None  # importing it now raises ImportError
        package = importlib.import_module({package!r})
        for module in pkgutil.walk_packages(package.__path__, {package!r} + "."):
            if not module.name.endswith(".__main__"):
                importlib.import_module(module.name)
        print("ok")
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


@pytest.mark.parametrize("package", LOWER)
def test_importing_a_layer_loads_nothing_above_it(package: str) -> None:
    """The front door (``ringleader/__init__.py``) runs first whenever a sub-package is
    imported: it must not pull the stack in."""
    result = _run(
        f"""
        import sys
        import {package}
        print(sorted(name for name in sys.modules if name.startswith("ringleader")))
        """
    )
    assert result.returncode == 0, result.stderr
    loaded = eval(result.stdout)
    above = [name for name in loaded if _layer(name) < _layer(package) and name not in FRONT_DOOR]
    assert above == []


@pytest.mark.parametrize("package", ["ringleader", "ringleader.cluster", "ringleader.service"])
def test_a_lazy_package_gives_every_name_it_lists(package: str) -> None:
    """The front door, and the packages that import their names when first asked."""
    result = _run(
        f"""
        import importlib
        package = importlib.import_module({package!r})
        missing = [name for name in package.__all__ if getattr(package, name, None) is None]
        print(missing, sorted(set(package.__all__) - set(dir(package))))
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[] []"


#: What a module must not load, for each thing that imports only what it needs.
LEAN = {
    # What the launcher of node processes imports before it forks each node.
    "ringleader.service._launcher": [
        "ringleader.cli",
        "ringleader.cluster",
        "ringleader.traces",
        "rich",
        "prometheus_client",
        "asyncio",
        "matplotlib",
        "tomli_w",
    ],
    # ``ringleader run --json`` in threads: the command, its run and its report.
    "ringleader.cli, ringleader.cluster._run, ringleader.reports": [
        "ringleader.service",
        "ringleader.traces",
        "ringleader.cluster._processes",
        "ringleader.cluster._supervisor",
        "rich",
        "prometheus_client",
        "asyncio",
        "matplotlib",
    ],
    # The wire alone.
    "ringleader.transport": ["asyncio", "zmq.auth"],
}


@pytest.mark.parametrize("modules", sorted(LEAN))
def test_each_part_imports_only_what_it_needs(modules: str) -> None:
    """A node process starts from what it imports, and a command from what it needs:
    nothing heavy that they do not use (rich, Prometheus, asyncio, matplotlib …)."""
    result = _run(
        f"""
        import sys
        import {modules}
        print(sorted(sys.modules))
        """
    )
    assert result.returncode == 0, result.stderr
    loaded = eval(result.stdout)
    unwanted = [
        name
        for name in loaded
        if any(name == top or name.startswith(top + ".") for top in LEAN[modules])
    ]
    assert unwanted == []


def test_elections_simulator_and_checker_need_only_the_standard_library() -> None:
    result = _run(
        """
        import sys
        for name in ("zmq", "pykka", "cloudpickle", "ringleader.transport"):
            sys.modules[name] = None
        before = set(sys.modules)
        import ringleader.actors
        from ringleader.actors import ALGORITHMS, Fault, NodeView, simulate

        ids = [4, 9, 2, 7, 5]
        views = [
            NodeView(i, i, (ids[(k + 1) % 5],), (ids[k - 1],), {n: n for n in ids},
                     {"heartbeat": 0.05, "suspect_after": 0.3}, tuple(ids))
            for k, i in enumerate(ids)
        ]
        result = simulate(ALGORITHMS["chang_roberts"], views, [4],
                          faults=[Fault(1.0, "crash", 9)], until=3.0)
        result.safety.check_final(result.elected, set(result.live))
        assert result.leaders == [7] and result.safety.violations == [], result.elected
        outside = sorted(
            name for name, module in sys.modules.items()
            if module is not None and name not in before
            and name.split(".")[0] not in sys.stdlib_module_names
            and name.split(".")[0] != "ringleader"
        )
        print(outside)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
