"""The layers import downwards only, and the elections need the standard library alone.

``ringleader`` → ``topologies`` → ``actors`` → ``transport``: each package is imported in a
fresh interpreter with every higher package blocked in ``sys.modules``, and every import
statement of every module (also inside functions) is read to check it never names a
higher package.  Then the election classes, the simulator and the safety checker are
imported and run with ``zmq``, ``pykka`` and ``cloudpickle`` blocked.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: From the top down.
LAYERS = ["ringleader", "topologies", "actors", "transport"]


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _imported_names(path: Path) -> list[tuple[int, str]]:
    """Every absolute module name an import statement in ``path`` names, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append((node.lineno, node.module))
    return names


@pytest.mark.parametrize("package", LAYERS)
def test_no_module_imports_a_higher_layer_anywhere(package: str) -> None:
    higher = LAYERS[: LAYERS.index(package)]
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: imports {name}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for line, name in _imported_names(path)
        if name.split(".")[0] in higher
    ]
    assert wrong == []


@pytest.mark.parametrize("package", LAYERS)
def test_each_layer_imports_with_the_higher_ones_blocked(package: str) -> None:
    higher = LAYERS[: LAYERS.index(package)]
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


def test_elections_simulator_and_checker_need_only_the_standard_library() -> None:
    result = _run(
        """
        import sys
        for name in ("zmq", "pykka", "cloudpickle", "transport"):
            sys.modules[name] = None
        before = set(sys.modules)
        import actors
        from actors import ALGORITHMS, Fault, NodeView, simulate

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
            and name.split(".")[0] != "actors"
        )
        print(outside)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
